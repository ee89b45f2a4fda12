// Magic-link customer accounts end to end through a real SMTP relay the test starts, on either engine:
// ask for a link, read the mail, open the link (single use, 15 minutes), /api/account/me with the customer
// cookie, logout ends it. Unknown addresses get the same answer and no mail; 10 requests a minute per IP;
// CORS from the allowlist, preflight included; redirect only to an allowed origin.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { decoded, startRelay, type Received } from '../helpers/smtp-relay'
import { testDb } from '../helpers/db'
import { eventually } from '../postback/seed'

let relay: Awaited<ReturnType<typeof startRelay>>
let s: TestServer
let ip = 0

beforeAll(async () => {
  relay = await startRelay()
  // Trust-proxy on, so each test request can come from an address of its own (the per-IP limit is tested on its own).
  s = await startServer({ SVC_SMTP_URL: relay.url, SVC_PUBLIC_URL: 'https://shop-track.example', SVC_JOBS_POLL_MS: '50', SVC_TRUST_PROXY: '1' })
  await s.api('PUT', '/admin/api/settings', { email_from: 'news@shop.example', cors_allowlist: ['https://shop.example'] })
  const list = (await s.api('POST', '/admin/api/email-lists', { name: 'Customers' })).body.id
  for (const email of ['buyer@example.com', 'second@example.com', 'limit@example.com']) await s.api('POST', `/admin/api/email-lists/${list}/subscribers`, { email })
})
afterAll(async () => {
  await s?.destroy()
  relay?.close()
})

const ask = (body: unknown, headers: Record<string, string> = {}, from = `198.51.100.${++ip}`) =>
  fetch(`${s.base}/api/account/magic-link`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': from, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body),
  })
/** The link of the newest mail to `to`, as a path on the test server. */
const linkFor = async (to: string, count = 1) => {
  const mail = await eventually(() => relay.received.filter((m) => m.to[0] === to).length >= count && relay.received.filter((m) => m.to[0] === to).at(-1), 10_000, `mail to ${to}`)
  const url = /https:\/\/shop-track\.example(\/api\/account\/verify\?token=[A-Za-z0-9_-]{43})/.exec(decoded((mail as Received).raw))
  expect(url).not.toBeNull()
  return url![1]!
}

