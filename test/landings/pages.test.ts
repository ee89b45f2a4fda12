// Hosted landings over HTTP (issue 10), on the engine under test: GET /lp/:slug (macros, escaping, the click
// it continues or creates, pixel.js injected), POST /api/lead (the spec's answer, validation, honeypot and
// fill time, limits, CORS), /api/events (page views and click-throughs in the click store and reports),
// /api/cloak (a flagged click moves its rollups), postback rule 6, and the admin preview.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { get, startServer, type TestServer } from '../helpers/server'
import { testDb } from '../helpers/db'
import { clickRow, seeder, SERVER_TIMEOUT_MS } from '../tracking/seed'
import { FormTokens } from '../../src/landings/form-token'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
let s: TestServer
let n = 0
/** A fresh client address per test: the per-IP limits (10 leads, 30 pixel hits a minute) never meet across tests. */
const nextIp = () => `198.51.100.${++n}`
/** A person's browser: traffic quality takes fetch's own user agent for a bot. */
const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36'

beforeAll(async () => {
  s = await startServer({ SVC_TRUST_PROXY: '1' })
}, SERVER_TIMEOUT_MS)
afterAll(async () => {
  await s?.destroy()
})

const html = '<!doctype html><html><body><h1>{click_id}</h1><a id="go" href="{offer_url}">go</a>' +
  '<p id="src">{utm_source}</p><p id="q">{q}</p><p id="ids">{campaign_id}/{landing_id}/{sub1}</p><script>var a = {x}</script></body></html>'

async function setup(opts: { list?: boolean; botUrl?: string } = {}) {
  const sd = seeder(s)
  const slug = `lp${++n}`
  const listId = opts.list ? (await s.api('POST', '/admin/api/email-lists', { name: `list ${slug}` })).body.id as number : null
  const landing = await s.api('POST', '/admin/api/landings', { name: slug, slug, html, email_list_id: listId })
  expect(landing.status).toBe(201)
  const offer = await sd.offer('https://offer.example/o?c={click_id}')
  const campaign = await sd.campaign({ slug: `c-${slug}`, offers: [[offer, 1]], landings: [[landing.body.id, 1]] })
  if (opts.botUrl) await sd.exec('UPDATE campaigns SET bot_url = $u WHERE id = $id', { u: opts.botUrl, id: campaign })
  return { slug, landingId: landing.body.id as number, campaign, campaignSlug: `c-${slug}`, offer, listId }
}

/** /c, then the /lp page it sends the visitor to; returns the click id and the page. */
async function visit(c: { slug: string; campaignSlug: string }, query = '', ip = nextIp()) {
  const res = await get(`${s.base}/c/${c.campaignSlug}${query}`, { 'x-forwarded-for': ip, 'user-agent': BROWSER })
  expect(res.status).toBe(302)
  const location = res.headers.get('location')!
  const clickId = new URL(location, s.base).searchParams.get('click_id')!
  expect(location).toBe(`/lp/${c.slug}?click_id=${clickId}`)
  const page = await get(`${s.base}${location}`, { 'x-forwarded-for': ip, 'user-agent': BROWSER })
  const text = await page.text()
  // The page's signed token (pixel.js's data-form-token): what attaches its events to the click.
  const pageToken = /data-form-token="([^"]*)"/.exec(text)![1]!
  return { clickId, page, text, pageToken }
}

const post = (path: string, body: string, type: string, ip: string, headers: Record<string, string> = {}) =>
  fetch(`${s.base}${path}`, { method: 'POST', body, headers: { 'content-type': type, 'x-forwarded-for': ip, ...headers }, redirect: 'manual' })
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()
/** A form token issued `ageMs` ago (what the page served then carried). */
const token = (landingId: number, ageMs = 5_000) => new FormTokens(s.ctx.config.secret).issue(landingId, Date.now() - ageMs)

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 5_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await read()
    if (ok(v) || Date.now() > end) return v
    await Bun.sleep(50)
  }
}

