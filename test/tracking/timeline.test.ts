// One timeline per click (issue 30): GET /admin/api/clicks/:click_id/timeline through the real surface (a
// visitor's /c → /lp → page view → /r, /postback twice with status updates on, the forward job against a
// listener), and the clicks list GET /admin/api/clicks (filters, newest first, paging). Both engines.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { randomUUID } from 'node:crypto'
import { get, startServer, type TestServer } from '../helpers/server'
import { startListener, type Listener } from '../helpers/listener'
import { seeder, SERVER_TIMEOUT_MS } from './seed'
import { eventually, postback } from '../postback/seed'
import { newClick } from '../../src/tracking/store/click'
import { invoke, systemActor } from '../../src/lib/verb'

const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36'
const DELAY_MS = 60

let s: TestServer
let l: Listener
let n = 0

beforeAll(async () => {
  // /pb/lead answers 200 after a delay (the latency the timeline shows), /pb/sale a 500 (its error).
  l = startListener(async (req) => {
    if (req.url.pathname === '/pb/sale') return new Response('source down', { status: 500 })
    await Bun.sleep(DELAY_MS)
    return new Response('ok')
  })
  s = await startServer({ SVC_TRUST_PROXY: '1', SVC_OUTBOUND_ALLOW_PRIVATE: '1', SVC_JOBS_MAX_ATTEMPTS: '1' })
}, SERVER_TIMEOUT_MS)
afterAll(async () => {
  await s?.destroy()
  l?.stop()
})

async function setup() {
  const sd = seeder(s)
  const slug = `tl${++n}-${Date.now().toString(36)}`
  const source = await sd.source(`${l.base}/pb/{status}?cid={click_id}&sub={sub3}`)
  const offer = await sd.offer('https://offer.example/o?c={click_id}', `offer-${slug}`)
  const landing = await s.api('POST', '/admin/api/landings', { name: `Landing ${slug}`, slug, html: '<a href="{offer_url}">go</a>' })
  expect(landing.status).toBe(201)
  const campaign = await sd.campaign({ slug: `camp-${slug}`, sourceId: source, offers: [[offer, 1]], landings: [[landing.body.id, 1]] })
  await sd.exec("UPDATE campaigns SET cost_model = 'cpc', cpc = 0.05 WHERE id = $id", { id: campaign })
  return { slug, source, offer, landing: landing.body.id as number, campaign }
}

