// Issue 25, finding 5, on the engine under test: refunds and reversals never take back more than counted.
// Reversals are capped at what the sale counted minus what was reversed already; refund events never change
// an order's total; a refund that arrives before its payment is kept on the order and nets out when the
// payment counts (the sale of the payment, then one chargeback of the early refund); pay-a amounts that are
// not integer minor units are a visible error, never a silent 0; a refund in another currency moves no money;
// concurrent deliveries cannot both pass the cap.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import Stripe from 'stripe'
import { get, startServer, type TestServer } from '../helpers/server'
import { seeder, SERVER_TIMEOUT_MS } from '../tracking/seed'
import { startPayBApi, type PayBApi } from '../helpers/pay-b-api'

const SECRET_A = 'ecom-a-app-secret-reversals-0123'
const PAY_A_SECRET = 'whsec_reversals_0123456789abcdef'
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36'
const stripe = new Stripe('sk_test_dummy')

let s: TestServer
let payB: PayBApi
let n = 0

beforeAll(async () => {
  payB = startPayBApi()
  s = await startServer({ SVC_PAY_B_API: payB.base })
  const sd = seeder(s)
  const offer = await sd.offer('https://shop.example/?c={click_id}')
  await sd.campaign({ slug: 'rev', offers: [[offer, 1]] })
  expect((await s.api('PUT', '/admin/api/settings', { ecom_a_webhook_secret: SECRET_A, pay_a_ecom_webhook_secret: PAY_A_SECRET })).status).toBe(200)
}, SERVER_TIMEOUT_MS)
afterAll(async () => {
  await s?.destroy()
  payB?.stop()
})

async function newClick(): Promise<string> {
  const res = await get(`${s.base}/c/rev`, { 'user-agent': BROWSER })
  return new URL(res.headers.get('location')!).searchParams.get('c')!
}
const conversions = async (clickId: string) =>
  (await s.api('GET', `/admin/api/conversions?click_id=${clickId}`)).body.items
    .map((c: Record<string, unknown>) => [c.type, c.revenue, c.currency]).reverse()
const orderOf = async (clickId: string) => (await s.api('GET', `/admin/api/orders?click_id=${clickId}`)).body.items[0]
const eventsOf = async (order: string) => (await s.api('GET', `/admin/api/webhook-events?order=${order}`)).body.items

// ── senders ──

function ecomA(body: string, topic: string, webhookId: string) {
  const signature = createHmac('sha256', SECRET_A).update(body).digest('base64')
  return fetch(`${s.base}/webhook/ecom-a`, {
    method: 'POST', body, headers: { 'content-type': 'application/json', 'x-shopify-topic': topic, 'x-shopify-hmac-sha256': signature, 'x-shopify-webhook-id': webhookId },
  })
}
const shopOrder = (id: number, total: string, click: string) =>
  JSON.stringify({ id, email: 'buyer@example.com', currency: 'USD', total_price: total, financial_status: 'paid', note_attributes: [{ name: '_svc_click', value: click }] })

const payAEvent = (type: string, object: Record<string, unknown>, id = `evt_rev_${++n}`) =>
  JSON.stringify({ id, object: 'event', api_version: '2026-07-29.dahlia', created: 1700000000, livemode: false, type, data: { object } })
const intent = (id: string, clickId: string, amount: unknown, currency = 'usd') => ({
  id, object: 'payment_intent', amount, amount_received: amount, currency, status: 'succeeded', metadata: { _svc_click: clickId },
})
const charge = (intentId: string, amount: unknown, refunded: unknown, currency = 'usd') => ({
  id: `ch_${intentId}`, object: 'charge', payment_intent: intentId, amount, amount_refunded: refunded, refunded: false, currency, metadata: {},
})
async function payA(payload: string) {
  const header = await stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: PAY_A_SECRET })
  const res = await fetch(`${s.base}/webhook/pay-a-ecom`, { method: 'POST', body: payload, headers: { 'content-type': 'application/json', 'paya-signature': header } })
  return { status: res.status, body: await res.json() }
}

