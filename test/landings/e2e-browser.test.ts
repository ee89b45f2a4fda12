// Hosted landings end to end, in a real headless Chromium (Debian's, via playwright-core) against a real svc
// server (either engine: SVC_TEST_ENGINE=postgres runs it on Postgres). Everything is set up through the
// admin API and checked through it; the browser does what a visitor does.
//
//   A. a person: /c → /lp (macros, pixel.js page view) → a custom event (client.js svc.track) → the lead form
//      (client.js, after the 2 s fill time) → /r → the offer page on a local server; then a postback from the
//      test. The conversion, the lead, the list enrolment and the landing report row all carry the landing.
//   B. automation caught by cloak.js: /c → /lp → cloak.js reports navigator.webdriver → the server flags the
//      click (bot_reason cloak:webdriver) and answers the campaign's bot_url, which the page follows.
//   C. the same automation with headless Chromium's own user agent: the server's traffic-quality check flags
//      the click at /c already, and the visitor goes straight to bot_url without seeing the landing.
//
// A and B give the browser a desktop Chrome user agent: with headless Chromium's stock "HeadlessChrome" the
// click is a bot at /c (test C), before any landing script runs.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { launchBrowser } from '../helpers/browser'
import { startListener, type Listener } from '../helpers/listener'
import { startServer, type TestServer } from '../helpers/server'
import { SERVER_TIMEOUT_MS } from '../tracking/seed'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const EMAIL = 'ada.lovelace@example.com'
const NAME = 'Ada Lovelace'
const COMPANY = 'Analytical Engines Ltd'

let s: TestServer
let offerSite: Listener
let browser: Browser
let desktopUa: string
let startedAt: number
const contexts: BrowserContext[] = []

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const escapeRe = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

beforeAll(async () => {
  startedAt = Date.now()
  // The advertiser's side: the offer page, and the page bots are sent to.
  offerSite = startListener((req) => {
    const page = (title: string) => new Response(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1></body></html>`,
      { headers: { 'content-type': 'text/html; charset=utf-8' } })
    if (req.url.pathname === '/offer') return page('Offer page')
    if (req.url.pathname === '/bot') return page('Bot page')
    return new Response('not found', { status: 404 })
  })
  s = await startServer()
  browser = await launchBrowser()
  // A desktop Chrome user agent of the very Chromium that runs (no "HeadlessChrome" in it).
  desktopUa = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${browser.version().split('.')[0]}.0.0.0 Safari/537.36`
}, SERVER_TIMEOUT_MS)

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {})
  await browser?.close()
  offerSite?.stop()
  await s?.destroy()
}, SERVER_TIMEOUT_MS)

/** A POST to the admin API that must create (201); the created record. */
async function create(path: string, body: unknown): Promise<any> {
  const res = await s.api('POST', path, body)
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${res.text}`)
  return res.body
}

async function getJson(path: string): Promise<any> {
  const res = await s.api('GET', path)
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text}`)
  return res.body
}

