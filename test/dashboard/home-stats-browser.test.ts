// Issue 30, item 1: the home (campaigns with period stats) and the Sources list show, for each preset (Today,
// Yesterday, 7 days, 30 days, This month, a custom range), exactly what GET /admin/api/reports answers for
// the same local days; the KPI strip equals the API's today-so-far against yesterday-so-far; the state
// (period, sort) survives a reload; 375 px has no sideways page. In a real Chromium against a real server.
//
// Clicks are imported at chosen instants around the instance's local midnights (the last and first minute
// of yesterday, today so far, 3, 20 and 45 days ago) and postbacks are back-dated to just after their
// clicks, so "Yesterday" is proven against clicks a day earlier or later that it must leave out, and the
// clicks counted per preset are checked against the seed itself, not only against the API.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser, signIn } from '../helpers/browser'
import { OWNER, startServer, type TestServer } from '../helpers/server'
import { addClick, catalog, iso, postback, SERVER_TIMEOUT_MS } from '../reports/seed'
import { addDays, localDay, localParts, periodOf, todayVsYesterday, type Period, type Preset } from '../../src/dashboard/ui/period'

let s: TestServer
let browser: Browser
let tz = 'UTC'
/** Every seeded click: campaign slug, source id, instant, whether it converted. */
const seeded: Array<{ slug: string; source: number; at: number; converted: boolean }> = []
let push = 0
let native = 0

/** The instant of a local midnight in `zone` (the zone's offset found by two corrections; DST-safe). */
function midnight(day: string, zone: string): number {
  const target = Date.parse(`${day}T00:00:00Z`)
  let t = target
  for (let i = 0; i < 3; i++) {
    const p = localParts(t, zone)
    t -= Date.UTC(p.y, p.mo - 1, p.d, p.h, p.mi) - target
  }
  return t
}

beforeAll(async () => {
  s = await startServer()
  browser = await launchBrowser()
  // The instance's zone (the setting of issue 30): a zone whose midnight is not UTC's, so local days matter.
  expect((await s.api('PUT', '/admin/api/settings', { time_zone: 'America/New_York' })).status).toBe(200)
  tz = (await s.api('GET', '/admin/api/me')).body.time_zone
  expect(tz).toBe('America/New_York')

  const c = catalog(s)
  // A source without traffic first: source ids then differ from campaign ids (a list reading the wrong
  // dimension would show another record's numbers).
  await c.source('Unused')
  push = await c.source('Push CPC')
  native = await c.source('Native')
  const usd = await c.offer('Offer USD', 10, 'USD')
  const eur = await c.offer('Offer EUR', 7, 'EUR')
  const alpha = await c.campaign({ name: 'Alpha', slug: 'alpha', source: push, offers: [usd, eur], costModel: 'cpc', cpc: 0.05 })
  const beta = await c.campaign({ name: 'Beta', slug: 'beta', source: native, offers: [usd] })
  await c.campaign({ name: 'Idle', slug: 'idle', source: native, offers: [usd] })

  const now = Date.now()
  const today = localDay(now, tz)
  const t0 = midnight(today, tz)
  const instants = [
    t0 + Math.floor((now - t0) / 2), // today so far
    t0 - 60_000, // yesterday's last minute
    midnight(addDays(today, -1), tz) + 60_000, // yesterday's first minute
    midnight(addDays(today, -3), tz) + 12 * 3_600_000,
    midnight(addDays(today, -20), tz) + 12 * 3_600_000,
    midnight(addDays(today, -45), tz) + 12 * 3_600_000,
  ]
  for (const [i, at] of instants.entries()) {
    // Alpha: 3 + i clicks on the USD offer, 2 on the EUR one, 5 cents each; one of each converts.
    for (let k = 0; k < 5 + i; k++) {
      const offer = k < 3 + i ? usd : eur
      const id = await addClick(s, { campaign: alpha, source: push, offer, at: at + k * 1000, cost: 0.05, unique: k % 2 === 0 })
      const converted = k === 0 || k === 3 + i
      if (converted) await postback(s, { subid: id, status: 'approved', date: iso(at + k * 1000 + 500) })
      seeded.push({ slug: 'alpha', source: push, at: at + k * 1000, converted })
    }
    // Beta: i + 1 clicks, free, the first converting at 4.50 USD.
    for (let k = 0; k <= i; k++) {
      const id = await addClick(s, { campaign: beta, source: native, offer: usd, at: at + k * 1000 })
      if (k === 0) await postback(s, { subid: id, status: 'approved', payout: '4.50', date: iso(at + 500) })
      seeded.push({ slug: 'beta', source: native, at: at + k * 1000, converted: k === 0 })
    }
  }
  // The seed (≈70 clicks, 18 postbacks, one by one) on top of a server start: generous on a busy machine.
}, SERVER_TIMEOUT_MS + 120_000)

