// Issue 26: the sources form warns beside the postback URL about a placeholder svc does not fill (a typo such
// as {foo}, a network's own [IMPRESSIONID] pasted as it is), as the URL is typed and when a saved source is
// opened: the same words as the API's postback_url_warnings. A warning never blocks the save. A conversion
// forwarded with such a placeholder shows its warning in the click's lookup. In a real Chromium against a
// real server (either engine).
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser } from '../helpers/browser'
import { OWNER, startServer, type TestServer } from '../helpers/server'
import { SERVER_TIMEOUT_MS } from '../tracking/seed'

const NETWORK_PLACEHOLDER = "[IMPRESSIONID] is the network's own placeholder, not a svc macro: put the macro of the sub parameter that carries it on your tracking link, e.g. {sub1}"
const UNKNOWN_FOO = '{foo} is not a svc macro: it is sent as written unless the click\'s tracking link carried a parameter named "foo"'

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

const DESKTOP_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36'

async function eventually(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out')
    await Bun.sleep(50)
  }
}

const warnings = (page: Page) => page.locator('[data-warning-for="postback_url"] li')

test('the postback URL\'s unknown placeholders are warned beside the field, as typed and when opened; saving still works', async () => {
  // A campaign already exists: signing in opens the dashboard, not the first-run step.
  const source = (await s.api('POST', '/admin/api/sources', { name: 'Clickadu', postback_url: 'https://ad.example/pb?visitor_id={sub5}&imp=[IMPRESSIONID]' })).body
  expect(source.postback_url_warnings).toEqual([NETWORK_PLACEHOLDER])
  const offer = (await s.api('POST', '/admin/api/offers', { name: 'Offer', slug: 'offer', url: 'https://adv.example/?c={click_id}' })).body
  expect((await s.api('POST', '/admin/api/campaigns', { name: 'Pop', slug: 'pop', source_id: source.id, offer_id: offer.id })).status).toBe(201)

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  try {
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
    page.on('console', (m) => { if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) errors.push(`console: ${m.text()}`) })
    await page.goto(`${s.base}/admin`)
    await page.getByLabel('Email').fill(OWNER.email)
    await page.getByLabel('Password').fill(OWNER.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('link', { name: 'Sources' }).click()
    await page.getByRole('heading', { name: 'Sources', level: 1 }).waitFor()

    // The saved source, opened: its warning beside the field.
    await page.locator('tbody tr').filter({ hasText: 'Clickadu' }).getByRole('button', { name: 'Edit' }).click()
    await page.getByRole('heading', { name: 'Edit source "Clickadu"' }).waitFor()
    await warnings(page).first().waitFor()
    expect(await warnings(page).allTextContents()).toEqual([NETWORK_PLACEHOLDER])
    // Fixed as typed: the warning goes.
    await page.getByLabel('Postback URL').fill('https://ad.example/pb?visitor_id={sub5}&imp={sub1}')
    expect(await warnings(page).count()).toBe(0)
    expect(await page.locator('[data-warning-for="postback_url"]').isVisible()).toBe(false)
    await page.getByRole('button', { name: 'Save' }).click()
    await page.locator('tbody tr').filter({ hasText: 'imp={sub1}' }).waitFor()

    // A new source: the warning appears while typing, and the save is not refused.
    await page.getByRole('button', { name: 'New source' }).click()
    await page.getByLabel('Name').fill('Typo network')
    expect(await warnings(page).count()).toBe(0)
    await page.getByLabel('Postback URL').fill('https://typo.example/pb?cid={click_id}&x={foo}')
    expect(await warnings(page).allTextContents()).toEqual([UNKNOWN_FOO])
    expect(await page.locator('[data-warning-for="postback_url"]').isVisible()).toBe(true)
    await page.getByRole('button', { name: 'Create source' }).click()
    await page.locator('tbody tr').filter({ hasText: 'Typo network' }).waitFor()

    const owner = await s.login()
    const items = (await s.api('GET', '/admin/api/sources', undefined, owner)).body.items
    expect(items.find((r: { name: string }) => r.name === 'Typo network').postback_url_warnings).toEqual([UNKNOWN_FOO])
    expect(items.find((r: { name: string }) => r.name === 'Clickadu').postback_url_warnings).toBeUndefined()

    // A conversion forwarded with {foo} as written: the click's lookup on the Conversions screen says so.
    const typo = (await s.api('POST', '/admin/api/sources', { name: 'Typo forward', postback_url: 'http://127.0.0.1:9/pb?c={click_id}&x={foo}' }, owner)).body
    expect((await s.api('POST', '/admin/api/campaigns', { name: 'Typo', slug: 'typo', source_id: typo.id, offer_id: offer.id }, owner)).status).toBe(201)
    const hit = await fetch(`${s.base}/c/typo`, { redirect: 'manual', headers: { 'user-agent': DESKTOP_UA } })
    expect(hit.status).toBe(302)
    const clickId = new URL(hit.headers.get('location')!).searchParams.get('c')!
    expect((await fetch(`${s.base}/postback?subid=${clickId}&status=approved`)).status).toBe(200)
    const warning = 'sent with {foo} as written: no macro or parameter of the click has that name'
    await eventually(async () => (await s.api('GET', `/admin/api/conversions?click_id=${clickId}`, undefined, owner)).body.items[0]?.forward_warning === warning)
    await page.getByRole('link', { name: 'Conversions' }).click()
    await page.getByLabel('Click id').fill(clickId)
    await page.getByRole('button', { name: 'Look up' }).click()
    const shown = page.locator('[data-forward-warning]')
    await shown.waitFor()
    expect((await shown.textContent())).toEndWith(`: ${warning}`)
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 60_000)
