// Issue 25 (Low): a click id alone must not change a click. /api/cloak flags a click, and /api/events attaches a
// page view or custom event to it, only with the page's signed token (data-form-token, issued by /lp for that
// click and landing); /lp/<landing of another campaign>?click_id=… and a lead posted there leave the click's
// campaign and landing as they were. On the engine under test (SVC_TEST_ENGINE=postgres for Postgres).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { get, startServer, type TestServer } from '../helpers/server'
import { clickRow, seeder, SERVER_TIMEOUT_MS } from '../tracking/seed'
import { FormTokens } from '../../src/landings/form-token'

let s: TestServer
let n = 0
const nextIp = () => `203.0.113.${++n}`
const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36'

beforeAll(async () => {
  s = await startServer({ SVC_TRUST_PROXY: '1' })
}, SERVER_TIMEOUT_MS)
afterAll(async () => {
  await s?.destroy()
})

const html = '<!doctype html><html><body><h1>{click_id}</h1></body></html>'

/** A campaign rotating two hosted landings, with a bot_url. */
async function campaign() {
  const sd = seeder(s)
  const tag = `cb${++n}`
  const landing = async (slug: string) => {
    const res = await s.api('POST', '/admin/api/landings', { name: slug, slug, html })
    expect(res.status).toBe(201)
    return res.body.id as number
  }
  const a = await landing(`${tag}-a`)
  const b = await landing(`${tag}-b`)
  const offer = await sd.offer('https://offer.example/o?c={click_id}')
  const id = await sd.campaign({ slug: `c-${tag}`, offers: [[offer, 1]], landings: [[a, 1], [b, 1]] })
  await sd.exec('UPDATE campaigns SET bot_url = $u WHERE id = $id', { u: 'https://safe.example/?c={click_id}', id })
  return { id, slug: `c-${tag}`, a: { id: a, slug: `${tag}-a` }, b: { id: b, slug: `${tag}-b` } }
}
type Campaign = Awaited<ReturnType<typeof campaign>>
/** The campaign's landing the visit did not land on. */
const otherThan = (c: Campaign, landingId: number) => (c.a.id === landingId ? c.b : c.a)

/** /c → /lp as a browser does: the click id and the page's signed token. */
async function visit(c: { slug: string }, ip: string) {
  const res = await get(`${s.base}/c/${c.slug}`, { 'x-forwarded-for': ip, 'user-agent': BROWSER })
  expect(res.status).toBe(302)
  const location = res.headers.get('location')!
  const clickId = new URL(location, s.base).searchParams.get('click_id')!
  const page = await get(`${s.base}${location}`, { 'x-forwarded-for': ip, 'user-agent': BROWSER })
  expect(page.status).toBe(200)
  const text = await page.text()
  const token = /data-form-token="([^"]+)"/.exec(text)![1]!
  return { clickId, token, landingId: Number(/data-landing-id="(\d+)"/.exec(text)![1]) }
}

const post = (path: string, body: unknown, ip: string, headers: Record<string, string> = {}) =>
  fetch(`${s.base}${path}`, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'text/plain;charset=UTF-8', 'x-forwarded-for': ip, ...headers } })
const answer = async (res: Response) => ({ status: res.status, body: res.status === 204 ? null : await res.json() })
const unflagged = { bot_reason: null, is_unique: 1 }

