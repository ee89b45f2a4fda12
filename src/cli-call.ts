// `svc call TOOL --args JSON`: one agent tool on a running server, through /mcp with an agent token. The CLI
// reaches the same verbs as the admin API, the MCP tools and the dashboard (each verb is a tool), with the
// token's scopes and rate buckets; a Tier-2 tool answers with its confirmation as it does to any agent.

export interface CallOutcome { ok: boolean; text: string }

const PROTOCOL = '2025-06-18'

/** Sends `tools/call` and returns what to print: the tool's JSON answer, or its error. Never throws for a refusal. */
export async function callTool(target: { url: string; token: string }, tool: string, args: Record<string, unknown>): Promise<CallOutcome> {
  let res: Response
  try {
    res = await fetch(`${target.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${target.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream',
        'mcp-protocol-version': PROTOCOL,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } }),
    })
  } catch (err) {
    return { ok: false, text: `cannot reach ${target.url}: ${(err as Error).message}` }
  }
  const body = await res.text()
  if (!res.ok) return { ok: false, text: `${res.status}: ${errorOf(body) ?? body.slice(0, 500)}` }
  // The answer comes as JSON, or as one server-sent event whose data is the JSON.
  const json = res.headers.get('content-type')?.startsWith('text/event-stream')
    ? body.split('\n').find((l) => l.startsWith('data: '))?.slice(6) ?? ''
    : body
  let message: { error?: { message: string }; result?: { isError?: boolean; structuredContent?: unknown; content?: Array<{ type: string; text?: string }> } }
  try {
    message = JSON.parse(json)
  } catch {
    return { ok: false, text: `the server's answer is not JSON-RPC: ${body.slice(0, 200)}` }
  }
  if (message.error) return { ok: false, text: message.error.message }
  const result = message.result ?? {}
  const text = result.content?.filter((c) => c.type === 'text').map((c) => c.text).join('\n') ?? ''
  if (result.isError) return { ok: false, text }
  return { ok: true, text: result.structuredContent !== undefined ? JSON.stringify(result.structuredContent, null, 2) : text }
}

function errorOf(body: string): string | null {
  try {
    const v = JSON.parse(body) as { error?: unknown }
    return typeof v.error === 'string' ? v.error : typeof (v.error as { message?: unknown })?.message === 'string' ? (v.error as { message: string }).message : null
  } catch {
    return null
  }
}

/** --args: a JSON object (the tool's arguments); absent: {}. */
export function parseToolArgs(raw: string | undefined): Record<string, unknown> | string {
  if (raw === undefined) return {}
  try {
    const v = JSON.parse(raw)
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : '--args must be a JSON object, e.g. --args \'{"state":"reached"}\''
  } catch {
    return '--args is not JSON (quote it: --args \'{"campaign_id":1}\')'
  }
}
