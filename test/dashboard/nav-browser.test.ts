// Issue 30, navigation and phones: the grouped menu (Track, Setup, Email, Commerce, Admin) that leaves out the
// modules an instance does not use (and "Show all modules"), the quick-search palette (Ctrl+K, "/", a campaign
// by part of its name, a pasted click id), the phone menu button, tables as cards, the loss/win colours, and
// every screen at 375 px without the page growing sideways. Real Chromium against a real server (either engine).
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { launchBrowser, signIn } from '../helpers/browser'
import { get, OWNER, startServer, type TestServer } from '../helpers/server'
import { addUser, USER_PASSWORD } from '../admin/helpers'
import { SERVER_TIMEOUT_MS } from '../tracking/seed'

let s: TestServer
let browser: Browser
let clickId: string
let listId: number | undefined

/** Every screen of the menu with "Show all modules" on, in order, and the groups they are in. */
const MENU: Record<string, string[]> = {
  Track: ['Campaigns', 'Reports', 'Conversions', 'Leads', 'Caps', 'Blocked zones'],
  Setup: ['Sources', 'Offers', 'Landings', 'Rule sets', 'Postback setup'],
  Email: ['Email lists', 'Email triggers', 'Automations', 'Outbox'],
  Commerce: ['Orders', 'Subscriptions', 'Products', 'Payment accounts', 'Webhooks'],
  Admin: ['Settings', 'Users', 'Agent tokens'],
}

