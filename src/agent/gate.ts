// The door of agent tokens, shared by /mcp and /admin/api (AppContext.agents): bearer token → acting user,
// and the per-token rate buckets.
import type { AdminUser, AgentIdentity } from '../auth/permissions'
import { rateLimited } from '../lib/errors'
import { AgentBuckets } from './buckets'
import type { Bucket } from './mcp/catalog'
import { AgentTokens } from './tokens'
import type { AgentStore } from './store/types'

export class AgentGate {
  readonly tokens: AgentTokens
  readonly buckets = new AgentBuckets()

  constructor(readonly store: AgentStore) {
    this.tokens = new AgentTokens(store)
  }

  /** The acting user of a bearer token (401 with a Bearer challenge when it is not a live token). */
  authenticate(token: string, ip: string | null): Promise<AdminUser> {
    return this.tokens.authenticate(token, ip)
  }

  /** An admin API request of a token counts in its default bucket: 429 with Retry-After past the limit. */
  charge(agent: AgentIdentity, bucket: Bucket = 'default'): void {
    const decision = this.buckets.hit(agent, bucket)
    if (!decision.allowed) throw rateLimited(decision.retryAfter)
  }
}
