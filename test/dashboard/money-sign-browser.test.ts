// Money going back is shown negative wherever the dashboard shows money (issue 26), in a real Chromium
// against a real server (either engine): a chargeback a network posts back with a positive payout (stored as
// received, counted negative by its type), a cancelled store order's reversal (stored negative), and an
// order's refunds on the orders screen. The sign is the report table's ASCII minus: "-2.50 USD".
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser } from '../helpers/browser'
import { get, OWNER, startServer, type TestServer } from '../helpers/server'
import { seeder, SERVER_TIMEOUT_MS } from '../tracking/seed'

const SECRET_A = 'ecom-a-app-secret-0123456789'
const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36'

let s: TestServer
let browser: Browser

beforeAll(async () => {
  s = await startServer()
  const sd = seeder(s)
  const offer = await sd.offer('https://offer.example/?c={click_id}')
  await sd.campaign({ slug: 'money', offers: [[offer, 1]] })
  expect((await s.api('PUT', '/admin/api/settings', { ecom_a_webhook_secret: SECRET_A })).status).toBe(200)
  browser = await launchBrowser()
}, SERVER_TIMEOUT_MS)

afterAll(async () => {
  await browser?.close()
  await s?.destroy()
}, SERVER_TIMEOUT_MS)

async function newClick(): Promise<string> {
  const res = await get(`${s.base}/c/money`, { 'user-agent': BROWSER_UA })
  return new URL(res.headers.get('location')!).searchParams.get('c')!
}

async function ecomA(order: Record<string, unknown>, topic: string): Promise<void> {
  const body = JSON.stringify(order)
  const res = await fetch(`${s.base}/webhook/ecom-a`, {
    method: 'POST', body,
    headers: { 'content-type': 'application/json', 'x-ecoma-topic': topic, 'x-ecoma-hmac-sha256': createHmac('sha256', SECRET_A).update(body).digest('base64') },
  })
  expect(res.status).toBe(200)
}

async function signIn(page: Page): Promise<void> {
  await page.goto(`${s.base}/admin`)
  await page.getByLabel('Email').fill(OWNER.email)
  await page.getByLabel('Password').fill(OWNER.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

test('a chargeback shows as -2.50 USD, a cancelled order\'s reversal as -20.00 EUR, a refund as -5.00 EUR; sales stay positive', async () => {
  // A network's chargeback arrives with a positive payout: the API keeps it as received (revenue = payout).
  const click = await newClick()
  expect(await (await fetch(`${s.base}/postback?subid=${click}&status=approved&payout=10&tid=sale-1`)).text()).toBe('OK')
  expect(await (await fetch(`${s.base}/postback?subid=${click}&status=chargeback&payout=2.50&tid=cb-1`)).text()).toBe('OK')
  const posted = (await s.api('GET', `/admin/api/conversions?click_id=${click}`)).body.items
  expect(posted.map((c: any) => [c.type, c.revenue, c.currency])).toEqual([['chargeback', 2.5, 'USD'], ['sale', 10, 'USD']])

  // A store order that counted, then was cancelled: its reversal is stored negative.
  const shopper = await newClick()
  const order = { id: 9001, currency: 'EUR', total_price: '20.00', email: 'buyer@example.com', note_attributes: [{ name: '_svc_click', value: shopper }] }
  await ecomA(order, 'orders/paid')
  await ecomA(order, 'orders/cancelled')
  const reversed = (await s.api('GET', `/admin/api/conversions?click_id=${shopper}`)).body.items
  expect(reversed.map((c: any) => [c.type, c.revenue, c.currency])).toEqual([['chargeback', -20, 'EUR'], ['sale', 20, 'EUR']])

  // Another order refunded in part by hand: the API's refunded stays a positive amount.
  const refunded = await newClick()
  await ecomA({ ...order, id: 9002, note_attributes: [{ name: '_svc_click', value: refunded }] }, 'orders/paid')
  const row = (await s.api('GET', `/admin/api/orders?click_id=${refunded}`)).body.items[0]
  expect((await s.api('POST', `/admin/api/orders/${row.id}/refund`, { amount: 5 })).body).toMatchObject({ amount: 5, refunded_total: 5 })
  expect((await s.api('GET', `/admin/api/orders/${row.id}`)).body).toMatchObject({ total: 20, refunded: 5, currency: 'EUR' })

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  try {
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await signIn(page)
    const nav = page.getByRole('navigation', { name: 'Main' })
    await nav.getByRole('link', { name: 'Conversions', exact: true }).click()
    await page.getByRole('heading', { name: 'Recent conversions' }).waitFor()
    const revenueOf = async (id: number) => {
      const tr = page.locator(`tr[data-conversion="${id}"]`).first()
      await tr.waitFor()
      return (await tr.locator('td').nth(4).innerText()).trim()
    }
    const [cb, sale] = posted
    expect(await revenueOf(cb.id)).toBe('-2.50 USD')
    expect(await revenueOf(sale.id)).toBe('10.00 USD')
    expect(await revenueOf(reversed[0].id)).toBe('-20.00 EUR')
    expect(await revenueOf(reversed[1].id)).toBe('20.00 EUR')

    // The click looked up: its conversions show the same signs.
    await page.getByLabel('Click id').fill(click)
    await page.getByRole('button', { name: 'Look up' }).click()
    const found = page.locator(`[data-click="${click}"] tr[data-conversion="${cb.id}"]`)
    await found.waitFor()
    expect((await found.locator('td').nth(4).innerText()).trim()).toBe('-2.50 USD')

    // Orders: the total in its currency, what was refunded as money going back.
    await nav.getByRole('link', { name: 'Orders', exact: true }).click()
    await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor()
    const headers = (await page.locator('thead th').allInnerTexts()).map((t) => t.trim().toLowerCase())
    const orderRow = page.locator(`tr[data-id="${row.id}"]`)
    await orderRow.waitFor()
    const cells = (await orderRow.locator('td').allInnerTexts()).map((t) => t.trim())
    expect(cells[headers.indexOf('total')]).toBe('20.00 EUR')
    expect(cells[headers.indexOf('refunded')]).toBe('-5.00 EUR')
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 90_000)

test('a report over USD and EUR money never adds them: the total\'s revenue reads per currency, the chart names its currency', async () => {
  // The previous test left USD conversions (a network's sale and chargeback) and EUR ones (store orders).
  const today = new Date().toISOString().slice(0, 10)
  const report = (await s.api('GET', `/admin/api/reports?group_by=campaign&from=${today}&tz=UTC`)).body
  expect(report.currencies).toEqual(['EUR', 'USD'])
  expect(report.total.revenue).toBeNull()
  const expected = report.total.money.map((m: any) => `${m.revenue.toFixed(2)} ${m.currency}`).join(' · ')
  expect(expected).toContain('7.50 USD') // 10 − 2.50: the chargeback is taken from the USD sale, not from EUR

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  try {
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await signIn(page)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Reports', exact: true }).click()
    await page.getByRole('heading', { name: 'Reports' }).waitFor()
    await page.getByLabel('Time zone').fill('UTC')
    await page.getByRole('button', { name: 'Run report' }).click()
    await page.waitForFunction((want) => document.querySelector('tfoot tr[data-total] td[data-col="revenue"]')?.textContent?.trim() === want, expected, { timeout: 10_000 })
    expect(await page.locator('th[data-col="revenue"]').innerText()).toBe('Revenue')
    await page.locator('[data-legend]').getByText('Revenue (EUR)').waitFor()
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 90_000)
