// Issue 29 in the dashboard, in a real Chromium against a real server (either engine): a campaign with two
// offers and traffic; its edit page shows each offer's weight beside its clicks, conversions, CR and P(best) and
// the verdict; switching auto-weights on there runs the job, whose weights show up in the table and in the list
// of weight changes; switching it off brings "off" back. No page error or CSP violation happens.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { launchBrowser, signIn } from '../helpers/browser'
import { get, OWNER, startServer, type TestServer } from '../helpers/server'
import { SERVER_TIMEOUT_MS } from '../tracking/seed'
import { postback } from '../reports/seed'

let s: TestServer
let browser: Browser
let campaignId: number

beforeAll(async () => {
  s = await startServer()
  await s.api('PUT', '/admin/api/settings', { bot_clicks_per_minute: 0 })
  const a = (await s.api('POST', '/admin/api/offers', { name: 'Strong offer', slug: 'strong', url: 'https://strong.example/?c={click_id}' })).body.id
  const b = (await s.api('POST', '/admin/api/offers', { name: 'Weak offer', slug: 'weak', url: 'https://weak.example/?c={click_id}' })).body.id
  const c = await s.api('POST', '/admin/api/campaigns', { name: 'Split', slug: 'split', offers: [{ offer_id: a }, { offer_id: b }] })
  campaignId = c.body.id
  const byHost = new Map<string, string[]>()
  for (let i = 0; i < 120; i++) {
    const res = await get(`${s.base}/c/split`, { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0' })
    await res.arrayBuffer()
    const loc = new URL(res.headers.get('location')!)
    byHost.set(loc.host, [...(byHost.get(loc.host) ?? []), loc.searchParams.get('c')!])
  }
  for (const id of byHost.get('strong.example')!.slice(0, 20)) await postback(s, { subid: id, payout: 1, status: 'approved' })
  browser = await launchBrowser()
}, SERVER_TIMEOUT_MS)

afterAll(async () => {
  await browser?.close()
  await s?.destroy()
}, SERVER_TIMEOUT_MS)

test('split test beside the weights, auto-weights on and off, weight changes listed', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  try {
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
    page.on('console', (m) => { if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) errors.push(`console: ${m.text()}`) })
    await signIn(page, s.base, OWNER)
    await page.getByRole('link', { name: 'Campaigns' }).click()
    await page.locator('tr[data-campaign="split"]').getByRole('button', { name: 'Edit' }).click()
    const panel = page.locator('section[data-rotation="0-offers"]')
    const table = panel.locator('table[data-split-test="0-offers"]')
    await table.waitFor()
    const rows = await table.locator('tbody tr').allInnerTexts()
    expect(rows[0]).toContain('Strong offer')
    expect(rows[0]).toContain('off')
    const strong = (await s.api('GET', `/admin/api/campaigns/${campaignId}/split-test?kind=offers`)).body.entries[0]
    expect(rows[0]).toContain(String(strong.clicks))
    expect(rows[0]).toContain(strong.p_best.toFixed(3))
    // 60-odd clicks each: below the default 100.
    expect(await panel.locator('[data-verdict]').getAttribute('data-verdict')).toBe('insufficient_data')

    // Auto-weights on, with a sample it already has.
    await panel.getByLabel('Auto-weights: move traffic toward the better entries (probability matching)').check()
    await panel.getByLabel('Min clicks').fill('30')
    await panel.getByLabel('Floor %').fill('10')
    await panel.getByRole('button', { name: 'Save auto-weights' }).click()
    await panel.getByText('Saved: the first decision runs now.').waitFor()
    await page.locator('[data-weight-changes] li').first().waitFor({ timeout: 10_000 })
    await page.waitForFunction(() => /90\.00 %/.test(document.querySelector('table[data-split-test="0-offers"] tbody tr')?.textContent ?? ''), null, { timeout: 10_000 })
    const change = await page.locator('[data-weight-changes] li').first().innerText()
    expect(change).toContain('by auto')
    expect(change).toContain('Strong offer 50 % → 90 %')
    const config = (await s.api('GET', `/admin/api/campaigns/${campaignId}/auto-weights`)).body.items[0]
    expect(config).toMatchObject({ enabled: true, min_clicks: 30, floor_pct: 10 })

    // Off again: the manual weights.
    await panel.getByLabel('Auto-weights: move traffic toward the better entries (probability matching)').uncheck()
    await panel.getByRole('button', { name: 'Save auto-weights' }).click()
    await panel.getByText('Saved: off, the manual weights apply.').waitFor()
    await page.waitForFunction(() => /off/.test(document.querySelector('table[data-split-test="0-offers"] tbody tr')?.textContent ?? ''), null, { timeout: 10_000 })
    await page.waitForFunction(() => /by owner@example\.com/.test(document.querySelector('[data-weight-changes] li')?.textContent ?? ''), null, { timeout: 10_000 })
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 90_000)
