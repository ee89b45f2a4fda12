// Issue 30: one timeline per click, in a real Chromium against a real server (either engine). The conversion
// list's click id opens the click's timeline, which shows every stored field by name and each forward's HTTP
// result and latency (a failed one with its error and a retry); the clicks list (a report row's link) leads to
// the timelines; at 375 px neither screen overflows the page sideways.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser, signIn } from '../helpers/browser'
import { get, OWNER, startServer, type TestServer } from '../helpers/server'
import { startListener, type Listener } from '../helpers/listener'
import { seeder, SERVER_TIMEOUT_MS } from '../tracking/seed'
import { eventually } from '../postback/seed'

const UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1'
let s: TestServer
let l: Listener
let browser: Browser

beforeAll(async () => {
  // A sale is forwarded to a source that answers 200 after 60 ms; a lead to one that answers 500.
  l = startListener(async (req) => {
    if (req.url.pathname === '/pb/lead') return new Response('nope', { status: 500 })
    await Bun.sleep(60)
    return new Response('ok')
  })
  s = await startServer({ SVC_OUTBOUND_ALLOW_PRIVATE: '1', SVC_JOBS_MAX_ATTEMPTS: '1' })
  browser = await launchBrowser()
}, SERVER_TIMEOUT_MS)

afterAll(async () => {
  await browser?.close()
  await s?.destroy()
  l?.stop()
}, SERVER_TIMEOUT_MS)

async function clickOf(slug: string, query: string): Promise<string> {
  const res = await get(`${s.base}/c/${slug}?${query}`, { 'user-agent': UA })
  expect(res.status).toBe(302)
  return new URL(res.headers.get('location')!).searchParams.get('c')!
}

const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

test('a conversion\'s click link opens the timeline with the forward\'s HTTP result; the clicks list links to timelines; 375 px fits', async () => {
  const sd = seeder(s)
  const source = await sd.source(`${l.base}/pb/{status}?cid={click_id}&zone={sub3}`)
  const offer = await sd.offer('https://offer.example/o?c={click_id}', 'timeline-offer')
  const campaign = await sd.campaign({ slug: 'timeline-camp', sourceId: source, offers: [[offer, 1]] })
  await sd.exec("UPDATE campaigns SET cost_model = 'cpc', cpc = 0.07 WHERE id = $id", { id: campaign })
  const subs = Array.from({ length: 10 }, (_, i) => `sub${i + 1}=v${i + 1}`).join('&')
  const sold = await clickOf('timeline-camp', `${subs}&sub3=${'zone-with-a-very-long-name-'.repeat(4)}`)
  const refused = await clickOf('timeline-camp', 'sub3=z2')
  const query = `subid=${sold}&status=sale&payout=12.5&tid=ORDER-1`
  expect((await fetch(`${s.base}/postback?${query}`)).status).toBe(200)
  expect((await fetch(`${s.base}/postback?subid=${refused}&status=lead`)).status).toBe(200)
  const settled = async (clickId: string, status: string) => eventually(async () => {
    const t = (await s.api('GET', `/admin/api/clicks/${clickId}/timeline`)).body
    return t.events.find((e: any) => e.kind === 'forward' && e.status === status)
  }, 10_000, `the forward ${status}`)
  const done = await settled(sold, 'done')
  const failed = await settled(refused, 'failed')

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  try {
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
    await signIn(page, s.base, OWNER)
    await page.waitForURL(/#\//)
    await page.goto(`${s.base}/admin#/conversions`)
    await page.getByRole('heading', { name: 'Recent conversions' }).waitFor()
    await page.locator(`[data-conversion] a[data-click-link="${sold}"]`).click()
    await page.waitForURL(`${s.base}/admin#/click?id=${sold}`)

    const timeline = page.locator(`[data-click="${sold}"] ol[data-timeline]`)
    await timeline.waitFor()
    expect(await timeline.locator('> li').evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')))).toEqual(['click', 'postback', 'forward'])
    expect(await timeline.locator('li[data-kind="postback"] [data-query]').textContent()).toBe(query)
    const forward = timeline.locator(`li[data-job="${done.job_id}"]`)
    const outcome = (await forward.locator('[data-outcome]').textContent())!
    expect(outcome).toMatch(/^✓ HTTP 200 in \d+ ms$/)
    expect(Number(/in (\d+) ms/.exec(outcome)![1])).toBeGreaterThanOrEqual(50)
    // The time is the browser's local rendering of the API's instant.
    expect(await forward.locator('time').getAttribute('datetime')).toBe(done.at)
    expect(await forward.innerText()).toContain(`${l.base}/pb/sale?cid=${sold}&zone=`)

    // Every stored field by name: campaign, source and offer names, sub1..sub10, the user agent, the cost.
    const fields = page.locator(`[data-click="${sold}"] dl.click-fields`)
    const value = (f: string) => fields.locator(`dd[data-field="${f}"]`).textContent()
    expect(await value('campaign_id')).toBe(`timeline-camp (#${campaign})`)
    expect(await value('source_id')).toMatch(new RegExp(`^source-.+ \\(#${source}\\)$`))
    expect(await value('offer_id')).toBe(`timeline-offer (#${offer})`)
    expect(await value('path_id')).toBe('default rotation')
    expect(await value('sub10')).toBe('v10')
    expect(await value('sub4')).toBe('v4')
    expect(await value('user_agent')).toBe(UA)
    expect(await value('cost')).toBe('0.07 USD')

    // At 375 px the long values wrap: the page does not scroll sideways.
    await page.setViewportSize({ width: 375, height: 800 })
    await page.waitForTimeout(100)
    expect(await overflow(page)).toBeLessThanOrEqual(0)

    // The failed forward: its error, and Retry.
    await page.setViewportSize({ width: 1280, height: 900 })
    await page.getByLabel('Click id').fill(refused)
    await page.getByRole('button', { name: 'Look up' }).click()
    const bad = page.locator(`[data-click="${refused}"] li[data-job="${failed.job_id}"]`)
    await bad.waitFor()
    expect(await bad.locator('[data-outcome]').textContent()).toMatch(/^✗ failed: HTTP 500: nope \(after \d+ ms\) \(attempt 1 of 1; /)
    await bad.getByRole('button', { name: 'Retry' }).click()
    await bad.getByText('retrying').waitFor()
    await page.getByLabel('Click id').fill('00000000-0000-4000-8000-000000000000')
    await page.getByRole('button', { name: 'Look up' }).click()
    await page.getByText('No click with this id.').waitFor()

    // The clicks list of a report row's filters: newest first, each click linked to its timeline.
    await page.goto(`${s.base}/admin#/click?campaign_id=${campaign}&sub3=z2`)
    const rows = page.locator('table[data-clicks] tbody tr[data-click-row]')
    await rows.first().waitFor()
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-click-row')))).toEqual([refused])
    expect(await page.locator('[data-click-filters]').textContent()).toContain('campaign: timeline-camp')
    await page.goto(`${s.base}/admin#/click?campaign_id=${campaign}`)
    await page.locator(`tr[data-click-row="${refused}"]`).waitFor()
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-click-row')))).toEqual([refused, sold])
    await page.setViewportSize({ width: 375, height: 800 })
    await page.waitForTimeout(100)
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await page.locator(`tr[data-click-row="${sold}"] a`).first().click()
    await page.locator(`[data-click="${sold}"] ol[data-timeline]`).waitFor()
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 90_000)
