// POST /mcp: the Model Context Protocol over Streamable HTTP (revision 2025-11-25; 2025-06-18 and 2025-03-26
// negotiated too), through the official SDK's web-standard transport, stateless: every POST gets a fresh
// SDK Server bound to the caller's token, JSON answers, no session (any instance behind a balancer can
// answer any request; GET has no server stream to open, so it is 405). The SDK validates the JSON-RPC
// envelope, Accept, Content-Type and MCP-Protocol-Version; svc checks the bearer token and Origin first.
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import {
  CallToolRequestSchema, ErrorCode, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ListToolsRequestSchema, McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import type { AdminUser, AgentIdentity } from '../../auth/permissions'
import { AppError } from '../../lib/errors'
import { VERSION } from '../../version'
import type { AuditLog } from '../audit'
import type { Verb } from '../../lib/verb'
import type { Tool } from './catalog'
import type { AgentCalls } from './calls'
import { readResource, ResourceNotFound, RESOURCE_TEMPLATES, STATIC_RESOURCES } from './resources'

export type AgentUser = AdminUser & { agent: AgentIdentity }

export interface McpDeps {
  tools: () => ReadonlyMap<string, Tool>
  verbs: () => ReadonlyMap<string, Verb>
  calls: AgentCalls
  audit: AuditLog
}

const INSTRUCTIONS = [
  'svc is a click tracker: campaigns send traffic from sources to offers (optionally through landings); each click gets a click_id, conversions arrive by postback and are attributed to campaign, source, landing and offer.',
  'Start with get_report for performance questions, list_campaigns for what is running. Tools you see are the ones this token\'s scopes allow.',
  'Tier-2 tools (deletions, secret changes, refunds, bulk sends) answer a preview and a confirm_token first; call again with the same arguments plus confirm_token to act.',
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
    return (await deps.calls.call(user, tool, args, ip)) as never
  })

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: STATIC_RESOURCES }))
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: RESOURCE_TEMPLATES }))
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri
    const startedAt = Date.now()
    const audit = (outcome: string, error: string | null) =>
      deps.audit.record({ tokenId: user.agent.tokenId, tokenName: user.agent.name, surface: 'mcp', tool: `resources/read`, args: { uri }, outcome, error, ip, startedAt })
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

/** Answers one POST /mcp for an authenticated agent. */
export async function handleMcpPost(request: Request, user: AgentUser, ip: string | null, deps: McpDeps): Promise<Response> {
  const server = serverFor(user, ip, deps)
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true })
  await server.connect(transport)
  try {
    return await transport.handleRequest(request)
  } finally {
    // Stateless: nothing outlives the request (a JSON answer is complete once handleRequest resolves).
    await server.close().catch(() => {})
  }
}
