// The dashboard in a real headless Chromium (Debian's, via playwright-core) against a real svc server (either
// engine). A new owner signs in, creates a first campaign in the guided step, opens its tracking link and
// lands on a local offer page; a postback later, the conversion is in the report table and the chart. A
// read-only user sees no edit controls; signing out ends the session on the server. Throughout, no request
// leaves the origin and no page error or CSP violation happens.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { launchBrowser } from '../helpers/browser'
import { startListener, type Listener } from '../helpers/listener'
import { OWNER, startServer, type TestServer } from '../helpers/server'
import { addUser, USER_PASSWORD } from '../admin/helpers'
import { SERVER_TIMEOUT_MS } from '../tracking/seed'

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/

let s: TestServer
let offerSite: Listener
let browser: Browser
let desktopUa: string

beforeAll(async () => {
  offerSite = startListener((req) => new Response(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Offer</title></head><body><h1>Offer ${req.url.searchParams.get('click') ?? ''}</h1></body></html>`,
    { headers: { 'content-type': 'text/html; charset=utf-8' } }))
  s = await startServer()
  browser = await launchBrowser()
  desktopUa = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${browser.version().split('.')[0]}.0.0.0 Safari/537.36`
}, SERVER_TIMEOUT_MS)

afterAll(async () => {
  await browser?.close()
  offerSite?.stop()
  await s?.destroy()
}, SERVER_TIMEOUT_MS)

/** A page that records every request it makes and every error it meets. */
async function watchedPage(context: BrowserContext): Promise<{ page: Page; requests: string[]; errors: string[] }> {
  const page = await context.newPage()
  const requests: string[] = []
  const errors: string[] = []
  page.on('request', (r) => requests.push(r.url()))
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
  // A 4xx the page handles (the /me probe before sign-in, a validation 400) is logged by Chromium as a failed
  // resource; those are expected. Everything else (CSP violations, script errors, 5xx) is not.
  // A 5xx is caught here too: Chromium logs it as "Failed to load resource: … status of 500". (No 'response'
  // listener: Playwright's response events race under load — "Object with guid response@… was not bound in the
  // connection", microsoft/playwright#22210 — and that failed this test in CI with nothing wrong in svc.)
  page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) errors.push(`console: ${m.text()}`) })
  return { page, requests, errors }
}

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto(`${s.base}/admin`)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

