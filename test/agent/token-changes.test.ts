// Who may change or revoke an agent token, and Tier 2 over REST (issue 25, Low findings), on either engine
// (SVC_TEST_ENGINE=postgres): a token changes or revokes only itself and the tokens it created, and only through a confirmed /mcp call;
// a person only tokens within what they may grant; a bearer token's Tier-2 request to /admin/api (deletions,
// refunds, broadcasts, secret changes, user and token changes) is refused with a pointer to /mcp.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { testDb } from '../helpers/db'
import { addUser, cookieFor } from '../admin/helpers'
import { auditOf, call, callConfirmed, createToken, seedCampaign, sleep, structured, TIER2_REST, toolError, withClient } from './helpers'

let s: TestServer
beforeAll(async () => { s = await startServer() })
afterAll(() => s.destroy())

const bearer = (method: string, path: string, token: string, body?: unknown) =>
  fetch(`${s.base}${path}`, {
    method, body: body === undefined ? undefined : JSON.stringify(body),
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
  }).then(async (r) => ({ status: r.status, body: await r.json() }))

describe('a tokens:write token and other tokens', () => {
  test('cannot rewrite or revoke the owner\'s token, on /mcp (even confirmed) or REST; it changes and revokes only itself and its own tokens', async () => {
    const owners = await createToken(s, { name: 'owner token', scopes: ['all'] })
    const agent = await createToken(s, { name: 'token admin', scopes: ['tokens:read', 'tokens:write'] })
    await withClient(s, agent.token, async (client) => {
      // Tier 2: the first call only previews the token it would change.
      const p = await call(client, 'update_token', { id: owners.id, scopes: ['campaigns:read'] })
      expect(p).toMatchObject({ confirmation_required: true, tool: 'update_token', preview: { record: { id: owners.id, name: 'owner token' } } })
      expect(toolError(await callConfirmed(client, 'update_token', { id: owners.id, scopes: ['campaigns:read'] })))
        .toBe(`forbidden: a token may change only itself and the tokens it created (token ${owners.id} is another token)`)
      expect(toolError(await callConfirmed(client, 'delete_token', { id: owners.id })))
        .toBe(`forbidden: a token may revoke only itself and the tokens it created (token ${owners.id} is another token)`)
    })
    expect(await bearer('PATCH', `/admin/api/tokens/${owners.id}`, agent.token, { scopes: ['campaigns:read'] }))
      .toEqual({ status: 403, body: { error: TIER2_REST('a user, permission or token change') } })
    expect(await bearer('DELETE', `/admin/api/tokens/${owners.id}`, agent.token)).toEqual({ status: 403, body: { error: TIER2_REST('a deletion') } })
    expect((await s.api('GET', `/admin/api/tokens/${owners.id}`)).body).toMatchObject({ status: 'active', scopes: expect.arrayContaining(['settings:write']) })
    expect((await s.api('GET', `/admin/api/tokens/${owners.id}`)).body.scopes).toHaveLength(42)
    // Itself: yes, confirmed.
    await withClient(s, agent.token, async (client) => {
      expect(structured(await callConfirmed(client, 'update_token', { id: agent.id, name: 'renamed', scopes: ['tokens:read', 'tokens:write'] })))
        .toMatchObject({ id: agent.id, name: 'renamed' })
      expect(structured(await callConfirmed(client, 'delete_token', { id: agent.id }))).toEqual({ ok: true })
    })
    expect((await s.api('GET', `/admin/api/tokens/${agent.id}`)).body.status).toBe('revoked')
  })

  test('a token changes and revokes the tokens it created (recorded as created_by_token), not its siblings\' children', async () => {
    const parent = await createToken(s, { name: 'parent', scopes: ['tokens:read', 'tokens:write', 'reports:read'] })
    const sibling = await createToken(s, { name: 'sibling', scopes: ['tokens:read', 'tokens:write', 'reports:read'] })
    let childId = 0
    await withClient(s, parent.token, async (client) => {
      const child = structured(await callConfirmed(client, 'create_token', { name: 'child', scopes: ['reports:read'] }))
      childId = child.id
      expect(child).toMatchObject({ created_by_token: parent.id, scopes: ['reports:read'] })
    })
    await withClient(s, sibling.token, async (client) => {
      expect(toolError(await callConfirmed(client, 'update_token', { id: childId, name: 'taken over' })))
        .toBe(`forbidden: a token may change only itself and the tokens it created (token ${childId} is another token)`)
      expect(toolError(await callConfirmed(client, 'delete_token', { id: childId })))
        .toBe(`forbidden: a token may revoke only itself and the tokens it created (token ${childId} is another token)`)
    })
    await withClient(s, parent.token, async (client) => {
      expect(structured(await callConfirmed(client, 'update_token', { id: childId, name: 'renamed child' }))).toMatchObject({ id: childId, name: 'renamed child' })
      expect(structured(await callConfirmed(client, 'delete_token', { id: childId }))).toEqual({ ok: true })
    })
    expect((await s.api('GET', `/admin/api/tokens/${childId}`)).body).toMatchObject({ status: 'revoked', created_by_token: parent.id })
    expect((await s.api('GET', `/admin/api/tokens/${parent.id}`)).body.created_by_token).toBeNull()
  })

  test('a confirmed create_token keeps no copy of the new token: a repeat answers it as shown once', async () => {
    const agent = await createToken(s, { scopes: ['tokens:write', 'reports:read'] })
    await withClient(s, agent.token, async (client) => {
      const args = { name: 'kid', scopes: ['reports:read'] }
      const p = await call(client, 'create_token', args)
      const first = await call(client, 'create_token', { ...args, confirm_token: p.confirm_token })
      expect(first.token).toMatch(/^svc_ap_/)
      const again = await call(client, 'create_token', { ...args, confirm_token: p.confirm_token })
      expect(again).toEqual({ ...first, token: null, token_note: 'shown only in the first answer of this confirmed call' })
      const rows = await testDb(s).all('SELECT result FROM agent_confirmations')
      expect(JSON.stringify(rows)).not.toContain(first.token.slice(7))
    })
  })
})

