// The agent API (/mcp) end to end on a real server, on either engine (SVC_TEST_ENGINE=postgres for Postgres):
// the HTTP door (bearer token, Origin, methods), the MCP protocol through the official SDK client and raw
// JSON-RPC, tools listed by scope with full metadata, tool calls answering the REST shapes, tool errors an
// agent can read, per-token rate buckets, the audit log and the resources. Tier-2 confirmations: mcp-tier2.test.ts.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { VERSION } from '../../src/version'
import { startServer, type TestServer } from '../helpers/server'
import {
  auditOf, call, callConfirmed, callError, click, connect, createToken, initialize, ISO, post, PROTOCOL_VERSIONS, request, seedCampaign,
  sleep, structured, TOKEN_FORMAT, toolError, withClient,
} from './helpers'

let s: TestServer
/** A token holding every scope, with room for every call of this file (the buckets are tested with tokens of their own). */
let all: Awaited<ReturnType<typeof createToken>>

beforeAll(async () => {
  s = await startServer()
  all = await createToken(s, { name: 'all-scopes', scopes: ['all'], rate_limits: { default: 10_000, ai: 10_000 } })
})
afterAll(() => s.destroy())

const SERVER_INFO = { name: 'svc', title: 'svc click tracker', version: VERSION }
const CAPABILITIES = { tools: { listChanged: false }, resources: { listChanged: false, subscribe: false } }

describe('POST /mcp: the door', () => {
  test('no Authorization (or one of another kind): 401, WWW-Authenticate Bearer, JSON error naming the header', async () => {
    for (const headers of [{}, { authorization: 'Basic b3duZXI6cHc=' }, { authorization: 'Bearer' }] as Array<Record<string, string>>) {
      const res = await post(s, null, initialize('2025-11-25'), headers)
      expect({ headers, status: res.status, body: res.body }).toEqual({ headers, status: 401, body: { error: 'missing bearer token (Authorization: Bearer svc_ap_…)' } })
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="svc"')
      expect(res.headers.get('content-type')).toBe('application/json')
    }
  })

  test('an unknown token, well-formed or not: 401 "invalid token" with a Bearer invalid_token challenge', async () => {
    for (const bad of [`svc_ap_${'A'.repeat(43)}`, 'not-an-svc-token', all.token.slice(0, -1) + (all.token.endsWith('A') ? 'B' : 'A')]) {
      const res = await post(s, bad, initialize('2025-11-25'))
      expect({ bad, status: res.status, body: res.body }).toEqual({ bad, status: 401, body: { error: 'invalid token' } })
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="svc", error="invalid_token", error_description="invalid token"')
    }
  })

  test('a revoked token stops working at once: 401 "token revoked"; the token reads status revoked', async () => {
    const t = await createToken(s, { scopes: ['campaigns:read'] })
    expect((await post(s, t.token, initialize('2025-11-25'))).status).toBe(200)
    expect(await s.api('DELETE', `/admin/api/tokens/${t.id}`)).toMatchObject({ status: 200, body: { ok: true } })
    const res = await post(s, t.token, initialize('2025-11-25'))
    expect(res.status).toBe(401)
    expect(res.body).toEqual({ error: 'token revoked' })
    expect(res.headers.get('www-authenticate')).toStartWith('Bearer ')
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"')
    const got = await s.api('GET', `/admin/api/tokens/${t.id}`)
    expect(got.body).toMatchObject({ id: t.id, status: 'revoked', revoked_at: expect.stringMatching(ISO) })
  })

  test('an expired token: works until expires_at, then 401 "token expired"', async () => {
    const t = await createToken(s, { scopes: ['campaigns:read'], expires_at: new Date(Date.now() + 1500).toISOString() })
    expect(t.status).toBe('active')
    expect((await post(s, t.token, initialize('2025-11-25'))).status).toBe(200)
    await sleep(Math.max(0, Date.parse(t.expires_at!) - Date.now()) + 100)
    const res = await post(s, t.token, initialize('2025-11-25'))
    expect(res.status).toBe(401)
    expect(res.body).toEqual({ error: 'token expired' })
    expect(res.headers.get('www-authenticate')).toStartWith('Bearer ')
    expect((await s.api('GET', `/admin/api/tokens/${t.id}`)).body.status).toBe('expired')
  })

  test('GET and DELETE /mcp: 405 with Allow: POST and a JSON error (no server stream, no sessions)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${s.base}/mcp`, { method, headers: { authorization: `Bearer ${all.token}`, accept: 'text/event-stream' } })
      expect({ method, status: res.status, allow: res.headers.get('allow') }).toEqual({ method, status: 405, allow: 'POST' })
      expect(res.headers.get('content-type')).toBe('application/json')
      expect(await res.json()).toEqual({ error: 'method not allowed: the agent API takes POST (stateless Streamable HTTP; no server stream)' })
    }
  })

  test('a foreign Origin is refused before anything else (403); the own origin and no Origin pass', async () => {
    for (const origin of ['https://evil.example', 'null', `http://127.0.0.1:${s.port + 1}`, 'http://localhost']) {
      for (const token of [all.token, null]) {
        const res = await post(s, token, initialize('2025-11-25'), { origin })
        expect({ origin, token: token !== null, status: res.status, body: res.body }).toEqual({ origin, token: token !== null, status: 403, body: { error: 'origin not allowed' } })
      }
    }
    const own = await post(s, all.token, initialize('2025-11-25'), { origin: s.base })
    expect(own.status).toBe(200)
    expect(own.body.result.protocolVersion).toBe('2025-11-25')
    expect((await post(s, all.token, initialize('2025-11-25'))).status).toBe(200)
  })

  test('DNS rebinding: a foreign name sent as both Host and Origin is refused; SVC_PUBLIC_URL\'s origin is accepted', async () => {
    const rebound = await post(s, all.token, initialize('2025-11-25'), { host: `evil.example:${s.port}`, origin: `http://evil.example:${s.port}` })
    expect({ status: rebound.status, body: rebound.body }).toEqual({ status: 403, body: { error: 'origin not allowed' } })
    const pub = await startServer({ SVC_PUBLIC_URL: 'https://track.example.com' })
    try {
      const t = await createToken(pub, { scopes: ['campaigns:read'] })
      expect((await post(pub, t.token, initialize('2025-11-25'), { origin: 'https://track.example.com' })).status).toBe(200)
      expect((await post(pub, t.token, initialize('2025-11-25'), { origin: 'https://other.example.com' })).status).toBe(403)
    } finally {
      await pub.destroy()
    }
  })

  test('the transport rules of the SDK hold behind the token: Accept, Content-Type, JSON', async () => {
    const ping = request('ping')
    const noAccept = await post(s, all.token, ping, { accept: 'application/json' })
    expect(noAccept.status).toBe(406)
    expect(noAccept.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null })
    const text = await post(s, all.token, ping, { 'content-type': 'text/plain' })
    expect(text.status).toBe(415)
    expect(text.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null })
    const broken = await post(s, all.token, '{"jsonrpc":"2.0",')
    expect(broken.status).toBe(400)
    expect(broken.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 }, id: null })
  })
})

