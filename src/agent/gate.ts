// The door of agent tokens, shared by /mcp and /admin/api (AppContext.agents): bearer token → acting user,
// and the per-token rate buckets.
import type { AdminUser, AgentIdentity } from '../lib/permissions'
import { forbidden, rateLimited } from '../lib/errors'
import { AuditLog } from './audit'
import { AgentBuckets } from './buckets'
import type { Bucket } from './mcp/catalog'
import { restTier2Refusal } from './rest-tier2'
import { AgentTokens } from './tokens'
import type { AgentStore } from './store/types'

/** A bearer request to /admin/api in flight: who, from where, since when (for its audit row). */
interface RestCall { agent: AgentIdentity; ip: string | null; startedAt: number }

/** HTTP status → audit outcome. */
const outcomeOf = (status: number) =>
  status < 400 ? 'ok' : status === 403 ? 'denied' : status === 429 ? 'rate_limited' : 'error'

export class AgentGate {
  readonly tokens: AgentTokens
  readonly buckets = new AgentBuckets()
  readonly audit: AuditLog
  private readonly restCalls = new WeakMap<Request, RestCall>()

  constructor(readonly store: AgentStore) {
    this.tokens = new AgentTokens(store)
    this.audit = new AuditLog(store)
  }

  /**
   * The acting user of a bearer request to /admin/api, counted in its default bucket (429 past it); a Tier-2
   * request is refused (403: it goes through /mcp). The call is remembered for its audit row (restAnswered),
   * denied and rate-limited ones included.
   */
  async authenticateRest(request: Request, token: string, ip: string | null): Promise<AdminUser> {
    const user = await this.authenticate(token, ip)
    this.restCalls.set(request, { agent: user.agent!, ip, startedAt: Date.now() })
    this.charge(user.agent!)
    // Tier-2 calls need the confirmation only /mcp asks for (rest-tier2.ts).
    const refusal = await restTier2Refusal(request, user.agent!.scopes)
    if (refusal) throw forbidden(refusal)
    return user
  }

  /**
   * After an /admin/api answer (the admin guard's afterResponse): the audit row of a bearer request. A request
   * without a live token has none (nothing to attribute it to). Written in the background; drain() awaits it.
   */
  restAnswered(request: Request, status: number, body: unknown): void {
    const call = this.restCalls.get(request)
    if (!call) return
    this.restCalls.delete(request)
    const url = new URL(request.url)
    const args: Record<string, unknown> = Object.fromEntries(url.searchParams)
    if (body !== undefined && body !== null && typeof body === 'object' && !(body instanceof Uint8Array)) args.body = body
    this.audit.recordLater({
      tokenId: call.agent.tokenId, tokenName: call.agent.name, surface: 'rest', tool: `${request.method} ${url.pathname.slice(0, 200)}`,
      args, outcome: outcomeOf(status), error: status >= 400 ? `HTTP ${status}` : null, ip: call.ip, startedAt: call.startedAt,
    })
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
