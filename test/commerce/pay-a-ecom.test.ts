// POST /webhook/pay-a-ecom (issue 11): PayA-Signature headers made by the payment processor's official SDK
// (stripe-node's async test-header helper, which works under Bun); events shaped like its documented
// objects (integer minor units, lowercase currencies, metadata). Pinned: 401 for each bad signature, a
// replayed timestamp refused, one conversion however often an event is delivered, partial refunds adding
// up and never past what was paid, and a refund that arrives before the payment.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Stripe from 'stripe'
import { get, startServer, type TestServer } from '../helpers/server'
import { seeder, SERVER_TIMEOUT_MS } from '../tracking/seed'
import { testDb } from '../helpers/db'

const SECRET = 'whsec_test_0123456789abcdefghijklmnop'
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36'
const stripe = new Stripe('sk_test_dummy')

let s: TestServer
let n = 0

beforeAll(async () => {
  s = await startServer()
  const sd = seeder(s)
  const offer = await sd.offer('https://shop.example/?c={click_id}')
  await sd.campaign({ slug: 'pay', offers: [[offer, 1]] })
  expect((await s.api('PUT', '/admin/api/settings', { pay_a_ecom_webhook_secret: SECRET })).status).toBe(200)
}, SERVER_TIMEOUT_MS)
afterAll(async () => {
  await s?.destroy()
})

async function newClick(): Promise<string> {
  const res = await get(`${s.base}/c/pay`, { 'user-agent': BROWSER })
  return new URL(res.headers.get('location')!).searchParams.get('c')!
}

const event = (type: string, object: Record<string, unknown>, id = `evt_${++n}`) =>
  JSON.stringify({ id, object: 'event', api_version: '2026-07-29.dahlia', created: 1700000000, livemode: false, type, data: { object } })
const intent = (id: string, clickId: string | null, amount = 2000, currency = 'eur') => ({
  id, object: 'payment_intent', amount, amount_received: amount, currency, status: 'succeeded', receipt_email: 'payer@example.com',
  metadata: clickId ? { _svc_click: clickId } : {},
})
const charge = (intentId: string, amount: number, refunded: number, currency = 'eur') => ({
  id: `ch_${intentId}`, object: 'charge', payment_intent: intentId, amount, amount_refunded: refunded, refunded: refunded >= amount, currency, metadata: {},
})

async function deliver(payload: string, opts: { secret?: string; timestamp?: number; header?: string } = {}) {
  const signature = opts.header ?? await stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: opts.secret ?? SECRET, timestamp: opts.timestamp })
  const res = await fetch(`${s.base}/webhook/pay-a-ecom`, { method: 'POST', body: payload, headers: { 'content-type': 'application/json', 'paya-signature': signature } })
  return { status: res.status, body: await res.json() }
}
const conversions = async (clickId: string) =>
  (await s.api('GET', `/admin/api/conversions?click_id=${clickId}`)).body.items.map((c: Record<string, unknown>) => [c.type, c.revenue, c.currency]).reverse()