describe('the protocol', () => {
  test('initialize echoes each supported protocol version with serverInfo, capabilities and instructions; no session id', async () => {
    for (const version of PROTOCOL_VERSIONS) {
      const res = await post(s, all.token, initialize(version, `init-${version}`))
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toStartWith('application/json')
      expect(res.headers.get('mcp-session-id')).toBeNull()
      expect(res.body).toEqual({
        jsonrpc: '2.0', id: `init-${version}`,
        result: { protocolVersion: version, capabilities: CAPABILITIES, serverInfo: SERVER_INFO, instructions: expect.stringContaining('confirm_token') },
      })
    }
    // A version the server does not know: it answers with its latest.
    expect((await post(s, all.token, initialize('1999-01-01'))).body.result.protocolVersion).toBe('2025-11-25')
  })

  test('a later request with an unsupported MCP-Protocol-Version header is 400; a supported one is answered', async () => {
    const bad = await post(s, all.token, request('ping', undefined, 5), { 'mcp-protocol-version': '1999-01-01' })
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('Unsupported protocol version: 1999-01-01') }, id: null })
    for (const version of PROTOCOL_VERSIONS) {
      const ok = await post(s, all.token, request('ping', undefined, 6), { 'mcp-protocol-version': version })
      expect({ version, status: ok.status, body: ok.body }).toEqual({ version, status: 200, body: { jsonrpc: '2.0', id: 6, result: {} } })
    }
  })

  test('a notification is 202 with no body; ping answers {}; an unknown method is -32601', async () => {
    const note = await post(s, all.token, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-protocol-version': '2025-11-25' })
    expect(note.status).toBe(202)
    expect(note.text).toBe('')
    expect(await post(s, all.token, request('ping', undefined, 'p'))).toMatchObject({ status: 200, body: { jsonrpc: '2.0', id: 'p', result: {} } })
    const unknown = await post(s, all.token, request('prompts/list', {}, 9))
    expect(unknown.status).toBe(200)
    expect(unknown.body).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32601, message: 'Method not found' } })
  })

  test('the SDK client connects and negotiates 2025-11-25; its GET probe (405) does not break it', async () => {
    const { client, transport } = await connect(s, all.token)
    try {
      expect(client.getServerVersion()).toEqual(SERVER_INFO)
      expect(client.getServerCapabilities()).toEqual(CAPABILITIES)
      expect(transport.protocolVersion).toBe('2025-11-25')
      expect(transport.sessionId).toBeUndefined()
      expect(client.getInstructions()).toContain('Tier-2 tools')
      expect(await client.ping()).toEqual({})
    } finally {
      await client.close()
    }
  })
})