beforeAll(async () => {
  s = await startServer()
  browser = await launchBrowser()
  const source = (await s.api('POST', '/admin/api/sources', { name: 'Push network' })).body
  const offer = (await s.api('POST', '/admin/api/offers', { name: 'VPN offer', slug: 'vpn-offer', url: 'https://offer.example/?c={click_id}', cap: { metric: 'clicks', limit: 50 } })).body
  await s.api('POST', '/admin/api/campaigns', { name: 'VPN US push', slug: 'vpn-us', source_id: source.id, offer_id: offer.id })
  await s.api('POST', '/admin/api/campaigns', { name: 'Dating DE', slug: 'dating-de', source_id: source.id, offer_id: offer.id })
  const res = await get(`${s.base}/c/vpn-us?sub1=zone7`, { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/150.0' })
  clickId = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/.exec(res.headers.get('location')!)![0]
  await (await get(`${s.base}/postback?click_id=${clickId}&payout=3.5`)).arrayBuffer()
}, SERVER_TIMEOUT_MS)

afterAll(async () => {
  await browser?.close()
  await s?.destroy()
}, SERVER_TIMEOUT_MS)

/** A page that records page errors and console errors (a 4xx is logged by Chromium as a failed resource: kept apart). */
async function watched(context: BrowserContext): Promise<{ page: Page; errors: string[]; refused: string[]; requests: string[] }> {
  const page = await context.newPage()
  const errors: string[] = []
  const refused: string[] = []
  const requests: string[] = []
  page.on('request', (r) => requests.push(r.url()))
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
  page.on('console', (m) => {
    if (m.type() !== 'error') return
    // The /me probe before signing in answers 401: expected. Any other 4xx is a request the page should not have made.
    if (/Failed to load resource: the server responded with a status of 401/.test(m.text())) return
    if (/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) refused.push(m.text())
    else errors.push(`console: ${m.text()}`)
  })
  return { page, errors, refused, requests }
}

/** A group of the menu: its name, then the list of its links. */
const group = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).locator('.nav-group').filter({ has: page.locator('.nav-group-label', { hasText: new RegExp(`^${name}$`) }) })
/** The screen renders before the module checks answer; the menu is whole once it says so. */
const menuKnown = (page: Page) => page.locator('nav[data-modules="known"]').waitFor({ state: 'attached' })

async function groupLinks(page: Page, name: string): Promise<string[]> {
  await menuKnown(page)
  return group(page, name).getByRole('list').getByRole('link').allTextContents()
}

async function groupsShown(page: Page): Promise<Record<string, string[]>> {
  await menuKnown(page)
  const out: Record<string, string[]> = {}
  for (const g of await page.getByRole('navigation', { name: 'Main' }).locator('.nav-group').all()) {
    out[(await g.locator('.nav-group-label').textContent())!] = await g.getByRole('list').getByRole('link').allTextContents()
  }
  return out
}

test('the menu groups the screens; Email and Commerce stay out until used (an email list made) or "Show all modules"; a hidden module opens by URL', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  try {
    const { page, errors, refused } = await watched(context)
    await signIn(page, s.base, OWNER)
    await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor()
    // No landing, lead, email or commerce record yet: Track, Setup and Admin only, Leads left out.
    expect(await groupsShown(page)).toEqual({
      Track: ['Campaigns', 'Reports', 'Conversions', 'Caps', 'Blocked zones'],
      Setup: MENU.Setup!, Admin: MENU.Admin!,
    })
    // At 1280 px every link is on screen without opening anything; the Menu button is for narrow screens.
    for (const link of await page.getByRole('navigation', { name: 'Main' }).getByRole('link').all()) expect(await link.isVisible()).toBe(true)
    expect(await page.getByRole('button', { name: 'Menu' }).isVisible()).toBe(false)
    expect(await page.getByRole('link', { name: 'Campaigns' }).getAttribute('aria-current')).toBe('page')
    // The skip link moves the focus to the screen without routing (its #main is not a screen).
    await page.locator('a.skip').focus()
    await page.keyboard.press('Enter')
    expect(await page.evaluate(() => [location.hash, document.activeElement?.id])).toEqual(['#/campaigns', 'main'])

    // A hidden module's screen still opens by its URL, and the menu shows where the user is.
    await page.evaluate(() => { location.hash = '#/email-lists' })
    await page.getByRole('heading', { name: 'Email lists', level: 1 }).waitFor()
    expect(await groupLinks(page, 'Email')).toEqual(['Email lists'])
    expect(await page.getByRole('link', { name: 'Email lists' }).getAttribute('aria-current')).toBe('page')
    // Made there: an email list. Leaving the screen reads the module's use again: the whole Email group is in.
    await page.getByRole('button', { name: 'New email list' }).click()
    await page.getByLabel('Name').fill('Buyers')
    await page.getByRole('button', { name: 'Create email list' }).click()
    await page.locator('tbody tr').filter({ hasText: 'Buyers' }).waitFor()
    listId = (await s.api('GET', '/admin/api/email-lists')).body.items[0].id
    await page.getByRole('link', { name: 'Campaigns' }).click()
    await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor()
    expect(await groupLinks(page, 'Email')).toEqual(MENU.Email!)
    expect(await group(page, 'Commerce').count()).toBe(0)

    // Show all modules: Commerce and Leads too, remembered across a reload, and off again.
    await page.getByLabel('Show all modules').check()
    await group(page, 'Commerce').waitFor()
    expect(await groupsShown(page)).toEqual(MENU)
    await page.reload()
    await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor()
    expect(await groupsShown(page)).toEqual(MENU)
    expect(await page.getByLabel('Show all modules').isChecked()).toBe(true)
    await page.getByLabel('Show all modules').uncheck()
    await group(page, 'Commerce').waitFor({ state: 'detached' })
    expect(Object.keys(await groupsShown(page))).toEqual(['Track', 'Setup', 'Email', 'Admin'])
    // A product: Commerce is in use from the next page load on.
    await s.api('POST', '/admin/api/products', { name: 'Course', price: 49 })
    await page.reload()
    await group(page, 'Commerce').waitFor()
    expect(await groupLinks(page, 'Commerce')).toEqual(MENU.Commerce!)
    expect([errors, refused]).toEqual([[], []])
  } finally {
    await context.close()
  }
}, 60_000)

