// CORS on public endpoints follows the cors_allowlist setting; /admin/api/* and the redirects send none (spec §5).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { seedCatalog } from './seed'

const SHOP = 'https://shop.example'
let s: TestServer

const corsHeaders = (res: Response) => [...res.headers.keys()].filter((k) => k.startsWith('access-control-'))

beforeAll(async () => {
  s = await startServer()
  await seedCatalog(s)
})
afterAll(() => s.destroy())

describe('CORS on /postback', () => {
  test('with an empty allowlist no origin is allowed, but Vary: Origin is always sent', async () => {
    await s.api('PUT', '/admin/api/settings', { cors_allowlist: [] })
    const res = await fetch(`${s.base}/postback?subid=x`, { headers: { origin: SHOP } })
    expect(await res.text()).toBe('OK')
    expect(corsHeaders(res)).toEqual([])
    expect(res.headers.get('vary')).toBe('Origin')
  })

  test('an allowlisted origin is echoed; another origin gets no CORS headers', async () => {
    expect((await s.api('PUT', '/admin/api/settings', { cors_allowlist: [SHOP] })).status).toBe(200)
    const ok = await fetch(`${s.base}/postback?subid=x`, { headers: { origin: SHOP } })
    expect(ok.headers.get('access-control-allow-origin')).toBe(SHOP)
    const other = await fetch(`${s.base}/postback?subid=x`, { headers: { origin: 'https://evil.example' } })
    expect(corsHeaders(other)).toEqual([])
  })

  test('a preflight from an allowlisted origin is 204 with methods, headers and max-age', async () => {
    await s.api('PUT', '/admin/api/settings', { cors_allowlist: [SHOP] })
    const res = await fetch(`${s.base}/postback`, {
      method: 'OPTIONS',
      headers: { origin: SHOP, 'access-control-request-method': 'GET', 'access-control-request-headers': 'content-type' },
    })
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe(SHOP)
    expect(res.headers.get('access-control-allow-methods')).toBe('GET')
    expect(res.headers.get('access-control-allow-headers')).toBe('content-type')
    expect(res.headers.get('access-control-max-age')).toBe('600')
  })

  test('a preflight from another origin is 204 without CORS headers, so the browser refuses', async () => {
    const res = await fetch(`${s.base}/postback`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' } })
    expect(res.status).toBe(204)
    expect(corsHeaders(res)).toEqual([])
  })

  test('"*" in the allowlist allows any origin with a literal *', async () => {
    await s.api('PUT', '/admin/api/settings', { cors_allowlist: ['*'] })
    const res = await fetch(`${s.base}/postback?subid=x`, { headers: { origin: 'https://anyone.example' } })
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
  })

  test('the 401 of a bad signature carries the CORS headers too', async () => {
    await s.api('PUT', '/admin/api/settings', { cors_allowlist: [SHOP], postback_secret: 'cors-secret-123-long-enough' })
    try {
      const res = await fetch(`${s.base}/postback?subid=x&sig=00`, { headers: { origin: SHOP } })
      expect(res.status).toBe(401)
      expect(await res.json()).toEqual({ error: 'invalid signature' })
      expect(res.headers.get('access-control-allow-origin')).toBe(SHOP)
    } finally {
      await s.api('PUT', '/admin/api/settings', { postback_secret: null })
    }
  })
})

describe('no CORS outside the public endpoints', () => {
  test('/admin/api/* answers an allowlisted origin without any CORS header, preflight included', async () => {
    await s.api('PUT', '/admin/api/settings', { cors_allowlist: [SHOP, '*'] })
    const cookie = await s.login()
    const get = await fetch(`${s.base}/admin/api/settings`, { headers: { origin: SHOP, cookie } })
    expect(get.status).toBe(200)
    expect(corsHeaders(get)).toEqual([])
    const pre = await fetch(`${s.base}/admin/api/settings`, { method: 'OPTIONS', headers: { origin: SHOP, 'access-control-request-method': 'PUT' } })
    expect(corsHeaders(pre)).toEqual([])
    expect(pre.status).not.toBe(204)
  })

  test('tracking redirects carry no CORS headers', async () => {
    const res = await fetch(`${s.base}/c/no-such-campaign`, { headers: { origin: SHOP }, redirect: 'manual' })
    expect(corsHeaders(res)).toEqual([])
  })
})