describe('a person changing tokens', () => {
  test('changes and revokes only tokens within what they may grant (not the owner\'s all-scopes token)', async () => {
    const owners = await createToken(s, { name: 'owner all', scopes: ['all'] })
    const id = await addUser(s, 'token-person@example.com', { users: { read: true, write: true }, campaigns: { read: true } })
    const cookie = await cookieFor(s, id)
    expect(await s.api('PATCH', `/admin/api/tokens/${owners.id}`, { scopes: ['campaigns:read'] }, cookie))
      .toMatchObject({ status: 403, body: { error: 'you cannot change a token that holds campaigns:write: you do not hold it' } })
    expect(await s.api('DELETE', `/admin/api/tokens/${owners.id}`, undefined, cookie))
      .toMatchObject({ status: 403, body: { error: 'you cannot revoke a token that holds campaigns:write: you do not hold it' } })
    const narrow = await createToken(s, { scopes: ['campaigns:read'] })
    expect(await s.api('PATCH', `/admin/api/tokens/${narrow.id}`, { scopes: ['campaigns:write'] }, cookie))
      .toMatchObject({ status: 403, body: { error: 'you cannot grant campaigns:write: a token gets only scopes its creator holds' } })
    expect(await s.api('PATCH', `/admin/api/tokens/${narrow.id}`, { name: 'renamed by person' }, cookie)).toMatchObject({ status: 200, body: { name: 'renamed by person' } })
    expect(await s.api('DELETE', `/admin/api/tokens/${narrow.id}`, undefined, cookie)).toMatchObject({ status: 200, body: { ok: true } })
  })
})

describe('Tier 2 over REST for bearer tokens', () => {
  test('deletions, refunds, broadcasts and secret settings are refused (403, nothing done, audited denied); the rest passes', async () => {
    const t = await createToken(s, { name: 'rest tier2', scopes: ['campaigns:read', 'campaigns:write', 'settings:read', 'settings:write', 'orders:write', 'email_sends:write'] })
    const { campaignId } = await seedCampaign(s, 'rest-tier2')
    expect(await bearer('DELETE', `/admin/api/campaigns/${campaignId}`, t.token)).toEqual({ status: 403, body: { error: TIER2_REST('a deletion') } })
    expect((await s.api('GET', `/admin/api/campaigns/${campaignId}`)).status).toBe(200)
    expect(await bearer('POST', '/admin/api/orders/1/refund', t.token, {})).toEqual({ status: 403, body: { error: TIER2_REST('a refund') } })
    expect(await bearer('POST', '/admin/api/email-lists/1/broadcasts', t.token, { subject: 's', text: 't' })).toEqual({ status: 403, body: { error: TIER2_REST('a bulk send') } })
    expect(await bearer('PUT', '/admin/api/settings', t.token, { postback_secret: 'a-new-secret-that-is-long-enough' })).toEqual({ status: 403, body: { error: TIER2_REST('a secret change') } })
    // Not Tier 2: a plain settings change and a campaign change go through.
    expect(await bearer('PUT', '/admin/api/settings', t.token, { audit_retention_days: 30 })).toMatchObject({ status: 200, body: { audit_retention_days: 30 } })
    expect(await bearer('PATCH', `/admin/api/campaigns/${campaignId}`, t.token, { name: 'renamed over REST' })).toMatchObject({ status: 200, body: { name: 'renamed over REST' } })
    // Without the write scope the guard names the scope, as before.
    const reader = await createToken(s, { scopes: ['campaigns:read'] })
    expect(await bearer('DELETE', `/admin/api/campaigns/${campaignId}`, reader.token)).toEqual({ status: 403, body: { error: 'missing scope campaigns:write' } })
    let rows: Awaited<ReturnType<typeof auditOf>> = []
    for (let i = 0; i < 40 && rows.length < 6; i++) { rows = await auditOf(s, { token_id: t.id }); if (rows.length < 6) await sleep(25) }
    expect(rows.filter((r) => r.outcome === 'denied').map((r) => r.tool).sort()).toEqual([
      `DELETE /admin/api/campaigns/${campaignId}`, 'POST /admin/api/email-lists/1/broadcasts', 'POST /admin/api/orders/1/refund', 'PUT /admin/api/settings',
    ])
  })

  test('the same deletion through /mcp asks for confirmation and then acts', async () => {
    const t = await createToken(s, { scopes: ['campaigns:read', 'campaigns:write'] })
    const { campaignId } = await seedCampaign(s, 'rest-tier2-mcp')
    await withClient(s, t.token, async (client) => {
      expect(structured(await callConfirmed(client, 'delete_campaign', { id: campaignId }))).toEqual({ ok: true })
    })
    expect((await s.api('GET', `/admin/api/campaigns/${campaignId}`)).status).toBe(404)
  })
})
