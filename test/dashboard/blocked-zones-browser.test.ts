// Issue 30, item 3 (docs/zones.md): the Blocked zones screen in a real Chromium against a real server (either
// engine): the dated list of a source newest first with local dates, values added by hand (repeats and values
// already blocked kept once), "Copy all" in the source template's format, the CSV export, unblocking, the source
// in the URL, the API's field error beside the textarea, and no sideways page at 375 px.
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

test('the Blocked zones screen lists, adds, copies in the source format, exports and unblocks', async () => {
  const tpl = {
    id: 'custom-commas', name: 'Comma net', category: 'pop', postback_url: null, doc_url: null,
    fills: [{ role: 'click_id', param: 'cid', macro: '{clickid}' }, { role: 'zone', param: 'spot', macro: '{spotid}' }],
    zone_list: { separator: ',', note: 'Zones > Blacklist, comma-separated' },
  }
  expect((await s.api('POST', '/admin/api/source-templates/import', { templates: [tpl] })).status).toBe(200)
  const comma = (await s.api('POST', '/admin/api/source-templates/custom-commas/create-source', { name: 'Comma source' })).body
  const plain = (await s.api('POST', '/admin/api/sources', { name: 'Plain source' })).body
  const offer = (await s.api('POST', '/admin/api/offers', { name: 'O', slug: 'o', url: 'https://o.example/?c={click_id}' })).body
  const camp = (await s.api('POST', '/admin/api/campaigns', { name: 'Camp X', slug: 'camp-x', offer_id: offer.id, source_id: comma.id })).body
  expect((await s.api('POST', '/admin/api/blocked-zones', { source_id: comma.id, dimension: 'sub3', values: ['z1', 'z2'], reason: 'no conversions' })).status).toBe(201)
  expect((await s.api('POST', '/admin/api/blocked-zones', { source_id: comma.id, campaign_id: camp.id, dimension: 'sub3', values: ['z9'] })).status).toBe(201)

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })
  try {
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
    await signIn(page, s.base, OWNER)
    await page.getByRole('button', { name: 'Sign out' }).waitFor()
    await page.goto(`${s.base}/admin#/blocked-zones?source_id=${comma.id}`)
    await page.getByRole('heading', { name: 'Blocked zones', level: 1 }).waitFor()

    const table = page.locator('table[data-blocked]')
    const values = () => table.locator('tbody tr[data-zone] td[data-col="value"]').allTextContents()
    await table.locator('tr[data-zone]').first().waitFor()
    expect(await values()).toEqual(['z9', 'z2', 'z1'])
    const first = table.locator('tbody tr[data-zone]').first()
    const iso = await first.locator('time').getAttribute('datetime')
    expect(await first.locator('time').textContent()).toBe(await page.evaluate((d) => new Date(d!).toLocaleString(), iso))
    expect(await first.locator('td').allTextContents()).toEqual([expect.any(String), 'z9', 'sub3', 'Camp X', '—', OWNER.email, 'Unblock'])
    expect(await table.locator('tbody tr[data-zone]').nth(1).locator('td').nth(4).textContent()).toBe('no conversions')
    expect(await page.locator('[data-format]').textContent()).toContain('comma-separated')

    // By hand: trimmed, a repeat and a value already blocked kept once.
    await page.getByRole('textbox', { name: 'Values', exact: true }).fill(' n1 \nn2\nn1\nz1\n')
    await page.getByLabel('Dimension').selectOption('sub3')
    await page.getByLabel('Reason').fill('manual')
    await page.getByRole('button', { name: 'Block', exact: true }).click()
    await page.getByText('Blocked 2 new values; 1 already on the list.').waitFor()
    expect(await values()).toEqual(['n2', 'n1', 'z9', 'z2', 'z1'])

    // A line over 200 characters: the API's message beside the textarea, nothing added.
    await page.getByRole('textbox', { name: 'Values', exact: true }).fill(`ok\n${'x'.repeat(201)}`)
    await page.getByRole('button', { name: 'Block', exact: true }).click()
    await page.locator('[data-error-for="values"]', { hasText: 'values.1' }).waitFor()
    expect(await page.locator('[data-error-for="values"]').textContent()).toBe('values.1: must be at most 200 characters')
    expect(await values()).toHaveLength(5)

    // Copy all, in the template's format (comma).
    await page.getByRole('button', { name: 'Copy all' }).click()
    await page.locator('textarea[data-copy-text]:not([hidden])').waitFor()
    expect(await page.locator('textarea[data-copy-text]').inputValue()).toBe('n2,n1,z9,z2,z1')

    // The export link downloads the dated list.
    expect(await page.locator('a[data-export]').getAttribute('href')).toBe(`/admin/api/blocked-zones?source_id=${comma.id}&format=csv`)
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('a[data-export]').click()])
    expect(download.suggestedFilename()).toBe('blocked-zones-Comma_source.csv')
    const csv = await (await context.request.get(`${s.base}/admin/api/blocked-zones?source_id=${comma.id}&format=csv`)).text()
    expect(csv.split('\r\n')[0]).toBe('blocked_at,value,dimension,campaign,reason,by')
    expect(csv.split('\r\n')[1]).toMatch(/^\d{4}-\d\d-\d\dT[^,]+Z,n2,sub3,,manual,owner@example\.com$/)

    // Unblock one row.
    await page.getByRole('button', { name: 'Unblock n1' }).click()
    await page.getByText('Unblocked n1.').waitFor()
    expect(await values()).toEqual(['n2', 'z9', 'z2', 'z1'])
    const left = (await s.api('GET', `/admin/api/blocked-zones?source_id=${comma.id}`)).body.items.map((z: { value: string }) => z.value)
    expect(left).toEqual(['n2', 'z9', 'z2', 'z1'])

    // Another source: the URL says which, a reload keeps it; no template: newline.
    await page.getByLabel('Source', { exact: true }).selectOption(String(plain.id))
    await page.getByText('Nothing blocked at this source yet.').waitFor()
    expect(page.url()).toContain(`#/blocked-zones?source_id=${plain.id}`)
    await page.reload()
    await page.getByText('Nothing blocked at this source yet.').waitFor()
    expect(await page.getByLabel('Source', { exact: true }).inputValue()).toBe(String(plain.id))
    expect(await page.locator('[data-format]').textContent()).toBe('Copy format: newline-separated (one per line).')

    // Phone width: the page never scrolls sideways.
    await page.goto(`${s.base}/admin#/blocked-zones?source_id=${comma.id}`)
    await page.setViewportSize({ width: 375, height: 800 })
    await table.locator('tr[data-zone]').first().waitFor()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 120_000)
