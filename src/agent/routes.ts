// HTTP surface of the agent feature: /mcp (the agent API) and the admin collections `tokens` and `audit`
// (section users). Thin: parse, call a verb or the MCP handler, shape the answer.
import { Elysia } from 'elysia'
import type { AppContext } from '../context'
import { adminGuard } from '../http/admin-guard'
import { docQuery } from '../http/api-docs'
import { appErrorResponse, errorResponse } from '../http/errors'
import { firstParam as first, idParams, okResponse, pageQuery, parseId } from '../http/collection'
import { AppError } from '../lib/errors'
import { clientIp } from '../lib/ip'
import { adminActor, invoke } from '../lib/verb'
import type { AgentUser, McpDeps } from './mcp/server'
import { bearerOf } from './tokens'
import { TokenCreate, TokenPatch, type AgentVerbs } from './verbs'

const tokenId = (raw: string) => parseId(raw, 'token')

const auditQuery = docQuery({
  token_id: 'calls of this token',
  tool: 'calls of this tool (e.g. create_campaign, resources/read)',
  outcome: 'ok, error, denied, rate_limited, confirmation_required or replayed',
  surface: 'mcp',
  from: 'calls at or after this time (ISO 8601)',
  to: 'calls before this time (ISO 8601)',
  limit: pageQuery.properties.limit.description!,
  cursor: pageQuery.properties.cursor.description!,
})

export function tokenRoutes(ctx: AppContext, verbs: AgentVerbs) {
  const tags = ['tokens']
  const v = verbs.tokens
  return new Elysia({ name: 'agent-admin' })
    .use(adminGuard(ctx))
    .get('/admin/api/tokens', ({ admin, query }) => invoke(v.list, adminActor(admin), query),
      { permission: 'users:read', query: pageQuery, detail: { tags, summary: v.list.summary } })
    .get('/admin/api/tokens/scopes', ({ admin }) => invoke(v.scopes, adminActor(admin), {}),
      { permission: 'users:read', detail: { tags, summary: v.scopes.summary } })
    .post('/admin/api/tokens', async ({ admin, body, set }) => {
      const created = await invoke(v.create, adminActor(admin), body)
      set.status = 201
      // The token is in this answer only: no proxy or browser may keep a copy.
      set.headers['cache-control'] = 'no-store'
      return created
    }, { permission: 'users:write', body: TokenCreate, detail: { tags, summary: v.create.summary } })
    .get('/admin/api/tokens/:id', ({ admin, params }) => invoke(v.get, adminActor(admin), { id: tokenId(params.id) }),
      { permission: 'users:read', params: idParams, detail: { tags, summary: v.get.summary } })
    .patch('/admin/api/tokens/:id', ({ admin, params, body }) => invoke(v.update, adminActor(admin), { ...body, id: tokenId(params.id) }),
      { permission: 'users:write', params: idParams, body: TokenPatch, detail: { tags, summary: v.update.summary } })
    .delete('/admin/api/tokens/:id', ({ admin, params }) => invoke(v.delete, adminActor(admin), { id: tokenId(params.id) }),
      { permission: 'users:write', params: idParams, response: okResponse, detail: { tags, summary: v.delete.summary } })
    .get('/admin/api/audit', ({ admin, query }) => invoke(verbs.audit.list, adminActor(admin), {
      token_id: first(query.token_id), tool: first(query.tool), outcome: first(query.outcome), surface: first(query.surface),
      from: first(query.from), to: first(query.to), limit: first(query.limit), cursor: first(query.cursor),
    }), { permission: 'users:read', query: auditQuery, detail: { tags: ['audit'], summary: verbs.audit.list.summary } })
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/

/**
 * DNS rebinding: a web page on a foreign name that resolves to this server would send its own name as both
 * Host and Origin, so the Host header proves nothing. An Origin is accepted only when it is SVC_PUBLIC_URL's
 * origin, or a loopback origin naming this very host and port (a page served by this server locally).
 * Clients outside a browser send no Origin.
 */
function originAllowed(ctx: AppContext, request: Request): boolean {
  const origin = request.headers.get('origin')
  if (origin === null) return true
  let url: URL
  try { url = new URL(origin) } catch { return false }
  if (ctx.config.publicUrl) {
    try { if (new URL(ctx.config.publicUrl).origin === url.origin) return true } catch { /* checked by config */ }
  }
  return LOOPBACK.test(url.hostname) && url.host === (request.headers.get('host') ?? '').toLowerCase()
}

const BEARER_CHALLENGE = 'Bearer realm="svc"'
const METHOD_NOT_ALLOWED = () => errorResponse(405, 'method not allowed: the agent API takes POST (stateless Streamable HTTP; no server stream)', { allow: 'POST' })

export function mcpRoutes(ctx: AppContext, deps: McpDeps) {
  return new Elysia({ name: 'agent-mcp' })
    .post('/mcp', async ({ request, server }) => {
      const bearer = bearerOf(request)
      const ip = clientIp(request.headers, server?.requestIP(request)?.address, ctx.config.trustProxy)
      if (!originAllowed(ctx, request)) {
        // A live token refused for its Origin is still an agent call: it gets its audit row.
        const known = bearer === null ? null : await ctx.agents.tokens.identify(bearer)
        if (known) {
          await ctx.agents.audit.record({
            tokenId: known.id, tokenName: known.name, surface: 'mcp', tool: 'POST /mcp', args: { origin: request.headers.get('origin')!.slice(0, 200) },
            outcome: 'denied', error: 'origin not allowed', ip, startedAt: Date.now(),
          })
        }
        return errorResponse(403, 'origin not allowed')
      }
      if (bearer === null) return errorResponse(401, 'missing bearer token (Authorization: Bearer svc_ap_…)', { 'www-authenticate': BEARER_CHALLENGE })
      let user: AgentUser
      try {
        user = (await ctx.agents.authenticate(bearer, ip)) as AgentUser
      } catch (err) {
        if (err instanceof AppError) return appErrorResponse(err)
        throw err
      }
      // A long tool call (a big report) must not be cut by the server's idle timeout.
      server?.timeout(request, 0)
      // The MCP SDK (and its schemas) loads on the first /mcp call: ~5 MB of heap a tracker without agents never needs.
      const { handleMcpPost } = await import('./mcp/server')
      return handleMcpPost(request, user, ip, deps)
    }, { parse: 'none', detail: { tags: ['agent'], summary: 'Agent API: MCP Streamable HTTP (JSON-RPC in, JSON out), bearer token svc_ap_…' } })
    .get('/mcp', METHOD_NOT_ALLOWED, { detail: { tags: ['agent'], summary: 'No server stream: 405 (the transport allows it; clients then use POST only)' } })
    .delete('/mcp', METHOD_NOT_ALLOWED, { detail: { tags: ['agent'], summary: 'No sessions: 405' } })
}
