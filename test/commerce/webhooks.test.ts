// The e-commerce receivers over HTTP (issue 11, first part), on the engine under test: signatures (each
// header name, the legacy key, 401s), the click id's sources and their priority, an order counting once
// however often it is delivered, cancellation, out-of-order events, the 2 MB limit, concurrent duplicates,
// and ecom-b's ping, note and meta data.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { get, startServer, type TestServer } from '../helpers/server'
import { seeder, SERVER_TIMEOUT_MS } from '../tracking/seed'

const SECRET_A = 'ecom-a-app-secret-0123456789'
const SECRET_B = 'ecom-b-webhook-secret-9876543210'
const KEY_A = 'legacy-key-abcdefghijklmnop'
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36'

let s: TestServer
let campaign: number
let n = 0

beforeAll(async () => {
  s = await startServer()
  const sd = seeder(s)
  const offer = await sd.offer('https://shop.example/?c={click_id}')
  campaign = await sd.campaign({ slug: 'shop', offers: [[offer, 1]] })
  expect((await s.api('PUT', '/admin/api/settings', { ecom_a_webhook_secret: SECRET_A, ecom_a_webhook_key: KEY_A, ecom_b_webhook_secret: SECRET_B })).status).toBe(200)
}, SERVER_TIMEOUT_MS)
afterAll(async () => {
  await s?.destroy()
})

async function newClick(): Promise<string> {
  const res = await get(`${s.base}/c/shop`, { 'user-agent': BROWSER })
  return new URL(res.headers.get('location')!).searchParams.get('c')!
}

const sign = (secret: string, body: string | Uint8Array) => createHmac('sha256', secret).update(body).digest('base64')
const orderId = () => 450789000 + ++n

function ecomA(body: string, topic: string, headers: Record<string, string> = {}, query = '') {
  return fetch(`${s.base}/webhook/ecom-a${query}`, {
    method: 'POST', body,
    headers: { 'content-type': 'application/json', 'x-shopify-topic': topic, 'x-shopify-hmac-sha256': sign(SECRET_A, body), ...headers },
  })
}
function ecomB(body: string, topic: string, headers: Record<string, string> = {}) {
  return fetch(`${s.base}/webhook/ecom-b`, {
    method: 'POST', body, headers: { 'content-type': 'application/json', 'x-wc-webhook-topic': topic, 'x-wc-webhook-signature': sign(SECRET_B, body), ...headers },
  })
}
const answer = async (res: Response) => ({ status: res.status, body: await res.json() })
const conversions = async (clickId: string) =>
  (await s.api('GET', `/admin/api/conversions?click_id=${clickId}`)).body.items.map((c: Record<string, unknown>) => [c.type, c.revenue, c.currency, c.transaction_id])
const events = async (order: number) => (await s.api('GET', `/admin/api/webhook-events?order=${order}`)).body.items

/** A Shopify-shaped order (the documented sample's fields). */
const shopOrder = (id: number, extra: Record<string, unknown> = {}) => JSON.stringify({
  id, email: 'bob.norman@mail.example.com', currency: 'USD', total_price: '598.94', current_total_price: '598.94',
  landing_site: 'http://www.example.com?source=abc', referring_site: 'http://www.otherexample.com', tags: '',
  note_attributes: [{ name: 'custom engraving', value: 'Happy Birthday' }], customer: { id: 207119551, email: 'bob.norman@mail.example.com' },
  financial_status: 'pending', line_items: [{ properties: [] }], ...extra,
})

