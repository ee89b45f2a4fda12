// /storefront.js in a real headless Chromium (Debian's, via playwright-core), served by a real svc server, on
// a page of a local "store" (a Bun.serve on 127.0.0.2: another origin and another site than svc on 127.0.0.1)
// that implements the ecom-a platform's POST /cart/update.js and records what it receives. Then the whole
// path: a real click, the store page opened with its id, the order webhook carrying what the store got from
// the script in note_attributes, and the conversion of that click.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { launchBrowser } from '../helpers/browser'
import { get, startServer, type TestServer } from '../helpers/server'
import { seeder, SERVER_TIMEOUT_MS } from '../tracking/seed'

const SECRET_A = 'ecom-a-storefront-secret-0123456789'
const DESKTOP_CHROME_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36'
const CLICK = '3F1C2A9E-8B7D-4C5E-9F0A-1B2C3D4E5F60' // upper case on purpose: the script keeps it lower-case
const CLICK2 = '0a9b8c7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d'
const FLAG = '_svc_click_cart'

interface CartUpdate {
  path: string
  contentType: string | null
  body: string
  json: any
  /** The request's Cookie header, parsed. */
  cookies: Record<string, string>
}

let svc: TestServer
let store: ReturnType<typeof Bun.serve>
let STORE: string
let browser: Browser
let updates: CartUpdate[] = []
/** What the store's /cart/update.js answers (a test may make it fail). */
let cartStatus = 200
let carts = 0
let contexts: BrowserContext[] = []
let pageErrors: string[] = []

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const parseCookies = (h: string | null) =>
  Object.fromEntries((h ?? '').split(';').map((c) => c.trim()).filter(Boolean).map((c) => [c.slice(0, c.indexOf('=')), c.slice(c.indexOf('=') + 1)]))

async function waitFor<T>(what: string, probe: () => T | undefined | null | false, timeoutMs = 5000): Promise<T> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const v = probe()
    if (v) return v
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}; cart updates: ${JSON.stringify(updates)}`)
    await sleep(25)
  }
}

/** A store page: its own scripts before and after svc's tag (they must still run), the tag as the README gives it. */
const storePage = (title: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<script>window.storeBefore = true</script>
<script src="${svc.base}/storefront.js"></script>
</head><body><h1>${title}</h1>
<script>window.storeAfter = window.storeBefore === true; document.body.setAttribute('data-store-ran', '1')</script>
</body></html>`

function startStore() {
  return Bun.serve({
    port: 0,
    hostname: '127.0.0.2',
    routes: {
      '/cart/update.js': {
        POST: async (req) => {
          const body = await req.text()
          let json: any = undefined
          try { json = JSON.parse(body) } catch { json = undefined }
          const cookies = parseCookies(req.headers.get('cookie'))
          updates.push({ path: new URL(req.url).pathname, contentType: req.headers.get('content-type'), body, json, cookies })
          if (cartStatus !== 200) return Response.json({ status: cartStatus, message: 'cart unavailable' }, { status: cartStatus })
          // As the platform does: the first cart interaction creates the cart and its `cart` cookie.
          const headers: Record<string, string> = {}
          if (!cookies.cart) headers['set-cookie'] = `cart=c${++carts}-token; Path=/; SameSite=Lax`
          return Response.json({ token: cookies.cart ?? `c${carts}-token`, attributes: json?.attributes ?? {}, item_count: 0 }, { headers })
        },
      },
    },
    fetch(req) {
      const { pathname } = new URL(req.url)
      if (pathname === '/favicon.ico') return new Response(null, { status: 204 })
      if (pathname === '/' || pathname === '/other-page' || pathname === '/products/shirt') {
        return new Response(storePage(pathname), { headers: { 'content-type': 'text/html; charset=utf-8' } })
      }
      return new Response('not found', { status: 404 })
    },
  })
}

beforeAll(async () => {
  svc = await startServer()
  store = startStore()
  STORE = `http://127.0.0.2:${store.port}`
  const sd = seeder(svc)
  const offer = await sd.offer(`${STORE}/?_svc_click={click_id}`)
  await sd.campaign({ slug: 'store', offers: [[offer, 1]] })
  expect((await svc.api('PUT', '/admin/api/settings', { ecom_a_webhook_secret: SECRET_A })).status).toBe(200)
  browser = await launchBrowser()
}, SERVER_TIMEOUT_MS)

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {})
  await browser?.close()
  store?.stop(true)
  await svc?.destroy()
}, SERVER_TIMEOUT_MS)

afterEach(() => {
  // (e) The store's pages never see an error from the script, whatever happened.
  expect(pageErrors).toEqual([])
  pageErrors = []
  cartStatus = 200
})

async function newContext(): Promise<BrowserContext> {
  const context = await browser.newContext()
  contexts.push(context)
  return context
}

