// Issue 28 in the dashboard, in a real Chromium against a real server (either engine): a rule set made on
// its page; two targeting paths added to a campaign through its form, with conditions, the rule set and their
// actions; a bad value refused with the server's message on the path's condition; the paths reordered and
// saved (the API holds that order and those conditions); the simulator showing the path a visit takes with
// each condition's outcome and the DB-IP link beside the network name; the rule set's delete refused while a
// path uses it; the click lookup showing the path trace. A condition value that is markup stays text: no
// dialog other than the delete's confirm ever opens, and no page error or CSP violation happens.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, Locator, Page } from 'playwright-core'
import { launchBrowser } from '../helpers/browser'
import { OWNER, startServer, type TestServer } from '../helpers/server'
import { SERVER_TIMEOUT_MS } from '../tracking/seed'

const IPHONE_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1'
const XSS = '<img src=x onerror=alert(1)>'

let s: TestServer
let browser: Browser
let campaignId: number
let offer1: number
let offer2: number

beforeAll(async () => {
  s = await startServer()
  offer1 = (await s.api('POST', '/admin/api/offers', { name: 'Default offer', slug: 'default-offer', url: 'https://default.example/?c={click_id}' })).body.id
  offer2 = (await s.api('POST', '/admin/api/offers', { name: 'German offer', slug: 'german-offer', url: 'https://de.example/?c={click_id}' })).body.id
  const c = await s.api('POST', '/admin/api/campaigns', { name: 'Geo', slug: 'geo', offers: [{ offer_id: offer1, weight: 100 }] })
  expect(c.status).toBe(201)
  campaignId = c.body.id
  browser = await launchBrowser()
}, SERVER_TIMEOUT_MS)

afterAll(async () => {
  await browser?.close()
  await s?.destroy()
}, SERVER_TIMEOUT_MS)

/** Adds a condition of `type` to the conditions editor inside `scope`; returns its row. */
async function addCondition(scope: Locator, type: string): Promise<Locator> {
  await scope.locator('.add-condition select').selectOption(type)
  await scope.locator('.add-condition').getByRole('button', { name: 'Add condition' }).click()
  return scope.locator(`li.condition[data-type="${type}"]`).last()
}

const path = (page: Page, i: number) => page.locator(`fieldset.path[data-path="${i}"]`)

