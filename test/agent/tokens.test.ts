// Agent tokens through the admin API and the CLI, and bearer tokens on /admin/api (issue 12): shown once,
// stored hashed, scopes per resource, expiry, revocation, last use, the default rate bucket.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { startServer, TEST_ENV, engineEnv, type TestServer } from '../helpers/server'
import { svc } from '../helpers/cli'
import { testDb } from '../helpers/db'
import { addUser, cookieFor } from '../admin/helpers'
import { callConfirmed, structured, TIER2_REST, toolError, withClient } from './helpers'

let s: TestServer
beforeAll(async () => { s = await startServer() })
afterAll(() => s.destroy())

async function token(body: Record<string, unknown>): Promise<{ id: number; token: string }> {
  const r = await s.api('POST', '/admin/api/tokens', { name: 'test', ...body })
  if (r.status !== 201) throw new Error(`token create: ${r.status} ${r.text}`)
  return r.body
}

const bearer = (path: string, t: string, init: RequestInit = {}) =>
  fetch(`${s.base}${path}`, { ...init, headers: { authorization: `Bearer ${t}`, ...(init.body ? { 'content-type': 'application/json' } : {}), ...(init.headers ?? {}) } })

describe('POST /admin/api/tokens', () => {
  test('201 with the token (svc_ap_ + 32 random bytes) once; lists and gets never show it; the database keeps only its SHA-256', async () => {
    const r = await s.api('POST', '/admin/api/tokens', { name: 'reporting bot', scopes: ['reports:read', 'campaigns:read'] })
    expect(r.status).toBe(201)
    expect(r.headers.get('cache-control')).toBe('no-store')
    expect(r.body.token).toMatch(/^svc_ap_[A-Za-z0-9_-]{43}$/)
    expect(r.body).toMatchObject({
      name: 'reporting bot', scopes: ['campaigns:read', 'reports:read'], status: 'active', rate_limits: { default: 120, ai: 10 },
      expires_at: null, revoked_at: null, last_used_at: null, created_by: 1, token_hint: `svc_ap_…${r.body.token.slice(-4)}`,
    })
    const listed = await s.api('GET', '/admin/api/tokens')
    const got = await s.api('GET', `/admin/api/tokens/${r.body.id}`)
    for (const text of [listed.text, got.text]) expect(text).not.toContain(r.body.token)
    expect(got.body.id).toBe(r.body.id)
    expect(got.body.token).toBeUndefined()
    const rows = await testDb(s).all('SELECT token_hash, token_hint, scopes FROM agent_tokens WHERE id = $id', { id: r.body.id })
    expect(rows[0].token_hash).toBe(createHash('sha256').update(r.body.token).digest('hex'))
    expect(JSON.stringify(rows)).not.toContain(r.body.token.slice(7))
  })

  test('two tokens differ', async () => {
    const a = await token({ scopes: ['reports:read'] })
    const b = await token({ scopes: ['reports:read'] })
    expect(a.token).not.toBe(b.token)
  })

  test('400 naming the field: unknown scope, no scope, past or malformed expiry, bad rate limits', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ scopes: ['campaigns:delete'] }, 'scopes: unknown scope "campaigns:delete" (see GET /admin/api/tokens/scopes)'],
      [{ scopes: [] }, 'scopes: Expected array length to be greater or equal to 1'],
      [{ scopes: ['reports:read'], expires_at: '2001-01-01T00:00:00Z' }, 'expires_at: must be in the future'],
      [{ scopes: ['reports:read'], expires_at: 'tomorrow' }, 'expires_at: must be an ISO 8601 time'],
      [{ scopes: ['reports:read'], rate_limits: { ai: 0 } }, 'rate_limits.ai'],
    ]
    for (const [body, error] of cases) {
      const r = await s.api('POST', '/admin/api/tokens', { name: 'x', ...body })
      expect({ body, status: r.status }).toEqual({ body, status: 400 })
      expect(r.body.error).toStartWith(error)
    }
    expect((await s.api('POST', '/admin/api/tokens', { scopes: ['reports:read'] })).body.error).toStartWith('name')
  })

  test('"all" and "<resource>:*" expand; the scope list has 42 entries over 21 resources', async () => {
    const all = await s.api('POST', '/admin/api/tokens', { name: 'all', scopes: ['all'] })
    expect(all.body.scopes).toHaveLength(42)
    const star = await s.api('POST', '/admin/api/tokens', { name: 'star', scopes: ['orders:*'] })
    expect(star.body.scopes).toEqual(['orders:read', 'orders:write'])
    const list = await s.api('GET', '/admin/api/tokens/scopes')
    expect(list.status).toBe(200)
    expect(list.body.items).toHaveLength(42)
    expect(new Set(list.body.items.map((i: any) => i.resource)).size).toBe(21)
    expect(list.body.items[0]).toEqual({ scope: 'campaigns:read', resource: 'campaigns', action: 'read', section: 'campaigns', covers: expect.any(String) })
  })

  test('a person grants only what they hold; a token creating tokens grants only its own scopes', async () => {
    const id = await addUser(s, 'admin-of-users@example.com', { users: { read: true, write: true }, campaigns: { read: true, write: false } })
    const cookie = await cookieFor(s, id)
    const ok = await s.api('POST', '/admin/api/tokens', { name: 'mine', scopes: ['campaigns:read', 'tokens:read'] }, cookie)
    expect(ok.status).toBe(201)
    const refused = await s.api('POST', '/admin/api/tokens', { name: 'more', scopes: ['campaigns:write'] }, cookie)
    expect(refused.status).toBe(403)
    expect(refused.body).toEqual({ error: 'you cannot grant campaigns:write: a token gets only scopes its creator holds' })
    // "all" is everything the creator holds, not everything there is.
    const all = await s.api('POST', '/admin/api/tokens', { name: 'all of mine', scopes: ['all'] }, cookie)
    expect(all.body.scopes).toEqual(['campaigns:read', 'sources:read', 'offers:read', 'users:read', 'users:write', 'tokens:read', 'tokens:write'])

    // A token mints tokens only through /mcp (Tier 2, confirmed), and only of its own scopes.
    const maker = await token({ scopes: ['tokens:write', 'reports:read'] })
    const rest = await bearer('/admin/api/tokens', maker.token, { method: 'POST', body: JSON.stringify({ name: 'child', scopes: ['reports:read'] }) })
    expect(rest.status).toBe(403)
    expect(await rest.json()).toEqual({ error: TIER2_REST('a user, permission or token change') })
    await withClient(s, maker.token, async (client) => {
      expect(structured(await callConfirmed(client, 'create_token', { name: 'child', scopes: ['reports:read'] }))).toMatchObject({ scopes: ['reports:read'], created_by: 1 })
      expect(toolError(await callConfirmed(client, 'create_token', { name: 'child', scopes: ['settings:write'] })))
        .toBe('forbidden: this token cannot grant settings:write: a token grants only scopes both it and the user who created it hold')
    })
  })
})

