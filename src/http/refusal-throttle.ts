// The 401 throttle of the /webhook/* receivers (issue 25): refused deliveries (bad signature, bad token) a
// minute per address, an IPv6 /64 counted as one, before the next ones from that address get 429 with
// Retry-After. Only refusals count: a sender whose deliveries verify is never slowed down by it. It bounds
// what guessing a secret costs the server (and its logs); the 16-character minimum is what protects the secret.
import { errorResponse } from './errors'
import { clientIp, clientKey } from '../lib/ip'
import { RateLimiter } from '../lib/rate-limit'

export const WEBHOOK_REFUSALS_PER_MINUTE = 20

type Server = { requestIP(r: Request): { address: string } | null } | null | undefined

export class RefusalThrottle {
  private readonly limiter = new RateLimiter(WEBHOOK_REFUSALS_PER_MINUTE, 60_000)
  constructor(private readonly trustProxy: boolean) {}

  /** The address a request's refusals count against (clientKey: an IPv6 /64 is one). */
  clientOf(request: Request, server: Server): string {
    const ip = clientIp(request.headers, server?.requestIP(request)?.address, this.trustProxy)
    return clientKey(ip) ?? ip ?? 'unknown'
  }

  /** Whether this address is over its refusals already (nothing is counted). */
  over(client: string): boolean {
    return !this.limiter.check(client).allowed
  }

  /** The 429 for an address over its refusals. */
  tooMany(client: string): Response {
    return this.answer429(this.limiter.check(client).retryAfter)
  }

  /** Counts one refusal: `refusal` (the 401) while under the limit, the 429 past it. */
  refused(client: string, refusal: Response): Response {
    const decision = this.limiter.hit(client)
    return decision.allowed ? refusal : this.answer429(decision.retryAfter)
  }

  private answer429(retryAfter: number): Response {
    return errorResponse(429, 'too many refused deliveries from this address; retry later', { 'retry-after': String(Math.max(1, retryAfter)), 'cache-control': 'no-store' })
  }
}