test('quick search: Ctrl+K and "/" open it, part of a campaign\'s name and Enter open the campaign, a pasted click id opens its timeline; arrows, Tab and Esc', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  try {
    const { page, errors } = await watched(context)
    await signIn(page, s.base, OWNER)
    await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor()
    const dialog = page.getByRole('dialog', { name: 'Quick search' })
    const box = page.getByRole('combobox', { name: 'Quick search' })
    const options = dialog.getByRole('option')
    const hash = () => page.evaluate(() => location.hash)

    // Ctrl+K: a modal dialog, focus in its field; part of a campaign's name finds it; Enter opens it.
    await page.keyboard.press('Control+k')
    await dialog.waitFor()
    expect(await dialog.getAttribute('aria-modal')).toBe('true')
    expect(await box.evaluate((el) => el === document.activeElement)).toBe(true)
    await box.fill('us pu')
    await options.filter({ hasText: 'VPN US push' }).waitFor() // the names load on the first open
    // Every word matches (the source "Push network" holds "us" and "pu" too); the name holding the whole text comes first.
    expect((await options.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim())).toEqual(['VPN US push vpn-us Campaign', 'Push network Source'])
    expect(await options.first().getAttribute('aria-selected')).toBe('true')
    await box.press('Enter')
    await dialog.waitFor({ state: 'hidden' })
    expect(await hash()).toBe('#/campaigns?search=VPN%20US%20push')
    await page.locator('tr[data-campaign="vpn-us"]').waitFor()

    // "/" outside a field opens it; in a field it is a character.
    await page.locator('main h1').first().click()
    await page.keyboard.press('/')
    await dialog.waitFor()
    // Arrows move the active option (wrapping), the field names it; Tab stays in the dialog.
    await box.fill('s')
    const count = await options.count()
    expect(count).toBeGreaterThan(3)
    await box.press('ArrowDown')
    expect(await options.nth(1).getAttribute('aria-selected')).toBe('true')
    expect(await box.getAttribute('aria-activedescendant')).toBe(await options.nth(1).getAttribute('id'))
    await box.press('ArrowUp')
    await box.press('ArrowUp')
    expect(await options.nth(count - 1).getAttribute('aria-selected')).toBe('true')
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Tab')
      expect(await page.evaluate(() => !!document.activeElement?.closest('dialog[open]'))).toBe(true)
    }
    // Esc closes it.
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    await page.locator('main input[type="search"]').first().focus()
    await page.keyboard.press('/')
    expect(await dialog.isVisible()).toBe(false)

    // The header's button; a screen by name; Esc gives the focus back to the button.
    const button = page.getByRole('button', { name: /^Search/ })
    await button.click()
    await box.fill('caps')
    expect(await options.first().innerText()).toContain('Caps')
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    expect(await button.evaluate((el) => el === document.activeElement)).toBe(true)
    await button.click()
    await box.fill('caps')
    await box.press('Enter')
    await page.getByRole('heading', { name: 'Caps', level: 1 }).waitFor()
    expect(await hash()).toBe('#/caps')

    // A pasted click id (any case): one option, its timeline.
    await page.keyboard.press('Control+k')
    await box.fill(` ${clickId.toUpperCase()} `)
    expect(await options.allInnerTexts()).toEqual([`Open click ${clickId}\nClick`])
    await box.press('Enter')
    await page.waitForFunction((want) => location.hash === want, `#/click?id=${clickId}`)
    await page.locator('main h1').first().waitFor()

    // A click on an option opens it too.
    await page.keyboard.press('Control+k')
    await box.fill('dating')
    await options.filter({ hasText: 'Dating DE' }).click()
    await page.waitForFunction(() => location.hash === '#/campaigns?search=Dating%20DE')
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 60_000)

