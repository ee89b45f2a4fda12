// POST /mcp: the Model Context Protocol over Streamable HTTP (revision 2025-11-25; 2025-06-18 and 2025-03-26
// negotiated too), through the official SDK's web-standard transport, stateless: every POST gets a fresh
// SDK Server bound to the caller's token, JSON answers, no session (any instance behind a balancer can
// answer any request; GET has no server stream to open, so it is 405). The SDK validates the JSON-RPC
// envelope, Accept, Content-Type and MCP-Protocol-Version; svc checks the bearer token and Origin first. JSON
// answers unless the client ranks text/event-stream first (then one SSE stream per request, ending with the answer).
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { DEFAULT_MAX_REQUEST_BODY_SIZE, readRequestBody, requestBodyTooLargeMessage } from '@modelcontextprotocol/sdk/server/requestBody.js'
import {
  CallToolRequestSchema, ErrorCode, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ListToolsRequestSchema, McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import type { AdminUser, AgentIdentity } from '../../lib/permissions'
import { AppError } from '../../lib/errors'
import { VERSION } from '../../version'
import type { AuditLog } from '../audit'
import type { AgentBuckets } from '../buckets'
import type { Verb } from '../../lib/verb'
import type { Tool } from './catalog'
import type { AgentCalls } from './calls'
import { MAX_ARGUMENT_DEPTH, nestedDeeperThan } from './confirm'
import { readResource, ResourceNotFound, RESOURCE_TEMPLATES, STATIC_RESOURCES } from './resources'

export type AgentUser = AdminUser & { agent: AgentIdentity }

export interface McpDeps {
  tools: () => ReadonlyMap<string, Tool>
  verbs: () => ReadonlyMap<string, Verb>
  calls: AgentCalls
  audit: AuditLog
  buckets: AgentBuckets
}

const INSTRUCTIONS = [
  'svc is a click tracker: campaigns send traffic from sources to offers (optionally through landings); each click gets a click_id, conversions arrive by postback and are attributed to campaign, source, landing and offer.',
  'Start with get_report for performance questions, list_campaigns for what is running. Tools you see are the ones this token\'s scopes allow.',
  'Tier-2 tools (deletions, secret changes, refunds, bulk sends, user, permission and token changes) answer a preview and a confirm_token first; call again with the same arguments plus confirm_token to act.',
].join(' ')

/** A fresh SDK server for one request, acting as `user`. */
function serverFor(user: AgentUser, ip: string | null, deps: McpDeps): Server {
  const server = new Server(
    { name: 'svc', version: VERSION, title: 'svc click tracker' },
    { capabilities: { tools: { listChanged: false }, resources: { listChanged: false, subscribe: false } }, instructions: INSTRUCTIONS },
  )
  const allowed = () => [...deps.tools().values()].filter((t) => user.agent.scopes.has(t.scope))

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: allowed().map((t) => ({
      name: t.name, title: t.annotations.title, description: t.description, inputSchema: t.inputSchema as never, outputSchema: t.outputSchema as never,
      annotations: t.annotations, _meta: { 'svc/scope': t.scope, 'svc/bucket': t.bucket },
    })),
  }))

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = deps.tools().get(request.params.name)
    const args = (request.params.arguments ?? {}) as Record<string, unknown>
    if (!tool) {
      await deps.audit.record({ tokenId: user.agent.tokenId, tokenName: user.agent.name, surface: 'mcp', tool: request.params.name.slice(0, 128), args, outcome: 'error', error: 'unknown tool', ip, startedAt: Date.now() })
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`)
    }
    if (nestedDeeperThan(args)) {
      // Refused before anything walks them (confirmation signatures, previews, the verb's schema check).
      const text = `arguments nested deeper than ${MAX_ARGUMENT_DEPTH} levels`
      await deps.audit.record({ tokenId: user.agent.tokenId, tokenName: user.agent.name, surface: 'mcp', tool: tool.name, args, outcome: 'error', error: text, ip, startedAt: Date.now() })
      throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${text}`)
    }
    return (await deps.calls.call(user, tool, args, ip)) as never
  })

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: STATIC_RESOURCES }))
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: RESOURCE_TEMPLATES }))
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri
    const startedAt = Date.now()
    const audit = (outcome: string, error: string | null) =>
      deps.audit.record({ tokenId: user.agent.tokenId, tokenName: user.agent.name, surface: 'mcp', tool: `resources/read`, args: { uri }, outcome, error, ip, startedAt })
    // A report is as expensive as get_report: the ai bucket; the others the default one.
    const bucket = uri.startsWith('svc://reports/') ? 'ai' : 'default'
    const rate = deps.buckets.hit(user.agent, bucket)
    if (!rate.allowed) {
      const text = `rate_limited: the ${bucket} bucket of this token allows ${rate.limit} calls a minute; retry in ${rate.retryAfter} s`
      await audit('rate_limited', text)
      throw new McpError(ErrorCode.InvalidRequest, text, { uri, retry_after: rate.retryAfter })
    }
    try {
      const json = await readResource(uri, user, deps.verbs())
      await audit('ok', null)
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(json) }] }
    } catch (err) {
      if (err instanceof ResourceNotFound) { await audit('error', err.message); throw new McpError(-32002, err.message, { uri }) }
      if (err instanceof AppError) { await audit(err.code === 'forbidden' ? 'denied' : 'error', err.message); throw new McpError(ErrorCode.InvalidParams, `${err.code}: ${err.message}`, { uri }) }
      throw err
    }
  })
  return server
}

