// Issue 25 finding 1 / issue 26: a cookie-authenticated admin write that a browser marks as coming from
// elsewhere is refused with 403 before anything is read or written: Sec-Fetch-Site other than same-origin,
// or an Origin that is not the dashboard's (`null` included: a sandboxed landing page). The dashboard's
// origin: SVC_PUBLIC_URL's, or the request's own (Host; X-Forwarded-* only with SVC_TRUST_PROXY), never the
// landing host (SVC_LANDING_ORIGIN). Requests with neither header (scripts) and bearer tokens are not affected.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { OWNER, startServer, type TestServer } from '../helpers/server'
import { addUser, cookieFor, send } from './helpers'

const REFUSED = { error: "cross-site request refused: a browser may send admin writes with the session cookie only from the dashboard's own origin" }
const NEW_USER = JSON.stringify({ email: 'mallory@example.com', password: 'mallory-password-1', permissions: {}, is_owner: true })

async function userCount(s: TestServer): Promise<number> {
  return (await s.api('GET', '/admin/api/users?limit=500')).body.items.length
}

describe('default server (no SVC_PUBLIC_URL)', () => {
  let s: TestServer
  let cookie: string
  beforeAll(async () => {
    s = await startServer()
    cookie = await cookieFor(s, await addUser(s, 'boss@example.com', {}, true))
  })
  afterAll(() => s.destroy())

  const json = (extra: Record<string, string>) => ({ headers: { cookie, 'content-type': 'application/json', ...extra }, body: NEW_USER })

  test('Sec-Fetch-Site cross-site, same-site or none: 403, no user created', async () => {
    const before = await userCount(s)
    for (const site of ['cross-site', 'same-site', 'none']) {
      const res = await send(s, 'POST', '/admin/api/users', json({ 'sec-fetch-site': site }))
      expect({ site, status: res.status, body: res.body }).toEqual({ site, status: 403, body: REFUSED })
    }
    expect(await userCount(s)).toBe(before)
  })

  test('a foreign Origin, or Origin: null (a sandboxed page): 403, no user created', async () => {
    const before = await userCount(s)
    for (const origin of ['https://evil.example', 'null', `http://127.0.0.1:${s.port + 1}`, `https://127.0.0.1:${s.port}`, 'garbage']) {
      const res = await send(s, 'POST', '/admin/api/users', json({ origin }))
      expect({ origin, status: res.status, body: res.body }).toEqual({ origin, status: 403, body: REFUSED })
    }
    // Same-origin by Sec-Fetch-Site does not excuse a null Origin.
    const both = await send(s, 'POST', '/admin/api/users', json({ origin: 'null', 'sec-fetch-site': 'same-origin' }))
    expect({ status: both.status, body: both.body }).toEqual({ status: 403, body: REFUSED })
    expect(await userCount(s)).toBe(before)
  })

  test('cross-site is 403, never 400: bodiless DELETE, a text/plain body, logout, a CSV import, an asset upload', async () => {
    const source = (await s.api('POST', '/admin/api/sources', { name: 'Keep me' })).body
    const list = (await s.api('POST', '/admin/api/email-lists', { name: 'L' })).body
    const landing = (await s.api('POST', '/admin/api/landings', { name: 'LP', slug: 'xs-lp', html: '<p>x</p>' })).body
    const cases: Array<[string, string, Record<string, string>, string | undefined]> = [
      ['DELETE', `/admin/api/sources/${source.id}`, { origin: 'null' }, undefined],
      ['DELETE', `/admin/api/sources/${source.id}`, { 'sec-fetch-site': 'cross-site' }, undefined],
      ['POST', '/admin/api/sources', { origin: 'https://evil.example', 'content-type': 'text/plain' }, '{"name":"x"}'],
      ['POST', `/admin/api/email-lists/${list.id}/subscribers/import`, { origin: 'https://evil.example', 'content-type': 'text/plain' }, 'email\neve@example.com\n'],
      ['PUT', `/admin/api/landings/${landing.id}/assets/evil.js`, { origin: 'null', 'content-type': 'text/javascript' }, 'alert(1)'],
      ['POST', '/admin/api/logout', { 'sec-fetch-site': 'same-site' }, undefined],
    ]
    for (const [method, path, headers, body] of cases) {
      const res = await send(s, method, path, { headers: { cookie, ...headers }, body })
      expect({ method, path, headers, status: res.status, body: res.body }).toEqual({ method, path, headers, status: 403, body: REFUSED })
    }
    expect((await s.api('GET', `/admin/api/sources/${source.id}`)).status).toBe(200)
    expect((await s.api('GET', `/admin/api/email-lists/${list.id}/subscribers`)).body.items).toEqual([])
    expect((await s.api('GET', `/admin/api/landings/${landing.id}/assets`)).body.items).toEqual([])
    expect((await send(s, 'GET', '/admin/api/me', { headers: { cookie } })).status).toBe(200) // still signed in
  })

  test('the dashboard itself (same origin: Origin is this host, Sec-Fetch-Site same-origin) writes as before', async () => {
    const res = await send(s, 'POST', '/admin/api/sources', {
      headers: { cookie, 'content-type': 'application/json', origin: s.base, 'sec-fetch-site': 'same-origin' }, body: '{"name":"From the dashboard"}',
    })
    expect(res.status).toBe(201)
    const del = await send(s, 'DELETE', `/admin/api/sources/${res.body.id}`, {
      headers: { cookie, 'content-type': 'application/json', origin: s.base, 'sec-fetch-site': 'same-origin' }, body: '{}',
    })
    expect({ status: del.status, body: del.body }).toEqual({ status: 200, body: { ok: true } })
    // An older browser that sends Origin only.
    expect((await send(s, 'POST', '/admin/api/sources', { headers: { cookie, 'content-type': 'application/json', origin: s.base }, body: '{"name":"Origin only"}' })).status).toBe(201)
  })

  test('no browser headers at all (a script replaying the cookie): a bodiless DELETE without content type works', async () => {
    const source = (await s.api('POST', '/admin/api/sources', { name: 'Scripted' })).body
    const res = await send(s, 'DELETE', `/admin/api/sources/${source.id}`, { headers: { cookie } })
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { ok: true } })
  })

  test('reads are not refused (a cross-site page cannot read the answer: no CORS)', async () => {
    const res = await send(s, 'GET', '/admin/api/sources', { headers: { cookie, origin: 'null', 'sec-fetch-site': 'cross-site' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
  })

  test('a bearer token is not affected by Origin or Sec-Fetch-Site', async () => {
    const token = (await s.api('POST', '/admin/api/tokens', { name: 'script', scopes: ['sources:write'] })).body.token
    const c = (await s.api('POST', '/admin/api/sources', { name: 'C' })).body
    const res = await send(s, 'PATCH', `/admin/api/sources/${c.id}`, {
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', origin: 'https://ci.example', 'sec-fetch-site': 'cross-site' }, body: '{"name":"Renamed"}',
    })
    expect({ status: res.status, name: res.body.name }).toEqual({ status: 200, name: 'Renamed' })
  })
})

describe('SVC_PUBLIC_URL, SVC_LANDING_ORIGIN and SVC_TRUST_PROXY', () => {
  let s: TestServer
  let cookie: string
  beforeAll(async () => {
    s = await startServer({ SVC_PUBLIC_URL: 'https://track.example.com', SVC_LANDING_ORIGIN: 'https://go.example.com', SVC_TRUST_PROXY: '1' })
    cookie = await cookieFor(s, await addUser(s, 'boss@example.com', {}, true))
  })
  afterAll(() => s.destroy())

  const create = (headers: Record<string, string>) =>
    send(s, 'POST', '/admin/api/sources', { headers: { cookie, 'content-type': 'application/json', ...headers }, body: '{"name":"S"}' })

  test("SVC_PUBLIC_URL's origin is the dashboard's, even when a proxy rewrote Host", async () => {
    expect((await create({ origin: 'https://track.example.com', 'sec-fetch-site': 'same-origin' })).status).toBe(201)
  })

  test("the request's own origin (X-Forwarded-Host/Proto, trusted here) is the dashboard's too", async () => {
    expect((await create({ origin: 'https://admin.internal', 'x-forwarded-host': 'admin.internal', 'x-forwarded-proto': 'https' })).status).toBe(201)
    expect((await create({ origin: s.base })).status).toBe(201)
    const http = await create({ origin: 'http://admin.internal', 'x-forwarded-host': 'admin.internal', 'x-forwarded-proto': 'https' })
    expect({ status: http.status, body: http.body }).toEqual({ status: 403, body: REFUSED })
  })

  test('the landing host is never the dashboard\'s, even as the request\'s own origin', async () => {
    const res = await create({ origin: 'https://go.example.com', 'x-forwarded-host': 'go.example.com', 'x-forwarded-proto': 'https' })
    expect({ status: res.status, body: res.body }).toEqual({ status: 403, body: REFUSED })
  })
})

describe('without SVC_TRUST_PROXY, X-Forwarded-Host proves nothing', () => {
  let s: TestServer
  let cookie: string
  beforeAll(async () => {
    s = await startServer()
    cookie = await cookieFor(s, await addUser(s, 'boss@example.com', {}, true))
  })
  afterAll(() => s.destroy())

  test('an Origin matching only X-Forwarded-Host is refused', async () => {
    const res = await send(s, 'POST', '/admin/api/sources', {
      headers: { cookie, 'content-type': 'application/json', origin: 'https://evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' }, body: '{"name":"S"}',
    })
    expect({ status: res.status, body: res.body }).toEqual({ status: 403, body: REFUSED })
  })
})

describe('login CSRF', () => {
  let s: TestServer
  beforeAll(async () => { s = await startServer() })
  afterAll(() => s.destroy())

  const login = (extra: Record<string, string>) => fetch(`${s.base}/admin/api/login`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...extra }, body: JSON.stringify({ email: OWNER.email, password: OWNER.password }),
  })

  test("another site's page cannot sign the browser in (403, no cookie); the dashboard and scripts can", async () => {
    for (const extra of [{ origin: 'https://evil.example' }, { origin: 'null' }, { 'sec-fetch-site': 'cross-site' }] as Record<string, string>[]) {
      const res = await login(extra)
      expect({ extra, status: res.status, body: await res.json(), cookie: res.headers.get('set-cookie') }).toEqual({ extra, status: 403, body: REFUSED, cookie: null })
    }
    for (const extra of [{}, { origin: s.base, 'sec-fetch-site': 'same-origin' }] as Record<string, string>[]) {
      const res = await login(extra)
      expect({ extra, status: res.status }).toEqual({ extra, status: 200 })
      expect(res.headers.get('set-cookie')).toContain('svc_admin_session=')
    }
  })
})
