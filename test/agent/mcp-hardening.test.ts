// /mcp against hostile input (issue 25, Low findings), on either engine (SVC_TEST_ENGINE=postgres): arguments
// nested 100,000 deep are invalid params (not "internal"), JSON-RPC batches are refused (removed in protocol
// revision 2025-06-18), a live token refused for its Origin still gets an audit row, and a URL's password
// inside arguments never reaches the audit log.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { canonical, MAX_ARGUMENT_DEPTH } from '../../src/agent/mcp/confirm'
import { startServer, type TestServer } from '../helpers/server'
import { auditOf, call, createToken, initialize, post, request, seedCampaign, sleep, withClient, type CreatedToken } from './helpers'

let s: TestServer
let all: CreatedToken
beforeAll(async () => {
  s = await startServer()
  all = await createToken(s, { name: 'hardening', scopes: ['all'], rate_limits: { default: 10_000, ai: 10_000 } })
})
afterAll(() => s.destroy())

/** A tools/call body whose `arguments.x` nests `depth` objects, written as text (JSON.stringify would overflow first). */
const deepCall = (tool: string, depth: number, id = 7) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${tool}","arguments":{"id":1,"x":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}}`

describe('deeply nested arguments', () => {
  test('100,000 levels: JSON-RPC -32602 invalid params on a Tier-2 tool and a plain one, audited; the server goes on', async () => {
    for (const tool of ['delete_campaign', 'get_campaign']) {
      const res = await post(s, all.token, deepCall(tool, 100_000))
      expect({ tool, status: res.status, body: res.body }).toEqual({
        tool, status: 200, body: { jsonrpc: '2.0', id: 7, error: { code: -32602, message: `MCP error -32602: Invalid params: arguments nested deeper than ${MAX_ARGUMENT_DEPTH} levels` } },
      })
    }
    const rows = await auditOf(s, { token_id: all.id, tool: 'delete_campaign' })
    expect(rows[0]).toMatchObject({ outcome: 'error', error: `arguments nested deeper than ${MAX_ARGUMENT_DEPTH} levels` })
    // Within the limit the call is an ordinary one.
    const { campaignId } = await seedCampaign(s, 'hardening-deep')
    await withClient(s, all.token, async (client) => {
      expect(await call(client, 'get_campaign', { id: campaignId })).toMatchObject({ id: campaignId })
    })
  })

  test('canonical() refuses over-deep input as invalid instead of overflowing the stack', () => {
    let deep: unknown = 1
    for (let i = 0; i < 100_000; i++) deep = { a: deep }
    expect(() => canonical(deep)).toThrow(`arguments: nested deeper than ${MAX_ARGUMENT_DEPTH} levels`)
    let arrays: unknown = 1
    for (let i = 0; i < 100_000; i++) arrays = [arrays]
    expect(() => canonical(arrays)).toThrow(`arguments: nested deeper than ${MAX_ARGUMENT_DEPTH} levels`)
    expect(canonical({ b: [1, { d: 2, c: 3 }], a: null })).toBe('{"a":null,"b":[1,{"c":3,"d":2}]}')
  })
})

describe('JSON-RPC batches', () => {
  test('a JSON array body is refused: HTTP 400, -32600 Invalid Request, nothing in it runs', async () => {
    const { campaignId } = await seedCampaign(s, 'hardening-batch')
    const batch = [initialize('2025-03-26', 1), request('tools/call', { name: 'update_campaign', arguments: { id: campaignId, name: 'batched' } }, 2)]
    const res = await post(s, all.token, batch)
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: JSON-RPC batches are not supported (protocol revision 2025-06-18 removed them); send one message per POST' } },
    })
    expect((await s.api('GET', `/admin/api/campaigns/${campaignId}`)).body.name).toBe('Campaign hardening-batch')
    expect((await post(s, all.token, '  [ ]')).status).toBe(400)
    // A single message still works, and a body that is not JSON is still the SDK's parse error.
    expect((await post(s, all.token, initialize('2025-06-18'))).status).toBe(200)
    expect(await post(s, all.token, '[{"broken')).toMatchObject({ status: 400, body: { error: { code: -32700 } } })
  })
})

describe('the audit log', () => {
  test('a live token refused for its Origin gets a denied row; an unknown token none', async () => {
    const t = await createToken(s, { name: 'origin refused', scopes: ['campaigns:read'] })
    const res = await post(s, t.token, initialize('2025-11-25'), { origin: 'https://evil.example' })
    expect({ status: res.status, body: res.body }).toEqual({ status: 403, body: { error: 'origin not allowed' } })
    expect((await auditOf(s, { token_id: t.id })).map((r) => [r.surface, r.tool, r.outcome, r.error, r.arguments, r.ip])).toEqual([
      ['mcp', 'POST /mcp', 'denied', 'origin not allowed', { origin: 'https://evil.example' }, '127.0.0.1'],
    ])
    const before = (await auditOf(s)).length
    await post(s, `svc_ap_${'B'.repeat(43)}`, initialize('2025-11-25'), { origin: 'https://evil.example' })
    expect((await auditOf(s)).length).toBe(before)
    // The refusal does not count as a use of the token.
    expect((await s.api('GET', `/admin/api/tokens/${t.id}`)).body.last_used_at).toBeNull()
  })

  test('a password inside a URL in the arguments is redacted, on /mcp and REST', async () => {
    const t = await createToken(s, { name: 'url creds', scopes: ['sources:read', 'sources:write'] })
    const url = 'https://buyer:Hunter2Secret@postback.example/pb?cid={click_id}'
    await withClient(s, t.token, async (client) => {
      await call(client, 'create_source', { name: 'see ftp://u:AnotherPass@files.example/x', postback_url: url })
    })
    await fetch(`${s.base}/admin/api/sources`, {
      method: 'POST', headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'rest creds', postback_url: url }),
    })
    let rows: Awaited<ReturnType<typeof auditOf>> = []
    for (let i = 0; i < 40 && rows.length < 2; i++) { rows = await auditOf(s, { token_id: t.id }); if (rows.length < 2) await sleep(25) }
    const text = JSON.stringify(rows)
    expect(text).not.toContain('Hunter2Secret')
    expect(text).not.toContain('AnotherPass')
    expect(text).toContain('https://buyer:[redacted]@postback.example/pb?cid={click_id}')
    expect(text).toContain('ftp://u:[redacted]@files.example/x')
  })
})
