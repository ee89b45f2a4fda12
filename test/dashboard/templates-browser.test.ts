// Issue 29: the "From template" picker of the sources and offers forms. A source template fills the postback URL
// and the tracking-link parameters and links its document; a network template shows the postback URL to paste,
// creates the offer with the network's click id parameter appended and keeps that URL on screen.
// In a real Chromium against a real server (either engine).
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { launchBrowser, signIn } from '../helpers/browser'
import { OWNER, startServer, type TestServer } from '../helpers/server'
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

test('sources and offers are created from templates in the dashboard', async () => {
  // A campaign already exists: signing in opens the dashboard, not the first-run step.
  const source = (await s.api('POST', '/admin/api/sources', { name: 'Existing' })).body
  const offer = (await s.api('POST', '/admin/api/offers', { name: 'Offer', slug: 'offer', url: 'https://adv.example/?c={click_id}' })).body
  expect((await s.api('POST', '/admin/api/campaigns', { name: 'C', slug: 'c', source_id: source.id, offer_id: offer.id })).status).toBe(201)

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  try {
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
    // The 401 of /me before signing in is expected.
    page.on('console', (m) => { if (m.type() === 'error' && !/status of 401/.test(m.text())) errors.push(`console: ${m.text()}`) })
    await signIn(page, s.base, OWNER)

    await page.getByRole('link', { name: 'Sources' }).click()
    await page.getByRole('heading', { name: 'Sources', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'New source' }).click()
    await page.getByLabel('From template').selectOption({ label: 'MGID' })
    expect(await page.getByLabel('Postback URL').inputValue()).toBe('https://a.mgid.com/postback?c={mgid_click}&e={status}&r={payout}')
    expect(await page.getByLabel('Tracking-link parameters').inputValue()).toBe('mgid_click={click_id}&widget={widget_id}&teaser={teaser_id}&campaign={campaign_id}&cost={click_price}')
    expect(await page.getByLabel('Name').inputValue()).toBe('MGID')
    expect(await page.locator('[data-template-doc]').getAttribute('href')).toBe('https://help.mgid.com/postback-setup')
    await page.getByLabel('Name').fill('MGID main')
    await page.getByRole('button', { name: 'Create source' }).click()
    await page.locator('tbody tr').filter({ hasText: 'MGID main' }).waitFor()
    const created = (await s.api('GET', '/admin/api/sources')).body.items.find((x: any) => x.name === 'MGID main')
    expect(created).toMatchObject({ postback_url: 'https://a.mgid.com/postback?c={mgid_click}&e={status}&r={payout}', link_params: expect.stringContaining('mgid_click={click_id}') })

    await page.getByRole('link', { name: 'Offers' }).click()
    await page.getByRole('heading', { name: 'Offers', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'New offer' }).click()
    await page.getByLabel('From template').selectOption({ label: 'CAKE' })
    const postbackUrl = `${s.base}/postback?click_id=#s2#&payout=#price#&tid=#leadid#`
    expect(await page.locator('[data-template-postback]').textContent()).toBe(postbackUrl)
    await page.getByLabel('Name').fill('Cake offer')
    await page.getByLabel('Slug').fill('cake-offer')
    await page.getByLabel('URL').fill('https://network.example/o?a=1')
    await page.getByRole('button', { name: 'Create offer' }).click()
    await page.locator('[data-created-postback]').waitFor()
    expect(await page.locator('[data-created-postback]').textContent()).toBe(postbackUrl)
    await page.locator('tbody tr').filter({ hasText: 'cake-offer' }).waitFor()
    const made = (await s.api('GET', '/admin/api/offers')).body.items.find((x: any) => x.slug === 'cake-offer')
    expect(made.url).toBe('https://network.example/o?a=1&s2={click_id}')
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 60_000)