describe('POST /webhook/ecom-a: signatures', () => {
  test('X-EcomA-Hmac-SHA256 and the platform\'s X-Shopify-Hmac-Sha256 are both accepted; a wrong one is 401', async () => {
    const click = await newClick()
    const body = shopOrder(orderId(), { note_attributes: [{ name: '_svc_click', value: click }] })
    const ours = await fetch(`${s.base}/webhook/ecom-a`, { method: 'POST', body, headers: { 'x-ecoma-hmac-sha256': sign(SECRET_A, body), 'x-ecoma-topic': 'orders/create' } })
    expect(await answer(ours)).toEqual({ status: 200, body: { ok: true, outcome: 'attributed' } })
    expect(await answer(await ecomA(body, 'orders/paid'))).toEqual({ status: 200, body: { ok: true, outcome: 'recorded' } })
    expect(await answer(await ecomA(body, 'orders/create', { 'x-shopify-hmac-sha256': sign('another-secret', body) }))).toEqual({ status: 401, body: { error: 'invalid signature' } })
    // One byte of the body changed: the signature no longer matches.
    expect((await ecomA(body.replace('598.94', '598.95'), 'orders/create', { 'x-shopify-hmac-sha256': sign(SECRET_A, body) })).status).toBe(401)
    expect(await answer(await fetch(`${s.base}/webhook/ecom-a`, { method: 'POST', body }))).toEqual({ status: 401, body: { error: 'missing signature' } })
  })

  test('the HMAC is accepted as base64 or lowercase hex (spec §5 leaves the encoding open), in either header; uppercase hex or a wrong hex is 401', async () => {
    const click = await newClick()
    const body = shopOrder(orderId(), { note_attributes: [{ name: '_svc_click', value: click }] })
    const hex = createHmac('sha256', SECRET_A).update(body).digest('hex')
    const send = (name: string, value: string, topic: string) =>
      fetch(`${s.base}/webhook/ecom-a`, { method: 'POST', body, headers: { [name]: value, 'x-ecoma-topic': topic } }).then(answer)
    expect(await send('x-ecoma-hmac-sha256', hex, 'orders/create')).toEqual({ status: 200, body: { ok: true, outcome: 'attributed' } })
    expect(await send('x-shopify-hmac-sha256', hex, 'orders/paid')).toEqual({ status: 200, body: { ok: true, outcome: 'recorded' } })
    expect(await send('x-ecoma-hmac-sha256', sign(SECRET_A, body), 'orders/fulfilled')).toEqual({ status: 200, body: { ok: true, outcome: 'recorded' } })
    expect(await send('x-ecoma-hmac-sha256', hex.toUpperCase(), 'orders/updated')).toEqual({ status: 401, body: { error: 'invalid signature' } })
    const wrong = createHmac('sha256', 'another-secret').update(body).digest('hex')
    expect(await send('x-ecoma-hmac-sha256', wrong, 'orders/updated')).toEqual({ status: 401, body: { error: 'invalid signature' } })
    expect(await send('x-shopify-hmac-sha256', hex.slice(0, 63) + (hex.endsWith('0') ? '1' : '0'), 'orders/updated')).toEqual({ status: 401, body: { error: 'invalid signature' } })
    expect(await conversions(click)).toEqual([['sale', 598.94, 'USD', `ecom-a:${JSON.parse(body).id}`]])
  })

  test('the legacy ?key= is compared to ecom_a_webhook_key, only while no HMAC secret is set', async () => {
    const body = shopOrder(orderId())
    // With ecom_a_webhook_secret set, even the right key is refused: deliveries must be signed.
    const refused = await fetch(`${s.base}/webhook/ecom-a?key=${KEY_A}`, { method: 'POST', body, headers: { 'x-shopify-topic': 'orders/create' } })
    expect(await answer(refused)).toEqual({
      status: 401, body: { error: 'the legacy ?key= is refused while ecom_a_webhook_secret is set: deliveries must be signed (X-EcomA-Hmac-SHA256)' },
    })
    expect((await s.api('PUT', '/admin/api/settings', { ecom_a_webhook_secret: null })).status).toBe(200)
    try {
      await legacyKey(body)
    } finally {
      expect((await s.api('PUT', '/admin/api/settings', { ecom_a_webhook_secret: SECRET_A })).status).toBe(200)
    }
  })

  async function legacyKey(body: string) {
    const ok = await fetch(`${s.base}/webhook/ecom-a?key=${KEY_A}`, { method: 'POST', body, headers: { 'x-shopify-topic': 'orders/create' } })
    expect(await answer(ok)).toEqual({ status: 200, body: { ok: true, outcome: 'unattributed' } })
    const bad = await fetch(`${s.base}/webhook/ecom-a?key=wrong`, { method: 'POST', body, headers: { 'x-shopify-topic': 'orders/create' } })
    expect(await answer(bad)).toEqual({ status: 401, body: { error: 'invalid signature' } })
    const rejected = (await s.api('GET', '/admin/api/webhook-events?outcome=rejected')).body.items
    expect(rejected[0]).toMatchObject({ source: 'ecom-a', signature: 'invalid', outcome: 'rejected', error: 'invalid signature' })
  }
})