describe('POST /api/cloak: only with the page\'s token for that click and landing', () => {
  test('no token, a forged token, another click\'s or another landing\'s token: not flagged, no bot_url; the right token flags it', async () => {
    const c = await campaign()
    const ip = nextIp()
    const { clickId, token, landingId } = await visit(c, ip)
    const other = await visit(c, nextIp())
    const signals = ['webdriver']
    const refused = { status: 200, body: { bot: true, reason: 'cloak:webdriver', redirect_url: null } }
    const tokens = new FormTokens(s.ctx.config.secret)
    const wrong: Array<Record<string, unknown>> = [
      {}, // a click id alone, cross-origin text/plain like the issue's probe
      { token: '' },
      { token: token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA') }, // forged mac
      { token: other.token }, // another click's page
      { token: tokens.issue(landingId, Date.now() - 5_000) }, // a page served without a click
      { token: new FormTokens('another-installation-secret-0123456789').issue(landingId, Date.now(), clickId) },
      { token: tokens.issue(landingId, Date.now() - 25 * 3600_000, clickId) }, // older than a day
    ]
    for (const extra of wrong) {
      const res = await post('/api/cloak', { click_id: clickId, landing_id: landingId, signals, ...extra }, ip, { origin: 'https://evil.example' })
      expect(await answer(res)).toEqual(refused)
      expect(await clickRow(s, clickId)).toMatchObject(unflagged)
    }
    // The right token, but named with another landing: refused too.
    expect(await answer(await post('/api/cloak', { click_id: clickId, landing_id: otherThan(c, landingId).id, signals, token }, ip))).toEqual(refused)
    expect(await clickRow(s, clickId)).toMatchObject(unflagged)
    // The signals were kept, without the click.
    const events = (await s.api('GET', `/admin/api/events?name=bot_signals&click_id=${clickId}`)).body.items
    expect(events).toEqual([])

    const ok = await post('/api/cloak', { click_id: clickId, landing_id: landingId, signals, token }, ip)
    expect(await answer(ok)).toEqual({ status: 200, body: { bot: true, reason: 'cloak:webdriver', redirect_url: `https://safe.example/?c=${clickId}` } })
    expect(await clickRow(s, clickId)).toMatchObject({ bot_reason: 'cloak:webdriver', is_unique: 0 })
    expect(await clickRow(s, other.clickId)).toMatchObject(unflagged)
  })

  test('a token of a landing the click\'s campaign does not rotate cannot flag it', async () => {
    const mine = await campaign()
    const theirs = await campaign()
    const { clickId, landingId } = await visit(mine, nextIp())
    // A token for this very click id on the other campaign's landing (as if /lp had issued it there).
    const token = new FormTokens(s.ctx.config.secret).issue(theirs.a.id, Date.now(), clickId)
    const res = await post('/api/cloak', { click_id: clickId, landing_id: theirs.a.id, signals: ['webdriver'], token }, nextIp())
    expect(await answer(res)).toEqual({ status: 200, body: { bot: true, reason: 'cloak:webdriver', redirect_url: null } })
    expect(await clickRow(s, clickId)).toMatchObject({ ...unflagged, campaign_id: mine.id, landing_id: landingId })
  })
})

describe('/api/events: attached to the click only with the page\'s token', () => {
  test('a page view without the token is kept without the click and does not mark it viewed; with it, it does', async () => {
    const c = await campaign()
    const ip = nextIp()
    const { clickId, token, landingId } = await visit(c, ip)
    const view = { name: 'page_view', click_id: clickId, landing_id: landingId, url: 'https://lp.example/' }
    expect(await answer(await post('/api/events', view, ip))).toEqual({ status: 204, body: null })
    expect(await answer(await post('/api/events', { ...view, token: token.replace(/^v2\.\d/, 'v2.9') }, ip))).toEqual({ status: 204, body: null })
    const img = await get(`${s.base}/api/events?name=scroll&click_id=${clickId}&landing_id=${landingId}`, { 'x-forwarded-for': ip })
    expect(img.status).toBe(200)
    expect((await clickRow(s, clickId))!.landing_viewed_at).toBeNull()
    expect((await s.api('GET', `/admin/api/events?click_id=${clickId}`)).body.items).toEqual([])
    const loose = (await s.api('GET', `/admin/api/events?landing_id=${landingId}`)).body.items
    expect(loose.map((e: any) => [e.name, e.click_id, e.campaign_id])).toEqual([['page_view', null, null], ['page_view', null, null], ['scroll', null, null]])

    expect(await answer(await post('/api/events', { ...view, token }, ip))).toEqual({ status: 204, body: null })
    const img2 = await get(`${s.base}/api/events?name=scroll&click_id=${clickId}&landing_id=${landingId}&token=${encodeURIComponent(token)}`, { 'x-forwarded-for': ip })
    expect(img2.status).toBe(200)
    expect((await clickRow(s, clickId))!.landing_viewed_at).toBeGreaterThan(0)
    const attached = (await s.api('GET', `/admin/api/events?click_id=${clickId}`)).body.items
    expect(attached.map((e: any) => [e.name, e.click_id, e.campaign_id, e.landing_id])).toEqual([['page_view', clickId, c.id, landingId], ['scroll', clickId, c.id, landingId]])
  })
})

describe('/lp and /api/lead continue a click only on a landing of its own campaign', () => {
  test('/lp/<another campaign\'s landing>?click_id=… leaves the click as it was and serves a new click', async () => {
    const mine = await campaign()
    const theirs = await campaign()
    const ip = nextIp()
    const { clickId, landingId } = await visit(mine, ip)
    const before = await clickRow(s, clickId)
    expect(before).toMatchObject({ campaign_id: mine.id, landing_id: landingId })
    for (const url of [`/lp/${theirs.a.slug}?click_id=${clickId}`, `/lp/${theirs.b.slug}?click_id=${clickId}`]) {
      const res = await get(`${s.base}${url}`, { 'x-forwarded-for': ip, 'user-agent': BROWSER })
      expect(res.status).toBe(200)
      const served = /data-click-id="([^"]*)"/.exec(await res.text())![1]!
      expect(served).not.toBe(clickId)
      expect(await clickRow(s, served)).toMatchObject({ campaign_id: theirs.id })
      expect(await clickRow(s, clickId)).toMatchObject({ campaign_id: mine.id, landing_id: landingId, landing_viewed_at: before!.landing_viewed_at })
    }
    // The cookie alone does not move it either.
    const byCookie = await get(`${s.base}/lp/${theirs.a.slug}`, { 'x-forwarded-for': ip, 'user-agent': BROWSER, cookie: `_svc_click=${clickId}` })
    expect(/data-click-id="([^"]*)"/.exec(await byCookie.text())![1]).not.toBe(clickId)
    expect(await clickRow(s, clickId)).toMatchObject({ campaign_id: mine.id, landing_id: landingId })
    // A landing of its own campaign's rotation still continues (and moves) it.
    const next = otherThan(mine, landingId)
    const own = await get(`${s.base}/lp/${next.slug}?click_id=${clickId}`, { 'x-forwarded-for': ip, 'user-agent': BROWSER })
    expect(/data-click-id="([^"]*)"/.exec(await own.text())![1]).toBe(clickId)
    expect(await clickRow(s, clickId)).toMatchObject({ campaign_id: mine.id, landing_id: next.id })
  })

  test('a lead on another campaign\'s landing naming the click does not move it', async () => {
    const mine = await campaign()
    const theirs = await campaign()
    const ip = nextIp()
    const { clickId, landingId } = await visit(mine, ip)
    const res = await fetch(`${s.base}/api/lead`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip },
      body: new URLSearchParams({ email: 'lead@example.com', landing_id: String(theirs.a.id), click_id: clickId }).toString(),
    })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.redirect_url).not.toContain(clickId)
    expect(await clickRow(s, clickId)).toMatchObject({ campaign_id: mine.id, landing_id: landingId })
    const lead = (await s.api('GET', `/admin/api/leads?landing_id=${theirs.a.id}`)).body.items[0]
    expect(lead).toMatchObject({ email: 'lead@example.com', campaign_id: theirs.id })
    expect(lead.click_id).not.toBe(clickId)
  })
})