describe('GET /lp/:slug', () => {
  test('serves the html with the click macros, the stored click parameters, escaped query values and pixel.js', async () => {
    const c = await setup()
    const { clickId, page, text } = await visit(c, '?utm_source=fb&sub1=s1')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(page.headers.get('cache-control')).toBe('no-store')
    expect(page.headers.get('set-cookie')).toStartWith(`_svc_click=${clickId}; Path=/;`)
    expect(text).toContain(`<h1>${clickId}</h1>`)
    expect(text).toContain(`<a id="go" href="/r/${c.campaignSlug}?click_id=${clickId}">go</a>`)
    expect(text).toContain('<p id="src">fb</p>') // from the click: /c had it, /lp did not
    expect(text).toContain(`<p id="ids">${c.campaign}/${c.landingId}/s1</p>`)
    expect(text).toContain('<p id="q">{q}</p>') // not a parameter of this visit: left as written
    expect(text).toContain('var a = {x}') // a script's braces are not macros
    const tag = `<script src="/pixel.js" data-click-id="${clickId}" data-landing-id="${c.landingId}" data-campaign-id="${c.campaign}" data-form-token="`
    expect(text).toContain(tag)
    expect(text.indexOf(tag)).toBeLessThan(text.indexOf('</body>'))
    // The same page seen again with its click: no second click.
    const again = await get(`${s.base}/lp/${c.slug}?click_id=${clickId}`)
    expect(again.headers.get('set-cookie')).toStartWith(`_svc_click=${clickId};`)
    expect((await testDb(s).all('SELECT id FROM clicks WHERE campaign_id = $c', { c: c.campaign })).length).toBe(1)
  })

  test('hostile query values are HTML-escaped wherever they land', async () => {
    const c = await setup()
    const { clickId } = await visit(c)
    const evil = `"><script>alert(1)</script><img src=x onerror=alert(2)>'`
    const res = await get(`${s.base}/lp/${c.slug}?click_id=${clickId}&q=${encodeURIComponent(evil)}&utm_source=${encodeURIComponent('</p><b>')}`)
    const text = await res.text()
    expect(text).toContain('<p id="q">&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;&#60;img src=x onerror=alert(2)&#62;&#39;</p>')
    expect(text).toContain('<p id="src">&#60;/p&#62;&#60;b&#62;</p>')
    expect(text).not.toContain('<script>alert(1)')
  })

  test('a visit without a click makes one for the landing\'s campaign: the lowest id, or ?campaign=<slug>', async () => {
    const c = await setup()
    const sd = seeder(s)
    const second = await sd.campaign({ slug: `other-${c.slug}`, offers: [[c.offer, 1]], landings: [[c.landingId, 1]] })
    const direct = await get(`${s.base}/lp/${c.slug}?utm_source=direct`)
    expect(direct.status).toBe(200)
    const id = /_svc_click=([0-9a-f-]{36})/.exec(direct.headers.get('set-cookie')!)![1]!
    expect(id).toMatch(UUID)
    expect(await clickRow(s, id)).toMatchObject({ campaign_id: c.campaign, landing_id: c.landingId, offer_id: c.offer })
    const chosen = await get(`${s.base}/lp/${c.slug}?campaign=other-${c.slug}`)
    const id2 = /_svc_click=([0-9a-f-]{36})/.exec(chosen.headers.get('set-cookie')!)![1]!
    expect(await clickRow(s, id2)).toMatchObject({ campaign_id: second, landing_id: c.landingId })
    expect(await chosen.text()).toContain(`href="/r/other-${c.slug}?click_id=${id2}"`)
  })

  test('a landing in no campaign is served without a click; an unknown slug is a 404 page; HEAD makes no click', async () => {
    const alone = await s.api('POST', '/admin/api/landings', { name: 'alone', slug: `alone${++n}`, html: '<a href="{offer_url}">{click_id}</a>' })
    const res = await get(`${s.base}/lp/${alone.body.slug}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('set-cookie')).toBeNull()
    expect(await res.text()).toStartWith('<a href="#"></a><script src="/pixel.js" data-click-id=""')
    const missing = await get(`${s.base}/lp/no-such-landing`)
    expect(missing.status).toBe(404)
    expect(missing.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(await missing.text()).toContain('Page not found')
    const c = await setup()
    const before = (await testDb(s).all('SELECT id FROM clicks WHERE campaign_id = $c', { c: c.campaign })).length
    const head = await fetch(`${s.base}/lp/${c.slug}`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('set-cookie')).toBeNull()
    expect((await testDb(s).all('SELECT id FROM clicks WHERE campaign_id = $c', { c: c.campaign })).length).toBe(before)
  })

  test('an edited landing is served at once (the page cache follows the catalog)', async () => {
    const c = await setup()
    await s.api('PATCH', `/admin/api/landings/${c.landingId}`, { html: '<p>new page {landing_id}</p>' })
    expect(await (await get(`${s.base}/lp/${c.slug}`)).text()).toStartWith(`<p>new page ${c.landingId}</p>`)
  })

  test('query values are escaped for where they stand: URL scheme checked, unquoted attribute quoted, script strings, script code never filled', async () => {
    const slug = `ctx${++n}`
    const page = '<a id="n" href="{next}">n</a><a id="u" href={u}>u</a><script>var s = \'{qs}\', t = `{t}`; var o = {x}</script>'
    expect((await s.api('POST', '/admin/api/landings', { name: slug, slug, html: page })).status).toBe(201)
    const q = new URLSearchParams({ next: 'javascript:alert(1)', u: 'x onfocus=alert(1) autofocus', qs: '\\', t: '${alert(1)}', x: 'alert(1)' })
    const text = await (await get(`${s.base}/lp/${slug}?${q}`)).text()
    expect(text).toStartWith('<a id="n" href="about:blank">n</a><a id="u" href="x onfocus=alert(1) autofocus">u</a>' +
      "<script>var s = '\\u005c', t = `\\u0024\\u007balert\\u00281\\u0029\\u007d`; var o = {x}</script>")
  })

  test('a macro where no escaping is safe is refused at save: 400 naming the macro and its place; PATCH too', async () => {
    const slug = `refuse${++n}`
    const res = await s.api('POST', '/admin/api/landings', { name: slug, slug, html: '<button onclick="go(\'{sub1}\')">Go</button><p style="color:{c}">x</p>' })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ error: 'html: a macro cannot be filled safely there: {sub1} in an event handler attribute (onclick); {c} in a style attribute. ' +
      'Macros may stand in text, attribute values, link and image URLs, and script strings' })
    const ok = await s.api('POST', '/admin/api/landings', { name: slug, slug, html: '<p>{sub1}</p>' })
    expect(ok.status).toBe(201)
    const patch = await s.api('PATCH', `/admin/api/landings/${ok.body.id}`, { html: '<script src="{cdn}/app.js"></script>' })
    expect(patch.status).toBe(400)
    expect(patch.body).toEqual({ error: 'html: a macro cannot be filled safely there: {cdn} in the start of a script src (where code is loaded from or a form is sent). ' +
      'Macros may stand in text, attribute values, link and image URLs, and script strings' })
    expect((await s.api('GET', `/admin/api/landings/${ok.body.id}`)).body.html).toBe('<p>{sub1}</p>')
  })
})

describe('POST /api/lead', () => {
  test('a form post: 200 {ok, redirect_url} continuing the click, the lead stored, the address enrolled in the landing\'s list', async () => {
    const c = await setup({ list: true })
    const ip = nextIp()
    const { clickId } = await visit(c, '', ip)
    const res = await post('/api/lead', form({
      email: ' Ann@Example.COM ', name: 'Ann', landing_id: String(c.landingId), click_id: clickId, company: 'ACME', 'Job-Title': 'CEO',
      _svc_t: token(c.landingId), _svc_hp: '',
    }), 'application/x-www-form-urlencoded', ip)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(await res.json()).toEqual({ ok: true, redirect_url: `/r/${c.campaignSlug}?click_id=${clickId}` })
    const leads = (await s.api('GET', `/admin/api/leads?click_id=${clickId}`)).body.items
    expect(leads).toHaveLength(1)
    expect(leads[0]).toMatchObject({ email: 'ann@example.com', name: 'Ann', landing_id: c.landingId, campaign_id: c.campaign, click_id: clickId, fields: { company: 'ACME', job_title: 'CEO' } })
    const subs = await until(() => s.api('GET', `/admin/api/email-lists/${c.listId}/subscribers`), (r) => r.body.items.length > 0)
    expect(subs.body.items).toHaveLength(1)
    expect(subs.body.items[0]).toMatchObject({ email: 'ann@example.com', name: 'Ann', source: 'lead', fields: { company: 'ACME', job_title: 'CEO' }, consent_ip: ip })
  })

  test('JSON works too; the click comes from the cookie when the body has none; a lead without any click gets one', async () => {
    const c = await setup()
    const ip = nextIp()
    const { clickId } = await visit(c, '', ip)
    const res = await post('/api/lead', JSON.stringify({ email: 'bob@example.com', landing_id: c.landingId }), 'application/json', ip, { cookie: `_svc_click=${clickId}` })
    expect(await res.json()).toEqual({ ok: true, redirect_url: `/r/${c.campaignSlug}?click_id=${clickId}` })
    const fresh = await post('/api/lead', JSON.stringify({ email: 'cy@example.com', landing_id: c.landingId }), 'application/json', ip)
    const body = await fresh.json() as { redirect_url: string }
    const id = new URL(body.redirect_url, s.base).searchParams.get('click_id')!
    expect(id).toMatch(UUID)
    expect(await clickRow(s, id)).toMatchObject({ campaign_id: c.campaign, landing_id: c.landingId })
    // /r continues that click to the offer, with the same id.
    const r = await get(`${s.base}${body.redirect_url}`)
    expect(r.headers.get('location')).toBe(`https://offer.example/o?c=${id}`)
  })

  test('validation: 400 with the error shape for a missing or malformed email, a missing or unknown landing, a bad body', async () => {
    const c = await setup()
    const cases: Array<[string, string, string]> = [
      [form({ landing_id: String(c.landingId) }), 'application/x-www-form-urlencoded', 'email: required'],
      [form({ email: 'not-an-address', landing_id: String(c.landingId) }), 'application/x-www-form-urlencoded', 'email: not a valid email address'],
      [form({ email: 'a@example.com' }), 'application/x-www-form-urlencoded', 'landing_id: required'],
      [form({ email: 'a@example.com', landing_id: 'x' }), 'application/x-www-form-urlencoded', 'landing_id: must be a positive integer'],
      [form({ email: 'a@example.com', landing_id: '999999' }), 'application/x-www-form-urlencoded', 'landing_id: no such landing'],
      ['{"email":', 'application/json', 'the body is not valid JSON'],
      ['[1]', 'application/json', 'the body must be a JSON object'],
      ['email=a@example.com', 'text/csv', 'content-type: send application/x-www-form-urlencoded, multipart/form-data or application/json'],
      [JSON.stringify({ email: 'a@example.com', landing_id: c.landingId, 'bad name!': 'x' }), 'application/json', 'bad name!: field names are 1-40 characters a-z, 0-9, _ and -'],
      [JSON.stringify({ email: 'a@example.com', landing_id: c.landingId, note: 'x'.repeat(1001) }), 'application/json', 'note: must be at most 1000 characters'],
    ]
    for (const [body, type, error] of cases) {
      const res = await post('/api/lead', body, type, nextIp())
      expect({ status: res.status, body: await res.json() }).toEqual({ status: 400, body: { error } })
    }
    expect((await testDb(s).all('SELECT id FROM leads WHERE landing_id = $l', { l: c.landingId })).length).toBe(0)
  })

  test('bots get the normal 200 and leave no lead: honeypot filled, form sent too fast, a forged token', async () => {
    const c = await setup({ list: true })
    const ip = nextIp()
    const { clickId } = await visit(c, '', ip)
    const expected = { ok: true, redirect_url: `/r/${c.campaignSlug}?click_id=${clickId}` }
    const base = { email: 'bot@example.com', landing_id: String(c.landingId), click_id: clickId }
    for (const extra of <Array<Record<string, string>>>[{ _svc_hp: 'http://spam.example' }, { _svc_t: token(c.landingId, 500) }, { _svc_t: token(c.landingId).replace(/.$/, 'A') + 'x' }, { _svc_t: token(c.landingId + 1) }]) {
      const res = await post('/api/lead', form({ ...base, ...extra }), 'application/x-www-form-urlencoded', nextIp())
      expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: expected })
    }
    expect((await testDb(s).all('SELECT id FROM leads WHERE landing_id = $l', { l: c.landingId })).length).toBe(0)
    // A person who took longer than 2 s is taken.
    await post('/api/lead', form({ ...base, _svc_t: token(c.landingId, 2_500) }), 'application/x-www-form-urlencoded', nextIp())
    expect((await testDb(s).all('SELECT id FROM leads WHERE landing_id = $l', { l: c.landingId })).length).toBe(1)
  })

  test('the 11th lead of a minute from one address is 429 with Retry-After; another address is not affected', async () => {
    const c = await setup()
    const ip = nextIp()
    for (let i = 0; i < 10; i++) {
      const res = await post('/api/lead', form({ email: `p${i}@example.com`, landing_id: String(c.landingId) }), 'application/x-www-form-urlencoded', ip)
      expect(res.status).toBe(200)
    }
    const limited = await post('/api/lead', form({ email: 'p11@example.com', landing_id: String(c.landingId) }), 'application/x-www-form-urlencoded', ip)
    expect(limited.status).toBe(429)
    expect(await limited.json()).toEqual({ error: 'too many requests' })
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await post('/api/lead', form({ email: 'q@example.com', landing_id: String(c.landingId) }), 'application/x-www-form-urlencoded', nextIp())).status).toBe(200)
  })

  test('CORS from the allowlist, preflight included; other origins get no CORS headers', async () => {
    const c = await setup()
    expect((await s.api('PUT', '/admin/api/settings', { cors_allowlist: ['https://shop.example'] })).status).toBe(200)
    const pre = await fetch(`${s.base}/api/lead`, { method: 'OPTIONS', headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' } })
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://shop.example')
    expect(pre.headers.get('access-control-allow-methods')).toBe('POST')
    const ok = await post('/api/lead', JSON.stringify({ email: 'cors@example.com', landing_id: c.landingId }), 'application/json', nextIp(), { origin: 'https://shop.example' })
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://shop.example')
    const bad = await post('/api/lead', JSON.stringify({ email: 'x' }), 'application/json', nextIp(), { origin: 'https://shop.example' })
    expect(bad.status).toBe(400)
    expect(bad.headers.get('access-control-allow-origin')).toBe('https://shop.example') // the page's script can read the error
    const other = await fetch(`${s.base}/api/lead`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } })
    expect(other.headers.get('access-control-allow-origin')).toBeNull()
    await s.api('PUT', '/admin/api/settings', { cors_allowlist: [] })
  })
})