describe('GET /admin/api/clicks/:click_id/timeline', () => {
  test('click → landing view → click-through → postback (raw query) → status change → forwards with HTTP result and latency', async () => {
    const c = await setup()
    const ip = '198.51.100.77'
    const visit = await get(`${s.base}/c/camp-${c.slug}?sub1=zone-1&sub3=pub%20a&sub10=ten`, { 'x-forwarded-for': ip, 'user-agent': BROWSER })
    expect(visit.status).toBe(302)
    const clickId = new URL(visit.headers.get('location')!, s.base).searchParams.get('click_id')!
    const page = await (await get(`${s.base}/lp/${c.slug}?click_id=${clickId}`, { 'x-forwarded-for': ip, 'user-agent': BROWSER })).text()
    const token = /data-form-token="([^"]*)"/.exec(page)![1]!
    const view = JSON.stringify({ name: 'page_view', click_id: clickId, landing_id: c.landing, url: `${s.base}/lp/${c.slug}`, token })
    expect((await fetch(`${s.base}/api/events`, { method: 'POST', body: view, headers: { 'content-type': 'text/plain', 'x-forwarded-for': ip } })).status).toBe(204)
    await Bun.sleep(5) // the view and the click-through a few ms apart: their order is the timeline's
    const through = await get(`${s.base}/r/camp-${c.slug}?click_id=${clickId}`, { 'x-forwarded-for': ip, 'user-agent': BROWSER })
    expect(through.status).toBe(302)

    expect((await s.api('PUT', '/admin/api/settings', { postback_status_updates: true })).status).toBe(200)
    // The raw query as the network sent it, odd encoding and an unknown parameter included: kept byte for byte.
    const first = `subid=${clickId}&status=lead&payout=2.50&tid=T-1&note=caf%C3%A9+%26+co&x=`
    expect((await postback(s, first)).status).toBe(200)
    const lead = await eventually(async () => {
      const t = (await s.api('GET', `/admin/api/clicks/${clickId}/timeline`)).body
      return t.events.find((e: any) => e.kind === 'forward' && e.status === 'done') ? t : null
    }, 10_000, 'the lead forward done')
    expect(lead.events.find((e: any) => e.kind === 'forward').result).toMatch(/^HTTP 200 in \d+ ms$/)
    const second = `subid=${clickId.toUpperCase()}&status=sale&payout=10&tid=T-1`
    expect((await postback(s, second)).status).toBe(200)
    const t = await eventually(async () => {
      const r = (await s.api('GET', `/admin/api/clicks/${clickId.toUpperCase()}/timeline`)).body
      return r.events.filter((e: any) => e.kind === 'forward' && (e.status === 'done' || e.status === 'failed')).length === 2 ? r : null
    }, 10_000, 'both forwards settled')

    expect(t.events.map((e: any) => e.kind)).toEqual(['click', 'landing_view', 'landing_click', 'postback', 'forward', 'status_change', 'forward'])
    const times = t.events.map((e: any) => Date.parse(e.at))
    expect(times).toEqual([...times].sort((a, b) => a - b))
    const [click, viewed, clicked, pb, fwdLead, change, fwdSale] = t.events
    expect(click).toMatchObject({ kind: 'click', campaign_id: c.campaign, landing_id: c.landing, offer_id: c.offer })
    expect(viewed).toMatchObject({ kind: 'landing_view', landing_id: c.landing })
    expect(clicked).toMatchObject({ kind: 'landing_click', offer_id: c.offer })
    expect(pb).toMatchObject({ kind: 'postback', query: first, type: 'lead', status: 'lead', revenue: 2.5, currency: 'USD', transaction_id: 'T-1' })
    expect(change).toMatchObject({
      kind: 'status_change', conversion_id: pb.conversion_id, query: second, type: 'sale', status: 'sale', revenue: 10,
      from: { type: 'lead', status: 'lead', revenue: 2.5 }, reversal_id: null,
    })
    expect(fwdLead).toMatchObject({ kind: 'forward', status: 'done', attempts: 1, http_status: 200, last_error: null, conversion_id: pb.conversion_id })
    expect(fwdLead.url).toBe(`${l.base}/pb/lead?cid=${clickId}&sub=pub%20a`)
    const ms = Number(/^HTTP 200 in (\d+) ms$/.exec(fwdLead.result)![1])
    expect(ms).toBeGreaterThanOrEqual(50)
    expect(fwdLead.latency_ms).toBe(ms)
    expect(fwdSale).toMatchObject({ kind: 'forward', status: 'failed', attempts: 1, http_status: 500, result: null, url: `${l.base}/pb/sale?cid=${clickId}&sub=pub%20a` })
    expect(fwdSale.last_error).toMatch(/^HTTP 500: source down \(after \d+ ms\) \(attempt 1 of 1; /)
    expect(fwdSale.latency_ms).toBeGreaterThanOrEqual(0)

    // Every stored field, with names, the cost's currency and the path.
    expect(t.click).toMatchObject({
      click_id: clickId, campaign_id: c.campaign, campaign_name: `camp-${c.slug}`, source_id: c.source, source_name: expect.stringMatching(/^source-/),
      offer_id: c.offer, offer_name: `offer-${c.slug}`, landing_id: c.landing, landing_name: `Landing ${c.slug}`, path_id: null, path_name: 'default',
      sub1: 'zone-1', sub3: 'pub a', sub10: 'ten', sub2: null, user_agent: BROWSER, ip, cost: 0.05, cost_currency: 'USD',
      landing_viewed_at: viewed.at, landing_clicked_at: clicked.at, created_at: click.at, path_trace: null,
    })
    // The conversion row keeps the latest query; its history row the one before (the columns behind the timeline).
    const conv = (await s.api('GET', `/admin/api/conversions/${pb.conversion_id}`)).body
    expect(conv.status_history.map((h: any) => h.type)).toEqual(['lead', 'sale'])
  })

  test('a conversion recorded without a /postback has no query; its click still has its timeline', async () => {
    const c = await setup()
    const [clickId] = await importClicks(c, 1, Date.now())
    // The conversions.record verb (MCP's record_conversion): no /postback, so no query.
    const rec = { body: await invoke(s.server.verbs.get('conversions.record')!, systemActor('test'), { click_id: clickId, status: 'reject', revenue: 1 }) as { id: number } }
    const t = (await s.api('GET', `/admin/api/clicks/${clickId}/timeline`)).body
    expect(t.events.map((e: any) => e.kind)).toEqual(['click', 'postback'])
    expect(t.events[1]).toMatchObject({ query: null, type: 'reject', conversion_id: rec.body.id })
  })

  test('an unknown click is a 404 with the error body, a malformed id a 400; signed out a 401, without conversions:read a 403', async () => {
    const unknown = await s.api('GET', `/admin/api/clicks/${randomUUID()}/timeline`)
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({ error: 'click not found' })
    const bad = await s.api('GET', '/admin/api/clicks/not-a-uuid/timeline')
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ error: 'click_id: must be a UUID' })
    expect((await s.api('GET', `/admin/api/clicks/${randomUUID()}/timeline`, undefined, '')).status).toBe(401)
    await s.ctx.users.create({ email: 'reports-tl@example.com', password: 'reports-password-1', permissions: { reports: { read: true, write: true } } })
    const reports = await s.login('reports-tl@example.com', 'reports-password-1')
    for (const path of [`/admin/api/clicks/${randomUUID()}/timeline`, '/admin/api/clicks']) {
      const r = await s.api('GET', path, undefined, reports)
      expect({ path, status: r.status, error: r.body.error }).toEqual({ path, status: 403, error: 'missing permission conversions:read' })
    }
  })
})