describe('POST /webhook/pay-a-ecom', () => {
  test('signatures: the SDK\'s header is accepted; a wrong secret, a missing header, a tampered body and a replayed timestamp are 401', async () => {
    const payload = event('payment_intent.succeeded', intent(`pi_${++n}`, null))
    expect(await deliver(payload)).toEqual({ status: 200, body: { ok: true, outcome: 'unattributed' } })
    expect(await deliver(payload, { secret: 'whsec_other' })).toEqual({ status: 401, body: { error: 'invalid signature' } })
    const res = await fetch(`${s.base}/webhook/pay-a-ecom`, { method: 'POST', body: payload })
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 401, body: { error: 'missing signature' } })
    const header = await stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: SECRET })
    expect(await deliver(payload.replace('"amount":2000', '"amount":2001'), { header })).toEqual({ status: 401, body: { error: 'invalid signature' } })
    const old = Math.floor(Date.now() / 1000) - 301
    expect(await deliver(payload, { timestamp: old })).toEqual({ status: 401, body: { error: 'signature timestamp outside the 5-minute tolerance' } })
    // Several v1 signatures (a secret being rolled): any one may match.
    const good = header.split(',').find((p) => p.startsWith('v1='))!
    const t = header.split(',').find((p) => p.startsWith('t='))!
    expect((await deliver(payload, { header: `${t},v1=${'0'.repeat(64)},${good}` })).status).toBe(200)
  })

  test('payment_intent.succeeded counts once in the currency\'s units; 25 redeliveries change nothing; a failed payment moves no money', async () => {
    const click = await newClick()
    const pi = `pi_${++n}`
    const payload = event('payment_intent.succeeded', intent(pi, click, 2000, 'eur'))
    for (let i = 0; i < 25; i++) expect((await deliver(payload)).status).toBe(200)
    expect(await conversions(click)).toEqual([['sale', 20, 'EUR']])
    const yen = await newClick()
    await deliver(event('payment_intent.succeeded', intent(`pi_${++n}`, yen, 5000, 'jpy')))
    expect(await conversions(yen)).toEqual([['sale', 5000, 'JPY']])
    const failed = await newClick()
    expect((await deliver(event('payment_intent.payment_failed', { ...intent(`pi_${++n}`, failed), status: 'requires_payment_method' }))).body.outcome).toBe('recorded')
    expect(await conversions(failed)).toEqual([])
  })

  test('order states are the spec\'s: payment_failed → failed (status filter too); a retry that succeeds → paid and counts; a late failure leaves paid', async () => {
    const orderOf = async (clickId: string) => (await s.api('GET', `/admin/api/orders?click_id=${clickId}`)).body.items.map((o: Record<string, unknown>) => [o.external_id, o.status])
    const retried = await newClick()
    const pi = `pi_${++n}`
    const failure = event('payment_intent.payment_failed', { ...intent(pi, retried), status: 'requires_payment_method', amount_received: 0 })
    expect(await deliver(failure)).toEqual({ status: 200, body: { ok: true, outcome: 'recorded' } })
    expect(await orderOf(retried)).toEqual([[pi, 'failed']])
    const failedIds = (await s.api('GET', '/admin/api/orders?status=failed')).body.items.map((o: { external_id: string }) => o.external_id)
    expect(failedIds).toContain(pi)
    expect((await s.api('GET', '/admin/api/orders?status=payment_failed')).body.items).toEqual([])
    // Another card: the same payment intent succeeds; the order is paid and counts once.
    expect(await deliver(event('payment_intent.succeeded', intent(pi, retried)))).toEqual({ status: 200, body: { ok: true, outcome: 'attributed' } })
    expect(await orderOf(retried)).toEqual([[pi, 'paid']])
    expect(await conversions(retried)).toEqual([['sale', 20, 'EUR']])
    // The first attempt's failure delivered again, late (another event id): the paid order stays paid.
    expect((await deliver(event('payment_intent.payment_failed', { ...intent(pi, retried), status: 'requires_payment_method' }))).status).toBe(200)
    expect(await orderOf(retried)).toEqual([[pi, 'paid']])
    expect(await conversions(retried)).toEqual([['sale', 20, 'EUR']])
  })

  test('charge.refunded: partial refunds add up, never past what was paid', async () => {
    const click = await newClick()
    const pi = `pi_${++n}`
    await deliver(event('payment_intent.succeeded', intent(pi, click, 10000)))
    await deliver(event('charge.refunded', charge(pi, 10000, 2500)))
    await deliver(event('charge.refunded', charge(pi, 10000, 2500))) // the same state again, another event id
    await deliver(event('charge.refunded', charge(pi, 10000, 6000)))
    await deliver(event('charge.refunded', charge(pi, 10000, 99999)))
    expect(await conversions(click)).toEqual([['sale', 100, 'EUR'], ['chargeback', -25, 'EUR'], ['chargeback', -35, 'EUR'], ['chargeback', -40, 'EUR']])
    const order = (await s.api('GET', `/admin/api/orders?click_id=${click}`)).body.items[0]
    expect(order).toMatchObject({ source: 'pay-a', external_id: pi, status: 'refunded', total: 100, refunded: 100 })
  })

  test('out of order: a partial refund before the payment nets out when it counts; a full one means it never counts', async () => {
    const partial = await newClick()
    const pi = `pi_${++n}`
    expect((await deliver(event('charge.refunded', charge(pi, 4000, 1000)))).body.outcome).toBe('recorded')
    expect((await deliver(event('payment_intent.succeeded', intent(pi, partial, 4000)))).body.outcome).toBe('attributed')
    expect(await conversions(partial)).toEqual([['sale', 40, 'EUR'], ['chargeback', -10, 'EUR']])
    const full = await newClick()
    const pi2 = `pi_${++n}`
    await deliver(event('charge.refunded', charge(pi2, 4000, 4000)))
    await deliver(event('payment_intent.succeeded', intent(pi2, full, 4000)))
    expect(await conversions(full)).toEqual([])
  })

  test('customer.subscription.*: the subscription row follows (created, updated, deleted); other types are stored as ignored', async () => {
    const click = await newClick()
    const sub = (status: string, extra: Record<string, unknown> = {}) => ({
      id: 'sub_1abc', object: 'subscription', customer: 'cus_9', status, metadata: { _svc_click: click, email: 'sub@example.com' },
      items: { data: [{ current_period_end: 1800000000 }] }, ...extra,
    })
    expect(await deliver(event('customer.subscription.created', sub('active')))).toEqual({ status: 200, body: { ok: true, outcome: 'recorded' } })
    await deliver(event('customer.subscription.updated', sub('past_due')))
    await deliver(event('customer.subscription.deleted', sub('canceled', { canceled_at: 1790000000 })))
    const rows = await testDb(s).all('SELECT source, external_id, customer_external_id, email, status, click_id, current_period_end, canceled_at FROM subscriptions')
    expect(rows).toEqual([{
      source: 'pay-a', external_id: 'sub_1abc', customer_external_id: 'cus_9', email: 'sub@example.com', status: 'canceled', click_id: click,
      current_period_end: 1800000000_000, canceled_at: 1790000000_000,
    }])
    const id = `evt_other_${++n}`
    expect(await deliver(event('invoice.paid', { id: 'in_1', object: 'invoice' }, id))).toEqual({ status: 200, body: { ok: true, outcome: 'ignored' } })
    const stored = (await s.api('GET', '/admin/api/webhook-events?source=pay-a&outcome=ignored')).body.items.find((e: { external_id: string }) => e.external_id === id)
    expect(stored).toMatchObject({ topic: 'invoice.paid', signature: 'valid', error: 'event type invoice.paid is not handled' })
  })
})