describe('tools/list', () => {
  test('a token with only campaigns:read sees exactly the campaign and rule set reads and the simulator', async () => {
    const t = await createToken(s, { scopes: ['campaigns:read'] })
    await withClient(s, t.token, async (client) => {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['list_campaigns', 'get_campaign', 'list_rule_sets', 'get_rule_set', 'simulate_campaign', 'get_split_test', 'get_auto_weights', 'list_weight_changes', 'list_cost_updates'])
    })
  })

  test('every tool carries a description, object input and output schemas, the five annotations and its scope and bucket', async () => {
    const { tools } = (await post(s, all.token, request('tools/list'))).body.result as { tools: any[] }
    const names = tools.map((t) => t.name)
    expect(new Set(names).size).toBe(names.length)
    for (const name of [
      'list_campaigns', 'get_campaign', 'create_campaign', 'update_campaign', 'delete_campaign', 'list_sources', 'get_source', 'create_source',
      'update_source', 'delete_source', 'list_offers', 'get_offer', 'create_offer', 'update_offer', 'delete_offer', 'list_landings', 'get_landing',
      'create_landing', 'update_landing', 'delete_landing', 'get_click', 'record_conversion', 'list_conversions', 'get_report', 'export_conversions',
      'list_jobs', 'retry_job', 'get_settings', 'update_settings', 'create_email_list', 'add_subscriber', 'send_broadcast', 'list_outbox',
      'list_leads', 'list_orders', 'refund_order', 'create_token', 'list_audit', 'list_scopes',
    ]) expect(names).toContain(name)
    const scopes = new Set((await s.api('GET', '/admin/api/tokens/scopes')).body.items.map((i: { scope: string }) => i.scope))
    expect(scopes.size).toBe(42)
    for (const tool of tools) {
      expect({ name: tool.name, ok: typeof tool.description === 'string' && tool.description.length > 20 }).toEqual({ name: tool.name, ok: true })
      expect(tool.inputSchema.type).toBe('object')
      expect(tool.outputSchema.type).toBe('object')
      expect(Object.keys(tool.annotations).sort()).toEqual(['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint', 'title'])
      expect(tool.title).toBe(tool.annotations.title)
      expect(Object.keys(tool._meta).sort()).toEqual(['svc/bucket', 'svc/scope'])
      expect({ name: tool.name, scope: scopes.has(tool._meta['svc/scope']) }).toEqual({ name: tool.name, scope: true })
      expect(['default', 'ai']).toContain(tool._meta['svc/bucket'])
      // A read-only tool needs a read scope; a write scope is never read-only.
      expect({ name: tool.name, readOnly: tool.annotations.readOnlyHint }).toEqual({ name: tool.name, readOnly: tool._meta['svc/scope'].endsWith(':read') })
    }
    const byName = new Map(tools.map((t) => [t.name, t]))
    expect(byName.get('get_report')._meta).toEqual({ 'svc/scope': 'reports:read', 'svc/bucket': 'ai' })
    expect(byName.get('export_conversions')._meta).toEqual({ 'svc/scope': 'reports:read', 'svc/bucket': 'ai' })
    expect(byName.get('send_broadcast')._meta).toEqual({ 'svc/scope': 'email_sends:write', 'svc/bucket': 'ai' })
    expect(byName.get('list_campaigns')._meta).toEqual({ 'svc/scope': 'campaigns:read', 'svc/bucket': 'default' })
    expect(byName.get('record_conversion')._meta).toEqual({ 'svc/scope': 'conversions:write', 'svc/bucket': 'default' })
    expect(byName.get('delete_campaign').annotations).toEqual({ title: 'Delete a campaign', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false })
    expect(byName.get('get_campaign').annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true })
    expect(byName.get('record_conversion').inputSchema).toMatchObject({
      type: 'object', required: ['click_id'],
      properties: { click_id: { type: 'string' }, status: { type: 'string' }, revenue: { type: 'number' }, currency: { type: 'string' }, transaction_id: { type: 'string' }, email: { type: 'string' }, date: { type: 'string' } },
    })
    expect(Object.keys(byName.get('get_report').inputSchema.properties)).toEqual(expect.arrayContaining(['group_by', 'from', 'to', 'campaign_id', 'min_clicks', 'having']))
    // Tier-2 tools take a confirm_token; ordinary ones do not.
    for (const name of ['delete_campaign', 'send_broadcast', 'refund_order', 'update_settings', 'update_user']) {
      expect({ name, confirm: byName.get(name).inputSchema.properties?.confirm_token?.type }).toEqual({ name, confirm: 'string' })
    }
    expect(byName.get('create_campaign').inputSchema.properties.confirm_token).toBeUndefined()
  })

  test('each tool is listed to a token holding exactly the scope its _meta names, and to no other single-scope token', async () => {
    const { tools } = (await post(s, all.token, request('tools/list'))).body.result as { tools: any[] }
    const scopes: string[] = (await s.api('GET', '/admin/api/tokens/scopes')).body.items.map((i: { scope: string }) => i.scope)
    const seen: string[] = []
    for (const scope of scopes) {
      const t = await createToken(s, { scopes: [scope] })
      const listed = ((await post(s, t.token, request('tools/list'))).body.result.tools as any[]).map((tool) => tool.name)
      expect({ scope, listed }).toEqual({ scope, listed: tools.filter((tool) => tool._meta['svc/scope'] === scope).map((tool) => tool.name) })
      seen.push(...listed)
    }
    expect(seen.sort()).toEqual(tools.map((t) => t.name).sort())
  })
})

