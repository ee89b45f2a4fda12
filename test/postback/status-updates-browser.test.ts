// Issue 26: the dashboard offers the opt-in postback_status_updates mode, with its explanation, on the first
// run and in the postback setup (a checkbox that writes the setting), and shows a conversion's status history
// on the conversions screen. In a real Chromium against a real server (either engine).
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { launchBrowser } from '../helpers/browser'
import { OWNER, startServer, type TestServer } from '../helpers/server'
import { SERVER_TIMEOUT_MS } from '../tracking/seed'
import { addClick, eventually, seedCatalog } from './seed'

let s: TestServer
let browser: Browser

beforeAll(async () => {
  s = await startServer()
  browser = await launchBrowser()
}, SERVER_TIMEOUT_MS)

afterAll(async () => {
  await browser?.close()
  await s?.destroy()
}, SERVER_TIMEOUT_MS)

const setting = async () => (await s.api('GET', '/admin/api/settings')).body.postback_status_updates

test('first run and postback setup: the checkbox writes postback_status_updates; the conversion shows its history', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  try {
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(`${s.base}/admin`)
    await page.getByLabel('Email').fill(OWNER.email)
    await page.getByLabel('Password').fill(OWNER.password)
    await page.getByRole('button', { name: 'Sign in' }).click()

    // No campaign yet: the first run, with the mode explained and off.
    await page.getByRole('heading', { name: 'Your first campaign' }).waitFor()
    const card = page.locator('[data-status-updates]')
    await card.getByRole('heading', { name: 'Status updates' }).waitFor()
    expect(await card.textContent()).toContain('with the same transaction id (tid)')
    const box = card.getByLabel('Update a conversion when its status changes')
    await expect(box.isEnabled()).resolves.toBe(true)
    expect(await box.isChecked()).toBe(false)
    await box.check()
    await card.getByText('Saved.').waitFor()
    expect(await setting()).toBe(true)

    // A campaign, a click, and a lead that becomes a sale.
    const c = await seedCatalog(s, { payout: 2, currency: 'USD' })
    const clickId = await addClick(s, c)
    expect(await (await fetch(`${s.base}/postback?subid=${clickId}&status=pending&payout=5&tid=UI-1`)).text()).toBe('OK')
    expect(await (await fetch(`${s.base}/postback?subid=${clickId}&status=approved&payout=20&tid=UI-1`)).text()).toBe('OK')

    // Postback setup: the same checkbox, checked; unchecking writes false, checking again true.
    await page.goto(`${s.base}/admin#/postback-setup`)
    await page.getByRole('heading', { name: 'Postback setup' }).waitFor()
    const setupBox = page.locator('[data-status-updates]').getByLabel('Update a conversion when its status changes')
    await page.waitForFunction(() => !document.querySelector<HTMLInputElement>('[data-status-updates] input')?.disabled)
    expect(await setupBox.isChecked()).toBe(true)
    await setupBox.uncheck()
    await page.locator('[data-status-updates]').getByText('Saved.').waitFor()
    expect(await eventually(async () => (await setting()) === false || undefined, 5000, 'the setting off')).toBe(true)
    await setupBox.check()
    expect(await eventually(async () => (await setting()) === true || undefined, 5000, 'the setting on')).toBe(true)

    // The conversion's history on the conversions screen.
    const id = (await s.api('GET', `/admin/api/conversions?click_id=${clickId}`)).body.items[0].id
    await page.goto(`${s.base}/admin#/conversions`)
    await page.getByLabel('Click id').fill(clickId)
    await page.getByRole('button', { name: 'Look up' }).click()
    const history = page.locator(`[data-status-history="${id}"]`)
    await history.waitFor()
    expect(await history.textContent()).toMatch(new RegExp(`^Status history of conversion ${id}: lead \\(pending\\) 5\\.00 USD, .+ → sale \\(approved\\) 20\\.00 USD, .+$`))
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 60_000)
