import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { get, startServer, type TestServer } from '../helpers/server'
import { clickRow, cookieClickId, seeder, SERVER_TIMEOUT_MS } from './seed'

let s: TestServer
beforeAll(async () => {
  s = await startServer()
  const seed = seeder(s)
  const offer = await seed.offer('https://offer.example/go?c={click_id}&s1={sub1}&s2={sub2}')
  const landing = await seed.landing({ url: 'https://lp.example/?s1={sub1}' })
  await seed.campaign({ slug: 'plain', offers: [[offer, 1]] })
  await seed.campaign({ slug: 'lp', offers: [[offer, 1]], landings: [[landing, 1]] })
  await seed.campaign({ slug: 'ünï-😀', offers: [[offer, 1]] })
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

const routes = ['/c/plain', '/r/plain', '/c/lp', '/r/lp']
const hostileQueries: Array<[string, string]> = [
  ['a 10 KB query string', `?sub1=${'a'.repeat(5000)}&${Array.from({ length: 300 }, (_, i) => `p${i}=${'v'.repeat(10)}`).join('&')}`],
  ['a 10 KB single value', `?utm_content=${'%41'.repeat(3400)}`],
  ['truncated percent-encoding', '?sub1=%E0%A4%A&sub2=%&utm=%ZZ&%E0%A4%A=1'],
  ['an encoded lone surrogate half', '?sub1=%ED%A0%80&sub2=%F0%9F'],
  ['unicode values and keys', '?sub1=😀𝄞&ключ=значение&sub2=%F0%9F%98%80'],
  ['bad click ids', '?click_id=%00%00&click_id=zzzz'],
  ['a click id with trailing garbage', '?click_id=0b1c2d3e-4f50-4617-8899-aabbccddeeff%00'],
  ['control characters', '?sub1=%0D%0ALocation:%20https://evil.example&sub2=%00'],
  ['only separators', '?&&&==&=&'],
]

describe('hostile input never produces a 500', () => {
  for (const route of routes) {
    for (const [name, query] of hostileQueries) {
      test(`GET ${route} with ${name} → 302 with a committed click and a header-safe Location`, async () => {
        const res = await get(`${s.base}${route}${query}`, { cookie: '_svc_click=%%%; _svc_click=x' })
        expect(res.status).toBe(302)
        const location = res.headers.get('location')!
        expect(location).toMatch(/^https:\/\/[\x21-\x7e]+$/)
        expect(await clickRow(s, cookieClickId(res)!)).toBeDefined()
      })
    }
  }

  test('a stored sub value with CR/LF is percent-encoded in the Location, so no header can be injected', async () => {
    const res = await get(`${s.base}/c/plain?sub1=%0D%0ASet-Cookie:%20x=1`)
    expect(res.headers.get('location')).toContain('s1=%0D%0ASet-Cookie%3A%20x%3D1')
    expect(res.headers.getSetCookie().length).toBe(1)
  })

  test('params stay capped at 50 keys even for a 10 KB query', async () => {
    const res = await get(`${s.base}/c/plain?${Array.from({ length: 400 }, (_, i) => `k${i}=v`).join('&')}`)
    const row = (await clickRow(s, cookieClickId(res)!))!
    expect(Object.keys(JSON.parse(row.params)).length).toBe(50)
  })

  test.each([
    ['a very long slug', `/c/${'s'.repeat(4000)}`],
    ['percent garbage in the slug', '/c/%E0%A4%A'],
    ['an encoded slash in the slug', '/c/plain%2Fx'],
    ['a NUL in the slug', '/c/plain%00'],
    ['a long slug on /r', `/r/${'s'.repeat(4000)}`],
  ])('%s → JSON 404', async (_name, path) => {
    const res = await get(`${s.base}${path}`)
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ error: 'campaign not found' })
  })

  test('a unicode slug works, raw or percent-encoded', async () => {
    const res = await get(`${s.base}/c/${encodeURIComponent('ünï-😀')}`)
    expect(res.status).toBe(302)
  })

  test('HEAD with hostile input is a 302 or 404, never a 500', async () => {
    for (const [, query] of hostileQueries) {
      for (const route of routes) {
        const res = await fetch(`${s.base}${route}${query}`, { method: 'HEAD', redirect: 'manual' })
        expect(res.status).toBe(302)
      }
    }
    const res = await fetch(`${s.base}/c/%E0%A4%A`, { method: 'HEAD', redirect: 'manual' })
    expect(res.status).toBe(404)
  })

  test('an oversized cookie header is handled', async () => {
    const res = await get(`${s.base}/r/plain`, { cookie: `a=${'x'.repeat(6000)}; _svc_click=${'y'.repeat(2000)}` })
    expect(res.status).toBe(302)
  })
})