describe('ecom-a: a cancellation takes back what counted, not the total of a later update', () => {
  test('paid 10, then orders/updated with total 1000, then orders/cancelled → +10 and −10 (was −1000)', async () => {
    const click = await newClick()
    const id = 770001000 + ++n
    expect((await ecomA(shopOrder(id, '10.00', click), 'orders/paid', `wh-p-${id}`)).status).toBe(200)
    expect((await ecomA(shopOrder(id, '1000.00', click), 'orders/updated', `wh-u-${id}`)).status).toBe(200)
    expect((await orderOf(click)).total).toBe(1000)
    const cancelled = await ecomA(shopOrder(id, '1000.00', click), 'orders/cancelled', `wh-c-${id}`)
    expect({ status: cancelled.status, body: await cancelled.json() }).toEqual({ status: 200, body: { ok: true, outcome: 'attributed' } })
    expect(await conversions(click)).toEqual([['sale', 10, 'USD'], ['chargeback', -10, 'USD']])
    expect(await orderOf(click)).toMatchObject({ status: 'cancelled', total: 1000, counted: 10, counted_currency: 'USD', reversed: 10 })
    // A second cancellation (another webhook id) takes nothing more.
    expect((await ecomA(shopOrder(id, '1000.00', click), 'orders/cancelled', `wh-c2-${id}`)).status).toBe(200)
    expect(await conversions(click)).toHaveLength(2)
  })

  test('concurrent cancellations (10 webhook ids at once): one chargeback of what counted', async () => {
    const click = await newClick()
    const id = 770002000 + ++n
    await ecomA(shopOrder(id, '10.00', click), 'orders/paid', `wh-p-${id}`)
    await ecomA(shopOrder(id, '1000.00', click), 'orders/updated', `wh-u-${id}`)
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => ecomA(shopOrder(id, '1000.00', click), 'orders/cancelled', `wh-c-${id}-${i}`)))
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200))
    expect(await conversions(click)).toEqual([['sale', 10, 'USD'], ['chargeback', -10, 'USD']])
  })
})