describe('a token managing tokens', () => {
  test('hands out no higher rate limits and no later expiry than its own; its children inherit both', async () => {
    const expires = new Date(Date.now() + 3_600_000).toISOString()
    const maker = await token({ scopes: ['tokens:read', 'tokens:write', 'reports:read'], rate_limits: { default: 50, ai: 4 }, expires_at: expires })
    await withClient(s, maker.token, async (client) => {
      const create = (body: Record<string, unknown>) => callConfirmed(client, 'create_token', { name: 'child', scopes: ['reports:read'], ...body })
      expect(structured(await create({}))).toMatchObject({ rate_limits: { default: 50, ai: 4 }, expires_at: expires })
      expect(toolError(await create({ rate_limits: { ai: 5 } }))).toBe('forbidden: rate_limits.ai: a token cannot grant more than its own 4 calls a minute')
      expect(toolError(await create({ expires_at: new Date(Date.now() + 7_200_000).toISOString() })))
        .toStartWith('forbidden: expires_at: a token cannot grant a later expiry than its own')
      // Nor lift its own limits or expiry afterwards.
      const own = (patch: Record<string, unknown>) => callConfirmed(client, 'update_token', { id: maker.id, ...patch })
      expect(toolError(await own({ rate_limits: { default: 500 } }))).toStartWith('forbidden: rate_limits.default')
      expect(toolError(await own({ expires_at: null }))).toStartWith('forbidden: expires_at')
      expect(structured(await own({ rate_limits: { default: 10 } }))).toMatchObject({ id: maker.id, rate_limits: { default: 10, ai: 4 } })
    })
  })
})