describe('POST /webhook/ecom-a: the click id', () => {
  test('each source alone, and the spec\'s priority: note_attributes, landing_site, referring_site, tags', async () => {
    const [a, b, c, d] = [await newClick(), await newClick(), await newClick(), await newClick()]
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ note_attributes: [{ name: '_svc_click', value: a }], landing_site: `/?click_id=${b}`, referring_site: `https://x.example/?ref=${c}`, tags: `svc:${d}` }, a],
      [{ landing_site: `/products/x?utm_source=fb&_svc_click=${b}`, referring_site: `https://x.example/?ref=${c}`, tags: `svc:${d}` }, b],
      [{ landing_site: `/?ref=${b}` }, b],
      [{ note_attributes: [{ name: '_svc_click', value: 'not-a-click-id' }], referring_site: `https://x.example/?click_id=${c}`, tags: d }, c],
      [{ tags: `vip, _svc_click:${d.toUpperCase()}, wholesale` }, d],
    ]
    for (const [fields, expected] of cases) {
      const id = orderId()
      expect((await answer(await ecomA(shopOrder(id, fields), 'orders/create'))).body.outcome).toBe('attributed')
      const order = (await s.api('GET', `/admin/api/orders?click_id=${expected}`)).body.items.find((o: { external_id: string }) => o.external_id === String(id))
      expect(order).toMatchObject({ source: 'ecom-a', external_id: String(id), click_id: expected, total: 598.94, currency: 'USD', email: 'bob.norman@mail.example.com' })
    }
  })

  test('no click id, or an unknown one: 200, stored as unattributed with the reason, no conversion', async () => {
    const none = orderId()
    expect(await answer(await ecomA(shopOrder(none), 'orders/create'))).toEqual({ status: 200, body: { ok: true, outcome: 'unattributed' } })
    expect((await events(none))[0]).toMatchObject({ outcome: 'unattributed', error: 'no click id in the order', topic: 'orders/create', signature: 'valid' })
    const unknown = orderId()
    const ghost = '6f1c2d3e-4a5b-4c6d-8e7f-0a1b2c3d4e5f'
    await ecomA(shopOrder(unknown, { landing_site: `/?click_id=${ghost}` }), 'orders/create')
    expect((await events(unknown))[0]).toMatchObject({ outcome: 'unattributed', error: `click ${ghost} not found`, click_id: ghost })
  })
})

describe('POST /webhook/ecom-a: money, once', () => {
  test('order ids past 2^53 keep every digit: two orders that JSON numbers would merge are two sales', async () => {
    // 9007199254740993 and 9007199254740992 are the same double: read as numbers, the second order would
    // have been taken for a redelivery of the first.
    const click = await newClick()
    const ids = ['9007199254740993', '9007199254740992']
    for (const id of ids) {
      const body = shopOrder(0, { note_attributes: [{ name: '_svc_click', value: click }] }).replace('"id":0,', `"id":${id},`)
      expect(body).toContain(`{"id":${id},`)
      expect((await ecomA(body, 'orders/paid', { 'x-shopify-webhook-id': `wh-big-${id}` })).status).toBe(200)
    }
    expect((await conversions(click)).sort()).toEqual(ids.map((id) => ['sale', 598.94, 'USD', `ecom-a:${id}`]).sort())
    for (const id of ids) {
      const orders = (await s.api('GET', `/admin/api/orders?click_id=${click}`)).body.items as Array<{ external_id: string }>
      expect(orders.map((o) => o.external_id)).toContain(id)
    }
  })

  test('create and paid count once; 25 redeliveries change nothing; cancelled reverses once; fulfilled moves no money', async () => {
    const click = await newClick()
    const id = orderId()
    const body = shopOrder(id, { note_attributes: [{ name: '_svc_click', value: click }] })
    for (let i = 0; i < 25; i++) expect((await ecomA(body, 'orders/create', { 'x-shopify-webhook-id': `wh-create-${id}` })).status).toBe(200)
    await ecomA(body, 'orders/paid', { 'x-shopify-webhook-id': `wh-paid-${id}` })
    await ecomA(body, 'orders/fulfilled', { 'x-shopify-webhook-id': `wh-ful-${id}` })
    expect(await conversions(click)).toEqual([['sale', 598.94, 'USD', `ecom-a:${id}`]])
    const created = (await events(id)).find((e: { topic: string }) => e.topic === 'orders/create')
    expect(created).toMatchObject({ deliveries: 25, outcome: 'attributed' })
    await ecomA(body, 'orders/cancelled', { 'x-shopify-webhook-id': `wh-cancel-${id}` })
    await ecomA(body, 'orders/cancelled', { 'x-shopify-webhook-id': `wh-cancel-again-${id}` })
    expect(await conversions(click)).toEqual([['chargeback', -598.94, 'USD', `ecom-a:${id}:reversal`], ['sale', 598.94, 'USD', `ecom-a:${id}`]])
    const report = (await s.api('GET', `/admin/api/reports?group_by=campaign&campaign_id=${campaign}`)).body.rows[0]
    expect(report.types).toMatchObject({ sale: expect.any(Number), chargeback: expect.any(Number) })
  })

  test('out of order: a cancellation before the order\'s create means the order never counts', async () => {
    const click = await newClick()
    const id = orderId()
    const body = shopOrder(id, { note_attributes: [{ name: '_svc_click', value: click }] })
    expect((await answer(await ecomA(body, 'orders/cancelled'))).body.outcome).toBe('recorded')
    expect((await answer(await ecomA(body, 'orders/create'))).body.outcome).toBe('recorded')
    expect(await conversions(click)).toEqual([])
    expect((await s.api('GET', `/admin/api/orders?click_id=${click}`)).body.items[0]).toMatchObject({ status: 'cancelled', conversion_id: null })
  })

  test('concurrent duplicate deliveries: one conversion', async () => {
    const click = await newClick()
    const id = orderId()
    const body = shopOrder(id, { note_attributes: [{ name: '_svc_click', value: click }] })
    const answers = await Promise.all(Array.from({ length: 10 }, () => ecomA(body, 'orders/paid', { 'x-shopify-webhook-id': `wh-race-${id}` })))
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200))
    expect(await conversions(click)).toHaveLength(1)
  })

  test('a body that is not JSON is stored as ignored (200); 2 MB is read, one byte more is 413 and nothing is stored', async () => {
    expect(await answer(await ecomA('not json', 'orders/create'))).toEqual({ status: 200, body: { ok: true, outcome: 'ignored' } })
    const id = orderId()
    const base = shopOrder(id, { pad: '' })
    const exact = base.replace('"pad":""', `"pad":"${'x'.repeat(2 * 1024 * 1024 - base.length)}"`)
    expect(new TextEncoder().encode(exact).length).toBe(2 * 1024 * 1024)
    expect(await answer(await ecomA(exact, 'orders/create'))).toEqual({ status: 200, body: { ok: true, outcome: 'unattributed' } })
    const over = exact.replace('"pad":"x', '"pad":"xx')
    expect(await answer(await ecomA(over, 'orders/updated'))).toEqual({ status: 413, body: { error: 'request body too large (at most 2097152 bytes)' } })
    expect((await events(id)).map((e: { topic: string }) => e.topic)).toEqual(['orders/create'])
  })
})

