// Issue 30, item 1 at a laptop's width: at 1280 px the home and the Sources, Offers and Landings lists show
// every column (numbers, trend, buttons) without a sideways scroll, with realistic names and amounts in one
// currency. With one currency the money headers name it once and the cells show bare amounts ("96.75");
// on a phone (375 px) each card's label carries the currency ("Cost (USD)"). In a real Chromium.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser, signIn } from '../helpers/browser'
import { OWNER, startServer, type TestServer } from '../helpers/server'
import { addClick, catalog, iso, postback, SERVER_TIMEOUT_MS } from '../reports/seed'

let s: TestServer
let browser: Browser

beforeAll(async () => {
  s = await startServer()
  browser = await launchBrowser()
  const c = catalog(s)
  const pop = await c.source('PopNet Premium (zones in sub3)')
  const search = await c.source('Search Ads Europe')
  const vpn = await c.offer('VPN Premium trial, tier 1 countries', 12.5, 'USD')
  const av = await c.offer('Antivirus 2-year bundle', 38, 'USD')
  const quiz = await c.landing('Quiz prelander: which VPN fits you?')
  const campaigns = [
    await c.campaign({ name: 'VPN / PopNet / US / desktop / evening', slug: 'vpn-pop-us-desktop-evening', source: pop, offers: [vpn, av], landings: [quiz], costModel: 'cpc', cpc: 0.0735 }),
    await c.campaign({ name: 'Antivirus / Search / DE', slug: 'av-search-de', source: search, offers: [av], costModel: 'cpc', cpc: 0.45 }),
  ]
  const now = Date.now()
  for (const [i, campaign] of campaigns.entries()) {
    for (let k = 0; k < 12; k++) {
      const id = await addClick(s, { campaign, source: i ? search : pop, offer: k % 2 ? av : vpn, landing: i ? null : quiz, at: now - (k + 1) * 3_600_000, cost: i ? 1234.56 : 987.65 })
      if (k % 4 === 0) await postback(s, { subid: id, status: 'approved', payout: '1999.99', date: iso(now - (k + 1) * 3_600_000 + 500) })
    }
  }
  // A paused campaign shows its state under its name (the list has no status column).
  const paused = await c.campaign({ name: 'Paused test', slug: 'paused-test', source: pop, offers: [vpn] })
  expect((await s.api('PATCH', `/admin/api/campaigns/${paused}`, { active: false })).status).toBe(200)
}, SERVER_TIMEOUT_MS + 60_000)

afterAll(async () => {
  await browser?.close()
  await s?.destroy()
}, SERVER_TIMEOUT_MS)

/** How far the list's table runs past its box (0: every column in view) and past the window's right edge. */
const overflow = (page: Page) => page.evaluate(() => {
  const wrap = document.querySelector('main .table-wrap') as HTMLElement
  const lastHeader = [...wrap.querySelectorAll('thead th')].pop()!
  return { table: wrap.scrollWidth - wrap.clientWidth, lastColumn: Math.max(0, Math.ceil(lastHeader.getBoundingClientRect().right) - window.innerWidth) }
})

test('at 1280 px the home and the three lists show every column; money headers name the one currency', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } })
  try {
    const page = await context.newPage()
    await signIn(page, s.base, OWNER)
    await page.goto(`${s.base}/admin#/campaigns?period=7d`)
    const row = page.locator('tr[data-campaign="av-search-de"]')
    await row.locator('svg.spark').waitFor()
    expect(await overflow(page)).toEqual({ table: 0, lastColumn: 0 })
    // One currency: "USD" under Cost, Revenue, Profit and EPC; the cells are bare amounts.
    for (const m of ['cost', 'revenue', 'profit', 'epc']) expect(await page.locator(`th[data-sort="${m}"] [data-unit]`).innerText()).toBe('USD')
    expect(await row.locator('td[data-col="cost"]').innerText()).toBe('14814.72')
    expect(await row.locator('td[data-col="revenue"]').innerText()).toBe('5999.97')
    expect(await row.locator('td[data-col="profit"]').innerText()).toBe('-8814.75')
    expect(await page.locator('tr[data-campaign="paused-test"] [data-status="paused"]').innerText()).toBe('Paused')
    for (const list of ['sources', 'offers', 'landings']) {
      await page.goto(`${s.base}/admin#/${list}?period=7d`)
      await page.locator(`table[data-list="${list}"] th[data-sort="profit"]`).waitFor()
      await page.locator(`table[data-list="${list}"] tbody tr`).first().waitFor()
      expect({ list, ...(await overflow(page)) }).toEqual({ list, table: 0, lastColumn: 0 })
    }
    // An offer's payout reads with its currency (no column of its own).
    await page.goto(`${s.base}/admin#/offers?period=7d`)
    await page.locator('table[data-list="offers"] tbody tr').filter({ hasText: 'Antivirus 2-year bundle' }).getByText('38.00 USD').waitFor()
  } finally {
    await context.close()
  }
}, 90_000)

test('on a phone each card names the currency beside the label: "Cost (USD)"', async () => {
  const context = await browser.newContext({ viewport: { width: 375, height: 812 } })
  try {
    const page = await context.newPage()
    await signIn(page, s.base, OWNER)
    await page.goto(`${s.base}/admin#/campaigns?period=7d`)
    const cost = page.locator('tr[data-campaign="av-search-de"] td[data-col="cost"]')
    await page.locator('tr[data-campaign="av-search-de"] svg.spark').waitFor()
    expect(await cost.getAttribute('data-label')).toBe('Cost (USD)')
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0)
  } finally {
    await context.close()
  }
}, 60_000)