describe('bearer tokens on /admin/api', () => {
  test('the scope of the path\'s resource decides: read, write, and other resources of the same section', async () => {
    const t = await token({ scopes: ['campaigns:read'] })
    const list = await bearer('/admin/api/campaigns', t.token)
    expect(list.status).toBe(200)
    expect(await list.json()).toEqual({ items: [], next_cursor: null })
    const write = await bearer('/admin/api/campaigns', t.token, { method: 'POST', body: JSON.stringify({ name: 'x', slug: 'x' }) })
    expect(write.status).toBe(403)
    expect(await write.json()).toEqual({ error: 'missing scope campaigns:write' })
    // sources share the campaigns section with campaigns, but are their own resource.
    const sources = await bearer('/admin/api/sources', t.token)
    expect(sources.status).toBe(403)
    expect(await sources.json()).toEqual({ error: 'missing scope sources:read' })
  })

  test('a write scope writes: POST /admin/api/sources with sources:write', async () => {
    const t = await token({ scopes: ['sources:write', 'sources:read'] })
    const r = await bearer('/admin/api/sources', t.token, { method: 'POST', body: JSON.stringify({ name: 'From a script' }) })
    expect(r.status).toBe(201)
    expect((await r.json()).name).toBe('From a script')
  })

  test('folded resources: postback aliases and the status map are conversion_types; events/counts is reports; broadcasts are email_sends', async () => {
    const t = await token({ scopes: ['conversion_types:read', 'reports:read'] })
    expect((await bearer('/admin/api/postback-aliases', t.token)).status).toBe(200)
    expect((await bearer('/admin/api/status-map', t.token)).status).toBe(200)
    expect((await bearer('/admin/api/events/counts?group_by=name', t.token)).status).toBe(200)
    expect(await (await bearer('/admin/api/events', t.token)).json()).toEqual({ error: 'missing scope leads:read' })
    expect(await (await bearer('/admin/api/settings', t.token)).json()).toEqual({ error: 'missing scope settings:read' })
    const send = await bearer('/admin/api/email-lists/1/broadcasts', t.token, { method: 'POST', body: JSON.stringify({ subject: 's', text: 't' }) })
    expect(await send.json()).toEqual({ error: 'missing scope email_sends:write' })
  })

  test('jobs:read lists jobs of every kind; without it 403', async () => {
    const t = await token({ scopes: ['jobs:read'] })
    const r = await bearer('/admin/api/jobs', t.token)
    expect(r.status).toBe(200)
    const none = await token({ scopes: ['reports:read'] })
    expect(await (await bearer('/admin/api/jobs', none.token)).json()).toEqual({ error: 'missing scope jobs:read' })
  })

  test('401 with WWW-Authenticate: Bearer for an unknown, a malformed, a revoked and an expired token; a cookie does not rescue a bad token', async () => {
    const t = await token({ scopes: ['campaigns:read'] })
    const unknown = await bearer('/admin/api/campaigns', `svc_ap_${'A'.repeat(43)}`)
    expect(unknown.status).toBe(401)
    expect(unknown.headers.get('www-authenticate')).toStartWith('Bearer ')
    expect(await unknown.json()).toEqual({ error: 'invalid token' })
    expect((await bearer('/admin/api/campaigns', 'not-a-token')).status).toBe(401)
    const cookie = await s.login()
    const mixed = await bearer('/admin/api/campaigns', 'svc_ap_wrong', { headers: { cookie } })
    expect(mixed.status).toBe(401)

    expect((await s.api('DELETE', `/admin/api/tokens/${t.id}`)).body).toEqual({ ok: true })
    const revoked = await bearer('/admin/api/campaigns', t.token)
    expect(revoked.status).toBe(401)
    expect(await revoked.json()).toEqual({ error: 'token revoked' })
    expect((await s.api('GET', `/admin/api/tokens/${t.id}`)).body).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) })

    const soon = await token({ scopes: ['campaigns:read'], expires_at: new Date(Date.now() + 1200).toISOString() })
    expect((await bearer('/admin/api/campaigns', soon.token)).status).toBe(200)
    await Bun.sleep(1300)
    const expired = await bearer('/admin/api/campaigns', soon.token)
    expect(expired.status).toBe(401)
    expect(await expired.json()).toEqual({ error: 'token expired' })
    expect((await s.api('GET', `/admin/api/tokens/${soon.id}`)).body.status).toBe('expired')
  })

  test('records the last use (time and client IP)', async () => {
    const t = await token({ scopes: ['campaigns:read'] })
    expect((await s.api('GET', `/admin/api/tokens/${t.id}`)).body.last_used_at).toBeNull()
    await bearer('/admin/api/campaigns', t.token)
    const after = (await s.api('GET', `/admin/api/tokens/${t.id}`)).body
    expect(Date.parse(after.last_used_at)).toBeGreaterThan(Date.now() - 10_000)
    expect(after.last_used_ip).toBe('127.0.0.1')
  })

  test('counts in the token\'s default bucket: past its limit 429 with Retry-After; another token is not affected', async () => {
    const t = await token({ scopes: ['campaigns:read'], rate_limits: { default: 3 } })
    const other = await token({ scopes: ['campaigns:read'] })
    for (let i = 0; i < 3; i++) expect((await bearer('/admin/api/campaigns', t.token)).status).toBe(200)
    const limited = await bearer('/admin/api/campaigns', t.token)
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await limited.json()).toEqual({ error: 'too many requests' })
    expect((await bearer('/admin/api/campaigns', other.token)).status).toBe(200)
  })

  test('PATCH changes scopes and limits at once; the secret stays the same', async () => {
    const t = await token({ scopes: ['campaigns:read'] })
    const r = await s.api('PATCH', `/admin/api/tokens/${t.id}`, { scopes: ['sources:read'], rate_limits: { ai: 3 }, name: 'renamed' })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ name: 'renamed', scopes: ['sources:read'], rate_limits: { default: 120, ai: 3 } })
    expect((await bearer('/admin/api/campaigns', t.token)).status).toBe(403)
    expect((await bearer('/admin/api/sources', t.token)).status).toBe(200)
    expect((await s.api('PATCH', '/admin/api/tokens/99999', { name: 'x' })).status).toBe(404)
    expect((await s.api('DELETE', '/admin/api/tokens/99999')).status).toBe(404)
  })

  test('tokens and audit belong to section users: a person without it gets 403', async () => {
    const id = await addUser(s, 'campaigns-only@example.com', { campaigns: { read: true, write: true } })
    const cookie = await cookieFor(s, id)
    for (const path of ['/admin/api/tokens', '/admin/api/audit', '/admin/api/tokens/scopes']) {
      const r = await s.api('GET', path, undefined, cookie)
      expect({ path, status: r.status, body: r.body }).toEqual({ path, status: 403, body: { error: 'missing permission users:read' } })
    }
  })
})