describe('page views, click-throughs and bot signals', () => {
  const report = async (campaign: number) =>
    (await s.api('GET', `/admin/api/reports?group_by=landing&campaign_id=${campaign}`)).body.rows[0]

  test('a page view marks the click viewed once; /r counts the click-through once; reports show views, clicks and CTR', async () => {
    const c = await setup()
    const ip = nextIp()
    const { clickId, pageToken } = await visit(c, '', ip)
    const view = JSON.stringify({ name: 'page_view', click_id: clickId, landing_id: c.landingId, url: `${s.base}/lp/${c.slug}`, token: pageToken })
    const res = await post('/api/events', view, 'text/plain;charset=UTF-8', ip)
    expect(res.status).toBe(204)
    await post('/api/events', view, 'text/plain;charset=UTF-8', ip) // a reload
    expect((await clickRow(s, clickId))!.landing_viewed_at).toBeGreaterThan(0)
    expect(await report(c.campaign)).toMatchObject({ clicks: 1, landing_views: 1, landing_clicks: 0, landing_ctr: 0 })
    const r = await get(`${s.base}/r/${c.campaignSlug}?click_id=${clickId}`)
    expect(r.headers.get('location')).toBe(`https://offer.example/o?c=${clickId}`)
    await get(`${s.base}/r/${c.campaignSlug}?click_id=${clickId}`)
    expect((await clickRow(s, clickId))!.landing_clicked_at).toBeGreaterThan(0)
    expect(await report(c.campaign)).toMatchObject({ clicks: 1, landing_views: 1, landing_clicks: 1, landing_ctr: 100 })
    // The events are listed: two views.
    const events = (await s.api('GET', `/admin/api/events?click_id=${clickId}`)).body.items
    expect(events.map((e: { name: string }) => e.name)).toEqual(['page_view', 'page_view'])
    expect(events[0]).toMatchObject({ campaign_id: c.campaign, landing_id: c.landingId, url: `${s.base}/lp/${c.slug}` })
  })

  test('a click-through without a recorded view counts as a view too (CTR never exceeds 100 %)', async () => {
    const c = await setup()
    const { clickId } = await visit(c)
    await get(`${s.base}/r/${c.campaignSlug}?click_id=${clickId}`)
    expect(await report(c.campaign)).toMatchObject({ landing_views: 1, landing_clicks: 1, landing_ctr: 100 })
  })

  test('custom events: stored with the click and countable; the image fallback answers a GIF; bad names are 400', async () => {
    const c = await setup()
    const ip = nextIp()
    const { clickId, pageToken } = await visit(c, '', ip)
    const ev = await post('/api/events', JSON.stringify({ name: 'signup', click_id: clickId, landing_id: c.landingId, props: { plan: 'pro' }, token: pageToken }), 'text/plain', ip)
    expect(ev.status).toBe(204)
    const img = await get(`${s.base}/api/events?name=scroll_50&click_id=${clickId}&landing_id=${c.landingId}&token=${pageToken}`, { 'x-forwarded-for': ip })
    expect(img.status).toBe(200)
    expect(img.headers.get('content-type')).toBe('image/gif')
    expect(new Uint8Array(await img.arrayBuffer()).slice(0, 6)).toEqual(new TextEncoder().encode('GIF89a'))
    const signup = (await s.api('GET', `/admin/api/events?click_id=${clickId}&name=signup`)).body.items
    expect(signup).toHaveLength(1)
    expect(signup[0]).toMatchObject({ name: 'signup', campaign_id: c.campaign, props: { plan: 'pro' } })
    const counts = (await s.api('GET', `/admin/api/events/counts?group_by=name&campaign_id=${c.campaign}`)).body.rows
    expect(counts).toEqual(expect.arrayContaining([{ key: 'signup', count: 1 }, { key: 'scroll_50', count: 1 }]))
    const bad = await post('/api/events', JSON.stringify({ name: '<script>' }), 'text/plain', ip)
    expect({ status: bad.status, body: await bad.json() }).toEqual({ status: 400, body: { error: 'name: 1-64 characters A-Z, a-z, 0-9, _ . : -' } })
    // A NUL is refused before it reaches a database that cannot store it (Postgres text).
    const nul = await post('/api/events', JSON.stringify({ name: 'x', url: 'https://a.example/\u0000' }), 'text/plain', ip)
    expect({ status: nul.status, body: await nul.json() }).toEqual({ status: 400, body: { error: 'url: must not contain control characters' } })
    const lead = await post('/api/lead', JSON.stringify({ email: 'a@example.com', landing_id: c.landingId, note: 'a\u0000b' }), 'application/json', ip)
    expect({ status: lead.status, body: await lead.json() }).toEqual({ status: 400, body: { error: 'note: must not contain control characters' } })
    expect((await get(`${s.base}/lp/${c.slug}%00`)).status).toBe(404)
  })

  test('the 31st pixel hit of a minute from one address is 429', async () => {
    const ip = nextIp()
    for (let i = 0; i < 30; i++) expect((await post('/api/events', JSON.stringify({ name: 'tick' }), 'text/plain', ip)).status).toBe(204)
    const limited = await post('/api/events', JSON.stringify({ name: 'tick' }), 'text/plain', ip)
    expect(limited.status).toBe(429)
    expect(await limited.json()).toEqual({ error: 'too many requests' })
    expect((await get(`${s.base}/api/events?name=tick`, { 'x-forwarded-for': ip })).status).toBe(429)
    expect((await post('/api/cloak', JSON.stringify({ signals: [] }), 'text/plain', ip)).status).toBe(429)
  })

  test('cloak signals flag the click as a bot: rollups move (no longer unique, cost 0) and bot_url is the answer', async () => {
    const c = await setup({ botUrl: 'https://safe.example/page?c={click_id}' })
    await seeder(s).exec("UPDATE campaigns SET cost_model = 'cpc', cpc = 0.25 WHERE id = $id", { id: c.campaign })
    const ip = nextIp()
    const { clickId, pageToken } = await visit(c, '', ip)
    expect(await report(c.campaign)).toMatchObject({ clicks: 1, unique_clicks: 1, bot_clicks: 0, cost: 0.25 })
    const weak = await post('/api/cloak', JSON.stringify({ click_id: clickId, landing_id: c.landingId, signals: ['no_plugins'], token: pageToken }), 'text/plain', ip)
    expect(await weak.json()).toEqual({ bot: false })
    const res = await post('/api/cloak', JSON.stringify({ click_id: clickId, landing_id: c.landingId, signals: ['webdriver', 'no_plugins', 'made_up'], token: pageToken }), 'text/plain', ip)
    expect(await res.json()).toEqual({ bot: true, reason: 'cloak:webdriver', redirect_url: `https://safe.example/page?c=${clickId}` })
    expect(await clickRow(s, clickId)).toMatchObject({ bot_reason: 'cloak:webdriver', is_unique: 0, cost: 0 })
    expect(await report(c.campaign)).toMatchObject({ clicks: 1, unique_clicks: 0, bot_clicks: 1, cost: 0 })
    // Two weak signals are enough; a click already flagged keeps its first reason.
    await post('/api/cloak', JSON.stringify({ click_id: clickId, landing_id: c.landingId, signals: ['no_languages', 'zero_window'], token: pageToken }), 'text/plain', ip)
    expect((await clickRow(s, clickId))!.bot_reason).toBe('cloak:webdriver')
    expect(await report(c.campaign)).toMatchObject({ clicks: 1, bot_clicks: 1 })
    expect((await post('/api/cloak', JSON.stringify({ signals: 'webdriver' }), 'text/plain', ip)).status).toBe(400)
  })
})