test('first run → tracking link → offer → postback → report and chart; sign out ends the session', async () => {
  const context = await browser.newContext({ userAgent: desktopUa, viewport: { width: 1280, height: 900 } })
  try {
    const { page, requests, errors } = await watchedPage(context)
    await page.goto(`${s.base}/admin`)
    // The sign-in form is drawn once the /me probe answers 401, after the page's load event: wait for it
    // (an isVisible() here raced the probe and failed on a loaded CI machine).
    await page.getByRole('heading', { name: 'Sign in to svc' }).waitFor()
    // A wrong password: the API's message, no way in.
    await page.getByLabel('Email').fill(OWNER.email)
    await page.getByLabel('Password').fill('not-the-password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByText('invalid email or password').waitFor()

    await page.getByLabel('Password').fill(OWNER.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    // No campaign yet: the guided first step.
    await page.getByRole('heading', { name: 'Your first campaign' }).waitFor()
    await page.getByLabel('Source name').fill('Test traffic')
    await page.getByLabel('Offer name').fill('Local offer')
    await page.getByLabel('Offer URL').fill(`${offerSite.base}/offer?click={click_id}`)
    await page.getByLabel('Payout').fill('4.5')
    await page.getByLabel('Campaign name').fill('First')
    await page.getByLabel('Slug (in the tracking link)').fill('has space')
    await page.getByRole('button', { name: 'Create campaign' }).click()
    // The API's validation message sits beside the field it names.
    const slugError = page.locator('[data-error-for="slug"]')
    await slugError.filter({ hasText: 'slug' }).waitFor()
    await page.getByLabel('Slug (in the tracking link)').fill('first')
    await page.getByRole('button', { name: 'Create campaign' }).click()
    const link = page.locator('[data-tracking-link]')
    await link.waitFor()
    expect(await link.textContent()).toBe(`${s.base}/c/first`)

    // The test button opens the tracking link: a click, and the offer page with its click id.
    const [offer] = await Promise.all([context.waitForEvent('page'), page.locator('[data-test-click]').click()])
    await offer.waitForLoadState()
    expect(offer.url()).toStartWith(`${offerSite.base}/offer?click=`)
    const clickId = UUID.exec(offer.url())![0]
    await offer.close()

    const postback = await fetch(`${s.base}/postback?subid=${clickId}&payout=4.5&tid=dash-1`)
    expect(await postback.text()).toBe('OK')

    await page.goto(`${s.base}/admin#/reports`)
    await page.getByRole('heading', { name: 'Reports' }).waitFor()
    const row = page.locator('tbody tr').filter({ hasText: 'First' })
    await row.waitFor()
    const cell = (col: string) => row.locator(`td[data-col="${col}"]`).textContent()
    expect([await cell('clicks'), await cell('unique_clicks'), await cell('conversions'), await cell('revenue')]).toEqual(['1', '1', '1', '4.50 USD'])
    await page.locator('.chart canvas').first().waitFor()

    // Drill-down: the campaign's landings (none here), filtered to the campaign.
    await row.getByRole('button', { name: 'Drill into First' }).click()
    await page.locator('.crumbs').getByText('Campaign: First').waitFor()
    // The campaign picker shows the drill-down's filter; picking "(all)" and running drops it.
    const firstId = String((await s.api('GET', '/admin/api/campaigns')).body.items[0].id)
    expect(await page.getByLabel('Campaign', { exact: true }).inputValue()).toBe(firstId)
    await page.getByLabel('Campaign', { exact: true }).selectOption('')
    await page.getByRole('button', { name: 'Run report' }).click()
    await page.locator('.crumbs').getByText('Campaign: First').waitFor({ state: 'detached' })

    // Conversions: the recent one, the click looked up with its conversion, and a postback problem with its query.
    const unknown = '00000000-0000-4000-8000-000000000000'
    expect(await (await fetch(`${s.base}/postback?subid=${unknown}&payout=1`)).text()).toBe('OK')
    await page.getByRole('link', { name: 'Conversions' }).click()
    await page.getByRole('heading', { name: 'Recent conversions' }).waitFor()
    await page.locator('[data-postback-errors] tr').filter({ hasText: 'unknown_click' }).filter({ hasText: `subid=${unknown}` }).waitFor()
    await page.getByLabel('Click id').fill(clickId)
    await page.getByRole('button', { name: 'Look up' }).click()
    const found = page.locator(`[data-click="${clickId}"]`)
    await found.waitFor()
    expect(await found.innerText()).toContain('dash-1')
    await page.getByLabel('Click id').fill(unknown)
    await page.getByRole('button', { name: 'Look up' }).click()
    await page.getByText('No click with this id.').waitFor()

    // Campaigns: the list with its link, and deactivation (PATCH active) reflected at once.
    await page.getByRole('link', { name: 'Campaigns' }).click()
    const campaign = page.locator('tr[data-campaign="first"]')
    await campaign.waitFor()
    // It has a click: deleting it is refused, with deactivation offered instead.
    page.once('dialog', (d) => void d.accept())
    await campaign.getByRole('button', { name: 'Delete' }).click()
    await page.getByText('"First" has clicks, so it cannot be deleted: deactivate it instead.').waitFor()
    await campaign.getByRole('button', { name: 'Deactivate' }).click()
    await campaign.getByText('Paused').waitFor()
    expect((await s.api('GET', '/admin/api/campaigns')).body.items[0].active).toBe(false)

    // Sign out ends the session on the server: the cookie the browser had no longer works.
    const cookie = (await context.cookies()).find((c) => c.name === 'svc_admin_session')!
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { name: 'Sign in to svc' }).waitFor()
    const replay = await fetch(`${s.base}/admin/api/me`, { headers: { cookie: `svc_admin_session=${cookie.value}` } })
    expect(replay.status).toBe(401)

    // Every request of the dashboard page went to svc itself; nothing failed on the page.
    expect(requests.filter((u) => !u.startsWith(`${s.base}/`))).toEqual([])
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 60_000)

test('a read-only user sees the screens of their sections, without edit controls; at 375 px too', async () => {
  await addUser(s, 'viewer@example.com', { campaigns: { read: true, write: false }, reports: { read: true, write: false } })
  const context = await browser.newContext({ userAgent: desktopUa, viewport: { width: 375, height: 740 } })
  try {
    const { page, errors } = await watchedPage(context)
    await signIn(page, 'viewer@example.com', USER_PASSWORD)
    await page.getByRole('heading', { name: 'Campaigns' }).waitFor()
    await page.locator('tr[data-campaign="first"]').waitFor()
    expect(await page.getByRole('button', { name: /Deactivate|Activate/ }).count()).toBe(0)
    expect(await page.getByRole('button', { name: 'Copy link' }).count()).toBe(1)
    // At 375 px the menu is behind the Menu button; grouped (Track, Setup), the sections' screens only.
    await page.getByRole('button', { name: 'Menu' }).click()
    const nav = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()
    expect(nav).toEqual(['Campaigns', 'Reports', 'Caps', 'Blocked zones', 'Sources', 'Offers', 'Rule sets'])
    expect(await page.getByRole('link', { name: 'Conversions' }).count()).toBe(0)
    // Nothing wider than the screen but the scrollable tables.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    expect(overflow).toBeLessThanOrEqual(0)
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 60_000)

test('agent tokens: created with chosen scopes and shown once, its calls in the audit log, revoked', async () => {
  const context = await browser.newContext({ userAgent: desktopUa })
  try {
    const { page, errors } = await watchedPage(context)
    await signIn(page, OWNER.email, OWNER.password)
    await page.getByRole('link', { name: 'Agent tokens' }).click()
    await page.getByRole('heading', { name: 'Agent tokens', level: 1 }).waitFor()
    await page.getByLabel('Name').fill('claude')
    await page.getByLabel('reports:read').check()
    await page.getByLabel('campaigns:read').check()
    await page.getByRole('button', { name: 'Create token' }).click()
    const shown = page.locator('[data-new-token]')
    await shown.waitFor()
    const token = (await shown.textContent())!
    expect(token).toMatch(/^svc_ap_[A-Za-z0-9_-]{43}$/)
    expect(await page.locator('tr[data-token="claude"]').innerText()).toContain('campaigns:read, reports:read')

    const call = await fetch(`${s.base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_campaigns', arguments: {} } }),
    })
    expect(call.status).toBe(200)
    await page.reload()
    await page.locator('[data-audit] tbody tr').filter({ hasText: 'list_campaigns' }).waitFor()
    // Shown once: after the reload the page has only the hint.
    expect(await page.locator('body').innerText()).not.toContain(token)

    page.once('dialog', (d) => void d.accept())
    await page.locator('tr[data-token="claude"]').getByRole('button', { name: 'Revoke' }).click()
    await page.locator('tr[data-token="claude"]').getByText('revoked').waitFor()
    expect((await fetch(`${s.base}/admin/api/campaigns`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401)
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 60_000)

test('sources, offers and campaigns: create with the API\'s message beside the field, edit, copy, delete refused while in use, the rotation editor', async () => {
  const context = await browser.newContext({ userAgent: desktopUa })
  try {
    const { page, errors } = await watchedPage(context)
    await signIn(page, OWNER.email, OWNER.password)
    await page.getByRole('link', { name: 'Sources' }).click()
    await page.getByRole('heading', { name: 'Sources', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'New source' }).click()
    await page.getByLabel('Name').fill('Push network')
    // A macro in the host is refused by the API (a stranger's link could aim postbacks anywhere).
    await page.getByLabel('Postback URL').fill('https://{sub1}/pb?cid={click_id}')
    await page.getByRole('button', { name: 'Create source' }).click()
    await page.locator('[data-error-for="postback_url"]').filter({ hasText: 'postback_url' }).waitFor()
    expect(await page.getByLabel('Postback URL').getAttribute('aria-invalid')).toBe('true')
    await page.getByLabel('Postback URL').fill('https://push.example/pb?cid={external_id}&sum={payout}')
    await page.getByRole('button', { name: 'Create source' }).click()
    const row = page.locator('tbody tr').filter({ hasText: 'Push network' })
    await row.waitFor()
    expect(await row.getByRole('button', { name: 'Copy postback URL' }).count()).toBe(1)
    await row.getByRole('button', { name: 'Edit' }).click()
    await page.getByLabel('Name').fill('Push network EU')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.locator('tbody tr').filter({ hasText: 'Push network EU' }).waitFor()
    // The first test's sign-out ended every owner session, the helper's too: a fresh one.
    const owner = await s.login()
    const sources = (await s.api('GET', '/admin/api/sources', undefined, owner)).body.items
    expect(sources.find((x: any) => x.name === 'Push network EU').postback_url).toBe('https://push.example/pb?cid={external_id}&sum={payout}')

    // The offer of the first campaign cannot go: the API's 409, explained.
    await page.getByRole('link', { name: 'Offers' }).click()
    const offerRow = page.locator('tbody tr').filter({ hasText: 'Local offer' })
    await offerRow.waitFor()
    page.once('dialog', (d) => void d.accept())
    await offerRow.getByRole('button', { name: 'Delete' }).click()
    await page.getByText('Change the campaigns that use it first.').waitFor()
    expect((await s.api('GET', '/admin/api/offers', undefined, owner)).body.items.some((o: any) => o.name === 'Local offer')).toBe(true)

    // The rotation editor: a second offer at weight 300 against 100, its share spelled out, saved as given.
    const second = (await s.api('POST', '/admin/api/offers', { name: 'Second offer', slug: 'second-offer', url: 'https://two.example/?c={click_id}' }, owner)).body
    await page.getByRole('link', { name: 'Campaigns' }).click()
    await page.locator('tr[data-campaign="first"]').getByRole('button', { name: 'Edit' }).click()
    await page.getByRole('heading', { name: 'Edit campaign "First"' }).waitFor()
    await page.getByRole('button', { name: 'Add offer' }).click()
    await page.getByLabel('offer 2', { exact: true }).selectOption(String(second.id))
    await page.getByLabel('weight of offer 1').fill('300')
    await page.getByText('75 % of traffic').waitFor()
    await page.getByText('25 % of traffic').waitFor()
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('heading', { name: 'Edit campaign "First"' }).waitFor({ state: 'detached' })
    const campaign = (await s.api('GET', '/admin/api/campaigns', undefined, owner)).body.items.find((c: any) => c.slug === 'first')
    expect(campaign.offers.map((o: any) => o.weight)).toEqual([300, 100])
    expect(campaign.offers[1].offer_id).toBe(second.id)

    // A new campaign from the list; the API's refusal of a taken slug beside the slug field.
    await page.getByRole('button', { name: 'New campaign' }).click()
    await page.getByLabel('Name', { exact: true }).fill('Second')
    await page.getByLabel('Slug', { exact: true }).fill('first')
    await page.getByRole('button', { name: 'Create campaign' }).click()
    await page.locator('[data-error-for="slug"]').filter({ hasText: 'slug' }).waitFor()
    await page.getByLabel('Slug', { exact: true }).fill('second')
    await page.getByRole('button', { name: 'Create campaign' }).click()
    await page.locator('tr[data-campaign="second"]').waitFor()
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 60_000)

test('settings: a generated postback secret and a URL signed in the browser that /postback accepts; other keys saved', async () => {
  const context = await browser.newContext({ userAgent: desktopUa })
  try {
    const owner = await s.login()
    const source = (await s.api('POST', '/admin/api/sources', { name: 'Signed' }, owner)).body
    const offer = (await s.api('POST', '/admin/api/offers', { name: 'Signed offer', slug: 'signed-offer', url: `${offerSite.base}/offer?click={click_id}` }, owner)).body
    await s.api('POST', '/admin/api/campaigns', { name: 'Signed', slug: 'signed', source_id: source.id, offer_id: offer.id }, owner)
    const click = await fetch(`${s.base}/c/signed`, { redirect: 'manual', headers: { 'user-agent': desktopUa } })
    const clickId = UUID.exec(click.headers.get('location')!)![0]

    const { page, errors } = await watchedPage(context)
    await signIn(page, OWNER.email, OWNER.password)
    await page.getByRole('link', { name: 'Settings' }).click()
    await page.getByRole('heading', { name: 'Postback signature' }).waitFor()
    await page.getByText('No postback secret').waitFor()
    await page.getByRole('button', { name: 'Generate a secret' }).click()
    const secret = (await page.locator('[data-new-secret]').textContent())!
    expect(secret).toMatch(/^[A-Za-z0-9_-]{32}$/)
    await page.getByText('A postback secret is set').waitFor()
    // An unsigned postback is now refused.
    expect((await fetch(`${s.base}/postback?subid=${clickId}&payout=7`)).status).toBe(401)

    await page.getByLabel('subid').fill(clickId)
    await page.getByLabel('payout').fill('7')
    await page.getByLabel('tid').fill('signed-1')
    await page.getByRole('button', { name: 'Sign', exact: true }).click()
    const url = (await page.locator('[data-signed-url]').textContent())!
    expect(url).toStartWith(`${s.base}/postback?subid=${clickId}&payout=7&tid=signed-1&sig=`)
    const answer = await fetch(url)
    expect({ status: answer.status, body: await answer.text() }).toEqual({ status: 200, body: 'OK' })
    const conversions = (await s.api('GET', `/admin/api/conversions?click_id=${clickId}`, undefined, owner)).body.items
    expect(conversions.map((c: any) => [c.revenue, c.transaction_id])).toEqual([[7, 'signed-1']])

    // Another key: a bad value is refused beside its field, a good one saved.
    await page.getByLabel('fallback url').fill('not a url')
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.locator('[data-error-for="fallback_url"]').filter({ hasText: 'fallback_url' }).waitFor()
    await page.getByLabel('fallback url').fill('')
    await page.getByLabel('click cookie days').fill('45')
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.getByText('Saved click_cookie_days.').waitFor()
    expect((await s.api('GET', '/admin/api/settings', undefined, owner)).body.click_cookie_days).toBe(45)
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 60_000)

test('users: a new user with a permission grid; they sign in and see exactly their sections', async () => {
  const context = await browser.newContext({ userAgent: desktopUa })
  const theirs = await browser.newContext({ userAgent: desktopUa })
  try {
    // A campaign exists (else a user who may create one starts on the first-run screen).
    const owner = await s.login()
    if ((await s.api('GET', '/admin/api/campaigns', undefined, owner)).body.items.length === 0) {
      const source = (await s.api('POST', '/admin/api/sources', { name: 'Any' }, owner)).body
      const offer = (await s.api('POST', '/admin/api/offers', { name: 'Any', slug: 'any-offer', url: 'https://offer.example/' }, owner)).body
      await s.api('POST', '/admin/api/campaigns', { name: 'Any', slug: 'any', source_id: source.id, offer_id: offer.id }, owner)
    }
    const { page, errors } = await watchedPage(context)
    await signIn(page, OWNER.email, OWNER.password)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click()
    await page.getByRole('button', { name: 'New user' }).click()
    await page.getByLabel('Email', { exact: true }).fill('editor@example.com')
    await page.getByLabel('Password', { exact: true }).fill('short')
    await page.getByLabel('campaigns read').check()
    await page.getByLabel('campaigns write').check()
    await page.getByLabel('conversions read').check()
    await page.getByRole('button', { name: 'Create user' }).click()
    await page.locator('[data-error-for="password"]').filter({ hasText: 'password' }).waitFor()
    await page.getByLabel('Password', { exact: true }).fill('editor-password-1')
    await page.getByRole('button', { name: 'Create user' }).click()
    const row = page.locator('tr[data-user="editor@example.com"]')
    await row.waitFor()
    expect(await row.innerText()).toContain('campaigns read+write, conversions read')

    const other = await watchedPage(theirs)
    await signIn(other.page, 'editor@example.com', 'editor-password-1')
    await other.page.getByRole('heading', { name: 'Campaigns' }).waitFor()
    expect(await other.page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).toEqual(['Campaigns', 'Conversions', 'Caps', 'Blocked zones', 'Sources', 'Offers', 'Rule sets', 'Postback setup'])
    expect(await other.page.getByRole('button', { name: 'New campaign' }).count()).toBe(1)
    expect([...errors, ...other.errors]).toEqual([])
  } finally {
    await context.close()
    await theirs.close()
  }
}, 60_000)

test('email and commerce: a list with subscribers added, imported and removed; a trigger, an account and a product from selects; the record screens', async () => {
  const context = await browser.newContext({ userAgent: desktopUa })
  try {
    const owner = await s.login()
    const offer = (await s.api('POST', '/admin/api/offers', { name: 'Trigger offer', slug: 'trigger-offer', url: 'https://offer.example/' }, owner)).body
    const { page, errors } = await watchedPage(context)
    await signIn(page, OWNER.email, OWNER.password)
    const nav = page.getByRole('navigation', { name: 'Main' })

    // No email list, trigger or automation yet: the menu leaves Email out, and its screens open by URL.
    expect(await nav.getByRole('link', { name: 'Email lists' }).count()).toBe(0)
    await page.goto(`${s.base}/admin#/email-lists`)
    await page.getByRole('button', { name: 'New email list' }).click()
    await page.getByLabel('Name').fill('Buyers')
    await page.getByRole('button', { name: 'Create email list' }).click()
    const listRow = page.locator('tbody tr').filter({ hasText: 'Buyers' })
    await listRow.getByRole('link', { name: 'Subscribers' }).click()
    await page.getByRole('heading', { name: 'Subscribers of "Buyers"' }).waitFor()
    await page.getByLabel('Email', { exact: true }).fill('ann@example.com')
    await page.getByRole('button', { name: 'Add subscriber' }).click()
    await page.locator('tbody tr').filter({ hasText: 'ann@example.com' }).waitFor()
    await page.getByLabel('CSV (header row; email required)').fill('email,name\nbob@example.com,Bob\ncid@example.com,Cid\n')
    await page.getByRole('button', { name: 'Import' }).click()
    await page.getByText(/^Imported: /).waitFor()
    await page.reload()
    await page.locator('tbody tr').filter({ hasText: 'cid@example.com' }).waitFor()
    page.once('dialog', (d) => void d.accept())
    await page.locator('tbody tr').filter({ hasText: 'bob@example.com' }).getByRole('button', { name: 'Remove' }).click()
    await page.locator('tbody tr').filter({ hasText: 'bob@example.com' }).waitFor({ state: 'detached' })
    const lists = (await s.api('GET', '/admin/api/email-lists', undefined, owner)).body.items
    const buyers = lists.find((l: any) => l.name === 'Buyers')
    expect(buyers.active_subscribers).toBe(2)

    // A broadcast to the two active subscribers, after a confirmation: two messages in the outbox.
    await page.getByLabel('Subject').fill('Hello {name}')
    await page.getByLabel('Text', { exact: true }).fill('News for {email}')
    page.once('dialog', (d) => void d.accept())
    await page.getByRole('button', { name: 'Send to all active subscribers' }).click()
    await page.getByText(/^Queued: /).waitFor()
    const outbox = (await s.api('GET', `/admin/api/outbox?list_id=${buyers.id}`, undefined, owner)).body.items
    expect(outbox.map((m: any) => m.to).sort()).toEqual(['ann@example.com', 'cid@example.com'])

    // An automation of two steps: at once, then a day later. (With a list made, the menu shows Email.)
    await nav.getByRole('link', { name: 'Automations' }).click()
    await page.getByRole('button', { name: 'New automation' }).click()
    await page.getByLabel('Name').fill('Welcome')
    await page.getByLabel('List').selectOption({ label: 'Buyers' })
    await page.getByLabel('step 1 subject').fill('Welcome {name}')
    await page.getByLabel('step 1 text').fill('Thanks for joining.')
    await page.getByRole('button', { name: 'Add step' }).click()
    await page.getByLabel('step 2 subject').fill('Day two')
    await page.getByLabel('step 2 text').fill('Here is more.')
    await page.getByRole('button', { name: 'Create automation' }).click()
    await page.locator('tr[data-automation="Welcome"]').waitFor()
    const automation = (await s.api('GET', '/admin/api/automations', undefined, owner)).body.items.find((a: any) => a.name === 'Welcome')
    expect(automation.steps.map((st: any) => [st.delay_minutes, st.subject])).toEqual([[0, 'Welcome {name}'], [1440, 'Day two']])

    await nav.getByRole('link', { name: 'Email triggers' }).click()
    await page.getByRole('button', { name: 'New email trigger' }).click()
    await page.getByLabel('A conversion of this offer…').selectOption({ label: 'Trigger offer' })
    await page.getByLabel('…enrols the buyer in this list').selectOption({ label: 'Buyers' })
    await page.getByRole('button', { name: 'Create email trigger' }).click()
    await page.getByRole('button', { name: 'Create email trigger' }).waitFor({ state: 'detached' })
    const triggers = (await s.api('GET', '/admin/api/email-triggers', undefined, owner)).body.items
    expect(triggers.map((t: any) => [t.offer_id, t.target_list_id, t.active])).toEqual([[offer.id, buyers.id, true]])

    // Nothing of commerce yet: "Show all modules" puts it in the menu.
    expect(await nav.getByRole('link', { name: 'Payment accounts' }).count()).toBe(0)
    await nav.getByLabel('Show all modules').check()
    await nav.getByRole('link', { name: 'Payment accounts' }).click()
    await page.getByRole('button', { name: 'New payment account' }).click()
    await page.getByLabel('Name').fill('Cards')
    await page.getByLabel('Webhook secret (pay-b: the webhook id)').fill('whsec_dashboard_secret')
    await page.getByRole('button', { name: 'Create payment account' }).click()
    const account = page.locator('tbody tr').filter({ hasText: 'Cards' })
    await account.waitFor()
    await account.getByRole('button', { name: 'Edit' }).click()
    // Write-only: the form says it is set and never shows it.
    expect(await page.getByLabel('Webhook secret (pay-b: the webhook id)').getAttribute('placeholder')).toBe('(set; empty keeps it)')
    expect(await page.locator('body').innerText()).not.toContain('whsec_dashboard_secret')
    await page.getByRole('button', { name: 'Cancel' }).click()

    await nav.getByRole('link', { name: 'Products' }).click()
    await page.getByRole('button', { name: 'New product' }).click()
    await page.getByLabel('Name').fill('Course')
    await page.getByLabel('Price').fill('49')
    await page.getByLabel('Buyers join this list').selectOption({ label: 'Buyers' })
    await page.getByLabel('Payment account').selectOption({ label: 'Cards' })
    await page.getByRole('button', { name: 'Create product' }).click()
    await page.locator('tbody tr').filter({ hasText: 'Course' }).waitFor()
    const product = (await s.api('GET', '/admin/api/products', undefined, owner)).body.items.find((p: any) => p.name === 'Course')
    expect([product.price, product.email_list_id]).toEqual([49, buyers.id])

    for (const [link, heading] of [['Leads', 'Leads'], ['Outbox', 'Outbox'], ['Orders', 'Orders'], ['Subscriptions', 'Subscriptions'], ['Webhooks', 'Webhook deliveries']] as const) {
      await nav.getByRole('link', { name: link, exact: true }).click()
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor()
    }
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 90_000)

test('every screen in the menu opens for the owner at 375 px without a page error, a foreign request or a page wider than the screen; a landing previews in a tab of its own', async () => {
  const context = await browser.newContext({ userAgent: desktopUa, viewport: { width: 375, height: 740 } })
  try {
    const owner = await s.login()
    await s.api('POST', '/admin/api/landings', { name: 'Preview me', slug: 'preview-me', html: '<h1>Hello {sub1}</h1></body>' }, owner)
    const { page, errors, requests } = await watchedPage(context)
    await signIn(page, OWNER.email, OWNER.password)
    const nav = page.getByRole('navigation', { name: 'Main' })
    // At 375 px the menu opens from the header's Menu button (and closes once a screen is chosen).
    const menu = page.getByRole('button', { name: 'Menu' })
    await menu.click()
    if (await nav.getByLabel('Show all modules').count()) await nav.getByLabel('Show all modules').check()
    const labels = await nav.getByRole('link').allTextContents()
    expect(labels.length).toBeGreaterThan(15)
    for (const label of labels) {
      if (await menu.getAttribute('aria-expanded') === 'false') await menu.click()
      await nav.getByRole('link', { name: label, exact: true }).click()
      await page.locator('main h1').first().waitFor()
      await page.locator('[aria-busy="true"]').waitFor({ state: 'detached' })
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
      expect({ label, failed: await page.getByText('Something went wrong.').count(), overflow: overflow <= 0 })
        .toEqual({ label, failed: 0, overflow: true })
    }
    expect(requests.filter((u) => !u.startsWith(`${s.base}/`))).toEqual([])
    await menu.click()
    await nav.getByRole('link', { name: 'Landings', exact: true }).click()
    const [preview] = await Promise.all([context.waitForEvent('page'), page.locator('tbody tr').filter({ hasText: 'Preview me' }).getByRole('link', { name: 'Preview' }).click()])
    await preview.waitForLoadState()
    expect(await preview.locator('h1').innerText()).toStartWith('Hello')
    await preview.close()
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 90_000)

test('postback setup: a type flag, a new type, the status map and the aliases saved through the API', async () => {
  const context = await browser.newContext({ userAgent: desktopUa })
  try {
    const owner = await s.login()
    const { page, errors } = await watchedPage(context)
    await signIn(page, OWNER.email, OWNER.password)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Postback setup' }).click()
    await page.getByRole('heading', { name: 'Conversion types' }).waitFor()
    await page.getByLabel('lead send postback').uncheck()
    await page.getByLabel('New type: slug').fill('upsell')
    await page.getByLabel('Name', { exact: true }).fill('Upsell')
    await page.getByRole('button', { name: 'Add type' }).click()
    await page.locator('tr[data-type="upsell"]').waitFor()
    const types = (await s.api('GET', '/admin/api/conversion-types', undefined, owner)).body.items
    expect(types.find((t: any) => t.slug === 'lead').send_postback).toBe(false)

    await page.getByRole('button', { name: 'Add status' }).click()
    await page.getByLabel('received status').last().fill('paid')
    await page.getByLabel('type for new status').selectOption('upsell')
    await page.getByRole('button', { name: 'Save status map' }).click()
    await page.locator('form').filter({ hasText: 'Status map' }).getByText('Saved.').waitFor()
    expect((await s.api('GET', '/admin/api/status-map', undefined, owner)).body.paid).toBe('upsell')

    await page.getByLabel('tid', { exact: true }).fill('tid, order_ref')
    await page.getByRole('button', { name: 'Save aliases' }).click()
    await page.locator('form').filter({ hasText: 'Postback parameter aliases' }).getByText('Saved.').waitFor()
    expect((await s.api('GET', '/admin/api/postback-aliases', undefined, owner)).body.tid).toEqual(['tid', 'order_ref'])
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 60_000)

test('a click looked up shows the postback forwarded to its source, failed, with its error and a retry', async () => {
  const context = await browser.newContext({ userAgent: desktopUa })
  try {
    const owner = await s.login()
    // Private addresses are refused as forward targets on this server (no SVC_OUTBOUND_ALLOW_PRIVATE): the job fails.
    const source = (await s.api('POST', '/admin/api/sources', { name: 'Forwarded', postback_url: 'http://127.0.0.1:9/pb?cid={click_id}' }, owner)).body
    const offer = (await s.api('POST', '/admin/api/offers', { name: 'Fwd offer', slug: 'fwd-offer', url: 'https://offer.example/?c={click_id}', payout: 2 }, owner)).body
    await s.api('POST', '/admin/api/campaigns', { name: 'Forwarded', slug: 'forwarded', source_id: source.id, offer_id: offer.id }, owner)
    const click = await fetch(`${s.base}/c/forwarded`, { redirect: 'manual', headers: { 'user-agent': desktopUa } })
    const clickId = UUID.exec(click.headers.get('location')!)![0]
    // Signed when an earlier test set the postback secret: reset it for this one.
    await s.api('PUT', '/admin/api/settings', { postback_secret: null }, owner)
    expect(await (await fetch(`${s.base}/postback?subid=${clickId}&tid=fwd-1`)).text()).toBe('OK')
    const conversion = (await s.api('GET', `/admin/api/conversions?click_id=${clickId}`, undefined, owner)).body.items[0]
    let job: any
    for (let i = 0; i < 100 && job?.status !== 'failed'; i++) {
      job = (await s.api('GET', `/admin/api/jobs?conversion_id=${conversion.id}`, undefined, owner)).body.items[0]
      if (job?.status !== 'failed') await Bun.sleep(100)
    }
    expect(job.status).toBe('failed')

    const { page, errors } = await watchedPage(context)
    await signIn(page, OWNER.email, OWNER.password)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Conversions', exact: true }).click()
    await page.getByLabel('Click id').fill(clickId)
    await page.getByRole('button', { name: 'Look up' }).click()
    // The lookup opens the click's timeline (issue 30): each forward is one of its events.
    const row = page.locator(`[data-timeline] [data-job="${job.id}"]`)
    await row.waitFor()
    expect(await row.innerText()).toContain('failed')
    expect(await row.innerText()).toContain(job.last_error)
    await row.getByRole('button', { name: 'Retry' }).click()
    await row.getByText('retrying').waitFor()
    // The retry ran it again: one more attempt on the job (it fails again, the address is still refused).
    let attempts = job.attempts
    for (let i = 0; i < 100 && attempts === job.attempts; i++) {
      attempts = (await s.api('GET', `/admin/api/jobs/${job.id}`, undefined, owner)).body.attempts
      if (attempts === job.attempts) await Bun.sleep(100)
    }
    expect(attempts).toBe(job.attempts + 1)
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 60_000)
