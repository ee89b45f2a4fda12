// Issue 25 (Low): chunked bodies (no Content-Length) bypassed the body limits. Every route with a limit counts
// a body's bytes as they stream and answers 413 {"error":"request body too large (at most N bytes)"} past it,
// with nothing stored; /api/lead refuses a body with more fields or parts than a lead has; the routes that
// would buffer a body whole (admin JSON, CSV import, /mcp, checkout) refuse a body of unknown length (411).
// On the engine under test (SVC_TEST_ENGINE=postgres for Postgres).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { testDb } from '../helpers/db'
import { SERVER_TIMEOUT_MS } from '../tracking/seed'
import { MAX_BODY_BYTES } from '../../src/http/body-limit'

let s: TestServer
let n = 0
const nextIp = () => `192.0.2.${++n}`
const LEAD_MAX = 64 * 1024
const EVENT_MAX = 8 * 1024

beforeAll(async () => {
  s = await startServer({ SVC_TRUST_PROXY: '1' })
}, SERVER_TIMEOUT_MS)
afterAll(async () => {
  await s?.destroy()
})

/** A body sent chunked (fetch sends a ReadableStream without Content-Length): `bytes` in 16 KB chunks. */
function chunked(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let at = 0
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (at >= bytes.length) return c.close()
      c.enqueue(bytes.subarray(at, (at += 16 * 1024)))
    },
  })
}
const enc = (t: string) => new TextEncoder().encode(t)
const send = (method: string, path: string, body: BodyInit, headers: Record<string, string>) =>
  fetch(`${s.base}${path}`, { method, body, headers, duplex: 'half' } as RequestInit)
const answer = async (res: Response) => ({ status: res.status, body: await res.json() })
const tooLarge = (limit: number) => ({ status: 413, body: { error: `request body too large (at most ${limit} bytes)` } })
const LENGTH_REQUIRED = { status: 411, body: { error: 'send the request body with a Content-Length header (a chunked body is not accepted here)' } }

async function landing() {
  const slug = `bl${++n}`
  const res = await s.api('POST', '/admin/api/landings', { name: slug, slug, html: '<p>{click_id}</p>' })
  expect(res.status).toBe(201)
  return res.body.id as number
}
const leadsOf = async (landingId: number) => (await s.api('GET', `/admin/api/leads?landing_id=${landingId}`)).body.items as unknown[]
const eventsOf = async (landingId: number) => (await s.api('GET', `/admin/api/events?landing_id=${landingId}`)).body.items as unknown[]
const eventCount = async () => Number((await testDb(s).get<{ n: number }>('SELECT count(*) AS n FROM visitor_events'))!.n)

/** A multipart body of `parts` parts named `name` (plus email and landing_id), with its content type. */
function multipart(landingId: number, parts: number, name = 'x', value = 'v') {
  const b = 'svcboundary'
  const part = (k: string, v: string) => `--${b}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`
  const body = part('email', 'many@example.com') + part('landing_id', String(landingId)) + part(name, value).repeat(parts) + `--${b}--\r\n`
  return { body: enc(body), type: `multipart/form-data; boundary=${b}` }
}