/** Polls `probe` until it gives a truthy value; the error names what was last seen. */
async function until<T>(what: string, probe: () => Promise<{ done: boolean; value: T }>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const { done, value } = await probe()
    if (done) return value
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(value)}`)
    await sleep(50)
  }
}

const range = () => `from=${encodeURIComponent(new Date(startedAt - 3_600_000).toISOString())}&to=${encodeURIComponent(new Date(Date.now() + 86_400_000).toISOString())}`

/** The report row of `key` (polled: reports may read rollups that lag the writes) once `ready` holds for it. */
async function reportRow(groupBy: string, key: number, ready: (row: any) => boolean, extra = ''): Promise<any> {
  return until(`the ${groupBy} report row ${key}`, async () => {
    const body = await getJson(`/admin/api/reports?group_by=${groupBy}&${range()}${extra}`)
    const row = body.rows.find((r: any) => r.key === key)
    return { done: !!row && ready(row), value: row ?? body.rows }
  })
}

interface Opened {
  page: Page
  /** Main-frame URLs as they committed (a redirect inside one navigation commits once, at its end). */
  navigations: string[]
  errors: string[]
}

async function newPage(userAgent?: string): Promise<Opened> {
  const context = await browser.newContext(userAgent ? { userAgent } : {})
  contexts.push(context)
  const page = await context.newPage()
  const navigations: string[] = []
  const errors: string[] = []
  page.on('framenavigated', (f) => { if (f === page.mainFrame()) navigations.push(f.url()) })
  page.on('pageerror', (e) => errors.push(String(e)))
  page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text()) })
  return { page, navigations, errors }
}

let n = 0
/** A source, an offer on the local offer site, a landing and a campaign linking them. */
async function funnel(o: { html: string; emailListId?: number | null; botUrl?: string | null }) {
  const tag = `e2e-${Date.now().toString(36)}-${++n}`
  const source = await create('/admin/api/sources', { name: `Source ${tag}` })
  const offer = await create('/admin/api/offers', { name: `Offer ${tag}`, slug: `offer-${tag}`, url: `${offerSite.base}/offer?cid={click_id}`, payout: 3, currency: 'USD' })
  const landing = await create('/admin/api/landings', { name: `Landing ${tag}`, slug: `lp-${tag}`, html: o.html, email_list_id: o.emailListId ?? null })
  const campaign = await create('/admin/api/campaigns', {
    name: `Campaign ${tag}`, slug: `camp-${tag}`, source_id: source.id, offer_id: offer.id, landing_id: landing.id, bot_url: o.botUrl ?? null,
  })
  expect(campaign).toMatchObject({ source_id: source.id, offer_id: offer.id, landing_id: landing.id, bot_url: o.botUrl ?? null, active: true })
  expect(landing.email_list_id).toBe(o.emailListId ?? null)
  return { source, offer, landing, campaign }
}

const LEAD_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Join us</title></head>
<body>
<h1 id="headline">Your visit {click_id}</h1>
<p id="from">from {utm_source}</p>
<script src="/client.js"></script>
<button id="cta" type="button" onclick="svc.track('cta_click',{plan:'pro'})">Go pro</button>
<form data-svc-lead>
  <input name="email" type="email" placeholder="Email">
  <input name="name" placeholder="Name">
  <input name="company" placeholder="Company">
  <button type="submit">Join</button>
</form>
</body></html>`