async function open(context: BrowserContext, path: string, page?: Page): Promise<Page> {
  const p = page ?? (await context.newPage())
  if (!page) p.on('pageerror', (e) => pageErrors.push(String(e)))
  await p.goto(`${STORE}${path}`)
  // The store's own scripts before and after the tag ran, and svc's script was loaded (from svc's origin).
  expect(await p.evaluate(() => [(window as any).storeBefore, (window as any).storeAfter, document.body.dataset.storeRan])).toEqual([true, true, '1'])
  expect(await p.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.endsWith('/storefront.js')))).toEqual([`${svc.base}/storefront.js`])
  return p
}

/** The script posts on load; its request is sent before the load event. Give a stray one time to arrive. */
const settle = () => sleep(500)
const cookieOf = async (context: BrowserContext, name: string, url = STORE) => (await context.cookies(url)).find((c) => c.name === name)
const flagOf = (p: Page) => p.evaluate((k) => sessionStorage.getItem(k), FLAG)

describe('storefront.js on a store page (another origin than svc)', () => {
  let context: BrowserContext
  let first: Page

  test('(a) ?_svc_click=<id>: one POST /cart/update.js with the attribute, a first-party _svc_click cookie on the store', async () => {
    updates = []
    context = await newContext()
    first = await open(context, `/?_svc_click=${CLICK}&utm_source=fb`)
    await waitFor('the cart update', () => updates.length > 0)
    await first.waitForFunction((k) => sessionStorage.getItem(k) !== null, FLAG)
    await settle()
    expect(updates).toHaveLength(1)
    const [u] = updates
    expect(u!.path).toBe('/cart/update.js')
    expect(u!.contentType).toBe('application/json')
    expect(u!.body).toBe(JSON.stringify({ attributes: { _svc_click: CLICK.toLowerCase() } }))
    // Sent with the store's cookies: the one just set among them.
    expect(u!.cookies._svc_click).toBe(CLICK.toLowerCase())
    const cookie = await cookieOf(context, '_svc_click')
    expect(cookie).toMatchObject({ value: CLICK.toLowerCase(), domain: '127.0.0.2', path: '/', sameSite: 'Lax', httpOnly: false, secure: false })
    const days = (cookie!.expires * 1000 - Date.now()) / 86_400_000
    expect(days).toBeGreaterThan(29.9)
    expect(days).toBeLessThanOrEqual(30)
    // First-party only: svc's own origin got no cookie from the script.
    expect(await cookieOf(context, '_svc_click', svc.base)).toBeUndefined()
    expect(await first.evaluate(() => localStorage.getItem('_svc_click'))).toBe(CLICK.toLowerCase())
    // The flag names the click and the cart the store created on that first update.
    expect(await flagOf(first)).toBe(`${CLICK.toLowerCase()}|c${carts}-token`)
  })

  test('(b) another page without the parameter, same session and cart: no second POST; the cookie still holds the id', async () => {
    updates = []
    await open(context, '/other-page', first)
    await settle()
    expect(updates).toEqual([])
    expect((await cookieOf(context, '_svc_click'))?.value).toBe(CLICK.toLowerCase())
    // A product page as well.
    await open(context, '/products/shirt', first)
    await settle()
    expect(updates).toEqual([])
  })

  test('a new tab (a new session) without the parameter takes the id from the cookie and posts it once', async () => {
    updates = []
    const tab = await open(context, '/other-page')
    await waitFor('the cart update', () => updates.length > 0)
    await tab.waitForFunction((k) => sessionStorage.getItem(k) !== null, FLAG)
    await settle()
    expect(updates.map((u) => u.json)).toEqual([{ attributes: { _svc_click: CLICK.toLowerCase() } }])
    expect(updates[0]!.cookies.cart).toBe(`c${carts}-token`)
    await tab.close()
  })

  test('a new cart (after an order) gets the attribute again, once', async () => {
    updates = []
    await context.addCookies([{ name: 'cart', value: 'fresh-cart-token', url: STORE }])
    await open(context, '/other-page', first)
    await waitFor('the cart update', () => updates.length > 0)
    await first.waitForFunction(([k, v]) => sessionStorage.getItem(k!) === v, [FLAG, `${CLICK.toLowerCase()}|fresh-cart-token`])
    await open(context, '/', first)
    await settle()
    expect(updates).toHaveLength(1)
    expect(updates[0]!.json).toEqual({ attributes: { _svc_click: CLICK.toLowerCase() } })
    expect(updates[0]!.cookies.cart).toBe('fresh-cart-token')
  })

  test('(c) a new context with ?click_id=<id> works too', async () => {
    updates = []
    const c = await newContext()
    const p = await open(c, `/products/shirt?click_id=${CLICK2}`)
    await waitFor('the cart update', () => updates.length > 0)
    await p.waitForFunction((k) => sessionStorage.getItem(k) !== null, FLAG)
    await settle()
    expect(updates.map((u) => u.body)).toEqual([JSON.stringify({ attributes: { _svc_click: CLICK2 } })])
    expect((await cookieOf(c, '_svc_click'))?.value).toBe(CLICK2)
  })

  test('a new id in the URL replaces the one in the cookie', async () => {
    updates = []
    await open(context, `/?_svc_click=${CLICK2}`, first)
    await waitFor('the cart update', () => updates.length > 0)
    await settle()
    expect(updates.map((u) => u.json)).toEqual([{ attributes: { _svc_click: CLICK2 } }])
    expect((await cookieOf(context, '_svc_click'))?.value).toBe(CLICK2)
  })

  test('(d) an invalid id: no POST, no cookie, nothing stored', async () => {
    updates = []
    const c = await newContext()
    const p = await open(c, '/?_svc_click=not-a-uuid')
    await open(c, `/?click_id=${CLICK2.slice(0, -1)}`, p)
    await open(c, `/?_svc_click=${CLICK2}x`, p)
    await settle()
    expect(updates).toEqual([])
    expect(await c.cookies(STORE)).toEqual([])
    expect(await p.evaluate(() => localStorage.getItem('_svc_click'))).toBeNull()
  })

  test('(e) a failing /cart/update.js throws nothing into the page, sets no flag, and the next page tries again', async () => {
    updates = []
    cartStatus = 500
    const c = await newContext()
    const p = await open(c, `/?_svc_click=${CLICK}`)
    await waitFor('the cart update', () => updates.length > 0)
    await settle()
    expect(await flagOf(p)).toBeNull()
    cartStatus = 200
    await open(c, '/other-page', p)
    await waitFor('the second cart update', () => updates.length > 1)
    await p.waitForFunction((k) => sessionStorage.getItem(k) !== null, FLAG)
    expect(updates.map((u) => u.json)).toEqual([{ attributes: { _svc_click: CLICK.toLowerCase() } }, { attributes: { _svc_click: CLICK.toLowerCase() } }])
    // The store gone altogether (a network error): still nothing thrown into the page.
    const gone = await newContext()
    const q = await gone.newPage()
    q.on('pageerror', (e) => pageErrors.push(String(e)))
    await q.route('**/cart/update.js', (route) => route.abort('connectionreset'))
    await open(gone, `/?_svc_click=${CLICK}`, q)
    await settle()
    expect(await flagOf(q)).toBeNull()
  })
})