describe('audit of bearer requests to /admin/api', () => {
  test('one row per request (surface rest): method and path, query and body with secrets redacted, outcome by status', async () => {
    const t = await token({ name: 'rest-audited', scopes: ['sources:read', 'sources:write'] })
    const h = { 'content-type': 'application/json' }
    await bearer('/admin/api/sources?limit=5', t.token)
    await bearer('/admin/api/sources', t.token, { method: 'POST', body: JSON.stringify({ name: 'audited' }) })
    await bearer('/admin/api/campaigns', t.token)
    await bearer('/admin/api/settings', t.token, { method: 'PUT', headers: h, body: JSON.stringify({ postback_secret: 'a-secret-that-never-shows' }) })
    let rows: any[] = []
    for (let i = 0; i < 40 && rows.length < 4; i++) {
      rows = (await s.api('GET', `/admin/api/audit?token_id=${t.id}`)).body.items
      if (rows.length < 4) await Bun.sleep(25)
    }
    // Written after each answer is sent, so two quick requests' rows may land in either order: compared by tool.
    rows.sort((a, b) => (a.tool < b.tool ? -1 : 1))
    expect(rows.map((r) => [r.surface, r.tool, r.outcome, r.error])).toEqual([
      ['rest', 'GET /admin/api/campaigns', 'denied', 'HTTP 403'],
      ['rest', 'GET /admin/api/sources', 'ok', null],
      ['rest', 'POST /admin/api/sources', 'ok', null],
      ['rest', 'PUT /admin/api/settings', 'denied', 'HTTP 403'],
    ])
    expect(rows[1].arguments).toEqual({ limit: '5' })
    expect(rows[2].arguments).toEqual({ body: { name: 'audited' } })
    const last = rows[3]
    expect([last.token_name, last.ip, typeof last.duration_ms]).toEqual(['rest-audited', '127.0.0.1', 'number'])
    expect(JSON.stringify(rows)).not.toContain('a-secret-that-never-shows')
    // A session's requests are not agent calls: no rows. The token's request after it is the marker that the
    // session's row, had there been one, was written by now (both written after their answers).
    const restRows = async () => (await s.api('GET', '/admin/api/audit?surface=rest&limit=500')).body.items as any[]
    const before = await restRows()
    await s.api('GET', '/admin/api/sources')
    await bearer('/admin/api/sources?limit=1', t.token)
    let after = await restRows()
    for (let i = 0; i < 40 && after.length < before.length + 1; i++) {
      await Bun.sleep(25)
      after = await restRows()
    }
    await Bun.sleep(50)
    after = await restRows()
    expect(after.length).toBe(before.length + 1)
    expect([after[0].token_id, after[0].tool, after[0].arguments]).toEqual([t.id, 'GET /admin/api/sources', { limit: '1' }])
    expect(after.filter((r) => r.token_id === null)).toEqual([])
  })
})