describe('pay-a: charge.refunded never changes the total nor takes back more than counted', () => {
  test('paid 10.00, then a refund of 999,999.99 → −10 (was a total of 999,999.99 and −999,999.99)', async () => {
    const click = await newClick()
    const pi = `pi_rev_${++n}`
    expect(await payA(payAEvent('payment_intent.succeeded', intent(pi, click, 1000)))).toEqual({ status: 200, body: { ok: true, outcome: 'attributed' } })
    expect(await payA(payAEvent('charge.refunded', charge(pi, 99999999, 99999999)))).toEqual({ status: 200, body: { ok: true, outcome: 'attributed' } })
    expect(await conversions(click)).toEqual([['sale', 10, 'USD'], ['chargeback', -10, 'USD']])
    expect(await orderOf(click)).toMatchObject({ external_id: pi, total: 10, refunded: 10, counted: 10, reversed: 10 })
    const refundEvent = (await eventsOf(pi)).find((e: { topic: string }) => e.topic === 'charge.refunded')
    expect(refundEvent).toMatchObject({ outcome: 'attributed', error: 'the refunds reported (999999.99) exceed what the order counted (10)' })
    // Another refund event, larger still: nothing is left to take back.
    expect((await payA(payAEvent('charge.refunded', charge(pi, 199999999, 199999999)))).body.outcome).toBe('recorded')
    expect(await conversions(click)).toHaveLength(2)
    expect((await orderOf(click)).total).toBe(10)
  })

  test('concurrent refunds of one payment (different amounts and event ids): together never past what counted', async () => {
    const click = await newClick()
    const pi = `pi_rev_${++n}`
    await payA(payAEvent('payment_intent.succeeded', intent(pi, click, 1000)))
    // The charge claims 20.00 (more than the 10.00 that counted): neither its amount nor any refund raises the cap.
    const answers = await Promise.all([300, 600, 900, 1000, 1500, 2000].map((r) => payA(payAEvent('charge.refunded', charge(pi, 2000, r)))))
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200))
    const list = await conversions(click)
    expect(list[0]).toEqual(['sale', 10, 'USD'])
    const back = list.slice(1).reduce((sum: number, c: [string, number]) => sum + c[1], 0)
    expect(Math.round(back * 100) / 100).toBe(-10)
  })

  test('a refund in another currency than the sale moves no money (the error says so)', async () => {
    const click = await newClick()
    const pi = `pi_rev_${++n}`
    await payA(payAEvent('payment_intent.succeeded', intent(pi, click, 1000, 'eur')))
    expect(await payA(payAEvent('charge.refunded', charge(pi, 1000, 500, 'usd')))).toEqual({ status: 200, body: { ok: true, outcome: 'recorded' } })
    expect(await conversions(click)).toEqual([['sale', 10, 'EUR']])
    expect(await orderOf(click)).toMatchObject({ currency: 'EUR', total: 10, refunded: 0 })
    const refundEvent = (await eventsOf(pi)).find((e: { topic: string }) => e.topic === 'charge.refunded')
    expect(refundEvent.error).toBe('a refund in USD of an order in EUR: not counted (another currency)')
  })

  test('amounts that are not integer minor units (1.5, "1000", 2^53+2) are a visible error, not a sale of 0', async () => {
    const cases: Array<[string, unknown, string]> = [
      ['1.5', 1.5, 'amount_received 1.5 is not an integer amount in minor units: not counted'],
      ['"1000"', '1000', 'amount_received "1000" is not an integer amount in minor units: not counted'],
    ]
    for (const [, amount, error] of cases) {
      const click = await newClick()
      const pi = `pi_rev_${++n}`
      const eventId = `evt_bad_amount_${n}`
      expect(await payA(payAEvent('payment_intent.succeeded', intent(pi, click, amount), eventId))).toEqual({ status: 200, body: { ok: true, outcome: 'error' } })
      expect(await conversions(click)).toEqual([])
      expect(await orderOf(click)).toBeUndefined()
      const stored = (await s.api('GET', '/admin/api/webhook-events?source=pay-a&outcome=error')).body.items.find((e: { external_id: string }) => e.external_id === eventId)
      expect(stored).toMatchObject({ topic: 'payment_intent.succeeded', signature: 'valid', outcome: 'error', error })
    }
    // 2^53 + 2 as it is on the wire (no JSON number in JS can hold it).
    const click = await newClick()
    const pi = `pi_rev_${++n}`
    const eventId = `evt_bad_amount_${n}`
    const payload = payAEvent('payment_intent.succeeded', intent(pi, click, 1), eventId).replaceAll('"amount":1,', '"amount":9007199254740994,')
      .replace('"amount_received":1,', '"amount_received":9007199254740994,')
    expect(payload).toContain('"amount_received":9007199254740994,')
    expect(await payA(payload)).toEqual({ status: 200, body: { ok: true, outcome: 'error' } })
    expect(await conversions(click)).toEqual([])
    const stored = (await s.api('GET', '/admin/api/webhook-events?source=pay-a&outcome=error')).body.items.find((e: { external_id: string }) => e.external_id === eventId)
    expect(stored.error).toBe('amount_received "9007199254740994" is not an integer amount in minor units: not counted')
    // A refund with such an amount: an error too, and the counted sale stays whole.
    const good = await newClick()
    const pi2 = `pi_rev_${++n}`
    await payA(payAEvent('payment_intent.succeeded', intent(pi2, good, 1000)))
    expect(await payA(payAEvent('charge.refunded', charge(pi2, 1000, 2.5)))).toEqual({ status: 200, body: { ok: true, outcome: 'error' } })
    expect(await conversions(good)).toEqual([['sale', 10, 'USD']])
  })
})

