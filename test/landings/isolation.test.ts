// Issue 25 finding 1, over HTTP: hosted landings are sandboxed (an opaque origin), their API answers the
// sandbox's `Origin: null`, and SVC_LANDING_ORIGIN moves them to a hostname of their own.
// The browser side (the attack itself, and the scripts still working) is test/landings/isolation-browser.test.ts.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ConfigError, ENVIRONMENT, loadConfig } from '../../src/config'
import { startServer, TEST_ENV, type TestServer } from '../helpers/server'

const LANDING_CSP = 'sandbox allow-scripts allow-forms allow-popups allow-top-navigation-by-user-activation'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

async function funnel(s: TestServer, tag: string, html: string) {
  const source = (await s.api('POST', '/admin/api/sources', { name: `S ${tag}` })).body
  const offer = (await s.api('POST', '/admin/api/offers', { name: `O ${tag}`, slug: `o-${tag}`, url: 'https://adv.example/?c={click_id}' })).body
  const landing = (await s.api('POST', '/admin/api/landings', { name: `L ${tag}`, slug: `lp-${tag}`, html })).body
  const campaign = (await s.api('POST', '/admin/api/campaigns', { name: `C ${tag}`, slug: `c-${tag}`, source_id: source.id, offer_id: offer.id, landing_id: landing.id })).body
  expect(campaign.landing_id).toBe(landing.id)
  return { landing, campaign }
}