describe('svc token create', () => {
  test('prints only the token on stdout (exit 0); the token works against the running server', async () => {
    const env = { SVC_DATA_DIR: s.dataDir, SVC_SECRET: TEST_ENV.SVC_SECRET!, ...(await engineEnv(s.dataDir)) }
    const r = svc(['token', 'create', '--name', 'ci', '--scopes', 'campaigns:read,reports:read'], env)
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/^svc_ap_[A-Za-z0-9_-]{43}\n$/)
    expect(r.err).toContain('"ci" with 2 scopes')
    expect((await bearer('/admin/api/campaigns', r.out.trim())).status).toBe(200)
    expect((await bearer('/admin/api/sources', r.out.trim())).status).toBe(403)
  })

  test('unknown scope: exit 1 with the reason; missing flags: exit 2 with the usage', async () => {
    const env = { SVC_DATA_DIR: s.dataDir, SVC_SECRET: TEST_ENV.SVC_SECRET!, ...(await engineEnv(s.dataDir)) }
    const bad = svc(['token', 'create', '--name', 'x', '--scopes', 'bogus'], env)
    expect(bad.code).toBe(1)
    expect(bad.err).toContain('unknown scope "bogus"')
    const usage = svc(['token', 'create', '--scopes', 'all'], env)
    expect(usage.code).toBe(2)
    expect(usage.err).toContain('--name is required')
  })
})