describe('POST /admin/api/orders/:id/refund (by hand)', () => {
  test('part, then the rest, each with its negative conversion; never more than is left; 404; the order of a store without a click', async () => {
    const click = await newClick()
    const pi = `pi_manual_${++n}`
    await deliver(event('payment_intent.succeeded', intent(pi, click, 10000)))
    const order = (await s.api('GET', `/admin/api/orders?click_id=${click}`)).body.items[0]
    expect(await s.api('POST', `/admin/api/orders/${order.id}/refund`, { amount: 30 })).toMatchObject({
      status: 200, body: { order_id: order.id, amount: 30, refunded_total: 30, status: 'partially_refunded', conversion_id: expect.any(Number) },
    })
    expect(await s.api('POST', `/admin/api/orders/${order.id}/refund`, { amount: 80 }))
      .toMatchObject({ status: 400, body: { error: 'amount: must be more than 0 and at most 70 (what is left to refund)' } })
    expect((await s.api('POST', `/admin/api/orders/${order.id}/refund`, {})).body).toMatchObject({ amount: 70, refunded_total: 100, status: 'refunded' })
    expect(await s.api('POST', `/admin/api/orders/${order.id}/refund`, {})).toMatchObject({ status: 400, body: { error: 'amount: nothing is left to refund on this order' } })
    expect(await conversions(click)).toEqual([['sale', 100, 'EUR'], ['chargeback', -30, 'EUR'], ['chargeback', -70, 'EUR']])
    const refunds = (await s.api('GET', `/admin/api/refunds?order_id=${order.id}`)).body.items.map((r: { amount: number }) => r.amount)
    expect(refunds).toEqual([70, 30])
    // A later charge.refunded of the same money changes nothing: the order is refunded already.
    await deliver(event('charge.refunded', charge(pi, 10000, 10000)))
    expect(await conversions(click)).toHaveLength(3)
    expect(await s.api('POST', '/admin/api/orders/999999/refund', {})).toMatchObject({ status: 404, body: { error: 'order not found' } })
  })
})
