// Tier 2 on /admin/api. /mcp confirms a Tier-2 call (a preview, then the same call with its confirm_token);
// REST has no such round trip, so an agent token's Tier-2 request there is refused (403) with a pointer to
// /mcp. The rule is the tools' own (mcp/catalog.ts tier2Of), applied by route: every DELETE, every write to
// users and tokens, refunds, broadcasts, and settings or payment-account changes that carry a secret.
// A person (session cookie) confirms in the dashboard and is not concerned.
import { tier2Of } from './mcp/catalog'
import { resourceOfPath } from './scopes'

/** A body this large is no settings or payment-account change; it is not read (the route refuses it). */
const MAX_BODY = 256 * 1024

/** The JSON object a request carries, read from a copy (the route still reads the original); {} otherwise. */
async function bodyOf(request: Request): Promise<Record<string, unknown>> {
  if (Number(request.headers.get('content-length') ?? 0) > MAX_BODY) return {}
  try {
    const text = await request.clone().text()
    if (text.length > MAX_BODY) return {}
    const value = JSON.parse(text) as unknown
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

/** What kind of Tier-2 call this request is ("a deletion"), or null. */
async function tier2Kind(request: Request, path: string): Promise<string | null> {
  const method = request.method
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return null
  if (method === 'DELETE') return 'a deletion'
  const first = path.split('/')[0]
  if (first === 'users' || first === 'tokens') return 'a user, permission or token change'
  if (method === 'POST' && /^orders\/[^/]+\/refund$/.test(path)) return 'a refund'
  if (method === 'POST' && /^email-lists\/[^/]+\/broadcasts$/.test(path)) return 'a bulk send'
  const verb = first === 'settings' ? 'settings.update' : method === 'PATCH' && /^payment-accounts\/[^/]+$/.test(path) ? 'commerce.payment-accounts.update' : null
  if (verb && tier2Of(verb)(await bodyOf(request))) return 'a secret change'
  return null
}

/**
 * The 403 text for an agent token's Tier-2 request to /admin/api, or null when it is not one. A token that
 * lacks the path's write scope gets null here: the admin guard then names the missing scope.
 */
export async function restTier2Refusal(request: Request, scopes: ReadonlySet<string>): Promise<string | null> {
  const pathname = new URL(request.url).pathname
  const resource = resourceOfPath(pathname)
  if (!resource || !scopes.has(`${resource}:write`)) return null
  const kind = await tier2Kind(request, pathname.replace(/^\/admin\/api\/?/, '').replace(/\/+$/, ''))
  return kind && `Tier 2 (${kind}): an agent token makes this call only through /mcp, which previews it and asks for confirmation`
}