test('quick search lists only what the user may read: a reports-only user finds the Reports screen, no campaign, and nothing is refused', async () => {
  await addUser(s, 'analyst@example.com', { reports: { read: true, write: false } })
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  try {
    const { page, errors, refused, requests } = await watched(context)
    await signIn(page, s.base, { email: 'analyst@example.com', password: USER_PASSWORD })
    await page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor()
    await page.keyboard.press('Control+k')
    const box = page.getByRole('combobox', { name: 'Quick search' })
    await box.fill('push')
    await page.getByText('No match', { exact: true }).waitFor()
    await box.fill('rep')
    expect(await page.getByRole('dialog').getByRole('option').allInnerTexts()).toEqual(['Reports\nTrack\nScreen'])
    expect(requests.filter((u) => /\/admin\/api\/(campaigns|offers|sources|landings|email-lists|products)/.test(u))).toEqual([])
    expect(await groupsShown(page)).toEqual({ Track: ['Reports'] })
    expect([errors, refused]).toEqual([[], []])
  } finally {
    await context.close()
  }
}, 60_000)

test('at 375 px: a one-line header, the Menu button opens the grouped menu, Esc closes it; tables are cards led by profit and ROI; loss and win colours pass AA', async () => {
  const context = await browser.newContext({ viewport: { width: 375, height: 740 } })
  try {
    const { page, errors } = await watched(context)
    await signIn(page, s.base, OWNER)
    await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor()
    const header = await page.locator('header').boundingBox()
    expect(header!.height).toBeLessThan(56)
    const menuButton = page.getByRole('button', { name: 'Menu' })
    expect(await menuButton.getAttribute('aria-expanded')).toBe('false')
    expect(await menuButton.getAttribute('aria-controls')).toBe('menu')
    expect(await page.locator('#menu').getAttribute('aria-label')).toBe('Main')
    expect(await page.getByRole('link', { name: 'Caps' }).isVisible()).toBe(false)

    await menuButton.click()
    expect(await menuButton.getAttribute('aria-expanded')).toBe('true')
    expect(await page.getByRole('link', { name: 'Caps' }).isVisible()).toBe(true)
    expect(Object.keys(await groupsShown(page))).toEqual(['Track', 'Setup', 'Email', 'Commerce', 'Admin'])
    await page.keyboard.press('Escape')
    expect(await menuButton.getAttribute('aria-expanded')).toBe('false')
    expect(await menuButton.evaluate((el) => el === document.activeElement)).toBe(true)
    expect(await page.getByRole('link', { name: 'Caps' }).isVisible()).toBe(false)
    await menuButton.click()
    await page.getByRole('link', { name: 'Caps' }).click()
    await page.getByRole('heading', { name: 'Caps', level: 1 }).waitFor()
    expect(await menuButton.getAttribute('aria-expanded')).toBe('false')

    // The Caps table as cards: a row is a box of "label value" lines, the label from the column's header.
    const row = page.locator('tr[data-cap]').first()
    await row.waitFor()
    expect(await row.evaluate((tr) => getComputedStyle(tr).display)).toBe('flex')
    const used = row.locator('td').nth(3)
    expect(await used.getAttribute('data-label')).toBe('Used')
    expect(await used.evaluate((td) => getComputedStyle(td, '::before').content)).toBe('"Used"')
    expect(await row.evaluate((tr) => tr.getBoundingClientRect().right)).toBeLessThanOrEqual(375)

    // Any table.cards added to a screen: the app's labelCells() names its cells; the name leads, then profit and ROI, whatever their column.
    const tops = await page.evaluate(async () => {
      const t = document.createElement('table')
      t.className = 'cards'
      t.innerHTML = '<thead><tr><th>Campaign</th><th>Clicks</th><th>Revenue</th><th>Profit</th><th>ROI %</th></tr></thead>' +
        '<tbody><tr><td>VPN US</td><td>120</td><td>10.00 USD</td><td data-col="profit" class="neg">-2.00 USD</td><td data-col="roi" class="neg">-16.7</td></tr></tbody>'
      document.querySelector('main')!.append(t)
      await new Promise((r) => requestAnimationFrame(() => r(null)))
      const cells = [...t.tBodies[0]!.rows[0]!.cells]
      return cells.map((c) => ({ label: c.getAttribute('data-label'), top: Math.round(c.getBoundingClientRect().top) }))
    })
    expect(tops.map((c) => c.label)).toEqual(['Campaign', 'Clicks', 'Revenue', 'Profit', 'ROI %'])
    const [name, clicks, revenue, profit, roi] = tops.map((c) => c.top) as [number, number, number, number, number]
    expect(name < profit && profit < roi && roi < clicks && clicks < revenue).toBe(true)

    // .neg and .pos: red-ish and green-ish, each at least 4.5:1 on the page background and on --soft.
    const contrast = await page.evaluate(() => {
      const lum = (rgb: string) => {
        const [r, g, b] = rgb.match(/\d+/g)!.slice(0, 3).map((v) => { const c = Number(v) / 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4 })
        return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!
      }
      const ratio = (a: string, b: string) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x! + 0.05) / (y! + 0.05) }
      const out: Record<string, { color: string; onBg: number; onSoft: number }> = {}
      const soft = getComputedStyle(document.documentElement).getPropertyValue('--soft').trim()
      const probe = document.createElement('span')
      probe.style.color = soft
      document.body.append(probe)
      const softRgb = getComputedStyle(probe).color
      for (const cls of ['neg', 'pos']) {
        const el = document.createElement('span')
        el.className = cls
        document.querySelector('main')!.append(el)
        const color = getComputedStyle(el).color
        out[cls] = { color, onBg: ratio(color, getComputedStyle(document.body).backgroundColor), onSoft: ratio(color, softRgb) }
      }
      return out
    })
    const [nr, ng] = contrast.neg!.color.match(/\d+/g)!.map(Number) as [number, number]
    const [pr, pg] = contrast.pos!.color.match(/\d+/g)!.map(Number) as [number, number]
    expect(nr > ng && pg > pr).toBe(true)
    for (const c of Object.values(contrast)) expect(Math.min(c.onBg, c.onSoft)).toBeGreaterThanOrEqual(4.5)
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 60_000)