describe('tools/call', () => {
  test('catalog tools answer the REST shapes (snake_case, ISO times) and write what REST then reads', async () => {
    await withClient(s, all.token, async (client) => {
      const source = await call(client, 'create_source', { name: 'Push Net', postback_url: 'https://push.example/pb?cid={click_id}' })
      expect(source).toEqual({ id: expect.any(Number), name: 'Push Net', postback_url: 'https://push.example/pb?cid={click_id}', link_params: null, created_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO) })
      expect(await s.api('GET', `/admin/api/sources/${source.id}`)).toMatchObject({ status: 200, body: source })

      const offer = await call(client, 'create_offer', { name: 'Shop', slug: 'mcp-shop', url: 'https://shop.example/?sub={click_id}', payout: 4.5, currency: 'eur' })
      expect(offer).toEqual({ id: expect.any(Number), name: 'Shop', slug: 'mcp-shop', url: 'https://shop.example/?sub={click_id}', payout: 4.5, currency: 'EUR', cap: null, created_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO) })
      expect((await s.api('GET', `/admin/api/offers/${offer.id}`)).body).toEqual(offer)

      const campaign = await call(client, 'create_campaign', { name: 'Spring', slug: 'mcp-spring', source_id: source.id, offer_id: offer.id })
      expect(campaign).toEqual({
        id: expect.any(Number), name: 'Spring', slug: 'mcp-spring', source_id: source.id, external_id: null, active: true, bot_url: null, fallback_url: null,
        cost_model: 'none', cpc: 0, cpm: 0, revshare_percent: 0, offer_id: offer.id, offers: [{ offer_id: offer.id, weight: 100, auto_weight: null, cap: null }], landing_id: null, landings: [], paths: [], tracking_url: '/c/mcp-spring',
        created_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO),
      })
      expect((await s.api('GET', `/admin/api/campaigns/${campaign.id}`)).body).toEqual(campaign)

      const paused = await call(client, 'update_campaign', { id: campaign.id, active: false })
      expect(paused).toMatchObject({ id: campaign.id, active: false, name: 'Spring' })
      expect((await s.api('GET', `/admin/api/campaigns/${campaign.id}`)).body).toEqual(paused)
      expect(await call(client, 'get_campaign', { id: campaign.id })).toEqual(paused)

      const listed = await call(client, 'list_campaigns', {})
      expect(listed.next_cursor).toBeNull()
      expect(listed.items).toContainEqual(paused)
      expect(listed).toEqual((await s.api('GET', '/admin/api/campaigns')).body)
    })
  })

  test('click, conversion, report and export: an agent books a conversion for a real click as a postback would', async () => {
    const { campaignId, offerId, slug } = await seedCampaign(s, 'mcp-flow', 3)
    const clickId = await click(s, slug)
    await withClient(s, all.token, async (client) => {
      const got = await call(client, 'get_click', { click_id: clickId })
      expect((await s.api('GET', `/admin/api/clicks/${clickId}`)).body).toEqual(got)
      expect(got).toMatchObject({ click_id: clickId, campaign_id: campaignId, offer_id: offerId, created_at: expect.stringMatching(ISO) })

      const conversion = await call(client, 'record_conversion', { click_id: clickId, revenue: 12.5, currency: 'USD', transaction_id: 'mcp-tx-1', status: 'sale' })
      expect(conversion).toEqual({
        id: expect.any(Number), click_id: clickId, revenue: 12.5, currency: 'USD', status: 'sale', type: 'sale', transaction_id: 'mcp-tx-1', email: null,
        date: expect.stringMatching(ISO), campaign_id: campaignId, source_id: null, landing_id: null, offer_id: offerId, created_at: expect.stringMatching(ISO),
        postback_query: null,
      })
      // GET adds the status history (issue 26): one entry for a conversion never updated.
      expect((await s.api('GET', `/admin/api/conversions/${conversion.id}`)).body).toEqual({
        ...conversion, status_history: [{ type: 'sale', status: 'sale', revenue: 12.5, at: conversion.created_at, reversal_id: null }],
      })
      // No revenue given: the offer's payout.
      const lead = await call(client, 'record_conversion', { click_id: clickId, status: 'lead' })
      expect(lead).toMatchObject({ revenue: 3, type: 'lead', status: 'lead' })

      const list = await call(client, 'list_conversions', { click_id: clickId })
      expect(list).toEqual({ items: [lead, conversion], next_cursor: null })
      expect(list).toEqual((await s.api('GET', `/admin/api/conversions?click_id=${clickId}`)).body)

      const report = await call(client, 'get_report', { group_by: 'campaign', campaign_id: String(campaignId) })
      expect(report.group_by).toEqual(['campaign'])
      expect(report.rows).toHaveLength(1)
      expect(report.rows[0]).toMatchObject({ key: campaignId, clicks: 1, conversions: 2, revenue: 15.5 })
      expect(report.total).toMatchObject({ clicks: 1, conversions: 2, revenue: 15.5 })

      const exported = await call(client, 'export_conversions', { campaign_id: String(campaignId) })
      expect(Object.keys(exported).sort()).toEqual(['csv', 'file_name'])
      expect(exported.file_name).toMatch(/^conversions-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/)
      const lines = exported.csv.trimEnd().split('\r\n')
      expect(lines[0]).toBe('id,date,click_id,type,status,revenue,currency,transaction_id,campaign_id,source_id,offer_id,landing_id')
      expect(lines.slice(1).map((l: string) => l.split(',')[0])).toEqual([String(conversion.id), String(lead.id)])
      expect(lines[1]).toBe(`${conversion.id},${conversion.date},${clickId},sale,sale,12.5,USD,mcp-tx-1,${campaignId},,${offerId},`)

      expect(await callError(client, 'record_conversion', { click_id: '00000000-0000-4000-8000-000000000000' })).toBe('not_found: click not found')
    })
  })

  test('a tool outside the token\'s scopes is a tool error "forbidden: missing scope …" and does nothing', async () => {
    const t = await createToken(s, { scopes: ['campaigns:read'] })
    await withClient(s, t.token, async (client) => {
      expect(await callError(client, 'create_campaign', { name: 'Nope', slug: 'mcp-nope', offer_id: 1 })).toBe('forbidden: missing scope campaigns:write')
      expect(await callError(client, 'create_source', { name: 'Nope source' })).toBe('forbidden: missing scope sources:write')
      expect(await callError(client, 'get_report', { group_by: 'campaign' })).toBe('forbidden: missing scope reports:read')
    })
    expect((await s.api('GET', '/admin/api/campaigns?limit=500')).body.items.map((c: { slug: string }) => c.slug)).not.toContain('mcp-nope')
    expect((await s.api('GET', '/admin/api/sources?limit=500')).body.items.map((c: { name: string }) => c.name)).not.toContain('Nope source')
    expect((await auditOf(s, { token_id: t.id })).map((a) => [a.tool, a.outcome, a.error])).toEqual([
      ['get_report', 'denied', 'forbidden: missing scope reports:read'],
      ['create_source', 'denied', 'forbidden: missing scope sources:write'],
      ['create_campaign', 'denied', 'forbidden: missing scope campaigns:write'],
    ])
  })

  test('a verb\'s 404, 400 and 409 are tool errors the agent can read', async () => {
    await withClient(s, all.token, async (client) => {
      expect(await callError(client, 'get_campaign', { id: 987654 })).toBe('not_found: campaign not found')
      expect(await callError(client, 'get_campaign', { id: 'seven' })).toBe('invalid: id: Expected integer')
      expect(await callError(client, 'create_campaign', { name: 'No slug' })).toStartWith('invalid: slug: ')
      expect(await callError(client, 'create_source', { name: 'Bad', postback_url: 'ftp://x.example/pb' })).toStartWith('invalid: postback_url')
      expect(await callError(client, 'retry_job', { id: 987654 })).toBe('not_found: job not found')
      await call(client, 'create_offer', { name: 'Dup', slug: 'mcp-dup', url: 'https://dup.example/' })
      expect(await callError(client, 'create_offer', { name: 'Dup 2', slug: 'mcp-dup', url: 'https://dup.example/' })).toStartWith('conflict: slug')
    })
  })

  test('an unknown tool is a JSON-RPC error -32602 "Unknown tool: …" (McpError in the SDK client), audited as an error', async () => {
    const t = await createToken(s, { scopes: ['campaigns:read'] })
    await withClient(s, t.token, async (client) => {
      const err = await client.callTool({ name: 'drop_database', arguments: { all: true } }).then(() => null, (e: unknown) => e)
      expect(err).toBeInstanceOf(McpError)
      expect((err as McpError).code).toBe(-32602)
      expect((err as McpError).message).toEndWith('Unknown tool: drop_database')
    })
    const raw = await post(s, t.token, request('tools/call', { name: 'drop_database', arguments: {} }, 3))
    expect(raw.status).toBe(200)
    expect(raw.body).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32602, message: expect.stringContaining('Unknown tool: drop_database') } })
    expect((await auditOf(s, { token_id: t.id })).map((a) => [a.tool, a.outcome, a.error, a.arguments])).toEqual([
      ['drop_database', 'error', 'unknown tool', {}],
      ['drop_database', 'error', 'unknown tool', { all: true }],
    ])
  })

  test('settings, users, email, commerce, jobs and leads tools act through the same verbs as REST', async () => {
    await withClient(s, all.token, async (client) => {
      const settings = await call(client, 'get_settings')
      expect(settings).toEqual((await s.api('GET', '/admin/api/settings')).body)
      // A non-secret key is not Tier 2: it changes at once.
      expect(await call(client, 'update_settings', { click_cookie_days: 7 })).toMatchObject({ click_cookie_days: 7 })
      expect((await s.api('GET', '/admin/api/settings')).body.click_cookie_days).toBe(7)
      expect(await callError(client, 'update_settings', { no_such_key: 1 })).toStartWith('invalid: ')

      const list = await call(client, 'create_email_list', { name: 'Agents' })
      expect(list).toEqual({ id: expect.any(Number), name: 'Agents', active_subscribers: 0, created_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO) })
      const sub = await call(client, 'add_subscriber', { id: list.id, email: ' Bot.Reader@Example.COM ' })
      expect(sub).toMatchObject({ list_id: list.id, email: 'bot.reader@example.com', status: 'active', source: 'manual', created_at: expect.stringMatching(ISO) })
      expect((await s.api('GET', `/admin/api/email-lists/${list.id}`)).body.active_subscribers).toBe(1)
      expect(await callError(client, 'add_subscriber', { id: list.id, email: 'not-an-address' })).toBe('invalid: email: not a valid email address')

      expect(await call(client, 'list_outbox')).toEqual((await s.api('GET', '/admin/api/outbox')).body)
      expect(await call(client, 'list_leads')).toEqual((await s.api('GET', '/admin/api/leads')).body)
      expect(await call(client, 'list_orders')).toEqual({ items: [], next_cursor: null })
      expect(await call(client, 'list_jobs')).toEqual((await s.api('GET', '/admin/api/jobs')).body)

      const scopes = await call(client, 'list_scopes')
      expect(scopes.items).toHaveLength(42)
      expect(scopes.items[0]).toEqual({ scope: 'campaigns:read', resource: 'campaigns', action: 'read', section: 'campaigns', covers: expect.any(String) })
    })
  })

  test('create_token: an agent mints a token of its own scopes only; the new token works on /mcp', async () => {
    const parent = await createToken(s, { scopes: ['tokens:write', 'campaigns:read', 'sources:read'] })
    await withClient(s, parent.token, async (client) => {
      expect(toolError(await callConfirmed(client, 'create_token', { name: 'wider', scopes: ['campaigns:write'] })))
        .toBe('forbidden: this token cannot grant campaigns:write: a token grants only scopes both it and the user who created it hold')
      const child = structured(await callConfirmed(client, 'create_token', { name: 'child', scopes: ['all'] }))
      expect(child).toMatchObject({ name: 'child', scopes: ['campaigns:read', 'sources:read', 'tokens:write'], status: 'active' })
      expect(child.token).toMatch(TOKEN_FORMAT)
      await withClient(s, child.token, async (c2) => {
        expect((await c2.listTools()).tools.map((t) => t.name).sort()).toEqual(
          ['create_token', 'delete_token', 'get_campaign', 'get_rule_set', 'get_source', 'list_campaigns', 'list_rule_sets', 'list_sources', 'simulate_campaign', 'update_token', 'list_cost_updates', 'get_split_test', 'get_auto_weights', 'list_weight_changes',
            'list_source_templates', 'get_source_template', 'export_source_templates',
            'list_blocked_zones', 'get_blocked_zone', 'export_blocked_zones', 'get_source_zone_format'].sort())
      })
      // The minted token is in the answer only: the audit keeps the arguments, never the result.
      const audit = await s.api('GET', `/admin/api/audit?token_id=${parent.id}`)
      expect(audit.text).not.toContain(child.token)
    })
  })

  test('last_used_at and last_used_ip of the token are set by a call', async () => {
    const t = await createToken(s, { scopes: ['campaigns:read'] })
    expect(t).toMatchObject({ last_used_at: null, last_used_ip: null, status: 'active', rate_limits: { default: 120, ai: 10 } })
    expect(t.token).toMatch(TOKEN_FORMAT)
    expect(t.token_hint).toBe(`svc_ap_…${t.token.slice(-4)}`)
    const before = Date.now()
    await withClient(s, t.token, async (client) => { await call(client, 'list_campaigns') })
    const got = (await s.api('GET', `/admin/api/tokens/${t.id}`)).body
    // (Bun's toMatchObject writes its asymmetric matchers into the received object: read the values first.)
    const usedAt: unknown = got.last_used_at
    expect(got).toMatchObject({ id: t.id, last_used_at: expect.stringMatching(ISO), last_used_ip: '127.0.0.1' })
    expect(Date.parse(usedAt as string)).toBeGreaterThanOrEqual(before - 5)
    expect(got.token).toBeUndefined()
  })
})