describe('magic-link sign-in', () => {
  test('ask, read the mail, open the link once: signed in; the link works once; logout ends the session', async () => {
    const res = await ask({ email: ' Buyer@Example.com ' })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ ok: true })
    const path = await linkFor('buyer@example.com')

    const open = await fetch(`${s.base}${path}`, { redirect: 'manual' })
    expect(open.status).toBe(302)
    expect(open.headers.get('location')).toBe('/account')
    const setCookie = open.headers.get('set-cookie')!
    expect(setCookie).toMatch(/^svc_customer_session=v1\.\d+\.0\.\d+\.[A-Za-z0-9_-]{43}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax; Secure$/)
    const cookie = setCookie.split(';')[0]!

    const me = await fetch(`${s.base}/api/account/me`, { headers: { cookie } })
    expect(me.status).toBe(200)
    expect(await me.json()).toEqual({ id: expect.any(Number), email: 'buyer@example.com', created_at: expect.any(String), last_login_at: expect.any(String) })
    expect(await (await fetch(`${s.base}/api/account/orders`, { headers: { cookie } })).json()).toEqual({ items: [], next_cursor: null })
    expect(await (await fetch(`${s.base}/api/account/subscriptions`, { headers: { cookie } })).json()).toEqual({ items: [], next_cursor: null })
    expect(await (await fetch(`${s.base}/account`, { headers: { cookie } })).text()).toContain('You are signed in as buyer@example.com.')
    // The customer cookie is not an admin cookie, and the other way round.
    expect((await s.api('GET', '/admin/api/me', undefined, cookie.replace('svc_customer_session', 'svc_admin_session'))).status).toBe(401)
    expect((await fetch(`${s.base}/api/account/me`, { headers: { cookie: (await s.login()).replace('svc_admin_session', 'svc_customer_session') } })).status).toBe(401)

    const again = await fetch(`${s.base}${path}`, { redirect: 'manual' })
    expect(again.status).toBe(410)
    expect(await again.text()).toContain('This sign-in link was already used.')

    const out = await fetch(`${s.base}/api/account/logout`, { method: 'POST', headers: { cookie } })
    expect(await out.json()).toEqual({ ok: true })
    expect(out.headers.get('set-cookie')).toStartWith('svc_customer_session=; Path=/; Max-Age=0;')
    expect((await fetch(`${s.base}/api/account/me`, { headers: { cookie } })).status).toBe(401)
    expect(await (await fetch(`${s.base}/api/account/me`)).json()).toEqual({ error: 'not signed in' })
  })

  test('a buyer on no list can sign in, and sees their own orders and subscriptions (native commerce), nobody else\'s', async () => {
    const db = testDb(s)
    const now = Date.now()
    for (const [ext, email] of [['pi_own_1', 'shopper@example.com'], ['pi_own_2', 'shopper@example.com'], ['pi_other', 'someone@example.com']]) {
      await db.run("INSERT INTO orders (source, external_id, status, currency, total, email, created_at, updated_at) VALUES ('pay-a', $ext, 'paid', 'EUR', 25, $email, $now, $now)", { ext, email, now })
    }
    await db.run("INSERT INTO subscriptions (source, external_id, email, status, created_at, updated_at) VALUES ('pay-a', 'sub_own', 'shopper@example.com', 'active', $now, $now)", { now })
    expect((await ask({ email: 'Shopper@Example.com' })).status).toBe(200)
    const open = await fetch(`${s.base}${await linkFor('shopper@example.com')}`, { redirect: 'manual' })
    const cookie = open.headers.get('set-cookie')!.split(';')[0]!
    const orders = (await (await fetch(`${s.base}/api/account/orders`, { headers: { cookie } })).json()) as { items: Array<{ status: string; total: number }> }
    expect(orders.items).toHaveLength(2)
    expect(orders.items[0]).toMatchObject({ source: 'pay-a', status: 'paid', total: 25, currency: 'EUR' })
    const subs = (await (await fetch(`${s.base}/api/account/subscriptions`, { headers: { cookie } })).json()) as { items: unknown[] }
    expect(subs.items).toEqual([expect.objectContaining({ source: 'pay-a', status: 'active' })])
  })

  test('an expired link and a made-up one get their own page; a redirect goes where it was asked, if allowed', async () => {
    expect((await ask({ email: 'second@example.com', redirect: 'https://shop.example/my-account?x=1' })).status).toBe(200)
    const path = await linkFor('second@example.com')
    const token = new URL(`http://x${path}`).searchParams.get('token')!
    const open = await fetch(`${s.base}${path}`, { redirect: 'manual' })
    expect(open.headers.get('location')).toBe('https://shop.example/my-account?x=1')

    expect((await ask({ email: 'second@example.com' })).status).toBe(200)
    const second = await linkFor('second@example.com', 2)
    await testDb(s).run('UPDATE customer_login_tokens SET expires_at = 1 WHERE used_at IS NULL')
    const expired = await fetch(`${s.base}${second}`, { redirect: 'manual' })
    expect(expired.status).toBe(410)
    expect(await expired.text()).toContain('This sign-in link has expired')
    const made = await fetch(`${s.base}/api/account/verify?token=${token.slice(0, -2)}xx`, { redirect: 'manual' })
    expect(made.status).toBe(404)
    expect((await fetch(`${s.base}/api/account/verify`, { redirect: 'manual' })).status).toBe(404)
    // The token is stored hashed, never as sent.
    expect(await testDb(s).get('SELECT id FROM customer_login_tokens WHERE token_hash = $t', { t: token })).toBeUndefined()

    for (const redirect of ['https://evil.example/', '//evil.example/x', 'javascript:alert(1)', '/\\evil.example']) {
      const r = await ask({ email: 'second@example.com', redirect })
      expect({ redirect, status: r.status, body: await r.json() }).toEqual({
        redirect, status: 400, body: { error: 'redirect: must be a path here (/…) or a URL on an origin of the cors_allowlist setting' },
      })
    }
  })

  test('an unknown address gets the same answer and no mail; bad input is 400; a form body works too', async () => {
    const before = relay.received.length
    const res = await ask({ email: 'stranger@example.com' })
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: { ok: true } })
    const form = await fetch(`${s.base}/api/account/magic-link`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `198.51.100.${++ip}` }, body: 'email=stranger%40example.com',
    })
    expect(await form.json()).toEqual({ ok: true })
    expect(await (await ask({ email: 'not-an-address' })).json()).toEqual({ error: 'email: not a valid email address' })
    expect((await ask({})).status).toBe(400)
    expect((await ask('{broken')).status).toBe(400)
    await Bun.sleep(300)
    expect(relay.received.length).toBe(before)
    expect(await testDb(s).get("SELECT id FROM customers WHERE email = 'stranger@example.com'")).toBeUndefined()
  })

  test('at most 10 requests a minute from one address (429 with Retry-After), and a few links an hour to one mailbox', async () => {
    const from = '203.0.113.50'
    const codes: number[] = []
    for (let i = 0; i < 11; i++) codes.push((await ask({ email: 'limit@example.com' }, {}, from)).status)
    expect(codes).toEqual([...Array(10).fill(200), 429])
    const limited = await ask({ email: 'limit@example.com' }, {}, from)
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(await limited.json()).toEqual({ error: 'too many requests' })
    await Bun.sleep(500)
    // Ten requests for one mailbox sent five links, not ten.
    await eventually(() => relay.received.filter((m) => m.to[0] === 'limit@example.com').length === 5 || undefined, 10_000, 'five links')
    await Bun.sleep(300)
    expect(relay.received.filter((m) => m.to[0] === 'limit@example.com')).toHaveLength(5)
  })

  test('CORS: an allowlisted origin gets its preflight and its answer; another origin gets neither', async () => {
    const pre = await fetch(`${s.base}/api/account/magic-link`, {
      method: 'OPTIONS', headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    })
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://shop.example')
    expect(pre.headers.get('access-control-allow-methods')).toBe('POST')
    const res = await ask({ email: 'nobody@example.com' }, { origin: 'https://shop.example' })
    expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example')
    const other = await fetch(`${s.base}/api/account/magic-link`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } })
    expect(other.headers.get('access-control-allow-origin')).toBeNull()
    expect((await ask({ email: 'nobody@example.com' }, { origin: 'https://evil.example' })).headers.get('access-control-allow-origin')).toBeNull()
  })
})