test('every screen at 375 px, signed in as the owner with a little data: no page wider than the screen', async () => {
  // Every module in use (the first test made a list and a product; alone, this test makes its own).
  listId ??= (await s.api('POST', '/admin/api/email-lists', { name: 'Buyers' })).body.id
  if ((await s.api('GET', '/admin/api/products')).body.items.length === 0) await s.api('POST', '/admin/api/products', { name: 'Course', price: 49 })
  await s.api('POST', '/admin/api/landings', { name: 'Lander', slug: 'lander', html: '<h1>Hi {sub1}</h1></body>' })
  await s.api('POST', `/admin/api/email-lists/${listId}/subscribers`, { email: 'ann@example.com', name: 'Ann' })
  const context = await browser.newContext({ viewport: { width: 375, height: 740 } })
  try {
    const { page, errors } = await watched(context)
    await signIn(page, s.base, OWNER)
    await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor()
    // The menu's screens, all of them (every module is in use by now), plus those reached by links.
    await page.getByRole('button', { name: 'Menu' }).click()
    expect(await groupsShown(page)).toEqual(MENU)
    const paths = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').evaluateAll((as) => as.map((a) => a.getAttribute('href')!))
    paths.push(`#/subscribers?list=${listId}`, `#/click?id=${clickId}`, '#/click?campaign_id=1', '#/blocked-zones?source_id=1', '#/first-run')
    expect(paths).toHaveLength(28)
    const wide: string[] = []
    for (const path of paths) {
      await page.evaluate((p) => { location.hash = p }, path)
      await page.locator('main h1').first().waitFor()
      await page.locator('[aria-busy="true"]').waitFor({ state: 'detached' })
      await page.waitForTimeout(150) // a screen's second fetch (numbers, a chart) may widen it after its heading
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
      if (overflow > 0) wide.push(`${path}: ${overflow}px`)
      expect({ path, failed: await page.getByText('Something went wrong.').count() }).toEqual({ path, failed: 0 })
    }
    expect(wide).toEqual([])
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 120_000)
