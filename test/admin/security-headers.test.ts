// Headers of admin answers and HTML pages, and the answers to oversized bodies and headers.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { connect } from 'node:net'
import { startServer, type TestServer } from '../helpers/server'
import { addUser, cookieFor, send } from './helpers'
import { contentSecurityPolicy, htmlPageHeaders } from '../../src/http/security-headers'
import { BODY_HARD_CAP, MAX_BODY_BYTES } from '../../src/http/body-limit'

let s: TestServer
beforeAll(async () => { s = await startServer() })
afterAll(() => s.destroy())

const ADMIN_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

function expectAdminHeaders(res: { headers: Headers }, what: string) {
  const h = res.headers
  expect({ what, cache: h.get('cache-control'), nosniff: h.get('x-content-type-options'), frame: h.get('x-frame-options'), csp: h.get('content-security-policy') })
    .toEqual({ what, cache: 'no-store', nosniff: 'nosniff', frame: 'DENY', csp: ADMIN_CSP })
}

/** Writes raw bytes to the server and returns what it answers before closing (or after 2 s). */
function rawRequest(payload: string): Promise<string> {
  return new Promise((resolve) => {
    let data = ''
    const sock = connect(s.port, '127.0.0.1', () => sock.write(payload))
    sock.on('data', (d) => { data += d })
    sock.on('close', () => resolve(data))
    sock.on('error', () => resolve(data))
    setTimeout(() => { sock.destroy(); resolve(data) }, 2000)
  })
}

describe('admin answers', () => {
  test('every kind of /admin/ answer carries no-store, nosniff, DENY and a CSP that runs nothing', async () => {
    const reader = await cookieFor(s, await addUser(s, 'headers-reader@example.com', { reports: { read: true } }))
    expectAdminHeaders(await s.api('GET', '/admin/api/me'), '200 JSON')
    expectAdminHeaders(await s.api('GET', '/admin/api/settings'), '200 settings (secrets masked)')
    expectAdminHeaders(await send(s, 'GET', '/admin/api/me'), '401')
    expectAdminHeaders(await send(s, 'GET', '/admin/api/settings', { headers: { cookie: reader } }), '403')
    expectAdminHeaders(await s.api('GET', '/admin/api/offers/999999'), '404 by id')
    expectAdminHeaders(await s.api('GET', '/admin/api/no-such-route'), '404 no route')
    expectAdminHeaders(await s.api('POST', '/admin/api/offers', { name: 5 }), '400')
    expectAdminHeaders(await send(s, 'POST', '/admin/api/login', { headers: { 'content-type': 'application/json' }, body: '{"email":' }), 'login 400')
    const csv = await s.api('GET', '/admin/api/reports?group_by=day&format=csv')
    expectAdminHeaders(csv, `reports (${csv.status})`)
  })

  test('public routes are left alone', async () => {
    const health = await fetch(`${s.base}/healthz`)
    expect(health.headers.get('x-frame-options')).toBeNull()
    expect(health.headers.get('cache-control')).toBeNull()
  })
})

describe('HTML pages', () => {
  test('the API reference page has a CSP that names what it loads, and is never framed', async () => {
    const res = await s.api('GET', '/admin/api/openapi')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/html')
    const csp = res.headers.get('content-security-policy')!
    expect(csp.startsWith("default-src 'none'; script-src 'self';")).toBe(true)
    expect(csp).not.toMatch(/https?:/)
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).toContain("connect-src 'self'")
    expect(res.headers.get('x-frame-options')).toBe('DENY')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
  })

  test('htmlPageHeaders: a page of inline text and styles may load nothing else', () => {
    expect(htmlPageHeaders({ 'style-src': ["'unsafe-inline'"] }, 'public, max-age=60')).toEqual({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'cache-control': 'public, max-age=60',
    })
    expect(contentSecurityPolicy()).toBe("default-src 'none'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'")
  })
})

describe('oversized requests', () => {
  test('a body declared over the limit is answered 413 with the JSON error body, before it is read', async () => {
    const res = await s.api('PUT', '/admin/api/settings', JSON.stringify({ cors_allowlist: ['x'.repeat(MAX_BODY_BYTES)] }))
    expect(res.status).toBe(413)
    expect(res.body).toEqual({ error: `request body too large (at most ${MAX_BODY_BYTES} bytes)` })
    expect(res.headers.get('content-type')).toBe('application/json')
    expectAdminHeaders(res, '413')

    // Only the headers are sent: the answer comes without waiting for the body.
    const raw = await rawRequest(`POST /admin/api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${MAX_BODY_BYTES + 1}\r\n\r\n{"email":`)
    expect(raw.startsWith('HTTP/1.1 413 ')).toBe(true)
    expect(raw.toLowerCase()).toContain('content-type: application/json')
    expect(raw.endsWith(`{"error":"request body too large (at most ${MAX_BODY_BYTES} bytes)"}`)).toBe(true)
  })

  test('past the hard cap (4 × the limit) Bun refuses a declared length itself, with a bare 413 (pinned so a change is noticed)', async () => {
    const raw = await rawRequest(`POST /admin/api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${BODY_HARD_CAP + 1}\r\n\r\n{"email":`)
    expect(raw.startsWith('HTTP/1.1 413 ')).toBe(true)
    expect(raw.endsWith('\r\n\r\n')).toBe(true)
  })

  test('a body just under the limit is read and validated as usual', async () => {
    const res = await s.api('PUT', '/admin/api/settings', JSON.stringify({ cors_allowlist: ['x'.repeat(MAX_BODY_BYTES - 100)] }))
    expect(res.status).toBe(400)
    expect(res.body.error).toStartWith('cors_allowlist:')
  })

  test('oversized headers: Bun answers 431 itself while parsing, before any handler, without a body (pinned so a change is noticed)', async () => {
    const raw = await rawRequest(`GET /admin/api/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`)
    expect(raw.startsWith('HTTP/1.1 431 ')).toBe(true)
    expect(raw.endsWith('\r\n\r\n')).toBe(true)
  })
})
