// CSRF on the admin API (issue 13): with a session cookie, every state-changing request must show it is not
// an HTML form: content-type application/json (even without a body: DELETE, retry, logout), or the
// X-Requested-With header; a CSV import text/csv. Bearer tokens, which browsers never send by themselves,
// need none of this.
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

const REFUSED = { error: 'a write must send content-type: application/json, even without a body (or the X-Requested-With header)' }

test('bodiless writes without a JSON content type are refused (400) and change nothing', async () => {
  const source = (await s.api('POST', '/admin/api/sources', { name: 'Keep me' })).body
  for (const [method, path] of [['DELETE', `/admin/api/sources/${source.id}`], ['POST', '/admin/api/jobs/1/retry'], ['POST', '/admin/api/logout']] as const) {
    const res = await send(s, method, path, { headers: { cookie } })
    expect({ method, path, status: res.status, body: res.body }).toEqual({ method, path, status: 400, body: REFUSED })
  }
  expect((await s.api('GET', `/admin/api/sources/${source.id}`)).status).toBe(200)
  expect((await send(s, 'GET', '/admin/api/me', { headers: { cookie } })).status).toBe(200) // still signed in
})

test('what an HTML form can send is refused: urlencoded, multipart, text/plain', async () => {
  for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain']) {
    const res = await send(s, 'DELETE', '/admin/api/sources/1', { headers: { cookie, 'content-type': type } })
    expect({ type, status: res.status }).toEqual({ type, status: 400 })
  }
})

test('a JSON content type or X-Requested-With lets a bodiless write through', async () => {
  const a = (await s.api('POST', '/admin/api/sources', { name: 'A' })).body
  const b = (await s.api('POST', '/admin/api/sources', { name: 'B' })).body
  expect((await send(s, 'DELETE', `/admin/api/sources/${a.id}`, { headers: { cookie, 'content-type': 'application/json' } })).body).toEqual({ ok: true })
  expect((await send(s, 'DELETE', `/admin/api/sources/${b.id}`, { headers: { cookie, 'x-requested-with': 'fetch' } })).body).toEqual({ ok: true })
})

test('a CSV import takes text/csv; text/plain only with X-Requested-With', async () => {
  const list = (await s.api('POST', '/admin/api/email-lists', { name: 'Imports' })).body
  const csv = 'email\nann@example.com\n'
  const path = `/admin/api/email-lists/${list.id}/subscribers/import`
  expect((await send(s, 'POST', path, { headers: { cookie, 'content-type': 'text/csv' }, body: csv })).status).toBe(200)
  const plain = await send(s, 'POST', path, { headers: { cookie, 'content-type': 'text/plain' }, body: csv })
  expect(plain.status).toBe(400)
  expect(plain.body.error).toBe('a CSV import must be sent as content-type: text/csv (or with the X-Requested-With header)')
  expect((await send(s, 'POST', path, { headers: { cookie, 'content-type': 'text/plain', 'x-requested-with': 'curl' }, body: csv })).status).toBe(200)
})

test('a bearer token needs no content type on a bodiless write', async () => {
  const token = (await s.api('POST', '/admin/api/tokens', { name: 'script', scopes: ['sources:write'] })).body.token
  const c = (await s.api('POST', '/admin/api/sources', { name: 'C' })).body
  const res = await send(s, 'DELETE', `/admin/api/sources/${c.id}`, { headers: { authorization: `Bearer ${token}` } })
  expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { ok: true } })
})