afterAll(async () => {
  await browser?.close()
  await s?.destroy()
}, SERVER_TIMEOUT_MS)

const METRICS = ['clicks', 'unique_clicks', 'conversions', 'cost', 'revenue', 'profit', 'roi', 'cr', 'epc'] as const
const money2 = (v: number, cur: string | null) => `${(Math.round(v * 100) / 100 || 0).toFixed(2)}${cur ? ` ${cur}` : ''}`
const pct2 = (v: number) => `${(Math.round(v * 100) / 100 || 0).toFixed(2)}%`

/**
 * A report row's cells as the lists must show them (written here from the API's docs, not from the UI's code):
 * with one currency the amounts alone (the money headers name it), with several each amount names its own.
 */
function expectedCells(row: any, report: any): Record<string, string> {
  const out: Record<string, string> = {}
  for (const m of METRICS) {
    if (m === 'clicks' || m === 'unique_clicks' || m === 'conversions') { out[m] = String(row?.[m] ?? 0); continue }
    const isPct = m === 'roi' || m === 'cr'
    if (!row) { out[m] = isPct || m === 'epc' ? '—' : money2(0, null); continue }
    if (report.currency !== null) {
      const v = row[m]
      out[m] = v === null ? '—' : isPct ? pct2(v) : money2(v, null)
      continue
    }
    const parts = (row.money as any[])
      .filter((e) => typeof e[m] === 'number' && !(m === 'cost' && e.cost === 0))
      .map((e) => (isPct ? `${pct2(e[m])} ${e.currency}` : money2(e[m], e.currency)))
    out[m] = parts.length ? parts.join(' · ') : '—'
  }
  return out
}

async function shownCells(page: Page, row: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const m of METRICS) out[m] = (await page.locator(`${row} td[data-col="${m}"]`).innerText()).trim()
  return out
}

const inWindow = (p: Period, at: number) => at >= midnight(p.from, tz) && at < midnight(p.to, tz)

async function choose(page: Page, preset: Preset, custom?: { from: string; last: string }) {
  await page.locator(`[data-period="${preset}"]`).click()
  if (custom) {
    await page.getByLabel('First day').fill(custom.from)
    await page.getByLabel('Last day').fill(custom.last)
    await page.getByRole('button', { name: 'Apply' }).click()
  }
}