test('rule set, two paths with conditions, a refused value, reorder, save, simulate, 409 on delete, click trace', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  try {
    const page = await context.newPage()
    const errors: string[] = []
    const dialogs: string[] = []
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
    page.on('console', (m) => { if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) errors.push(`console: ${m.text()}`) })
    // Only the delete's confirm may open; an alert would be the markup in a condition value run as HTML.
    page.on('dialog', (d) => { dialogs.push(`${d.type()}: ${d.message()}`); void (d.type() === 'confirm' ? d.accept() : d.dismiss()) })
    await page.goto(`${s.base}/admin`)
    await page.getByLabel('Email').fill(OWNER.email)
    await page.getByLabel('Password').fill(OWNER.password)
    await page.getByRole('button', { name: 'Sign in' }).click()

    // A rule set, made on its page (in the menu's Setup group, beside sources, offers and landings).
    await page.getByRole('link', { name: 'Rule sets' }).waitFor()
    const setup = await page.getByRole('navigation', { name: 'Main' }).locator('[data-group="setup"]').getByRole('link').allTextContents()
    expect(setup).toContain('Rule sets')
    await page.getByRole('link', { name: 'Rule sets' }).click()
    await page.getByRole('heading', { name: 'Rule sets', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'New rule set' }).click()
    await page.getByLabel('Name').fill('Mobile')
    const ruleForm = page.locator('form').filter({ has: page.getByRole('heading', { name: 'New rule set' }) })
    const device = await addCondition(ruleForm, 'device')
    await device.getByRole('checkbox', { name: 'mobile' }).check()
    await device.getByRole('checkbox', { name: 'tablet' }).check()
    await page.getByRole('button', { name: 'Create rule set' }).click()
    const ruleRow = page.locator('tbody tr').filter({ hasText: 'Mobile' })
    await ruleRow.waitFor()
    expect(await ruleRow.locator('td').nth(1).textContent()).toBe('device is mobile, tablet')
    const ruleSet = (await s.api('GET', '/admin/api/rule-sets')).body.items[0]
    expect(ruleSet.conditions).toEqual([{ type: 'device', values: ['mobile', 'tablet'] }])

    // The campaign's form: two paths.
    await page.getByRole('link', { name: 'Campaigns' }).click()
    await page.locator('tr[data-campaign="geo"]').getByRole('button', { name: 'Edit' }).click()
    await page.getByRole('heading', { name: 'Edit campaign "Geo"' }).waitFor()
    await page.getByRole('button', { name: 'Add path' }).click()
    await path(page, 0).getByLabel('Path name').fill('Germany')
    const country = await addCondition(path(page, 0), 'country')
    await country.getByLabel('Country values').fill('DEU')
    await path(page, 0).getByLabel('offer 1', { exact: true }).selectOption({ label: 'German offer' })

    await page.getByRole('button', { name: 'Add path' }).click()
    const second = path(page, 1)
    await second.getByLabel('Path name').fill('Facebook mobile')
    await second.getByLabel('Rule set').selectOption({ label: 'Mobile' })
    await second.getByText('Also requires: device is mobile, tablet').waitFor()
    const param = await addCondition(second, 'param')
    await param.getByLabel('Query parameter value', { exact: true }).fill('fb')
    const city = await addCondition(second, 'city')
    await city.getByLabel('City values').fill(XSS)
    await city.getByLabel('City: is or is not').selectOption('not')
    await second.getByLabel('Action').selectOption('url')
    await second.getByLabel('URL template').fill('https://fb.example/?c={click_id}&s={sub1}')

    // A bad country code: the server's message, on the form and on that condition.
    await page.getByRole('button', { name: 'Save' }).click()
    const message = page.locator('[data-error-for="paths"]')
    await message.filter({ hasText: 'paths.0.conditions.0.values.0' }).waitFor()
    expect(await country.locator('.field-error').textContent()).toStartWith('paths.0.conditions.0.values.0: ')
    expect(await country.getAttribute('aria-invalid')).toBe('true')
    await country.getByLabel('Country values').fill('de')

    // Reordered: "Facebook mobile" first (its inputs move with it).
    await second.getByRole('button', { name: 'move path 2 up' }).click()
    expect(await path(page, 0).getByLabel('Path name').inputValue()).toBe('Facebook mobile')
    expect(await path(page, 1).getByLabel('Path name').inputValue()).toBe('Germany')
    expect(await path(page, 0).getByRole('button', { name: 'move path 1 up' }).isDisabled()).toBe(true)
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('heading', { name: 'Edit campaign "Geo"' }).waitFor({ state: 'detached' })

    const stored = (await s.api('GET', `/admin/api/campaigns/${campaignId}`)).body
    expect(stored.paths.map((p: any) => p.name)).toEqual(['Facebook mobile', 'Germany'])
    expect(stored.paths[0]).toMatchObject({
      active: true, rule_set_id: ruleSet.id,
      conditions: [{ type: 'param', name: 'sub1', op: 'equals', value: 'fb' }, { type: 'city', negate: true, values: [XSS] }],
      action: { type: 'url', url: 'https://fb.example/?c={click_id}&s={sub1}', offers: [], landings: [] },
    })
    expect(stored.paths[1]).toMatchObject({
      rule_set_id: null, conditions: [{ type: 'country', values: ['DE'] }],
      action: { type: 'rotation', offers: [{ offer_id: offer2, weight: 100, auto_weight: null, cap: null }], landings: [], url: null },
    })
    expect(stored.offers).toEqual([{ offer_id: offer1, weight: 100, auto_weight: null, cap: null }])

    // Opened again: the paths in their order, the markup value as text in its field; a second save keeps the ids.
    await page.locator('tr[data-campaign="geo"]').getByRole('button', { name: 'Edit' }).click()
    await page.getByRole('heading', { name: 'Edit campaign "Geo"' }).waitFor()
    expect(await path(page, 0).getAttribute('data-path-id')).toBe(String(stored.paths[0].id))
    expect(await path(page, 0).getByLabel('City values').inputValue()).toBe(XSS)
    expect(await path(page, 0).getByLabel('City: is or is not').inputValue()).toBe('not')

    // The simulator: a mobile visitor from a Google address with sub1=fb takes "Facebook mobile".
    const sim = page.locator(`form[data-simulator="${campaignId}"]`)
    await sim.getByLabel('Visitor IP').fill('8.8.8.8')
    await sim.getByLabel('User agent').fill(IPHONE_UA)
    await sim.getByLabel('Query string').fill('sub1=fb&sub2=x')
    await sim.getByRole('button', { name: 'Simulate' }).click()
    const result = sim.locator('[data-sim-result]')
    await result.waitFor()
    expect(await result.locator('[data-sim-path]').textContent()).toBe('Facebook mobile (url)')
    expect(await result.getByText(/^https:\/\/fb\.example\/\?c=&s=fb$/).count()).toBe(1)
    const taken = result.locator(`[data-trace-path="${stored.paths[0].id}"]`)
    expect(await taken.getAttribute('data-matched')).toBe('true')
    const outcomes = await taken.locator('.trace-conditions > li').allTextContents()
    expect(outcomes).toHaveLength(3)
    expect(outcomes[0]).toBe('✓ holds device: device "mobile" is in [mobile, tablet]')
    expect(outcomes.every((o) => o.startsWith('✓ holds'))).toBe(true)
    // The markup is in the trace's sentence, as text.
    expect(outcomes[2]).toContain(XSS)
    expect(await taken.locator('img').count()).toBe(0)
    // The visitor panel: the network's name and DB-IP's link.
    expect(await result.locator('dd').filter({ hasText: 'Google' }).count()).toBeGreaterThan(0)
    const attribution = result.locator('[data-attribution="db-ip"] a')
    expect(await attribution.textContent()).toBe('IP Geolocation by DB-IP')
    expect(await attribution.getAttribute('href')).toBe('https://db-ip.com')

    // Without sub1: "Facebook mobile" fails on its parameter, "Germany" on the country: the default rotation.
    await sim.getByLabel('Query string').fill('')
    await sim.getByRole('button', { name: 'Simulate' }).click()
    await result.locator('[data-sim-path]').filter({ hasText: 'none: the default rotation' }).waitFor()
    expect(await result.locator('[data-matched="true"]').count()).toBe(0)
    const germany = await result.locator(`[data-trace-path="${stored.paths[1].id}"] .trace-conditions > li`).allTextContents()
    expect(germany).toEqual(['✗ fails country: country "US" is not in [DE]'])
    expect(await result.locator('dd').filter({ hasText: 'Default offer' }).count()).toBe(1)
    // A bad IP: the server's message.
    await sim.getByLabel('Visitor IP').fill('999.1.1.1')
    await sim.getByRole('button', { name: 'Simulate' }).click()
    await sim.locator('.form-error').filter({ hasText: 'ip: must be an IPv4 or IPv6 address' }).waitFor()

    // The rule set is in use: its delete is refused with the server's words.
    await page.getByRole('link', { name: 'Rule sets' }).click()
    await page.locator('tbody tr').filter({ hasText: 'Mobile' }).getByRole('button', { name: 'Delete' }).click()
    await page.locator('[role="alert"]').filter({ hasText: 'rule set is used by a path of campaign "geo"' }).waitFor()
    expect((await s.api('GET', '/admin/api/rule-sets')).body.items).toHaveLength(1)
    expect(await page.locator('tbody tr').filter({ hasText: 'Mobile' }).locator('td').nth(2).textContent()).toBe('Geo')

    // A real click: its lookup shows the new fields, the path trace and DB-IP's link.
    const hit = await fetch(`${s.base}/c/geo?sub1=fb`, { redirect: 'manual', headers: { 'user-agent': IPHONE_UA } })
    expect(hit.status).toBe(302)
    const clickId = new URL(hit.headers.get('location')!).searchParams.get('c')!
    await page.getByRole('link', { name: 'Conversions' }).click()
    await page.getByLabel('Click id').fill(clickId)
    await page.getByRole('button', { name: 'Look up' }).click()
    const found = page.locator(`[data-click="${clickId}"]`)
    await found.waitFor()
    // The click timeline (issue 30) labels fields for people; data-field keeps the API's name.
    const keys = await found.locator('dl.pairs dt').evaluateAll((els) => els.map((e) => e.getAttribute('data-field')))
    for (const k of ['path_id', 'country', 'asn', 'as_org', 'connection', 'language', 'os_version', 'browser_version', 'region', 'city']) expect(keys).toContain(k)
    expect(await found.locator('[data-attribution="db-ip"] a').getAttribute('href')).toBe('https://db-ip.com')
    expect(await found.locator(`[data-path-trace] [data-trace-path="${stored.paths[0].id}"]`).getAttribute('data-matched')).toBe('true')
    expect(await found.locator('[data-path-trace] > p').textContent()).toBe(`Took path "Facebook mobile" (#${stored.paths[0].id}); under the paths as they are now it would take path "Facebook mobile" (#${stored.paths[0].id}).`)

    expect(dialogs).toEqual(['confirm: Delete the rule set "Mobile"?'])
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 120_000)