/** `count` committed clicks of the campaign, one minute apart back from `newest`; their ids, newest first. */
async function importClicks(c: { campaign: number; source: number; offer: number }, count: number, newest: number, over: Partial<Parameters<typeof newClick>[0]> = {}): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID())
  await s.server.clicks.import(ids.map((clickId, i) => newClick({
    clickId, campaignId: c.campaign, sourceId: c.source, offerId: c.offer, createdAt: newest - i * 60_000, ...over,
  })))
  return ids
}

describe('GET /admin/api/clicks', () => {
  test('newest first, filtered by campaign, sub, country and device, paged by cursor without overlap', async () => {
    const c = await setup()
    const now = Date.now()
    const zone = await importClicks(c, 5, now - 1000, { sub3: 'zone-7', country: 'DE', deviceType: 'mobile', cost: 0.1 })
    await importClicks(c, 2, now - 500, { sub3: 'zone-8', country: 'FR', deviceType: 'desktop' })
    const old = await importClicks(c, 1, now - 40 * 86_400_000, { sub3: 'zone-7', country: 'DE', deviceType: 'mobile' })

    const all = (await s.api('GET', `/admin/api/clicks?campaign_id=${c.campaign}&limit=200`)).body
    expect(all.items).toHaveLength(7) // the 40-day-old click is outside the default 30 days
    expect(all.next_cursor).toBeNull()
    const at = all.items.map((i: any) => Date.parse(i.created_at))
    expect(at).toEqual([...at].sort((a, b) => b - a))

    const pages: string[][] = []
    let cursor: string | null = ''
    while (cursor !== null) {
      const r = await s.api('GET', `/admin/api/clicks?campaign_id=${c.campaign}&sub3=zone-7&country=de&device=mobile&limit=2${cursor ? `&cursor=${cursor}` : ''}`)
      expect(r.status).toBe(200)
      pages.push(r.body.items.map((i: any) => i.click_id))
      cursor = r.body.next_cursor
    }
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1])
    expect(pages.flat()).toEqual(zone)

    const first = (await s.api('GET', `/admin/api/clicks?campaign_id=${c.campaign}&sub3=zone-7&limit=1`)).body.items[0]
    expect(first).toEqual({
      click_id: zone[0], created_at: new Date(now - 1000).toISOString(), campaign_id: c.campaign, campaign_name: expect.stringMatching(/^camp-/),
      source_id: c.source, source_name: expect.stringMatching(/^source-/), offer_id: c.offer, offer_name: expect.stringMatching(/^offer-/), landing_id: null,
      country: 'DE', device_type: 'mobile', sub1: null, sub2: null, sub3: 'zone-7', sub4: null, sub5: null, sub6: null, sub7: null, sub8: null, sub9: null, sub10: null,
      cost: 0.1, converted: false,
    })
    // The range as reports take it: an explicit from reaches the old click.
    const from = new Date(now - 41 * 86_400_000).toISOString().slice(0, 10)
    const wide = (await s.api('GET', `/admin/api/clicks?campaign_id=${c.campaign}&sub3=zone-7&from=${from}&tz=UTC&limit=200`)).body
    expect(wide.items.map((i: any) => i.click_id)).toEqual([...zone, ...old])
    expect((await s.api('GET', `/admin/api/clicks?source_id=${c.source}&offer_id=${c.offer}&sub3=zone-8`)).body.items).toHaveLength(2)
  })

  test('converted is true for a click with a conversion', async () => {
    const c = await setup()
    const [clickId] = await importClicks(c, 1, Date.now())
    expect((await postback(s, `subid=${clickId}&status=reject`)).status).toBe(200)
    const items = (await s.api('GET', `/admin/api/clicks?campaign_id=${c.campaign}`)).body.items
    expect(items).toMatchObject([{ click_id: clickId, converted: true }])
  })

  test('bad parameters are 400s that name the field', async () => {
    for (const [q, error] of [
      ['limit=201', 'limit: must be a whole number from 1 to 200'],
      ['limit=0', 'limit: must be a whole number from 1 to 200'],
      ['cursor=abc', 'cursor: invalid cursor'],
      ['campaign_id=x', 'campaign_id: must be a whole number'],
      ['country=DEU', 'country: at most 2 characters'],
      ['from=2026-13-01', undefined],
      ['tz=Mars/Base', undefined],
      [`sub3=${'x'.repeat(256)}`, 'sub3: at most 255 characters'],
    ] as const) {
      const r = await s.api('GET', `/admin/api/clicks?${q}`)
      expect({ q, status: r.status }).toEqual({ q, status: 400 })
      if (error) expect(r.body).toEqual({ error })
      else expect(r.body.error).toMatch(/^(from|tz): /)
    }
  })
})