test('each preset: the home rows, their sparklines and the total equal the report API for the same local days', async () => {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } })
  try {
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
    await signIn(page, s.base, OWNER)
    await page.locator('table[data-home] tr[data-campaign="alpha"]').waitFor()
    expect(await page.locator('[data-tz]').innerText()).toBe(`Times in ${tz}`)

    const today = localDay(Date.now(), tz)
    const presets: Array<[Preset, { from: string; last: string }?]> = [
      ['today'], ['yesterday'], ['7d'], ['30d'], ['month'], ['custom', { from: addDays(today, -25), last: addDays(today, -2) }],
    ]
    const clicksSeen: Record<string, number> = {}
    const currencies: Record<string, string | null> = {}
    const campaigns = (await s.api('GET', '/admin/api/campaigns')).body.items
    for (const [preset, custom] of presets) {
      await choose(page, preset, custom)
      const period = periodOf(preset, tz, Date.now(), custom)
      await page.locator(`table[data-home][data-range="${period.from}/${period.to}"]`).waitFor()
      const query = `from=${period.from}&to=${period.to}&tz=${encodeURIComponent(tz)}`
      const report = (await s.api('GET', `/admin/api/reports?group_by=campaign&limit=1000&${query}`)).body
      const perDay = (await s.api('GET', `/admin/api/reports?group_by=campaign,${period.from === addDays(period.to, -1) ? 'hour' : 'day'}&limit=1000&${query}`)).body
      for (const slug of ['alpha', 'beta', 'idle']) {
        const campaign = campaigns.find((c: any) => c.slug === slug)
        const row = report.rows.find((r: any) => r.key === campaign.id)
        expect({ preset, slug, cells: await shownCells(page, `tr[data-campaign="${slug}"]`) }).toEqual({ preset, slug, cells: expectedCells(row, report) })
        // The seed itself: the clicks of the preset's local days, no more, no fewer.
        const mine = seeded.filter((c) => c.slug === slug && inWindow(period, c.at))
        expect({ preset, slug, clicks: row?.clicks ?? 0, conversions: row?.conversions ?? 0 }).toEqual({ preset, slug, clicks: mine.length, conversions: mine.filter((c) => c.converted).length })
        // The sparkline's bars add up to the row's clicks, bucket by bucket as the API counts them.
        const spark = page.locator(`tr[data-campaign="${slug}"] svg.spark`)
        const values = ((await spark.getAttribute('data-values')) ?? '').split(',').map(Number)
        // (Children come sorted by clicks, like their parents: back in time order here.)
        const apiBuckets = [...(perDay.rows.find((r: any) => r.key === campaign.id)?.children ?? [])]
          .sort((a: any, b: any) => String(a.key).localeCompare(String(b.key))).map((c: any) => c.clicks)
        expect(values.filter((v) => v > 0)).toEqual(apiBuckets.filter((v: number) => v > 0))
        expect(values.reduce((a, b) => a + b, 0)).toBe(row?.clicks ?? 0)
        expect(await spark.getAttribute('role')).toBe('img')
        expect(await spark.getAttribute('aria-label')).toMatch(row?.clicks ? new RegExp(`^Clicks per (day|hour): ${row.clicks} in `) : /^No clicks/)
      }
      expect(await shownCells(page, 'table[data-home] tfoot tr')).toEqual(expectedCells(report.total, report))
      // The money headers name the one currency of the period, and nothing when there are several.
      for (const m of ['cost', 'revenue', 'profit', 'epc']) {
        expect({ preset, m, unit: await page.locator(`table[data-home] th[data-sort="${m}"] [data-unit]`).innerText() }).toEqual({ preset, m, unit: report.currency ?? '' })
      }
      currencies[preset] = report.currency
      clicksSeen[preset] = report.total.clicks
    }
    // The presets differ where the seed says they must (a preset silently equal to another would pass above).
    const count = (p: Period) => seeded.filter((c) => inWindow(p, c.at)).length
    expect(clicksSeen.today).toBe(count(periodOf('today', tz)))
    expect(clicksSeen.yesterday).toBe(count(periodOf('yesterday', tz)))
    expect(clicksSeen.yesterday).toBeGreaterThan(0)
    expect(clicksSeen['30d']).toBeGreaterThan(clicksSeen['7d']!)
    // Money is never added: Alpha's revenue shows EUR and USD side by side, its loss-making ROI marked.
    await choose(page, '7d')
    await page.locator(`table[data-home][data-range="${periodOf('7d', tz).from}/${periodOf('7d', tz).to}"]`).waitFor()
    expect(await page.locator('tr[data-campaign="alpha"] td[data-col="revenue"]').innerText()).toMatch(/^\d+\.\d\d EUR · \d+\.\d\d USD$/)
    expect(await page.locator('tr[data-campaign="alpha"] td[data-col="profit"]').getAttribute('class')).toContain('pos')
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 240_000)

test('the KPI strip equals the API: today so far against yesterday up to the same time, per currency', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  try {
    const page = await context.newPage()
    await signIn(page, s.base, OWNER)
    await page.locator('[data-kpi] [data-metric="clicks"]').waitFor()
    const ranges = todayVsYesterday(tz)
    const read = async (q: Record<string, string>) => (await s.api('GET', `/admin/api/reports?${new URLSearchParams({ group_by: 'day', ...q })}`)).body
    const [today, yesterday] = [await read(ranges.today), await read(ranges.yesterday)]
    const kpi = async (metric: string, cur?: string) =>
      (await page.locator(`[data-kpi] [data-metric="${metric}"]${cur ? `[data-currency="${cur}"]` : ''} .kpi-value`).innerText()).trim()
    expect(await kpi('clicks')).toBe(String(today.total.clicks))
    expect(await kpi('conversions')).toBe(String(today.total.conversions))
    expect(today.total.clicks).toBe(seeded.filter((c) => inWindow(periodOf('today', tz), c.at)).length)
    // Two currencies today (Alpha's EUR offer converted): each currency on its own.
    expect(today.currency).toBeNull()
    for (const e of today.total.money) {
      expect(await kpi('revenue', e.currency)).toBe(money2(e.revenue, e.currency))
      expect(await kpi('profit', e.currency)).toBe(money2(e.profit, e.currency))
    }
    const yClicks = yesterday.total.clicks
    const change = (await page.locator('[data-kpi] [data-metric="clicks"] .kpi-change').innerText()).trim()
    const delta = yClicks === 0 ? null : ((today.total.clicks - yClicks) / yClicks) * 100
    if (delta !== null) expect(change).toStartWith(`${delta > 0 ? '▲' : delta < 0 ? '▼' : '='} ${Math.abs(Math.round(delta * 10) / 10).toFixed(1)}%`)
    expect(change).toContain(`vs ${yClicks}`)
  } finally {
    await context.close()
  }
}, 60_000)