test('a rule set\'s bad condition shows the server\'s message on that condition; editing one keeps the others', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  try {
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
    page.on('dialog', (d) => { errors.push(`dialog: ${d.message()}`); void d.dismiss() })
    await page.goto(`${s.base}/admin#/rule-sets`)
    await page.getByLabel('Email').fill(OWNER.email)
    await page.getByLabel('Password').fill(OWNER.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('button', { name: 'New rule set' }).click()
    await page.getByLabel('Name').fill(XSS)
    const form = page.locator('form').filter({ has: page.getByRole('heading', { name: 'New rule set' }) })
    await addCondition(form, 'language')
    const ip = await addCondition(form, 'ip')
    await form.getByLabel('Language values').fill('en, de')
    await ip.getByLabel('IP address / range values').fill('10.0.0.1/8')
    const time = await addCondition(form, 'time')
    await time.getByLabel('Time of day / weekday time zone').fill('Europe/Berlin')
    await time.getByLabel('Time of day / weekday from').fill('22:00')
    await time.getByLabel('Time of day / weekday to').fill('06:00')
    await time.getByRole('checkbox', { name: 'fri' }).check()
    await page.getByRole('button', { name: 'Create rule set' }).click()
    await ip.locator('.field-error').filter({ hasText: 'conditions.1.values.0: "10.0.0.1/8"' }).waitFor()
    await ip.getByLabel('IP address / range values').fill('10.0.0.0/8\n2001:db8::/32')
    await page.getByRole('button', { name: 'Create rule set' }).click()
    // The markup name is a table cell's text.
    const row = page.locator('tbody tr').filter({ hasText: XSS })
    await row.waitFor()
    expect(await row.locator('img').count()).toBe(0)
    const saved = (await s.api('GET', '/admin/api/rule-sets')).body.items.find((r: any) => r.name === XSS)
    expect(saved.conditions).toEqual([
      { type: 'language', values: ['en', 'de'] },
      { type: 'ip', values: ['10.0.0.0/8', '2001:db8::/32'] },
      { type: 'time', tz: 'Europe/Berlin', from: '22:00', to: '06:00', days: ['fri'] },
    ])
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 60_000)
