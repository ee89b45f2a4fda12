// Issue 30, item 5, in a real Chromium against a real server (either engine): the campaign editor shows each
// weight's numbers for the period (clicks, conversions, CR, EPC, share of clicks against share of weight),
// exactly as seeded; a targeting path shows its clicks, conversions, CR, EPC, profit and ROI (a loss marked
// `neg`); a split test with a clear winner marks the winning entry; auto-weights' weights are marked "auto";
// an entry cap set in the editor is saved (the API reads it back) and a bad limit shows the API's message on
// that field; the rule sets screen shows where a rule set acts with its path's clicks; at 375 px the page
// has no horizontal overflow.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser, signIn } from '../helpers/browser'
import { OWNER, startServer, type TestServer } from '../helpers/server'
import { addClick, postback, SERVER_TIMEOUT_MS } from '../reports/seed'

let s: TestServer
let browser: Browser
let campaignId: number
let pathId: number
let ruleSetId: number
let alpha: number
let beta: number

beforeAll(async () => {
  s = await startServer()
  alpha = (await s.api('POST', '/admin/api/offers', { name: 'Alpha offer', slug: 'alpha', url: 'https://alpha.example/?c={click_id}' })).body.id
  beta = (await s.api('POST', '/admin/api/offers', { name: 'Beta offer', slug: 'beta', url: 'https://beta.example/?c={click_id}' })).body.id
  ruleSetId = (await s.api('POST', '/admin/api/rule-sets', { name: 'Germany', conditions: [{ type: 'country', values: ['DE'] }] })).body.id
  const c = await s.api('POST', '/admin/api/campaigns', {
    name: 'Numbers', slug: 'numbers', offers: [{ offer_id: alpha, weight: 70 }, { offer_id: beta, weight: 30 }],
    paths: [{ name: 'German path', rule_set_id: ruleSetId, conditions: [], action: { type: 'rotation', offers: [{ offer_id: alpha, weight: 100 }] } }],
  })
  expect(c.status).toBe(201)
  campaignId = c.body.id
  pathId = c.body.paths[0].id
  // Default rotation: Alpha 100 clicks / 30 conversions of 2.00 (CR 30 %, EPC 0.60), Beta 100 / 5 (CR 5 %, EPC 0.10).
  // The path: 10 clicks costing 0.50 each to Alpha, 2 conversions of 2.00: profit -1.00, ROI -20 %.
  const seed = async (offer: number, clicks: number, conversions: number, path: number | null, cost = 0) => {
    for (let i = 0; i < clicks; i++) {
      const id = await addClick(s, { campaign: campaignId, offer, path, cost })
      if (i < conversions) await postback(s, { subid: id, payout: 2, status: 'approved' })
    }
  }
  await seed(alpha, 100, 30, null)
  await seed(beta, 100, 5, null)
  await seed(alpha, 10, 2, pathId, 0.5)
  browser = await launchBrowser()
}, SERVER_TIMEOUT_MS)

afterAll(async () => {
  await browser?.close()
  await s?.destroy()
}, SERVER_TIMEOUT_MS)

async function openEditor(page: Page): Promise<void> {
  await page.getByRole('link', { name: 'Campaigns', exact: true }).first().click()
  await page.locator('tr[data-campaign="numbers"]').getByRole('button', { name: 'Edit' }).click()
  await page.getByRole('heading', { name: 'Edit campaign "Numbers"' }).waitFor()
  // Loaded: the default rotation's verdict is there.
  await page.locator('[data-rotation-editor="0-offers"] [data-verdict]').waitFor()
}

const entry = (page: Page, rotation: string, id: number) => page.locator(`[data-rotation-editor="${rotation}"] .rotation-row[data-entry="${id}"]`)
const value = (scope: ReturnType<Page['locator']>, col: string) => scope.locator(`[data-col="${col}"] .n-value`).first().textContent()

function watch(page: Page): string[] {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
  page.on('console', (m) => { if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) errors.push(`console: ${m.text()}`) })
  return errors
}