describe('pay-b: a refund before its capture is kept and nets out', () => {
  const headers = {
    'PAYPAL-AUTH-ALGO': 'SHA256withRSA', 'PAYPAL-CERT-URL': 'https://api.paypal.com/v1/notifications/certs/CERT-1',
    'PAYPAL-TRANSMISSION-ID': '69cd13f0-d67a-11e5-baa3-778b53f4ae55', 'PAYPAL-TRANSMISSION-SIG': 'good-signature==',
    'PAYPAL-TRANSMISSION-TIME': '2026-03-01T10:00:01Z', 'content-type': 'application/json',
  }
  const capture = (id: string, clickId: string, value: string) => JSON.stringify({
    id: `WH-${id}`, event_type: 'PAYMENT.CAPTURE.COMPLETED', resource_type: 'capture',
    resource: { id, status: 'COMPLETED', amount: { currency_code: 'EUR', value }, custom_id: clickId },
  })
  const refund = (captureId: string, refundId: string, value: string) => JSON.stringify({
    id: `WH-${refundId}`, event_type: 'PAYMENT.CAPTURE.REFUNDED', resource_type: 'refund',
    resource: { id: refundId, status: 'COMPLETED', amount: { currency_code: 'EUR', value }, links: [{ rel: 'up', href: `https://api.paypal.com/v2/payments/captures/${captureId}`, method: 'GET' }] },
  })

  test('refund 5.00 first (a refund row, the order keeps it), then the capture of 19.99 → +19.99 and −5 (was +19.99 alone)', async () => {
    const acct = (await s.api('POST', '/admin/api/payment-accounts', { type: 'pay-b', name: 'PB', webhook_secret: payB.webhookId, client_id: 'client-1', client_secret: 'secret-1' })).body
    const post = async (body: string) => {
      const res = await fetch(`${s.base}/webhook/pay-b/${acct.account_id}`, { method: 'POST', body, headers })
      return { status: res.status, body: await res.json() }
    }
    const click = await newClick()
    const cap = `CAP-EARLY-${++n}`
    expect(await post(refund(cap, `REF-EARLY-${n}`, '5.00'))).toEqual({ status: 200, body: { ok: true, outcome: 'recorded' } })
    const early = (await s.api('GET', '/admin/api/orders?source=pay-b')).body.items.find((o: { external_id: string }) => o.external_id === cap)
    expect(early).toMatchObject({ refunded: 5, total: 0, conversion_id: null })
    const rows = async () => (await s.api('GET', `/admin/api/refunds?order_id=${early.id}`)).body.items.map((r: Record<string, unknown>) => [r.external_id, r.amount, r.currency])
    expect(await rows()).toEqual([[`REF-EARLY-${n}`, 5, 'EUR']])

    expect(await post(capture(cap, click, '19.99'))).toEqual({ status: 200, body: { ok: true, outcome: 'attributed' } })
    expect(await conversions(click)).toEqual([['sale', 19.99, 'EUR'], ['chargeback', -5, 'EUR']])
    expect(await orderOf(click)).toMatchObject({ external_id: cap, total: 19.99, refunded: 5 })
    // A later refund takes back at most what is left: 14.99.
    expect(await post(refund(cap, `REF-LATE-${n}`, '50.00'))).toEqual({ status: 200, body: { ok: true, outcome: 'attributed' } })
    expect(await conversions(click)).toEqual([['sale', 19.99, 'EUR'], ['chargeback', -5, 'EUR'], ['chargeback', -14.99, 'EUR']])
    expect(await rows()).toEqual([[`REF-LATE-${n}`, 14.99, 'EUR'], [`REF-EARLY-${n}`, 5, 'EUR']])
  })

  test('an early refund larger than the capture: the chargeback is capped at the sale', async () => {
    const acct = (await s.api('POST', '/admin/api/payment-accounts', { type: 'pay-b', name: 'PB2', webhook_secret: payB.webhookId, client_id: 'client-1', client_secret: 'secret-1' })).body
    const post = (body: string) => fetch(`${s.base}/webhook/pay-b/${acct.account_id}`, { method: 'POST', body, headers })
    const click = await newClick()
    const cap = `CAP-BIG-${++n}`
    expect((await post(refund(cap, `REF-BIG-${n}`, '30.00'))).status).toBe(200)
    expect((await post(capture(cap, click, '19.99'))).status).toBe(200)
    expect(await conversions(click)).toEqual([['sale', 19.99, 'EUR'], ['chargeback', -19.99, 'EUR']])
  })
})

describe('manual refunds respect what webhooks already took back', () => {
  test('after a cancellation reversed all of it, a manual refund books no second chargeback', async () => {
    const click = await newClick()
    const id = 770003000 + ++n
    await ecomA(shopOrder(id, '10.00', click), 'orders/paid', `wh-p-${id}`)
    await ecomA(shopOrder(id, '1000.00', click), 'orders/updated', `wh-u-${id}`)
    const order = await orderOf(click)
    // The total is 1000 now, but only 10 counted: the most that can be refunded is 10.
    expect(await s.api('POST', `/admin/api/orders/${order.id}/refund`, { amount: 20 }))
      .toMatchObject({ status: 400, body: { error: 'amount: must be more than 0 and at most 10 (what is left to refund)' } })
    expect((await s.api('POST', `/admin/api/orders/${order.id}/refund`, { amount: 4 })).status).toBe(200)
    await ecomA(shopOrder(id, '1000.00', click), 'orders/cancelled', `wh-c-${id}`)
    expect(await conversions(click)).toEqual([['sale', 10, 'USD'], ['chargeback', -4, 'USD'], ['chargeback', -6, 'USD']])
  })
})