describe('rate buckets', () => {
  test('ai 2 and default 5 a minute: the third report is rate_limited, default tools run to their own limit, another token has its own budget', async () => {
    const t = await createToken(s, { scopes: ['reports:read', 'campaigns:read'], rate_limits: { ai: 2, default: 5 } })
    expect(t.rate_limits).toEqual({ default: 5, ai: 2 })
    const other = await createToken(s, { scopes: ['reports:read', 'campaigns:read'], rate_limits: { ai: 2, default: 5 } })
    await withClient(s, t.token, async (client) => {
      for (let i = 0; i < 2; i++) expect((await call(client, 'get_report', { group_by: 'day' })).group_by).toEqual(['day'])
      const limited = await callError(client, 'get_report', { group_by: 'day' })
      const m = /^rate_limited: the ai bucket of this token allows 2 calls a minute; retry in (\d+) s$/.exec(limited)
      expect(m).not.toBeNull()
      expect(Number(m![1])).toBeGreaterThanOrEqual(50)
      expect(Number(m![1])).toBeLessThanOrEqual(60)
      // The ai bucket is spent; the default bucket is not.
      for (let i = 0; i < 5; i++) await call(client, 'list_campaigns')
      expect(await callError(client, 'list_campaigns')).toMatch(/^rate_limited: the default bucket of this token allows 5 calls a minute; retry in \d+ s$/)
      expect(await callError(client, 'export_conversions')).toMatch(/^rate_limited: the ai bucket of this token allows 2 calls a minute; retry in \d+ s$/)
    })
    await withClient(s, other.token, async (client) => {
      await call(client, 'get_report', { group_by: 'day' })
      await call(client, 'list_campaigns')
    })
    const outcomes = (await auditOf(s, { token_id: t.id })).map((a) => [a.tool, a.outcome]).reverse()
    expect(outcomes).toEqual([
      ['get_report', 'ok'], ['get_report', 'ok'], ['get_report', 'rate_limited'],
      ...Array.from({ length: 5 }, () => ['list_campaigns', 'ok']), ['list_campaigns', 'rate_limited'], ['export_conversions', 'rate_limited'],
    ])
    expect((await auditOf(s, { token_id: t.id, outcome: 'rate_limited' }))[0]!.error).toStartWith('rate_limited: the ai bucket')
  })

  test('without rate_limits a token gets 10 ai calls a minute; a denied call (missing scope) spends nothing', async () => {
    const t = await createToken(s, { scopes: ['reports:read'] })
    await withClient(s, t.token, async (client) => {
      for (let i = 0; i < 3; i++) expect(await callError(client, 'list_campaigns')).toBe('forbidden: missing scope campaigns:read')
      for (let i = 0; i < 10; i++) await call(client, 'get_report', { group_by: 'day' })
      expect(await callError(client, 'get_report', { group_by: 'day' })).toMatch(/^rate_limited: the ai bucket of this token allows 10 calls a minute; retry in \d+ s$/)
    })
  })
})

