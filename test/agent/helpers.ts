// Shared bits of the agent API tests (test/agent/mcp*.test.ts): agent tokens made through the admin API, an
// official MCP SDK client bound to a token, raw JSON-RPC POSTs to /mcp for the HTTP-level checks, tool-result
// readers that fail loudly on the wrong kind of answer, and the audit log.
import { expect } from 'bun:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { TestServer } from '../helpers/server'

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
/** `svc_ap_` + 32 random bytes in base64url (43 characters, no padding). */
export const TOKEN_FORMAT = /^svc_ap_[A-Za-z0-9_-]{43}$/
/** What a Streamable HTTP client must accept on every POST. */
export const MCP_ACCEPT = 'application/json, text/event-stream'
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const

type Json = Record<string, any>

export interface CreatedToken {
  id: number
  name: string
  token: string
  token_hint: string
  scopes: string[]
  rate_limits: { default: number; ai: number }
  status: string
  created_at: string
  expires_at: string | null
  revoked_at: string | null
  last_used_at: string | null
  last_used_ip: string | null
}

let tokenSeq = 0

/** POST /admin/api/tokens as the owner; fails the test unless it answers 201. */
export async function createToken(
  s: TestServer,
  body: { name?: string; scopes: string[]; expires_at?: string | null; rate_limits?: { default?: number | null; ai?: number | null } },
): Promise<CreatedToken> {
  const res = await s.api('POST', '/admin/api/tokens', { name: `agent-${++tokenSeq}`, ...body })
  if (res.status !== 201) throw new Error(`token create answered ${res.status}: ${res.text}`)
  return res.body as CreatedToken
}

