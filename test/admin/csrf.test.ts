// CSRF on the admin API (issues 13, 25, 26): a cookie-authenticated write that a browser marks as coming
// from elsewhere (Sec-Fetch-Site, Origin) is refused with 403 (test/admin/cross-site.test.ts). A request with
// neither header is a script replaying the cookie (CONTRACT §2, "Scripts replay the cookie"): accepted with
// any content type, or none, on a bodiless write. Bodies that are sent must still be JSON (CSV for imports).
// Bearer tokens, which browsers never send by themselves, need none of this.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { send } from './helpers'

let s: TestServer
let cookie: string
beforeAll(async () => {
  s = await startServer()
  cookie = await s.login()
})
afterAll(() => s.destroy())

const NOT_JSON = { error: 'request body must be JSON (content-type: application/json)' }

test('a script replaying the cookie: bodiless writes without any content type work (DELETE source, token, campaign; retry)', async () => {
  const source = (await s.api('POST', '/admin/api/sources', { name: 'Drop me' })).body
  const token = (await s.api('POST', '/admin/api/tokens', { name: 'old script', scopes: ['sources:read'] })).body
  const offer = (await s.api('POST', '/admin/api/offers', { name: 'O', slug: 'csrf-offer', url: 'https://adv.example/?c={click_id}' })).body
  const campaign = (await s.api('POST', '/admin/api/campaigns', { name: 'C', slug: 'csrf-camp', source_id: source.id, offer_id: offer.id })).body
  expect(campaign.id).toBeGreaterThan(0)

  // As `curl -X DELETE -b jar …`: a cookie, no Origin, no Sec-Fetch-Site, no content type, no body.
  for (const path of [`/admin/api/campaigns/${campaign.id}`, `/admin/api/sources/${source.id}`, `/admin/api/tokens/${token.id}`]) {
    const res = await send(s, 'DELETE', path, { headers: { cookie } })
    expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 200, body: { ok: true } })
  }
  expect((await s.api('GET', `/admin/api/sources/${source.id}`)).status).toBe(404)
  expect((await s.api('GET', `/admin/api/campaigns/${campaign.id}`)).status).toBe(404)
  expect((await s.api('GET', `/admin/api/tokens/${token.id}`)).body.status).toBe('revoked')
  // A bodiless POST reaches its route: an unknown job is the route's own 404, not a content-type 400.
  const retry = await send(s, 'POST', '/admin/api/jobs/999999/retry', { headers: { cookie } })
  expect(retry.status).toBe(404)
})

test('a bodiless write may declare any content type (what curl or a script happens to send)', async () => {
  for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain', 'application/json']) {
    const source = (await s.api('POST', '/admin/api/sources', { name: `typed ${type}` })).body
    const res = await send(s, 'DELETE', `/admin/api/sources/${source.id}`, { headers: { cookie, 'content-type': type } })
    expect({ type, status: res.status, body: res.body }).toEqual({ type, status: 200, body: { ok: true } })
  }
})

test('a body that is sent must be JSON on a JSON route (400, nothing written)', async () => {
  const before = (await s.api('GET', '/admin/api/sources?limit=500')).body.items.length
  for (const [type, body] of [['text/plain', '{"name":"Plain"}'], ['application/x-www-form-urlencoded', 'name=Form'], ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nMulti\r\n--x--\r\n']] as const) {
    const res = await send(s, 'POST', '/admin/api/sources', { headers: { cookie, 'content-type': type }, body })
    expect({ type, status: res.status, body: res.body }).toEqual({ type, status: 400, body: NOT_JSON })
  }
  expect((await s.api('GET', '/admin/api/sources?limit=500')).body.items.length).toBe(before)
  const ok = await send(s, 'POST', '/admin/api/sources', { headers: { cookie, 'content-type': 'application/json' }, body: '{"name":"Json"}' })
  expect(ok.status).toBe(201)
})

test('a CSV import takes text/csv or text/plain; anything else is 400', async () => {
  const list = (await s.api('POST', '/admin/api/email-lists', { name: 'Imports' })).body
  const path = `/admin/api/email-lists/${list.id}/subscribers/import`
  expect((await send(s, 'POST', path, { headers: { cookie, 'content-type': 'text/csv' }, body: 'email\nann@example.com\n' })).status).toBe(200)
  expect((await send(s, 'POST', path, { headers: { cookie, 'content-type': 'text/plain' }, body: 'email\nbob@example.com\n' })).status).toBe(200)
  const json = await send(s, 'POST', path, { headers: { cookie, 'content-type': 'application/json' }, body: '{}' })
  expect({ status: json.status, body: json.body }).toEqual({ status: 400, body: { error: 'request body must be a CSV file (content-type: text/csv)' } })
})

test('a bearer token needs no content type on a bodiless write', async () => {
  const token = (await s.api('POST', '/admin/api/tokens', { name: 'script', scopes: ['jobs:write'] })).body.token
  // The route's own answer (an unknown job), not a 400 about the content type.
  const res = await send(s, 'POST', '/admin/api/jobs/999999/retry', { headers: { authorization: `Bearer ${token}` } })
  expect(res.status).toBe(404)
})

test('logout replayed by a script without a content type signs out (last: it revokes the session)', async () => {
  const res = await send(s, 'POST', '/admin/api/logout', { headers: { cookie } })
  expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { ok: true } })
  expect((await send(s, 'GET', '/admin/api/me', { headers: { cookie } })).status).toBe(401)
})