/**
 * Whether the client asks for an SSE answer first: `text/event-stream` ranked above `application/json` by
 * q-value, or listed before it at equal rank. Every client must accept both; most list JSON first.
 */
export function prefersEventStream(accept: string | null): boolean {
  let json = -1
  let sse = -1
  let order = 0
  let jsonAt = 0
  let sseAt = 0
  for (const part of (accept ?? '').split(',')) {
    const [type, ...params] = part.trim().toLowerCase().split(';')
    const q = Number(params.map((p) => p.trim()).find((p) => p.startsWith('q='))?.slice(2) ?? '1')
    const rank = Number.isFinite(q) ? q : 0
    order++
    if (type === 'application/json' && rank > json) { json = rank; jsonAt = order }
    if (type === 'text/event-stream' && rank > sse) { sse = rank; sseAt = order }
  }
  return sse > json || (sse === json && sse > 0 && sseAt < jsonAt)
}

/** A JSON-RPC error answer, shaped as the SDK's own (id null: the request was not read as a message). */
const jsonRpcError = (status: number, code: number, message: string) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), { status, headers: { 'content-type': 'application/json' } })

/** A JSON array body: a batch (a body that is not JSON is left to the SDK's parse error). */
function isBatch(text: string): boolean {
  if (!text.trimStart().startsWith('[')) return false
  try { return Array.isArray(JSON.parse(text)) } catch { return false }
}

/** Answers one POST /mcp for an authenticated agent: JSON, or one SSE stream ending with the answer when the client prefers it. */
export async function handleMcpPost(request: Request, user: AgentUser, ip: string | null, deps: McpDeps): Promise<Response> {
  const read = await readRequestBody(request)
  if (read.tooLarge) return jsonRpcError(413, -32000, requestBodyTooLargeMessage(DEFAULT_MAX_REQUEST_BODY_SIZE))
  if (isBatch(read.text)) {
    return jsonRpcError(400, ErrorCode.InvalidRequest, 'Invalid Request: JSON-RPC batches are not supported (protocol revision 2025-06-18 removed them); send one message per POST')
  }
  // The SDK reads the body once more from this copy and answers everything else (parse errors included) itself.
  request = new Request(request.url, { method: request.method, headers: request.headers, body: read.text })
  const server = serverFor(user, ip, deps)
  const sse = prefersEventStream(request.headers.get('accept'))
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: !sse })
  await server.connect(transport)
  if (sse) {
    // The stream is still being written when handleRequest resolves; the transport closes it after the answer.
    return transport.handleRequest(request)
  }
  try {
    return await transport.handleRequest(request)
  } finally {
    // Stateless: nothing outlives the request (a JSON answer is complete once handleRequest resolves).
    await server.close().catch(() => {})
  }
}