/** A connected SDK client acting with `token`; its tool list is loaded, so callTool checks every outputSchema. */
export async function connect(s: TestServer, token: string, headers: Record<string, string> = {}): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${s.base}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}`, ...headers } },
  })
  const client = new Client({ name: 'svc-agent-test', version: '1.0.0' })
  await client.connect(transport)
  // The client validates structuredContent only against output schemas it has seen in tools/list.
  await client.listTools()
  return { client, transport }
}

/** Runs `body` with a connected client, closing it afterwards. */
export async function withClient<R>(s: TestServer, token: string, body: (client: Client) => Promise<R>): Promise<R> {
  const { client } = await connect(s, token)
  try {
    return await body(client)
  } finally {
    await client.close()
  }
}

export interface RawResponse {
  status: number
  headers: Headers
  body: any
  text: string
}

/**
 * A raw POST /mcp. `token` null sends no Authorization; `message` is JSON-encoded unless it is a string.
 * Accept and Content-Type are the ones the transport requires unless `headers` overrides them.
 */
export async function post(s: TestServer, token: string | null, message: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  const res = await fetch(`${s.base}/mcp`, {
    method: 'POST',
    headers: {
      accept: MCP_ACCEPT,
      'content-type': 'application/json',
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...headers,
    },
    body: typeof message === 'string' ? message : JSON.stringify(message),
  })
  const text = await res.text()
  let body: unknown
  try { body = JSON.parse(text) } catch { body = undefined }
  return { status: res.status, headers: res.headers, body, text }
}

/** The JSON-RPC initialize request of a client speaking `protocolVersion`. */
export const initialize = (protocolVersion: string, id: number | string = 1) => ({
  jsonrpc: '2.0', id, method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw-test', version: '1.0.0' } },
})

/** One JSON-RPC request. */
export const request = (method: string, params?: Json, id: number | string = 1) => ({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) })

interface ToolResult {
  content?: unknown
  structuredContent?: Json
  isError?: boolean
}

/**
 * The structuredContent of a successful tool result, checked against its text content (the same JSON).
 * Fails with the tool's error text when the call was a tool error.
 */
export function structured<T = any>(result: unknown): T {
  const r = result as ToolResult
  if (r.isError) throw new Error(`expected a successful tool result, got an error: ${JSON.stringify(r.content)}`)
  expect(r.structuredContent).toBeObject()
  expect(r.content).toEqual([{ type: 'text', text: JSON.stringify(r.structuredContent) }])
  return r.structuredContent as T
}

/** The text of a tool error (isError true, one text block, no structuredContent). */
export function toolError(result: unknown): string {
  const r = result as ToolResult
  if (!r.isError) throw new Error(`expected a tool error, got: ${JSON.stringify(r)}`)
  expect(r.structuredContent).toBeUndefined()
  const content = r.content as Array<{ type: string; text: string }>
  expect(content).toHaveLength(1)
  expect(content[0]!.type).toBe('text')
  return content[0]!.text
}

/** Calls a tool and returns its structuredContent (fails on a tool error). */
export async function call<T = any>(client: Client, name: string, args: Json = {}): Promise<T> {
  return structured<T>(await client.callTool({ name, arguments: args }))
}

/** Calls a tool and returns its error text (fails unless the call is a tool error). */
export async function callError(client: Client, name: string, args: Json = {}): Promise<string> {
  return toolError(await client.callTool({ name, arguments: args }))
}

export interface AuditItem {
  id: number
  token_id: number | null
  token_name: string | null
  surface: string
  tool: string
  arguments: unknown
  outcome: string
  error: string | null
  duration_ms: number
  ip: string | null
  created_at: string
}

/** GET /admin/api/audit as the owner with these filters (newest first). */
export async function auditOf(s: TestServer, filters: Record<string, string | number> = {}): Promise<AuditItem[]> {
  const query = new URLSearchParams(Object.entries({ limit: 500, ...filters }).map(([k, v]) => [k, String(v)])).toString()
  const res = await s.api('GET', `/admin/api/audit?${query}`)
  if (res.status !== 200) throw new Error(`audit answered ${res.status}: ${res.text}`)
  return res.body.items as AuditItem[]
}

/** The outbox messages of an email list, through the admin API. */
export async function outboxOf(s: TestServer, listId: number): Promise<Array<{ id: number; to: string; subject: string; status: string }>> {
  const res = await s.api('GET', `/admin/api/outbox?list_id=${listId}&limit=500`)
  if (res.status !== 200) throw new Error(`outbox answered ${res.status}: ${res.text}`)
  return res.body.items
}

/** A campaign (with its own offer) made through the admin API; its tracking link is /c/<slug>. */
export async function seedCampaign(s: TestServer, slug: string, payout = 0): Promise<{ campaignId: number; offerId: number; slug: string }> {
  const offer = await s.api('POST', '/admin/api/offers', { name: `Offer ${slug}`, slug: `offer-${slug}`, url: 'https://advertiser.example/go?cid={click_id}', payout })
  if (offer.status !== 201) throw new Error(`offer create answered ${offer.status}: ${offer.text}`)
  const campaign = await s.api('POST', '/admin/api/campaigns', { name: `Campaign ${slug}`, slug, offer_id: offer.body.id })
  if (campaign.status !== 201) throw new Error(`campaign create answered ${campaign.status}: ${campaign.text}`)
  return { campaignId: campaign.body.id, offerId: offer.body.id, slug }
}

/** A real tracking click on /c/<slug>: its click_id, read from the offer URL the 302 points to. */
export async function click(s: TestServer, slug: string): Promise<string> {
  const res = await fetch(`${s.base}/c/${slug}`, { redirect: 'manual' })
  if (res.status !== 302) throw new Error(`/c/${slug} answered ${res.status}`)
  const clickId = new URL(res.headers.get('location')!).searchParams.get('cid')
  if (!clickId) throw new Error(`no click id in ${res.headers.get('location')}`)
  return clickId
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * A Tier-2 tool call made in full: the first call must answer a preview (nothing done), then the same
 * arguments plus its confirm_token act. Returns the raw result of the confirmed call (structured() or toolError() it).
 */
export async function callConfirmed(client: Client, name: string, args: Json = {}): Promise<unknown> {
  const preview = await call<{ confirmation_required: boolean; confirm_token: string }>(client, name, args)
  expect(preview.confirmation_required).toBe(true)
  return client.callTool({ name, arguments: { ...args, confirm_token: preview.confirm_token } })
}

/** The 403 body text of an agent token's Tier-2 request to /admin/api (it must go through /mcp). */
export const TIER2_REST = (kind: string) => `Tier 2 (${kind}): an agent token makes this call only through /mcp, which previews it and asks for confirmation`
