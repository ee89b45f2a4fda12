// Cost updates in the dashboard (docs/costs.md), in a real Chromium against a real server (either engine): the
// campaign editor's "Update cost" form spreads an amount over a day's clicks, shows the server's message beside
// the amount it refuses, and the CSV upload applies a file; no page error or CSP violation happens.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { launchBrowser, signIn } from '../helpers/browser'
import { testDb } from '../helpers/db'
import { OWNER, startServer, type TestServer } from '../helpers/server'
import { addClick, utcDay } from '../reports/seed'
import { SERVER_TIMEOUT_MS } from '../tracking/seed'

let s: TestServer
let browser: Browser
let campaignId = 0
const DAY1 = utcDay(-1)
const date = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const spent = async () => Number((await testDb(s).get<{ c: number }>('SELECT sum(cost) AS c FROM clicks WHERE campaign_id = $c', { c: campaignId }))!.c)

beforeAll(async () => {
  s = await startServer()
  const offer = (await s.api('POST', '/admin/api/offers', { name: 'O', slug: 'o', url: 'https://adv.example/?c={click_id}' })).body.id
  campaignId = (await s.api('POST', '/admin/api/campaigns', { name: 'Push', slug: 'push', offer_id: offer, cost_model: 'cpc', cpc: 0.2 })).body.id
  for (let i = 0; i < 3; i++) await addClick(s, { campaign: campaignId, offer, at: DAY1 + i * 60_000, cost: 0.2, sub1: i === 0 ? 'z9' : 'z1' })
  browser = await launchBrowser()
}, SERVER_TIMEOUT_MS)

afterAll(async () => {
  await browser?.close()
  await s?.destroy()
}, SERVER_TIMEOUT_MS)

test('update cost and upload a CSV from the campaign editor', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  try {
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
    page.on('console', (m) => { if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) errors.push(`console: ${m.text()}`) })
    await signIn(page, s.base, OWNER)
    await page.locator('tr[data-campaign="push"]').getByRole('button', { name: 'Edit' }).click()
    await page.getByRole('heading', { name: 'Edit campaign "Push"' }).waitFor()

    const form = page.locator(`form[data-cost-update="${campaignId}"]`)
    await form.getByLabel('From').fill(date(DAY1))
    await form.getByLabel('To').fill(date(DAY1))
    await form.getByLabel('Time zone').fill('UTC')
    await form.getByLabel('Amount').fill('-1')
    await form.getByRole('button', { name: 'Update cost' }).click()
    await form.locator('[data-error-for="amount"]').filter({ hasText: 'amount: must be 0 or more' }).waitFor()
    expect(await spent()).toBeCloseTo(0.6, 9)

    await form.getByLabel('Amount').fill('10')
    await form.getByRole('button', { name: 'Update cost' }).click()
    await form.locator('[data-cost-result]').filter({ hasText: 'Applied 10 USD over 3 clicks' }).waitFor()
    expect(Math.round((await spent()) * 100)).toBe(1000)

    const upload = page.getByRole('form', { name: 'Upload costs (CSV)' })
    await upload.getByLabel('Sub of sub_value').fill('sub1')
    await upload.getByLabel(/^CSV/).fill(`date,campaign,sub_value,amount\n${date(DAY1)},push,z9,4.00\n`)
    await upload.getByRole('button', { name: 'Upload' }).click()
    await upload.locator('[data-cost-import]').filter({ hasText: 'row 2: 4 over 1 clicks' }).waitFor()
    const z9 = await testDb(s).get<{ cost: number }>("SELECT cost FROM clicks WHERE campaign_id = $c AND sub1 = 'z9'", { c: campaignId })
    expect(z9!.cost).toBe(4)
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 60_000)
