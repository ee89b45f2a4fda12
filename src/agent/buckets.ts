// Per-token rate limits in two buckets (spec §5): `default` for ordinary calls, `ai` for expensive ones
// (long reports, exports, imports, sends). Per instance, like every limit of spec §8, on the one limiter.
import type { AgentIdentity } from '../lib/permissions'
import { RateLimiter, type RateDecision } from '../lib/rate-limit'
import type { Bucket } from './mcp/catalog'

const MINUTE_MS = 60_000

export class AgentBuckets {
  /** One limiter per (bucket, limit): tokens with the same limit share it, each under its own key. */
  private readonly limiters = new Map<string, RateLimiter>()

  hit(agent: AgentIdentity, bucket: Bucket, now = Date.now()): RateDecision & { limit: number } {
    const limit = agent.rates[bucket]
    const key = `${bucket}:${limit}`
    let limiter = this.limiters.get(key)
    if (!limiter) this.limiters.set(key, (limiter = new RateLimiter(limit, MINUTE_MS)))
    return { ...limiter.hit(String(agent.tokenId), now), limit }
  }
}