describe('sandboxed landings (no SVC_LANDING_ORIGIN)', () => {
  let s: TestServer
  let landing: any
  beforeAll(async () => {
    s = await startServer()
    ;({ landing } = await funnel(s, 'sb', '<!doctype html><title>P</title><a id="go" href="{offer_url}">Go</a>'))
    const cookie = await s.login()
    for (const [path, type, body] of [['app.js', 'text/javascript', 'console.log(1)'], ['site.css', 'text/css', 'h1{color:red}'], ['pic.svg', 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"/>']] as const) {
      const up = await fetch(`${s.base}/admin/api/landings/${landing.id}/assets/${path}`, { method: 'PUT', headers: { cookie, 'content-type': type }, body })
      expect([200, 201]).toContain(up.status)
    }
  })
  afterAll(() => s.destroy())

  test('the page (GET and HEAD) carries the sandbox CSP, without allow-same-origin', async () => {
    for (const method of ['GET', 'HEAD']) {
      const res = await fetch(`${s.base}/lp/${landing.slug}`, { method })
      expect({ method, status: res.status, csp: res.headers.get('content-security-policy') }).toEqual({ method, status: 200, csp: LANDING_CSP })
    }
    const deep = await fetch(`${s.base}/lp/${landing.slug}/`)
    expect(deep.headers.get('content-security-policy')).toBe(LANDING_CSP)
  })

  test('assets carry it too (an SVG keeps its stricter one), and any origin may read them (fonts, modules)', async () => {
    for (const path of ['app.js', 'site.css']) {
      const res = await fetch(`${s.base}/lp/${landing.slug}/${path}`)
      expect({ path, status: res.status, csp: res.headers.get('content-security-policy'), acao: res.headers.get('access-control-allow-origin') })
        .toEqual({ path, status: 200, csp: LANDING_CSP, acao: '*' })
    }
    const svg = await fetch(`${s.base}/lp/${landing.slug}/pic.svg`)
    expect(svg.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'; sandbox")
    expect(svg.headers.get('access-control-allow-origin')).toBe('*')
  })

  test('the admin preview (GET and POST) is sandboxed too: no allow-same-origin, and its scripts do not run', async () => {
    const cookie = await s.login()
    const get = await fetch(`${s.base}/admin/api/landings/${landing.id}/preview`, { headers: { cookie } })
    const post = await fetch(`${s.base}/admin/api/landings/preview`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ html: '<p>draft</p>' }) })
    for (const res of [get, post]) {
      expect(res.status).toBe(200)
      const csp = res.headers.get('content-security-policy')!
      expect(csp.split(';').map((d) => d.trim())).toContain('sandbox')
      expect(csp).not.toContain('allow-same-origin')
      expect(csp).not.toContain('allow-scripts')
    }
  })

  test('the landing API answers Origin: null (the sandboxed page) so its scripts can read the answer; no credentials', async () => {
    const pre = await fetch(`${s.base}/api/lead`, { method: 'OPTIONS', headers: { origin: 'null', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } })
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-origin')).toBe('null')
    expect(pre.headers.get('access-control-allow-credentials')).toBeNull()
    const lead = await fetch(`${s.base}/api/lead`, { method: 'POST', headers: { origin: 'null', 'content-type': 'application/x-www-form-urlencoded' }, body: 'email=a%40example.com' })
    expect(lead.headers.get('access-control-allow-origin')).toBe('null')
    expect(lead.headers.get('access-control-allow-credentials')).toBeNull()
    const ev = await fetch(`${s.base}/api/events`, { method: 'POST', headers: { origin: 'null', 'content-type': 'text/plain' }, body: JSON.stringify({ name: 'page_view', landing_id: landing.id, url: 'http://x/' }) })
    expect(ev.status).toBe(204)
    expect(ev.headers.get('access-control-allow-origin')).toBe('null')
    const cloak = await fetch(`${s.base}/api/cloak`, { method: 'POST', headers: { origin: 'null', 'content-type': 'text/plain' }, body: JSON.stringify({ signals: [] }) })
    expect(cloak.headers.get('access-control-allow-origin')).toBe('null')
  })

  test('real origins still follow cors_allowlist; /postback does not answer null', async () => {
    const foreign = await fetch(`${s.base}/api/events`, { method: 'POST', headers: { origin: 'https://shop.example', 'content-type': 'text/plain' }, body: '{"name":"page_view","url":"http://x/"}' })
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull()
    expect((await s.api('PUT', '/admin/api/settings', { cors_allowlist: ['https://shop.example'] })).status).toBe(200)
    const listed = await fetch(`${s.base}/api/events`, { method: 'POST', headers: { origin: 'https://shop.example', 'content-type': 'text/plain' }, body: '{"name":"page_view","url":"http://x/"}' })
    expect(listed.headers.get('access-control-allow-origin')).toBe('https://shop.example')
    const pb = await fetch(`${s.base}/postback?subid=x`, { headers: { origin: 'null' } })
    expect(pb.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('SVC_LANDING_ORIGIN', () => {
  let s: TestServer
  let landing: any
  let campaign: any
  const GO = 'https://go.example.com'
  beforeAll(async () => {
    s = await startServer({ SVC_PUBLIC_URL: 'https://track.example.com', SVC_LANDING_ORIGIN: `${GO}/` })
    ;({ landing, campaign } = await funnel(s, 'lo', '<!doctype html><title>P</title><a id="go" href="{offer_url}">Go</a></body>'))
    const up = await fetch(`${s.base}/admin/api/landings/${landing.id}/assets/app.js`, { method: 'PUT', headers: { cookie: await s.login(), 'content-type': 'text/javascript' }, body: 'console.log(1)' })
    expect(up.status).toBe(201)
  })
  afterAll(() => s.destroy())

  test('/lp asked on another host (the dashboard\'s) is redirected (302) to the landing origin, path and query kept', async () => {
    for (const [path, host] of [[`/lp/${landing.slug}?utm_source=fb&x=1`, null], [`/lp/${landing.slug}/app.js`, 'track.example.com'], [`/lp/${landing.slug}/`, null]] as const) {
      const res = await fetch(`${s.base}${path}`, { redirect: 'manual', headers: host ? { host } : {} })
      expect({ path, status: res.status, location: res.headers.get('location') }).toEqual({ path, status: 302, location: `${GO}${path}` })
    }
    // Nothing was counted on the wrong host.
    expect((await s.api('GET', `/admin/api/events?landing_id=${landing.id}`)).body.items).toEqual([])
  })

  test('on the landing host the page is served, sandboxed, with pixel.js and offer_url on the landing origin', async () => {
    const res = await fetch(`${s.base}/lp/${landing.slug}`, { headers: { host: 'go.example.com' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-security-policy')).toBe(LANDING_CSP)
    const html = await res.text()
    expect(html).toContain(`<script src="${GO}/pixel.js"`)
    const href = /id="go" href="([^"]*)"/.exec(html)![1]!.replaceAll('&amp;', '&')
    expect(href).toMatch(new RegExp(`^${GO.replaceAll('.', '\\.')}/r/${campaign.slug}\\?click_id=`))
    expect(href.split('click_id=')[1]).toMatch(UUID)
    const asset = await fetch(`${s.base}/lp/${landing.slug}/app.js`, { headers: { host: 'go.example.com' } })
    expect(asset.status).toBe(200)
  })

  test('the tracking link (/c) sends visitors straight to the landing origin', async () => {
    const res = await fetch(`${s.base}/c/${campaign.slug}`, { redirect: 'manual', headers: { host: 'track.example.com' } })
    expect(res.status).toBe(302)
    const location = res.headers.get('location')!
    expect(location.startsWith(`${GO}/lp/${landing.slug}?click_id=`)).toBe(true)
    expect(location.split('click_id=')[1]).toMatch(UUID)
  })
})

test('SVC_LANDING_ORIGIN must be an http(s) origin; it is listed for svc --help', () => {
  const load = (v: string) => loadConfig({ ...TEST_ENV, SVC_LANDING_ORIGIN: v }, {}, { create: false })
  for (const bad of ['go.example.com', 'ftp://go.example.com', 'https://go.example.com/lp', 'https://u:p@go.example.com', 'https://go.example.com/?x=1']) {
    expect(() => load(bad)).toThrow(ConfigError)
    expect(() => load(bad)).toThrow(`SVC_LANDING_ORIGIN must be an http(s) origin such as https://go.example.com (no path), got "${bad}"`)
  }
  expect(ENVIRONMENT.map(([name]) => name)).toContain('SVC_LANDING_ORIGIN')
})
