import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { testDb } from '../helpers/db'
import { OWNER, startServer, type TestServer } from '../helpers/server'
import { SECTIONS } from '../../src/lib/permissions'
import { addUser, cookieFor, send, USER_PASSWORD } from './helpers'

// Trusting the proxy lets each test log in from its own X-Forwarded-For address, so the
// 5-per-15-minutes budget of one test does not leak into the next.
let s: TestServer
let ipCounter = 10
const freshIp = () => `203.0.113.${ipCounter++}`

beforeAll(async () => { s = await startServer({ SVC_TRUST_PROXY: '1' }) })
afterAll(() => s.destroy())

function login(srv: TestServer, body: unknown, headers: Record<string, string> = {}) {
  return send(srv, 'POST', '/admin/api/login', {
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

const sessionCookie = (res: { headers: Headers }) => res.headers.getSetCookie().find((c) => c.startsWith('svc_admin_session='))
const attributes = (setCookie: string) => setCookie.split(';').slice(1).map((a) => a.trim())

describe('POST /admin/api/login', () => {
  test('signs in with the right password and returns the user with all 8 sections', async () => {
    const res = await login(s, OWNER, { 'x-forwarded-for': freshIp() })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      ok: true,
      user: { id: 1, email: OWNER.email, is_owner: true, permissions: Object.fromEntries(SECTIONS.map((x) => [x, { read: true, write: true }])), time_zone: 'UTC' },
    })
    expect(res.text).not.toContain(OWNER.password)
  })

  test('sets svc_admin_session HttpOnly, SameSite=Lax, Path=/, Max-Age = session lifetime, not Secure over plain http', async () => {
    const res = await login(s, OWNER, { 'x-forwarded-for': freshIp() })
    const set = sessionCookie(res)!
    expect(set).toBeDefined()
    const attrs = attributes(set)
    expect(attrs).toContain('HttpOnly')
    expect(attrs).toContain('SameSite=Lax')
    expect(attrs).toContain('Path=/')
    expect(attrs).toContain('Max-Age=604800')
    expect(attrs).not.toContain('Secure')
    const me = await send(s, 'GET', '/admin/api/me', { headers: { cookie: set.split(';')[0]! } })
    expect(me.status).toBe(200)
    expect(me.body.email).toBe(OWNER.email)
  })

  test('sets Secure when a trusted proxy says the request came over https', async () => {
    const res = await login(s, OWNER, { 'x-forwarded-for': freshIp(), 'x-forwarded-proto': 'https' })
    expect(attributes(sessionCookie(res)!)).toContain('Secure')
  })

  test('accepts the email in any letter case', async () => {
    const res = await login(s, { email: OWNER.email.toUpperCase(), password: OWNER.password }, { 'x-forwarded-for': freshIp() })
    expect(res.status).toBe(200)
  })

  test('answers a wrong password and an unknown email alike: 401 {"error":"invalid email or password"}, no cookie', async () => {
    const ip = freshIp()
    for (const body of [{ email: OWNER.email, password: 'wrong-password' }, { email: 'nobody@example.com', password: OWNER.password }]) {
      const res = await login(s, body, { 'x-forwarded-for': ip })
      expect(res.status).toBe(401)
      expect(res.body).toEqual({ error: 'invalid email or password' })
      expect(sessionCookie(res)).toBeUndefined()
    }
  })

  test('rejects malformed JSON, wrong types, missing fields, non-JSON bodies and huge strings with 400', async () => {
    const cases: Array<[string, string, string | undefined]> = [
      ['{"email": ', 'application/json', undefined],
      [JSON.stringify({ email: 5, password: 'x' }), 'application/json', 'email'],
      [JSON.stringify({ email: OWNER.email }), 'application/json', 'password'],
      ['', 'application/json', undefined],
      ['[]', 'application/json', undefined],
      [`email=${OWNER.email}&password=${OWNER.password}`, 'application/x-www-form-urlencoded', undefined],
      [JSON.stringify(OWNER), 'text/plain', undefined],
      [JSON.stringify({ email: OWNER.email, password: 'x'.repeat(100_000) }), 'application/json', 'password'],
    ]
    for (const [body, type, field] of cases) {
      // A fresh address per case: these tests are about validation, not the rate limit.
      const res = await send(s, 'POST', '/admin/api/login', { headers: { 'content-type': type, 'x-forwarded-for': freshIp() }, body })
      expect({ body: body.slice(0, 40), status: res.status }).toEqual({ body: body.slice(0, 40), status: 400 })
      expect(typeof res.body.error).toBe('string')
      if (field) expect(res.body.error.startsWith(`${field}:`)).toBe(true)
    }
  })

  test('allows 5 failed attempts per 15 minutes per IP, then 429 {"error":"too many requests"} with Retry-After, even for the right password', async () => {
    const ip = freshIp()
    const statuses: number[] = []
    // Only failures count (issue 14): a successful login and a malformed body do not.
    statuses.push((await login(s, OWNER, { 'x-forwarded-for': ip })).status)
    statuses.push((await login(s, '{"broken', { 'x-forwarded-for': ip })).status)
    for (let i = 0; i < 5; i++) statuses.push((await login(s, { email: `nobody-${i}@example.com`, password: 'nope-nope' }, { 'x-forwarded-for': ip })).status)
    expect(statuses).toEqual([200, 400, 401, 401, 401, 401, 401])

    const limited = await login(s, OWNER, { 'x-forwarded-for': ip })
    expect(limited.status).toBe(429)
    expect(limited.body).toEqual({ error: 'too many requests' })
    const retryAfter = Number(limited.headers.get('retry-after'))
    expect(Number.isInteger(retryAfter)).toBe(true)
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(15 * 60)
    expect(sessionCookie(limited)).toBeUndefined()

    // Another client is not affected.
    expect((await login(s, OWNER, { 'x-forwarded-for': freshIp() })).status).toBe(200)
  })
})

describe('GET /admin/api/me', () => {
  test('shows a non-owner exactly their permissions, every section present', async () => {
    const id = await addUser(s, 'me-reader@example.com', { reports: { read: true }, email: { write: true } })
    const res = await send(s, 'GET', '/admin/api/me', { headers: { cookie: await cookieFor(s, id) } })
    expect(res.status).toBe(200)
    const expected = Object.fromEntries(SECTIONS.map((x) => [x, { read: false, write: false }]))
    expected.reports = { read: true, write: false }
    expected.email = { read: false, write: true }
    expect(res.body).toEqual({ id, email: 'me-reader@example.com', is_owner: false, permissions: expected, time_zone: 'UTC' })
  })

  test('answers 401 {"error":"not authenticated"} once the user is deleted', async () => {
    const id = await addUser(s, 'gone@example.com')
    const cookie = await cookieFor(s, id)
    await testDb(s).run('DELETE FROM users WHERE id = $id', { id })
    const res = await send(s, 'GET', '/admin/api/me', { headers: { cookie } })
    expect(res.status).toBe(401)
    expect(res.body).toEqual({ error: 'not authenticated' })
  })
})

describe('POST /admin/api/logout', () => {
  test('clears the cookie and revokes every session of the user: replaying the old cookie gives 401', async () => {
    await addUser(s, 'leaver@example.com')
    const first = await login(s, { email: 'leaver@example.com', password: USER_PASSWORD }, { 'x-forwarded-for': freshIp() })
    expect(first.status).toBe(200)
    const cookieA = sessionCookie(first)!.split(';')[0]!
    const second = await login(s, { email: 'leaver@example.com', password: USER_PASSWORD }, { 'x-forwarded-for': freshIp() })
    const cookieB = sessionCookie(second)!.split(';')[0]!

    const out = await send(s, 'POST', '/admin/api/logout', { headers: { cookie: cookieA, 'content-type': 'application/json' } })
    expect(out.status).toBe(200)
    expect(out.body).toEqual({ ok: true })
    const cleared = sessionCookie(out)!
    expect(cleared.split(';')[0]).toBe('svc_admin_session=')
    expect(attributes(cleared)).toContain('Max-Age=0')
    expect(attributes(cleared)).toContain('Path=/')

    for (const cookie of [cookieA, cookieB]) {
      const res = await send(s, 'GET', '/admin/api/me', { headers: { cookie } })
      expect(res.status).toBe(401)
      expect(res.body).toEqual({ error: 'not authenticated' })
    }
    // Signing in again works.
    expect((await login(s, { email: 'leaver@example.com', password: USER_PASSWORD }, { 'x-forwarded-for': freshIp() })).status).toBe(200)
  })

  test('does not sign out other users', async () => {
    const a = await addUser(s, 'stay-a@example.com')
    const b = await addUser(s, 'stay-b@example.com')
    const cookieB = await cookieFor(s, b)
    expect((await send(s, 'POST', '/admin/api/logout', { headers: { cookie: await cookieFor(s, a), 'content-type': 'application/json' } })).status).toBe(200)
    expect((await send(s, 'GET', '/admin/api/me', { headers: { cookie: cookieB } })).status).toBe(200)
  })
})

describe('a server with an https public URL and a short session lifetime', () => {
  let h: TestServer
  beforeAll(async () => { h = await startServer({ SVC_PUBLIC_URL: 'https://track.example', SVC_SESSION_TTL: '120' }) })
  afterAll(() => h.destroy())

  test('marks the cookie Secure and gives it Max-Age = SVC_SESSION_TTL', async () => {
    const res = await login(h, OWNER)
    expect(res.status).toBe(200)
    const attrs = attributes(sessionCookie(res)!)
    expect(attrs).toContain('Secure')
    expect(attrs).toContain('Max-Age=120')
    expect(attrs).toContain('HttpOnly')
    expect(attrs).toContain('SameSite=Lax')
  })

  test('refuses a cookie past its lifetime', async () => {
    const res = await send(h, 'GET', '/admin/api/me', { headers: { cookie: await cookieFor(h, 1, { expired: true }) } })
    expect(res.status).toBe(401)
    expect(res.body).toEqual({ error: 'not authenticated' })
  })
})

describe('a server that does not trust a proxy', () => {
  test('ignores X-Forwarded-Proto: no Secure cookie over plain http', async () => {
    const plain = await startServer()
    try {
      const res = await login(plain, OWNER, { 'x-forwarded-proto': 'https' })
      expect(res.status).toBe(200)
      expect(attributes(sessionCookie(res)!)).not.toContain('Secure')
    } finally {
      await plain.destroy()
    }
  })
})