describe('audit log', () => {
  test('every call is a row (newest first) with token, surface mcp, tool, arguments, outcome, error, duration, ip, time; filters narrow it', async () => {
    const t = await createToken(s, { name: 'audited bot', scopes: ['campaigns:read', 'users:write', 'users:read'] })
    // The wall-clock window of each call, measured around it (the server runs in this process: same clock).
    const windows: Array<{ from: number; to: number }> = []
    const timed = async <T>(f: () => Promise<T>): Promise<T> => {
      const from = Date.now()
      const out = await f()
      windows.push({ from, to: Date.now() })
      return out
    }
    await withClient(s, t.token, async (client) => {
      await timed(() => call(client, 'list_campaigns', { limit: '3' }))
      await timed(() => callError(client, 'get_campaign', { id: 987654 }))
      await timed(() => callError(client, 'create_source', { name: 'x' }))
      const user = structured(await timed(() => callConfirmed(client, 'create_user', { email: 'audited-user@example.com', password: 'super-secret-password-1' })))
      await timed(() => client.readResource({ uri: 'svc://token' }))
      expect(user.email).toBe('audited-user@example.com')
    })
    const rows = await auditOf(s, { token_id: t.id })
    expect(rows.map((r) => [r.tool, r.outcome, r.error, r.arguments])).toEqual([
      ['resources/read', 'ok', null, { uri: 'svc://token' }],
      ['create_user', 'ok', null, { email: 'audited-user@example.com', password: '[redacted]', confirm_token: '[redacted]' }],
      ['create_user', 'confirmation_required', null, { email: 'audited-user@example.com', password: '[redacted]' }],
      ['create_source', 'denied', 'forbidden: missing scope sources:write', { name: 'x' }],
      ['get_campaign', 'error', 'not_found: campaign not found', { id: 987654 }],
      ['list_campaigns', 'ok', null, { limit: '3' }],
    ])
    // Newest first: which call (index into windows) wrote each row; the confirmed create_user wrote two.
    const callOf = [4, 3, 3, 2, 1, 0]
    rows.forEach((r, i) => {
      expect(r).toEqual({
        id: expect.any(Number), token_id: t.id, token_name: 'audited bot', surface: 'mcp', tool: r.tool, arguments: r.arguments, outcome: r.outcome,
        error: r.error, duration_ms: expect.any(Number), ip: '127.0.0.1', created_at: expect.stringMatching(ISO),
      })
      // The duration is whole milliseconds and fits inside the call that was timed around it: written when the
      // call ended, it started no earlier than the call was sent.
      const { from, to } = windows[callOf[i]!]!
      const at = Date.parse(r.created_at)
      expect(Number.isInteger(r.duration_ms)).toBe(true)
      expect(r.duration_ms).toBeGreaterThanOrEqual(0)
      expect(r.duration_ms).toBeLessThanOrEqual(to - from)
      expect(at).toBeGreaterThanOrEqual(from)
      expect(at).toBeLessThanOrEqual(to)
      expect(at - r.duration_ms).toBeGreaterThanOrEqual(from)
    })
    expect(rows.map((r) => r.id)).toEqual([...rows.map((r) => r.id)].sort((a, b) => b - a))
    const text = (await s.api('GET', `/admin/api/audit?token_id=${t.id}`)).text
    expect(text).not.toContain('super-secret-password-1')

    expect((await auditOf(s, { token_id: t.id, tool: 'get_campaign' })).map((r) => r.outcome)).toEqual(['error'])
    expect((await auditOf(s, { token_id: t.id, outcome: 'denied' })).map((r) => r.tool)).toEqual(['create_source'])
    const createdUsers = await auditOf(s, { tool: 'create_user', outcome: 'ok' })
    expect(createdUsers.map((r) => [r.token_id, r.tool, r.outcome])).toContainEqual([t.id, 'create_user', 'ok'])
    expect(createdUsers.filter((r) => r.tool !== 'create_user' || r.outcome !== 'ok')).toEqual([])
    // Paging: newest first, next_cursor continues below.
    const first = await s.api('GET', `/admin/api/audit?token_id=${t.id}&limit=2`)
    expect(first.body.items.map((r: { tool: string }) => r.tool)).toEqual(['resources/read', 'create_user'])
    const next = await s.api('GET', `/admin/api/audit?token_id=${t.id}&limit=2&cursor=${first.body.next_cursor}`)
    expect(next.body.items.map((r: { tool: string }) => r.tool)).toEqual(['create_user', 'create_source'])
    expect(await s.api('GET', '/admin/api/audit?token_id=abc')).toMatchObject({ status: 400, body: { error: 'token_id: must be an integer' } })
  })

  test('list_audit shows the same rows to an agent holding tokens:read', async () => {
    const t = await createToken(s, { scopes: ['tokens:read'] })
    await withClient(s, t.token, async (client) => {
      await call(client, 'list_scopes')
      const page = await call(client, 'list_audit', { token_id: String(t.id) })
      expect(page.items.map((r: { tool: string }) => r.tool)).toEqual(['list_scopes'])
      // REST sees the same rows, and by then the list_audit call itself (audited once it answered).
      const rest = (await s.api('GET', `/admin/api/audit?token_id=${t.id}`)).body
      expect(rest.items.map((r: { tool: string }) => r.tool)).toEqual(['list_audit', 'list_scopes'])
      expect(page).toEqual({ items: rest.items.slice(1), next_cursor: null })
    })
  })
})