describe('POST /webhook/ecom-b', () => {
  const wooOrder = (id: number, status: string, extra: Record<string, unknown> = {}) => JSON.stringify({
    id, status, currency: 'EUR', total: '29.35', customer_note: '', billing: { email: 'john.doe@example.com' },
    meta_data: [{ id: 13106, key: '_download_permissions_granted', value: 'yes' }], ...extra,
  })

  test('the save-time ping gets exactly 200; a bad or missing signature is 401', async () => {
    const ping = await fetch(`${s.base}/webhook/ecom-b`, { method: 'POST', body: 'webhook_id=17', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expect(ping.status).toBe(200)
    const body = wooOrder(orderId(), 'processing')
    expect(await answer(await ecomB(body, 'order.created', { 'x-wc-webhook-signature': sign('nope', body) }))).toEqual({ status: 401, body: { error: 'invalid signature' } })
    expect((await fetch(`${s.base}/webhook/ecom-b`, { method: 'POST', body })).status).toBe(401)
    // Our own header name works as well as the platform's.
    const ours = await fetch(`${s.base}/webhook/ecom-b`, { method: 'POST', body, headers: { 'x-ecomb-webhook-signature': sign(SECRET_B, body), 'x-ecomb-webhook-topic': 'order.created' } })
    expect(ours.status).toBe(200)
  })

  test('customer_note first, then meta_data; processing counts once, refunded reverses', async () => {
    const [a, b] = [await newClick(), await newClick()]
    const id = orderId()
    const body = (status: string) => wooOrder(id, status, { customer_note: `Please gift-wrap. _svc_click=${a}`, meta_data: [{ key: '_svc_click', value: b }] })
    expect((await answer(await ecomB(body('pending'), 'order.created'))).body.outcome).toBe('recorded')
    expect((await answer(await ecomB(body('processing'), 'order.updated'))).body.outcome).toBe('attributed')
    expect((await answer(await ecomB(body('processing'), 'order.updated'))).body).toEqual({ ok: true, outcome: 'recorded', duplicate: true })
    expect((await answer(await ecomB(body('completed'), 'order.updated'))).body.outcome).toBe('recorded')
    expect(await conversions(a)).toEqual([['sale', 29.35, 'EUR', `ecom-b:${id}`]])
    expect((await answer(await ecomB(body('refunded'), 'order.updated'))).body.outcome).toBe('attributed')
    expect(await conversions(a)).toEqual([['chargeback', -29.35, 'EUR', `ecom-b:${id}:reversal`], ['sale', 29.35, 'EUR', `ecom-b:${id}`]])
    const metaOnly = orderId()
    await ecomB(wooOrder(metaOnly, 'completed', { meta_data: [{ key: '_svc_click', value: b }] }), 'order.created')
    expect(await conversions(b)).toEqual([['sale', 29.35, 'EUR', `ecom-b:${metaOnly}`]])
  })
})

describe('/storefront.js', () => {
  test('served with a cache lifetime, a strong ETag and 304', async () => {
    const res = await get(`${s.base}/storefront.js`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600')
    const etag = res.headers.get('etag')!
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/)
    expect(await res.text()).toContain('/cart/update.js')
    expect((await get(`${s.base}/storefront.js`, { 'if-none-match': etag })).status).toBe(304)
  })
})