describe('/api/lead, /api/events, /api/cloak: bytes counted as they stream', () => {
  test('a chunked lead of 7 MB (urlencoded, JSON, multipart) is 413 and no lead is stored; a small chunked lead is stored', async () => {
    const id = await landing()
    const big = 'a'.repeat(7 * 1024 * 1024)
    const bodies: Array<[string, Uint8Array]> = [
      ['application/x-www-form-urlencoded', enc(`email=big%40example.com&landing_id=${id}&note=${big}`)],
      ['application/json', enc(JSON.stringify({ email: 'big@example.com', landing_id: id, note: big }))],
      [multipart(id, 1, 'note', big).type, multipart(id, 1, 'note', big).body],
    ]
    for (const [type, body] of bodies) {
      expect(await answer(await send('POST', '/api/lead', chunked(body), { 'content-type': type, 'x-forwarded-for': nextIp() }))).toEqual(tooLarge(LEAD_MAX))
    }
    // Just over the limit, chunked: 413 as well.
    const over = enc(`email=big%40example.com&landing_id=${id}&note=${'b'.repeat(LEAD_MAX)}`)
    expect(await answer(await send('POST', '/api/lead', chunked(over), { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': nextIp() }))).toEqual(tooLarge(LEAD_MAX))
    // Declared over the limit: the same 413.
    expect(await answer(await send('POST', '/api/lead', over, { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': nextIp() }))).toEqual(tooLarge(LEAD_MAX))
    expect(await leadsOf(id)).toEqual([])
    const small = await send('POST', '/api/lead', chunked(enc(`email=small%40example.com&landing_id=${id}`)), { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': nextIp() })
    expect(await answer(small)).toEqual({ status: 200, body: { ok: true, redirect_url: null } })
    expect((await leadsOf(id)).map((l: any) => l.email)).toEqual(['small@example.com'])
  })

  test('a multipart lead of 100,000 parts is refused (413 chunked or declared); 101 fields within the size limit are 400; nothing stored', async () => {
    const id = await landing()
    const huge = multipart(id, 100_000)
    expect(await answer(await send('POST', '/api/lead', chunked(huge.body), { 'content-type': huge.type, 'x-forwarded-for': nextIp() }))).toEqual(tooLarge(LEAD_MAX))
    expect(await answer(await send('POST', '/api/lead', huge.body, { 'content-type': huge.type, 'x-forwarded-for': nextIp() }))).toEqual(tooLarge(LEAD_MAX))
    const many = multipart(id, 101)
    expect(many.body.length).toBeLessThan(LEAD_MAX)
    const refused = { status: 400, body: { error: 'the body has more than 100 fields' } }
    expect(await answer(await send('POST', '/api/lead', chunked(many.body), { 'content-type': many.type, 'x-forwarded-for': nextIp() }))).toEqual(refused)
    expect(await answer(await send('POST', '/api/lead', many.body, { 'content-type': many.type, 'x-forwarded-for': nextIp() }))).toEqual(refused)
    const form = `email=many%40example.com&landing_id=${id}` + '&x=v'.repeat(101)
    expect(await answer(await send('POST', '/api/lead', form, { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': nextIp() }))).toEqual(refused)
    expect(await leadsOf(id)).toEqual([])
    // 98 repeated parts (100 fields) are still a lead: the first value of a repeated field wins.
    const fits = multipart(id, 98)
    expect((await send('POST', '/api/lead', fits.body, { 'content-type': fits.type, 'x-forwarded-for': nextIp() })).status).toBe(200)
    expect(await leadsOf(id)).toHaveLength(1)
  })

  test('a chunked event or cloak report over 8 KB is 413 and records nothing', async () => {
    const id = await landing()
    const before = await eventCount()
    const event = enc(JSON.stringify({ name: 'page_view', landing_id: id, url: `https://lp.example/?q=${'a'.repeat(3 * 1024 * 1024)}` }))
    expect(await answer(await send('POST', '/api/events', chunked(event), { 'content-type': 'text/plain;charset=UTF-8', 'x-forwarded-for': nextIp() }))).toEqual(tooLarge(EVENT_MAX))
    const cloak = enc(JSON.stringify({ landing_id: id, signals: ['webdriver', ...Array(2000).fill('no_plugins')] }))
    expect(cloak.length).toBeGreaterThan(EVENT_MAX)
    expect(await answer(await send('POST', '/api/cloak', chunked(cloak), { 'content-type': 'text/plain;charset=UTF-8', 'x-forwarded-for': nextIp() }))).toEqual(tooLarge(EVENT_MAX))
    expect(await eventsOf(id)).toEqual([])
    expect(await eventCount()).toBe(before)
    // Within the limit, chunked, it is recorded.
    const ok = await send('POST', '/api/events', chunked(enc(JSON.stringify({ name: 'page_view', landing_id: id }))), { 'content-type': 'text/plain;charset=UTF-8', 'x-forwarded-for': nextIp() })
    expect(ok.status).toBe(204)
    expect(await eventsOf(id)).toHaveLength(1)
  })
})

describe('routes that read a body whole refuse one of unknown length', () => {
  test('admin JSON, the CSV import, /mcp and /api/checkout: a chunked body is 411 before it is read, and changes nothing; an asset upload still streams', async () => {
    const cookie = await s.login()
    const settings = JSON.stringify({ fallback_url: 'https://chunked.example/' })
    const put = await send('PUT', '/admin/api/settings', chunked(enc(settings)), { cookie, 'content-type': 'application/json' })
    expect(await answer(put)).toEqual(LENGTH_REQUIRED)
    expect((await s.api('GET', '/admin/api/settings')).body.fallback_url).not.toBe('https://chunked.example/')
    // 3 MB of JSON, chunked: read whole before (past MAX_BODY_BYTES), refused now.
    const big = enc(JSON.stringify({ name: 'x'.repeat(MAX_BODY_BYTES + 1024) }))
    expect(await answer(await send('POST', '/admin/api/sources', chunked(big), { cookie, 'content-type': 'application/json' }))).toEqual(LENGTH_REQUIRED)
    const list = (await s.api('POST', '/admin/api/email-lists', { name: 'chunked import' })).body.id
    const csv = await send('POST', `/admin/api/email-lists/${list}/subscribers/import`, chunked(enc('email\nc@example.com\n')), { cookie, 'content-type': 'text/csv' })
    expect(await answer(csv)).toEqual(LENGTH_REQUIRED)
    expect((await s.api('GET', `/admin/api/email-lists/${list}/subscribers`)).body.items).toEqual([])
    const mcp = await send('POST', '/mcp', chunked(enc('{"jsonrpc":"2.0","id":1,"method":"ping"}')), { authorization: 'Bearer svc_ap_x', 'content-type': 'application/json', accept: 'application/json, text/event-stream' })
    expect(await answer(mcp)).toEqual(LENGTH_REQUIRED)
    const checkout = await send('POST', '/api/checkout', chunked(enc('{"product_id":1}')), { 'content-type': 'application/json' })
    expect(await answer(checkout)).toEqual(LENGTH_REQUIRED)
    // The same bodies with their length go through as before.
    expect((await s.api('PUT', '/admin/api/settings', { fallback_url: 'https://declared.example/' })).status).toBe(200)
    // The routes that count as they stream still take a chunked body within their limit (an asset upload).
    const id = await landing()
    const png = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0))
    const res = await send('PUT', `/admin/api/landings/${id}/assets/img/a.png`, chunked(png), { cookie, 'content-type': 'image/png' })
    expect(res.status).toBe(201)
  })
})