describe('resources', () => {
  test('lists svc://scopes and svc://token, templates svc://campaigns/{id} and svc://reports/{group_by}', async () => {
    const t = await createToken(s, { scopes: ['campaigns:read'] })
    await withClient(s, t.token, async (client) => {
      expect((await client.listResources()).resources.map((r) => [r.uri, r.mimeType])).toEqual([['svc://scopes', 'application/json'], ['svc://token', 'application/json']])
      expect((await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate)).toEqual(['svc://campaigns/{id}', 'svc://reports/{group_by}'])
    })
  })

  test('svc://token and svc://scopes read as JSON; svc://campaigns/<id> needs campaigns:read', async () => {
    const { campaignId } = await seedCampaign(s, 'mcp-resource')
    const reader = await createToken(s, { name: 'reader', scopes: ['campaigns:read'], rate_limits: { ai: 3 } })
    const blind = await createToken(s, { name: 'blind', scopes: ['sources:read'] })
    await withClient(s, reader.token, async (client) => {
      const token = await client.readResource({ uri: 'svc://token' })
      expect(token.contents).toHaveLength(1)
      expect(token.contents[0]).toMatchObject({ uri: 'svc://token', mimeType: 'application/json' })
      expect(JSON.parse((token.contents[0] as { text: string }).text)).toEqual({ id: reader.id, name: 'reader', scopes: ['campaigns:read'], rate_limits: { default: 120, ai: 3 } })

      const scopes = JSON.parse(((await client.readResource({ uri: 'svc://scopes' })).contents[0] as { text: string }).text)
      expect(scopes.scopes).toHaveLength(42)
      expect(scopes.scopes[0]).toEqual({ scope: 'campaigns:read', covers: 'campaigns, their offer and landing rotations, targeting paths, rule sets, the targeting simulator, split tests, auto-weights and cost updates' })

      const campaign = await client.readResource({ uri: `svc://campaigns/${campaignId}` })
      expect(campaign.contents).toHaveLength(1)
      expect(campaign.contents[0]).toMatchObject({ uri: `svc://campaigns/${campaignId}`, mimeType: 'application/json' })

      const missing = await client.readResource({ uri: 'svc://campaigns/987654' }).then(() => null, (e: unknown) => e)
      expect(missing).toBeInstanceOf(McpError)
      expect((missing as McpError).message).toContain('not_found: campaign not found')
      const unknown = await client.readResource({ uri: 'svc://nothing' }).then(() => null, (e: unknown) => e)
      expect((unknown as McpError).code).toBe(-32002)
    })
    await withClient(s, blind.token, async (client) => {
      const err = await client.readResource({ uri: `svc://campaigns/${campaignId}` }).then(() => null, (e: unknown) => e)
      expect(err).toBeInstanceOf(McpError)
      expect((err as McpError).code).toBe(-32602)
      expect((err as McpError).message).toContain('forbidden: missing scope campaigns:read')
    })
    expect((await auditOf(s, { token_id: blind.id })).map((r) => [r.tool, r.outcome, r.error, r.arguments])).toEqual([
      ['resources/read', 'denied', 'missing scope campaigns:read', { uri: `svc://campaigns/${campaignId}` }],
    ])
    expect((await auditOf(s, { token_id: reader.id })).map((r) => r.outcome)).toEqual(['error', 'error', 'ok', 'ok', 'ok'])
  })

  test('svc://campaigns/<id> reads the campaign in its REST shape, as GET /admin/api/campaigns/:id answers', async () => {
    const { campaignId } = await seedCampaign(s, 'mcp-resource-shape')
    const rest = (await s.api('GET', `/admin/api/campaigns/${campaignId}`)).body
    const t = await createToken(s, { scopes: ['campaigns:read'] })
    await withClient(s, t.token, async (client) => {
      const read = await client.readResource({ uri: `svc://campaigns/${campaignId}` })
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual(rest)
    })
  })

  test('reading a resource counts in the token\'s buckets: a report resource is refused once the ai bucket is spent', async () => {
    const t = await createToken(s, { scopes: ['reports:read'], rate_limits: { ai: 2 } })
    await withClient(s, t.token, async (client) => {
      for (let i = 0; i < 2; i++) await call(client, 'get_report', { group_by: 'day' })
      expect(await callError(client, 'get_report', { group_by: 'day' })).toStartWith('rate_limited: the ai bucket')
      // The same report as a resource must not be a way around the limit.
      const err = await client.readResource({ uri: 'svc://reports/day' }).then(() => null, (e: unknown) => e)
      expect(err).toBeInstanceOf(McpError)
      expect((err as McpError).message).toContain('rate_limited')
    })
  })

  test('svc://reports/<group_by> is the last 7 days\' report (reports:read)', async () => {
    const t = await createToken(s, { scopes: ['reports:read'] })
    const raw = await post(s, t.token, request('resources/read', { uri: 'svc://reports/day' }, 4))
    expect(raw.status).toBe(200)
    expect(raw.body.result.contents[0]).toMatchObject({ uri: 'svc://reports/day', mimeType: 'application/json' })
    const report = JSON.parse(raw.body.result.contents[0].text)
    expect(report.group_by).toEqual(['day'])
    expect(Date.parse(report.to) - Date.parse(report.from)).toBeLessThanOrEqual(8 * 86_400_000)
    expect(report.total).toMatchObject({ clicks: expect.any(Number) })
  })
})

