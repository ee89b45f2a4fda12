// The landing pages' browser scripts over HTTP: status, headers, ETag revalidation, HEAD, size, syntax.
//
// Served by the real server (startServer(): the landings feature mounts scriptRoutes() there), on either
// engine (SVC_TEST_ENGINE=postgres runs it on Postgres).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ifNoneMatchMatches, SCRIPT_SOURCES, scriptEtag, scriptRoutes } from '../../src/landings/scripts/serve'
import { startServer, type TestServer } from '../helpers/server'
import { SERVER_TIMEOUT_MS } from '../tracking/seed'

const NAMES = ['pixel.js', 'client.js', 'cloak.js', 'i18n.js'] as const
const DIR = join(import.meta.dir, '../../src/landings/scripts')

let server: TestServer
let base: string

beforeAll(async () => {
  server = await startServer()
  base = server.base
}, SERVER_TIMEOUT_MS)
afterAll(() => server?.destroy(), SERVER_TIMEOUT_MS)

const EXPECTED_HEADERS = {
  'content-type': 'text/javascript; charset=utf-8',
  'cache-control': 'public, max-age=3600',
  'x-content-type-options': 'nosniff',
  'access-control-allow-origin': '*',
  'cross-origin-resource-policy': 'cross-origin',
}

test('exactly the four scripts are routed, GET and HEAD only', () => {
  const routes = scriptRoutes()
  expect(Object.keys(routes).sort()).toEqual(['/client.js', '/cloak.js', '/i18n.js', '/pixel.js'])
  for (const handlers of Object.values(routes)) expect(Object.keys(handlers).sort()).toEqual(['GET', 'HEAD'])
})

test('an unknown script is not served', async () => {
  expect((await fetch(`${base}/tracker.js`)).status).toBe(404)
})

describe.each(NAMES)('/%s', (name) => {
  const url = () => `${base}/${name}`
  const source = readFileSync(join(DIR, name), 'utf8')

  test('200 with the file as written, and the pinned headers', async () => {
    const res = await fetch(url())
    expect(res.status).toBe(200)
    for (const [header, value] of Object.entries(EXPECTED_HEADERS)) expect(res.headers.get(header)).toBe(value)
    const body = await res.text()
    expect(body).toBe(source)
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(source)))
    // A strong ETag: quoted, no W/ prefix, the content's hash.
    const etag = res.headers.get('etag')!
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/)
    expect(etag).toBe(scriptEtag(source))
  })

  test('the embedded copy is the file on disk', () => {
    expect(SCRIPT_SOURCES[`/${name}`]).toBe(source)
  })

  test('If-None-Match: the ETag, a list holding it, its W/ form and * each give a bodiless 304', async () => {
    const etag = (await fetch(url())).headers.get('etag')!
    for (const inm of [etag, `"stale", ${etag}`, `"a","b" ,  ${etag} ,"c"`, `W/${etag}`, '*']) {
      const res = await fetch(url(), { headers: { 'if-none-match': inm } })
      expect(res.status).toBe(304)
      expect(res.headers.get('etag')).toBe(etag)
      expect(res.headers.get('cache-control')).toBe('public, max-age=3600')
      expect(await res.text()).toBe('')
    }
  })

  test('a stale or malformed If-None-Match gives the full 200', async () => {
    const etag = (await fetch(url())).headers.get('etag')!
    for (const inm of ['"stale"', `"stale", W/"other"`, etag.slice(1, -1), `${etag.slice(0, -2)}x"`]) {
      const res = await fetch(url(), { headers: { 'if-none-match': inm } })
      expect(res.status).toBe(200)
      expect(await res.text()).toBe(source)
    }
  })

  test('HEAD: the same headers, no body; and a matching HEAD is a 304', async () => {
    const res = await fetch(url(), { method: 'HEAD' })
    expect(res.status).toBe(200)
    for (const [header, value] of Object.entries(EXPECTED_HEADERS)) expect(res.headers.get(header)).toBe(value)
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(source)))
    const etag = res.headers.get('etag')!
    expect(etag).toBe(scriptEtag(source))
    expect(await res.text()).toBe('')
    const revalidated = await fetch(url(), { method: 'HEAD', headers: { 'if-none-match': etag } })
    expect(revalidated.status).toBe(304)
    expect(revalidated.headers.get('etag')).toBe(etag)
  })

  test('under 8 KB, parses, one IIFE, and no console calls', () => {
    expect(Buffer.byteLength(source)).toBeLessThan(8 * 1024)
    expect(() => new Function(source)).not.toThrow()
    const code = source.replace(/\/\*[\s\S]*?\*\//g, '').trim()
    expect(code.startsWith('(function () {')).toBe(true)
    expect(code.endsWith('})();')).toBe(true)
    expect(source).not.toMatch(/\bconsole\./)
    // The whole body sits in a try, so nothing is thrown into the page.
    expect(code).toMatch(/^\(function \(\) \{\s*try \{/)
  })
})

test('the ETags differ between scripts', async () => {
  const tags = await Promise.all(NAMES.map(async (n) => (await fetch(`${base}/${n}`)).headers.get('etag')))
  expect(new Set(tags).size).toBe(4)
})

test('ifNoneMatchMatches', () => {
  const etag = '"abc"'
  expect(ifNoneMatchMatches(null, etag)).toBe(false)
  expect(ifNoneMatchMatches('', etag)).toBe(false)
  expect(ifNoneMatchMatches('"abc"', etag)).toBe(true)
  expect(ifNoneMatchMatches('W/"abc"', etag)).toBe(true)
  expect(ifNoneMatchMatches('"x", "abc"', etag)).toBe(true)
  expect(ifNoneMatchMatches(' * ', etag)).toBe(true)
  expect(ifNoneMatchMatches('abc', etag)).toBe(false)
  expect(ifNoneMatchMatches('"abcd"', etag)).toBe(false)
  expect(ifNoneMatchMatches('w/"abc"', etag)).toBe(false)
})