test('numbers beside each weight and path, the winner marked, auto weights marked', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  try {
    const page = await context.newPage()
    const errors = watch(page)
    await signIn(page, s.base, OWNER)
    await openEditor(page)

    const a = entry(page, '0-offers', alpha)
    const b = entry(page, '0-offers', beta)
    // The default rotation's own clicks: the path's 10 clicks to Alpha are not in them.
    expect(await value(a, 'clicks')).toBe('100')
    expect(await value(a, 'conversions')).toBe('30')
    expect(await value(a, 'cr')).toBe('30.00 %')
    expect(await value(a, 'epc')).toBe('0.6000 USD')
    expect(await value(a, 'share')).toBe('clicks 50 % · weight 70 %')
    expect(await value(b, 'clicks')).toBe('100')
    expect(await value(b, 'conversions')).toBe('5')
    expect(await value(b, 'cr')).toBe('5.00 %')
    expect(await value(b, 'epc')).toBe('0.1000 USD')
    expect(await value(b, 'share')).toBe('clicks 50 % · weight 30 %')

    // The split test: Alpha wins, and only Alpha is marked.
    const verdict = page.locator('[data-rotation-editor="0-offers"] [data-verdict]')
    expect(await verdict.getAttribute('data-verdict')).toBe('winner')
    const api = (await s.api('GET', `/admin/api/campaigns/${campaignId}/split-test?kind=offers`)).body
    expect(api.verdict).toBe('winner')
    expect(await verdict.textContent()).toContain(api.reason)
    expect(await a.locator('[data-winner]').count()).toBe(1)
    expect(await b.locator('[data-winner]').count()).toBe(0)
    expect(await a.locator('[data-p-best]').textContent()).toContain(`P(best) ${api.entries.find((e: any) => e.id === alpha).p_best.toFixed(3)}`)

    // The path: its numbers, the loss marked and signed.
    const path = page.locator(`fieldset.path[data-path-id="${pathId}"] [data-path-numbers="${pathId}"]`)
    expect(await value(path, 'clicks')).toBe('10')
    expect(await value(path, 'conversions')).toBe('2')
    expect(await value(path, 'cr')).toBe('20.00 %')
    expect(await value(path, 'epc')).toBe('0.4000 USD')
    expect(await value(path, 'profit')).toBe('-1.00 USD')
    expect(await path.locator('[data-col="profit"] .n-value .neg').count()).toBe(1)
    expect(await value(path, 'roi')).toBe('-20.00 %')
    // The path's rotation: Alpha's 10 clicks there.
    expect(await value(entry(page, `${pathId}-offers`, alpha), 'clicks')).toBe('10')
    // Auto-weights off so far.
    expect(await page.locator('[data-rotation-editor="0-offers"] [data-auto-weights]').getAttribute('data-auto-weights')).toBe('off')
    expect(await a.locator('[data-auto-weight]').textContent()).toBe('')

    // A shorter period with no traffic: the numbers follow it.
    await page.getByLabel('Numbers for').selectOption('yesterday')
    await page.waitForFunction(() => document.querySelector('[data-rotation-editor="0-offers"] .rotation-row [data-numbers]')?.getAttribute('data-numbers') === 'none')
    expect(await value(a, 'clicks')).toBe('—')
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 120_000)

test('weights set by auto-weights are marked, with the last change and its reason', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  try {
    const page = await context.newPage()
    const errors = watch(page)
    await signIn(page, s.base, OWNER)
    const a = entry(page, '0-offers', alpha)
    // Auto-weights on (through the API): the weights it sets are marked, with the last change and its reason.
    expect((await s.api('PUT', `/admin/api/campaigns/${campaignId}/auto-weights`, { path_id: null, kind: 'offers', enabled: true, min_clicks: 50, window_hours: 48 })).status).toBe(200)
    for (let i = 0; i < 100; i++) {
      if ((await s.api('GET', `/admin/api/campaigns/${campaignId}`)).body.offers[0].auto_weight !== null) break
      await Bun.sleep(100)
    }
    const record = (await s.api('GET', `/admin/api/campaigns/${campaignId}`)).body
    const auto = record.offers.find((o: any) => o.offer_id === alpha).auto_weight
    expect(auto).toBeGreaterThan(5000)
    await openEditor(page)
    expect(await a.locator('[data-auto-weight]').textContent()).toBe(`auto ${(auto / 100).toFixed(2)} %`)
    expect(await value(a, 'share')).toBe(`clicks 50 % · weight ${Math.round(auto / 100)} %`)
    const autoLine = page.locator('[data-rotation-editor="0-offers"] [data-auto-weights]')
    expect(await autoLine.getAttribute('data-auto-weights')).toBe('on')
    const change = (await s.api('GET', `/admin/api/campaigns/${campaignId}/weight-changes?limit=1`)).body.items[0]
    expect(await autoLine.locator('[data-last-change]').textContent()).toContain(change.reason)
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 120_000)

test('an entry cap set in the editor is saved; a bad limit shows the API error on its field', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  try {
    const page = await context.newPage()
    const errors = watch(page)
    await signIn(page, s.base, OWNER)
    await openEditor(page)
    const b = entry(page, '0-offers', beta)
    await b.locator('[data-entry-cap] summary').click()
    await b.getByLabel('cap offer 2', { exact: true }).check()
    await b.getByLabel('cap limit of offer 2').fill('-5')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    const slot = b.locator('[data-cap-error="limit"]')
    await slot.filter({ hasText: 'offers.1.cap.limit' }).waitFor()
    expect(await slot.textContent()).toBe('offers.1.cap.limit: must be a whole number from 0 to 1000000000')
    expect(await b.getByLabel('cap limit of offer 2').getAttribute('aria-invalid')).toBe('true')
    expect((await s.api('GET', `/admin/api/campaigns/${campaignId}`)).body.offers[1].cap).toBeNull()

    await b.getByLabel('cap limit of offer 2').fill('50')
    await b.getByLabel('cap time zone of offer 2').fill('Europe/Berlin')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await page.getByRole('heading', { name: 'Edit campaign "Numbers"' }).waitFor({ state: 'detached' })
    const saved = (await s.api('GET', `/admin/api/campaigns/${campaignId}`)).body
    expect(saved.offers[1]).toMatchObject({ offer_id: beta, weight: 30, cap: { metric: 'clicks', limit: 50, period: 'day', time_zone: 'Europe/Berlin', on_reached: 'rotate' } })
    expect(saved.offers[0].cap).toBeNull()
    expect(saved.paths[0]).toMatchObject({ id: pathId, rule_set_id: ruleSetId })

    // Opened again: the cap where it acts, with its count from /admin/api/caps.
    await openEditor(page)
    const line = entry(page, '0-offers', beta).locator(`[data-cap-key="c${campaignId}p0o${beta}"]`)
    expect(await line.getAttribute('data-state')).toBe('ok')
    expect(await line.textContent()).toBe('Entry cap 0 / 50 clicks today (Europe/Berlin) · OK')
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 120_000)

test('rule sets show where they act with their paths\' clicks; 375 px without page overflow', async () => {
  const context = await browser.newContext({ viewport: { width: 375, height: 800 } })
  try {
    const page = await context.newPage()
    const errors = watch(page)
    await signIn(page, s.base, OWNER)
    await page.goto(`${s.base}/admin#/rule-sets`)
    const where = page.locator(`tr[data-rule-set="${ruleSetId}"] [data-where] li[data-path-id="${pathId}"]`)
    await where.waitFor()
    expect(await where.textContent()).toBe('Numbers › German path: 10 clicks, 2 conv., CR 20.00 %')
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
    expect(await overflow()).toBeLessThanOrEqual(0)

    await page.goto(`${s.base}/admin#/campaigns`)
    await page.locator('tr[data-campaign="numbers"]').getByRole('button', { name: 'Edit' }).click()
    await page.locator('[data-rotation-editor="0-offers"] [data-verdict]').waitFor()
    for (const d of await page.locator('[data-entry-cap] summary').all()) await d.click()
    await page.getByLabel('Numbers for').selectOption('custom')
    expect(await overflow()).toBeLessThanOrEqual(0)
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 120_000)