const CLOAKED_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Cloaked</title></head>
<body><h1>Landing {click_id}</h1><script src="/cloak.js"></script></body></html>`

test('A: a person goes /c → landing → custom event → lead form → offer; a postback then attributes the conversion to the landing', async () => {
  const list = await create('/admin/api/email-lists', { name: 'E2E newsletter' })
  const { source, offer, landing, campaign } = await funnel({ html: LEAD_PAGE, emailListId: list.id })
  const { page, navigations, errors } = await newPage(desktopUa)

  // The tracking link: a 302 to the hosted landing with a fresh click id, which the page's macros show.
  const res = await page.goto(`${s.base}/c/${campaign.slug}?utm_source=fb`)
  const servedAt = Date.now()
  expect(res!.status()).toBe(200)
  const m = new RegExp(`^${escapeRe(`${s.base}/lp/${landing.slug}?click_id=`)}(.+)$`).exec(page.url())
  expect(m).not.toBeNull()
  const clickId = m![1]!
  expect(clickId).toMatch(UUID)
  expect(navigations).toEqual([`${s.base}/lp/${landing.slug}?click_id=${clickId}`])
  expect(await page.textContent('#headline')).toBe(`Your visit ${clickId}`)
  // {utm_source}: a query parameter of the click (/c), not of the /lp request.
  expect(await page.textContent('#from')).toBe('from fb')
  expect((await page.context().cookies()).find((c) => c.name === '_svc_click')?.value).toBe(clickId)

  const click = await getJson(`/admin/api/clicks/${clickId}`)
  expect(click).toMatchObject({
    click_id: clickId, campaign_id: campaign.id, source_id: source.id, offer_id: offer.id, landing_id: landing.id,
    params: { utm_source: 'fb' }, bot_reason: null, excluded: false, is_unique: true, user_agent: desktopUa,
  })

  // pixel.js: one page view of this click, on this landing.
  const [view] = await until('the page_view', async () => {
    const body = await getJson(`/admin/api/events?click_id=${clickId}&name=page_view`)
    return { done: body.items.length > 0, value: body.items }
  })
  expect(view).toMatchObject({
    name: 'page_view', click_id: clickId, campaign_id: campaign.id, landing_id: landing.id, props: {},
    url: `${s.base}/lp/${landing.slug}?click_id=${clickId}`,
  })

  // client.js: the button's svc.track().
  await page.click('#cta')
  const [cta] = await until('the cta_click event', async () => {
    const body = await getJson(`/admin/api/events?click_id=${clickId}&name=cta_click`)
    return { done: body.items.length > 0, value: body.items }
  })
  expect(cta).toMatchObject({ name: 'cta_click', click_id: clickId, campaign_id: campaign.id, landing_id: landing.id, props: { plan: 'pro' } })
  expect((await getJson(`/admin/api/events?click_id=${clickId}`)).items.map((e: any) => e.name)).toEqual(['page_view', 'cta_click'])

  // pixel.js decorated the form for the server.
  expect(await page.evaluate(() => Array.from(document.forms[0]!.elements).map((e) => (e as HTMLInputElement).name).filter(Boolean))).toEqual([
    'email', 'name', 'company', '_svc_t', 'click_id', 'landing_id', '_svc_hp',
  ])

  // A person takes more than 2 s to fill the form (sooner is treated as a bot and leaves no lead).
  await sleep(Math.max(0, servedAt + 2200 - Date.now()))
  await page.click('input[name=email]')
  await page.keyboard.type(EMAIL, { delay: 15 })
  await page.click('input[name=name]')
  await page.keyboard.type(NAME, { delay: 15 })
  await page.fill('input[name=company]', COMPANY)
  await Promise.all([
    page.waitForURL(`${offerSite.base}/offer?cid=${clickId}`, { timeout: 10_000 }),
    page.click('button[type=submit]'),
  ])

  // The lead's answer led to /r, whose 302 went to the offer with the same click id.
  expect(page.url()).toBe(`${offerSite.base}/offer?cid=${clickId}`)
  expect(await page.textContent('h1')).toBe('Offer page')
  const offerHits = offerSite.received.filter((r) => r.url.pathname === '/offer')
  expect(offerHits).toHaveLength(1)
  expect(Object.fromEntries(offerHits[0]!.url.searchParams)).toEqual({ cid: clickId })
  expect(offerHits[0]!.headers.get('user-agent')).toBe(desktopUa)
  expect(navigations).toEqual([`${s.base}/lp/${landing.slug}?click_id=${clickId}`, `${offerSite.base}/offer?cid=${clickId}`])

  // The advertiser reports the sale.
  const pb = await fetch(`${s.base}/postback?subid=${clickId}&payout=12.5&status=approved`)
  expect(pb.status).toBe(200)
  expect(await pb.text()).toBe('OK')

  const conversions = await until('the conversion', async () => {
    const body = await getJson(`/admin/api/conversions?click_id=${clickId}`)
    return { done: body.items.length > 0, value: body.items }
  })
  expect(conversions).toHaveLength(1)
  expect(conversions[0]).toMatchObject({
    click_id: clickId, revenue: 12.5, currency: 'USD', type: 'sale',
    campaign_id: campaign.id, source_id: source.id, offer_id: offer.id, landing_id: landing.id,
  })

  // The lead, with its custom field.
  const leads = await getJson(`/admin/api/leads?click_id=${clickId}`)
  expect(leads.items).toHaveLength(1)
  expect(leads.items[0]).toMatchObject({
    email: EMAIL, name: NAME, fields: { company: COMPANY }, landing_id: landing.id, campaign_id: campaign.id, click_id: clickId, user_agent: desktopUa,
  })
  expect(leads.items[0].fields).toEqual({ company: COMPANY })

  // Enrolled into the landing's list by the job loop.
  const subscribers = await until('the enrolment', async () => {
    const body = await getJson(`/admin/api/email-lists/${list.id}/subscribers`)
    return { done: body.items.length > 0, value: body.items }
  })
  expect(subscribers).toHaveLength(1)
  expect(subscribers[0]).toMatchObject({ list_id: list.id, email: EMAIL, name: NAME, fields: { company: COMPANY }, source: 'lead', status: 'active' })

  // The landing's report row: one view, one click-through, one conversion.
  const row = await reportRow('landing', landing.id, (r) => r.conversions === 1 && r.landing_clicks === 1)
  expect(row).toMatchObject({
    key: landing.id, clicks: 1, unique_clicks: 1, bot_clicks: 0,
    landing_views: 1, landing_clicks: 1, landing_ctr: 100, conversions: 1, revenue: 12.5,
  })

  expect(errors).toEqual([])
}, SERVER_TIMEOUT_MS)

test('B: cloak.js under automation (navigator.webdriver): the click is flagged cloak:webdriver and the page goes to the campaign\'s bot_url', async () => {
  const { landing, campaign } = await funnel({ html: CLOAKED_PAGE, botUrl: `${offerSite.base}/bot?cid={click_id}` })
  const { page, navigations, errors } = await newPage(desktopUa)
  const before = offerSite.received.length

  await page.goto(`${s.base}/c/${campaign.slug}`)
  await page.waitForURL(new RegExp(`^${escapeRe(`${offerSite.base}/bot?cid=`)}`), { timeout: 10_000 })
  const clickId = new URL(page.url()).searchParams.get('cid')!
  expect(clickId).toMatch(UUID)
  expect(page.url()).toBe(`${offerSite.base}/bot?cid=${clickId}`)
  expect(await page.textContent('h1')).toBe('Bot page')
  expect(await page.evaluate(() => navigator.webdriver)).toBe(true)
  // It saw the landing first: /c itself let the click through, cloak.js sent it on.
  expect(navigations).toEqual([`${s.base}/lp/${landing.slug}?click_id=${clickId}`, `${offerSite.base}/bot?cid=${clickId}`])
  const botHits = offerSite.received.slice(before).filter((r) => r.url.pathname === '/bot')
  expect(botHits.map((r) => Object.fromEntries(r.url.searchParams))).toEqual([{ cid: clickId }])
  expect(offerSite.received.slice(before).filter((r) => r.url.pathname === '/offer')).toHaveLength(0)

  const click = await getJson(`/admin/api/clicks/${clickId}`)
  expect(click.bot_reason.startsWith('cloak:')).toBe(true)
  expect(click.bot_reason).toContain('webdriver')
  expect(click).toMatchObject({ campaign_id: campaign.id, landing_id: landing.id, bot_reason: 'cloak:webdriver', is_unique: false })

  const signals = await getJson(`/admin/api/events?click_id=${clickId}&name=bot_signals`)
  expect(signals.items).toHaveLength(1)
  expect(signals.items[0]).toMatchObject({ click_id: clickId, campaign_id: campaign.id, landing_id: landing.id, props: { signals: ['webdriver'], flagged: true } })

  const row = await reportRow('campaign', campaign.id, (r) => r.bot_clicks === 1, `&campaign_id=${campaign.id}`)
  expect(row).toMatchObject({ key: campaign.id, clicks: 1, unique_clicks: 0, bot_clicks: 1, landing_clicks: 0, conversions: 0 })

  expect(errors).toEqual([])
}, SERVER_TIMEOUT_MS)

test('C: headless Chromium\'s own user agent is flagged at /c already: straight to bot_url, the landing never served', async () => {
  const { campaign } = await funnel({ html: CLOAKED_PAGE, botUrl: `${offerSite.base}/bot?cid={click_id}` })
  const { page, navigations } = await newPage()
  expect(await page.evaluate(() => navigator.userAgent)).toContain('HeadlessChrome')

  const res = await page.goto(`${s.base}/c/${campaign.slug}`)
  expect(res!.status()).toBe(200)
  const clickId = new URL(page.url()).searchParams.get('cid')!
  expect(clickId).toMatch(UUID)
  expect(page.url()).toBe(`${offerSite.base}/bot?cid=${clickId}`)
  expect(navigations).toEqual([`${offerSite.base}/bot?cid=${clickId}`])

  expect(await getJson(`/admin/api/clicks/${clickId}`)).toMatchObject({ campaign_id: campaign.id, bot_reason: 'bot_user_agent', is_unique: false })
  const row = await reportRow('campaign', campaign.id, (r) => r.clicks === 1, `&campaign_id=${campaign.id}`)
  expect(row).toMatchObject({ key: campaign.id, clicks: 1, unique_clicks: 0, bot_clicks: 1, landing_views: 0 })
}, SERVER_TIMEOUT_MS)