describe('leads and conversions', () => {
  test('postback rule 6: without email=, a trigger enrols the lead\'s address; the conversion is attributed to the landing', async () => {
    const c = await setup()
    const list = (await s.api('POST', '/admin/api/email-lists', { name: `buyers ${c.slug}` })).body.id
    expect((await s.api('POST', '/admin/api/email-triggers', { offer_id: c.offer, target_list_id: list })).status).toBe(201)
    const ip = nextIp()
    // A click of the campaign, then a lead on its landing (a click of another campaign is not moved here:
    // test/landings/click-binding.test.ts).
    const other = c.campaign
    const { clickId } = await visit(c, '', ip)
    await post('/api/lead', form({ email: 'buyer@example.com', landing_id: String(c.landingId), click_id: clickId }), 'application/x-www-form-urlencoded', ip)
    expect(await clickRow(s, clickId)).toMatchObject({ campaign_id: other, landing_id: c.landingId })
    expect(await (await get(`${s.base}/postback?subid=${clickId}&payout=12.5&status=approved`)).text()).toBe('OK')
    const conv = (await s.api('GET', `/admin/api/conversions?click_id=${clickId}`)).body.items
    expect(conv).toHaveLength(1)
    expect(conv[0]).toMatchObject({ landing_id: c.landingId, campaign_id: other, offer_id: c.offer, revenue: 12.5 })
    const subs = await until(() => s.api('GET', `/admin/api/email-lists/${list}/subscribers`), (r) => r.body.items.length > 0)
    expect(subs.body.items.map((x: { email: string; source: string }) => [x.email, x.source])).toEqual([['buyer@example.com', 'trigger']])
  })

  test('deleting a lead keeps its subscriber', async () => {
    const c = await setup({ list: true })
    await post('/api/lead', form({ email: 'stay@example.com', landing_id: String(c.landingId) }), 'application/x-www-form-urlencoded', nextIp())
    const lead = (await s.api('GET', `/admin/api/leads?landing_id=${c.landingId}`)).body.items[0]
    await until(() => s.api('GET', `/admin/api/email-lists/${c.listId}/subscribers`), (r) => r.body.items.length > 0)
    expect((await s.api('DELETE', `/admin/api/leads/${lead.id}`)).body).toEqual({ ok: true })
    expect((await s.api('GET', `/admin/api/email-lists/${c.listId}/subscribers`)).body.items.map((x: { email: string }) => x.email)).toEqual(['stay@example.com'])
  })
})

describe('admin preview', () => {
  test('renders the landing with a sample click, sandboxed; unsaved html too; 404 and permission rules', async () => {
    const c = await setup()
    const res = await fetch(`${s.base}/admin/api/landings/${c.landingId}/preview?q=hello`, { headers: { cookie: await s.login() } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(res.headers.get('content-security-policy')).toStartWith('sandbox;')
    const text = await res.text()
    expect(text).toContain('<h1>00000000-0000-4000-8000-000000000000</h1>')
    expect(text).toContain('<p id="q">hello</p>')
    expect(text).not.toContain('pixel.js')
    const unsaved = await fetch(`${s.base}/admin/api/landings/preview`, {
      method: 'POST', headers: { cookie: await s.login(), 'content-type': 'application/json' }, body: JSON.stringify({ html: '<i>{landing_id}</i>' }),
    })
    expect(await unsaved.text()).toBe('<i>0</i>')
    expect((await s.api('GET', '/admin/api/landings/999999/preview')).status).toBe(404)
    expect((await get(`${s.base}/admin/api/landings/${c.landingId}/preview`)).status).toBe(401)
  })
})