test('the URL keeps period, sort and search: a reload shows the same list; Refresh reads new clicks', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  try {
    const page = await context.newPage()
    await signIn(page, s.base, OWNER)
    await page.locator('tr[data-campaign="alpha"]').waitFor()
    await choose(page, '30d')
    const p30 = periodOf('30d', tz)
    await page.locator(`table[data-home][data-range="${p30.from}/${p30.to}"]`).waitFor()
    await page.locator('th[data-sort="clicks"] button').click()
    expect(await page.locator('th[data-sort="clicks"]').getAttribute('aria-sort')).toBe('descending')
    const order = await page.locator('table[data-home] tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-campaign')))
    expect(order).toEqual(['alpha', 'beta', 'idle'])
    await page.locator('th[data-sort="clicks"] button').click()
    expect(await page.locator('table[data-home] tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-campaign')))).toEqual(['idle', 'beta', 'alpha'])
    await page.getByLabel('Filter by status').selectOption('active')
    expect(page.url()).toContain('period=30d')
    expect(page.url()).toContain('sort=clicks')
    expect(page.url()).toContain('order=asc')
    expect(page.url()).toContain('status=active')

    await page.reload()
    await page.locator(`table[data-home][data-range="${p30.from}/${p30.to}"]`).waitFor()
    expect(await page.locator('[data-period="30d"]').getAttribute('aria-pressed')).toBe('true')
    expect(await page.locator('th[data-sort="clicks"]').getAttribute('aria-sort')).toBe('ascending')
    expect(await page.getByLabel('Filter by status').inputValue()).toBe('active')
    expect(await page.locator('table[data-home] tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-campaign')))).toEqual(['idle', 'beta', 'alpha'])

    // A custom range in the URL, opened in a new page: the same range.
    const custom = { from: addDays(localDay(Date.now(), tz), -25), last: addDays(localDay(Date.now(), tz), -2) }
    await choose(page, 'custom', custom)
    const url = page.url()
    expect(url).toContain(`from=${custom.from}`)
    const other = await context.newPage()
    await other.goto(url)
    await other.locator(`table[data-home][data-range="${custom.from}/${addDays(custom.last, 1)}"]`).waitFor()
    expect(await other.getByLabel('First day').inputValue()).toBe(custom.from)
    await other.close()

    // Refresh: a click made now shows without reloading the page.
    await choose(page, 'today')
    const pToday = periodOf('today', tz)
    await page.locator(`table[data-home][data-range="${pToday.from}/${pToday.to}"]`).waitFor()
    const before = Number(await page.locator('tr[data-campaign="beta"] td[data-col="clicks"]').innerText())
    const beta = (await s.api('GET', '/admin/api/campaigns')).body.items.find((c: any) => c.slug === 'beta')
    await addClick(s, { campaign: beta.id, at: Date.now() })
    await page.getByRole('button', { name: 'Refresh' }).click()
    await page.locator('tr[data-campaign="beta"] td[data-col="clicks"]').filter({ hasText: String(before + 1) }).waitFor()
    expect(await page.locator('[data-updated]').innerText()).toMatch(/^Updated \d\d:\d\d:\d\d$/)
  } finally {
    await context.close()
  }
}, 60_000)

test('the Sources list shows each source\'s numbers for the period; 375 px has no sideways page', async () => {
  const context = await browser.newContext({ viewport: { width: 375, height: 740 } })
  try {
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
    await signIn(page, s.base, OWNER)
    await page.locator('tr[data-campaign="alpha"]').waitFor()
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0)

    await page.goto(`${s.base}/admin#/sources?period=7d`)
    const p7 = periodOf('7d', tz)
    const row = page.locator(`tr[data-row="${push}"]`)
    await page.locator(`table[data-list="sources"][data-range="${p7.from}/${p7.to}"]`).waitFor()
    const report = (await s.api('GET', `/admin/api/reports?group_by=source&from=${p7.from}&to=${p7.to}&tz=${encodeURIComponent(tz)}`)).body
    for (const id of [push, native]) {
      expect(await shownCells(page, `tr[data-row="${id}"]`)).toEqual(expectedCells(report.rows.find((r: any) => r.key === id), report))
    }
    expect(await page.locator(`tr[data-row="${push}"] td[data-col="clicks"]`).innerText()).toBe(String(seeded.filter((c) => c.source === push && inWindow(p7, c.at)).length))
    expect(await row.locator('svg.spark').count()).toBe(1)
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0)
    // Offers and landings have the same numbers.
    await page.goto(`${s.base}/admin#/offers?period=7d`)
    await page.locator('table[data-list="offers"] th[data-sort="profit"]').waitFor()
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0)
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 60_000)