describe('the whole path: click → store → order webhook → sale', () => {
  const sign = (body: string) => createHmac('sha256', SECRET_A).update(body).digest('base64')

  test('a real click, the store page opened with its id, orders/paid carrying what the store received: one sale of that click', async () => {
    const res = await get(`${svc.base}/c/store`, { 'user-agent': DESKTOP_CHROME_UA })
    expect(res.status).toBe(302)
    const location = res.headers.get('location')!
    expect(location.startsWith(`${STORE}/?_svc_click=`)).toBe(true)
    const clickId = new URL(location).searchParams.get('_svc_click')!

    updates = []
    const context = await newContext()
    const p = await context.newPage()
    p.on('pageerror', (e) => pageErrors.push(String(e)))
    await p.goto(location)
    await waitFor('the cart update', () => updates.length > 0)
    await settle()
    expect(updates).toHaveLength(1)
    const received = updates[0]!.json as { attributes: Record<string, string> }
    expect(received).toEqual({ attributes: { _svc_click: clickId } })

    // The platform turns the cart's attributes into the order's note_attributes.
    const orderId = 5741234567890
    const body = JSON.stringify({
      id: orderId, email: 'buyer@example.com', currency: 'EUR', total_price: '42.50', financial_status: 'paid',
      landing_site: '/', referring_site: '', tags: '',
      note_attributes: Object.entries(received.attributes).map(([name, value]) => ({ name, value })),
      line_items: [{ title: 'Shirt', quantity: 1, price: '42.50' }],
    })
    const answer = await fetch(`${svc.base}/webhook/ecom-a`, {
      method: 'POST', body,
      headers: { 'content-type': 'application/json', 'x-shopify-topic': 'orders/paid', 'x-shopify-hmac-sha256': sign(body), 'x-shopify-webhook-id': `wh-${orderId}` },
    })
    expect({ status: answer.status, body: await answer.json() }).toEqual({ status: 200, body: { ok: true, outcome: 'attributed' } })

    const conversions = (await svc.api('GET', `/admin/api/conversions?click_id=${clickId}`)).body.items
    expect(conversions).toHaveLength(1)
    expect(conversions[0]).toMatchObject({ type: 'sale', revenue: 42.5, currency: 'EUR', transaction_id: `ecom-a:${orderId}` })
    const order = (await svc.api('GET', `/admin/api/orders?click_id=${clickId}`)).body.items
    expect(order).toHaveLength(1)
    expect(order[0]).toMatchObject({ source: 'ecom-a', external_id: String(orderId), click_id: clickId, total: 42.5, currency: 'EUR' })
  })
})
