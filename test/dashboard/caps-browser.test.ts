// Issue 29: the Caps screen lists every cap with its count, share and state (the soft-cap warning and the
// reached cap marked), sets an offer's cap with the API's field errors beside the exact field, and removes it.
// In a real Chromium against a real server (either engine).
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { launchBrowser, signIn } from '../helpers/browser'
import { get, OWNER, startServer, type TestServer } from '../helpers/server'
import { SERVER_TIMEOUT_MS } from '../tracking/seed'

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

test('the Caps screen shows counts and states, saves a cap and shows the API error on its field', async () => {
  const warned = (await s.api('POST', '/admin/api/offers', { name: 'Warned offer', slug: 'warned', url: 'https://w.example/?c={click_id}', cap: { metric: 'clicks', limit: 4, warn_percent: 50 } })).body
  const full = (await s.api('POST', '/admin/api/offers', { name: 'Full offer', slug: 'full', url: 'https://f.example/?c={click_id}', cap: { metric: 'clicks', limit: 1 } })).body
  const plain = (await s.api('POST', '/admin/api/offers', { name: 'Plain offer', slug: 'plain', url: 'https://p.example/?c={click_id}' })).body
  await s.api('POST', '/admin/api/campaigns', { name: 'W', slug: 'w', offer_id: warned.id })
  await s.api('POST', '/admin/api/campaigns', { name: 'F', slug: 'f', offer_id: full.id, fallback_url: 'https://sold-out.example/' })
  for (const slug of ['w', 'w', 'f', 'f']) await (await get(`${s.base}/c/${slug}`, { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/150.0' })).arrayBuffer()

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  try {
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
    await signIn(page, s.base, OWNER)
    await page.getByRole('link', { name: 'Caps' }).click()
    await page.getByRole('heading', { name: 'Caps', level: 1 }).waitFor()

    const warnedRow = page.locator(`tr[data-cap="o${warned.id}"]`)
    await expect(warnedRow.getAttribute('data-state')).resolves.toBe('warning')
    expect(await warnedRow.locator('td').nth(3).textContent()).toBe('2 / 4')
    expect(await warnedRow.locator('td.cap-warning').textContent()).toBe('Soft cap')
    const fullRow = page.locator(`tr[data-cap="o${full.id}"]`)
    expect(await fullRow.locator('td.cap-reached').textContent()).toBe('Reached → rotate')

    // A bad time zone: the API's message beside the time zone field, nothing saved.
    await page.getByLabel('Offer', { exact: true }).selectOption(String(plain.id))
    await page.getByLabel('Limit').fill('10')
    await page.getByLabel('Time zone').fill('Mars/Base')
    await page.getByRole('button', { name: 'Save cap' }).click()
    // The field's error element exists before the answer: wait for its text, then read all of it.
    await page.locator('[data-error-for="cap.time_zone"]', { hasText: 'cap.time_zone' }).waitFor()
    await expect(page.locator('[data-error-for="cap.time_zone"]').textContent()).resolves.toBe('cap.time_zone: must be an IANA time zone such as Europe/Berlin')
    expect((await s.api('GET', `/admin/api/offers/${plain.id}`)).body.cap).toBeNull()

    await page.getByLabel('Time zone').fill('Europe/Berlin')
    await page.getByRole('button', { name: 'Save cap' }).click()
    await page.locator(`tr[data-cap="o${plain.id}"]`).waitFor()
    expect((await s.api('GET', `/admin/api/offers/${plain.id}`)).body.cap).toMatchObject({ metric: 'clicks', limit: 10, time_zone: 'Europe/Berlin' })
    expect(await page.locator(`tr[data-cap="o${plain.id}"] td`).nth(2).textContent()).toBe('clicks per day (Europe/Berlin)')

    await page.getByRole('button', { name: 'Remove cap' }).click()
    await page.locator(`tr[data-cap="o${plain.id}"]`).waitFor({ state: 'detached' })
    expect((await s.api('GET', `/admin/api/offers/${plain.id}`)).body.cap).toBeNull()
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 60_000)
