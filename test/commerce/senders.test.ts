// Each sender's verification and reading (src/commerce/senders/*.ts) as plain data, and the one parsing
// module (parse.ts); then, over HTTP, that an order in three letters that are not an ISO 4217 code keeps its
// money in that currency (neither dropped nor counted in the offer's currency).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import type { SettingsStore } from '../../src/settings/store'
import { currencyOf, decimalReader, readMinorUnits, toMinorUnits } from '../../src/commerce/parse'
import type { Delivery } from '../../src/commerce/senders/delivery'
import { ecomAClick, readEcomA, verifyEcomA } from '../../src/commerce/senders/ecom-a'
import { ecomBClick, ecomBPing, readEcomB, verifyEcomB } from '../../src/commerce/senders/ecom-b'
import { payARefusal, payASignature, readPayA } from '../../src/commerce/senders/pay-a'
import { payBAmbiguity, readPayB } from '../../src/commerce/senders/pay-b'
import { get, startServer, type TestServer } from '../helpers/server'
import { seeder, SERVER_TIMEOUT_MS } from '../tracking/seed'

const CLICK = '3f6c2a9e-8b1d-4c7e-9a2f-5d4b3c2a1e0f'
const te = new TextEncoder()
const settings = (values: Record<string, string | null>) => ({ get: (k: string) => values[k] ?? null }) as unknown as SettingsStore
const delivery = (body: string | object, headers: Record<string, string> = {}, query = '', more: Partial<Delivery> = {}): Delivery => ({
  body: te.encode(typeof body === 'string' ? body : JSON.stringify(body)), headers: new Headers(headers), query: new URLSearchParams(query), ...more,
})
const b64 = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('base64')

describe('parse.ts', () => {
  test('currencies: an ISO code upper-cased; three letters that are not ISO kept as sent (upper-cased); anything else null', () => {
    expect(['usd', ' EUR ', 'jpy', 'xyz', 'XYZ', 'US', 'EURO', 'E1R', 5, null, undefined].map(currencyOf))
      .toEqual(['USD', 'EUR', 'JPY', 'XYZ', 'XYZ', null, null, null, null, null, null])
  })

  test('decimal amounts in each sender\'s form; anything else reads 0', () => {
    const store = decimalReader(12, false)
    const payB = decimalReader(15, true)
    const inputs = ['12.50', ' 7 ', '.5', '-3.25', '1234567890123', '123456789012345', '1.123456789', '1e3', 'abc', 4.2, null]
    expect(inputs.map(store)).toEqual([12.5, 7, 0, -3.25, 0, 0, 0, 0, 0, 4.2, 0])
    expect(inputs.map(payB)).toEqual([12.5, 7, 0.5, -3.25, 1234567890123, 123456789012345, 0, 0, 0, 4.2, 0])
  })

  test('minor units by the currency\'s exponent, both ways', () => {
    expect([readMinorUnits(2000, 'EUR'), readMinorUnits(500, 'JPY'), readMinorUnits(1234, 'KWD'), readMinorUnits(1.5, 'EUR'), readMinorUnits('100', 'EUR'), readMinorUnits(-1, 'EUR')])
      .toEqual([20, 500, 1.234, null, null, null])
    expect([toMinorUnits(19.99, 'USD'), toMinorUnits(500, 'JPY'), toMinorUnits(1.234, 'BHD')]).toEqual([1999, 500, 1234])
  })
})

describe('senders/ecom-a.ts', () => {
  const secret = 'ecom-a-app-secret-0123456789'
  const body = JSON.stringify({ id: 1001, currency: 'eur', total_price: '49.90', customer: { email: 'Ann@Example.com' }, tags: `svc:${CLICK.toUpperCase()}` })

  test('verify: base64 or hex HMAC in either header; the legacy key only while no secret is set, never when throttled', () => {
    const hex = createHmac('sha256', secret).update(body).digest('hex')
    const s = settings({ ecom_a_webhook_secret: secret, ecom_a_webhook_key: 'legacy-key' })
    const legacyOnly = settings({ ecom_a_webhook_key: 'legacy-key' })
    expect([
      verifyEcomA(delivery(body, { 'x-shopify-hmac-sha256': b64(secret, body) }), s),
      verifyEcomA(delivery(body, { 'x-ecoma-hmac-sha256': hex }), s),
      verifyEcomA(delivery(body, { 'x-ecoma-hmac-sha256': hex.toUpperCase() }), s),
      verifyEcomA(delivery(body), s),
      verifyEcomA(delivery(body, {}, 'key=legacy-key'), s),
      verifyEcomA(delivery(body, {}, 'key=legacy-key'), legacyOnly),
      verifyEcomA(delivery(body, {}, 'key=other'), legacyOnly),
      verifyEcomA(delivery(body, {}, 'key=legacy-key', { throttled: true }), legacyOnly),
    ]).toEqual([
      { signature: 'valid' }, { signature: 'valid' }, { signature: 'invalid' }, { signature: 'missing' },
      { signature: 'invalid', why: 'the legacy ?key= is refused while ecom_a_webhook_secret is set: deliveries must be signed (X-EcomA-Hmac-SHA256)' },
      { signature: 'legacy_key' }, { signature: 'invalid' }, { signature: 'invalid' },
    ])
  })

  test('read: topic → effect and status, the webhook id or order:topic as the delivery, the order\'s fields', () => {
    expect(readEcomA(delivery(body, { 'x-shopify-topic': 'orders/paid', 'x-shopify-webhook-id': 'wh-1' }))).toEqual({
      kind: 'order', topic: 'orders/paid', eventId: 'wh-1', dedupKey: 'wh-1', orderExternalId: '1001',
      change: { effect: 'count', order: { externalId: '1001', status: 'paid', currency: 'EUR', total: 49.9, email: 'ann@example.com', clickId: CLICK } },
    })
    const read = (topic: string, extra = {}) => {
      const r = readEcomA(delivery({ id: 7, financial_status: 'authorized', ...extra }, { 'x-ecoma-topic': topic }))
      return r.kind === 'order' ? [r.change.effect, r.change.order.status, r.dedupKey] : r
    }
    expect([read('orders/create'), read('orders/cancelled'), read('orders/fulfilled'), read('orders/updated'), read('carts/update')]).toEqual([
      ['count', 'authorized', '7:orders/create'], ['reverse', 'cancelled', '7:orders/cancelled'], ['update', 'fulfilled', '7:orders/fulfilled'],
      ['update', 'authorized', '7:orders/updated'], ['ignore', 'authorized', '7:carts/update'],
    ])
    expect(readEcomA(delivery('not json', { 'x-ecoma-topic': 'orders/create' }))).toEqual({ kind: 'ignored', topic: 'orders/create', eventId: null, why: 'the body is not a JSON object' })
    expect(readEcomA(delivery({ total_price: '1' }))).toEqual({ kind: 'ignored', topic: null, eventId: null, why: 'the order has no id' })
  })

  test('click sources in the spec\'s order', () => {
    const other = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee'
    expect([
      ecomAClick({ note_attributes: [{ name: '_svc_click', value: CLICK }], landing_site: `/?_svc_click=${other}` }),
      ecomAClick({ landing_site: `/p?ref=${CLICK}`, referring_site: `https://x.example/?click_id=${other}` }),
      ecomAClick({ referring_site: `https://x.example/?click_id=${CLICK}`, tags: [other] }),
      ecomAClick({ tags: ['vip', `_svc_click:${CLICK}`] }),
      ecomAClick({ tags: 'not-a-click' }),
    ]).toEqual([
      { clickId: CLICK, from: 'note_attributes' }, { clickId: CLICK, from: 'landing_site' }, { clickId: CLICK, from: 'referring_site' },
      { clickId: CLICK, from: 'tags' }, null,
    ])
  })
})

describe('senders/ecom-b.ts', () => {
  const secret = 'ecom-b-webhook-secret-9876543210'

  test('the unsigned save-time ping; verify base64 HMAC', () => {
    expect([ecomBPing(delivery('webhook_id=15')), ecomBPing(delivery(' webhook_id=15\n')), ecomBPing(delivery('webhook_id=15', { 'x-wc-webhook-signature': 'x' })), ecomBPing(delivery('webhook_id=x'))])
      .toEqual(['webhook_id=15', 'webhook_id=15', null, null])
    const body = '{"id":1}'
    const s = settings({ ecom_b_webhook_secret: secret })
    expect([
      verifyEcomB(delivery(body, { 'x-ecomb-webhook-signature': b64(secret, body) }), s),
      verifyEcomB(delivery(body, { 'x-wc-webhook-signature': b64('other', body) }), s),
      verifyEcomB(delivery(body), s),
      verifyEcomB(delivery(body, { 'x-wc-webhook-signature': b64(secret, body) }), settings({})),
    ]).toEqual(['valid', 'invalid', 'missing', 'invalid'])
  })

  test('read: the status decides; order, topic and status are the delivery', () => {
    const order = { id: 2001, status: 'Processing', currency: 'usd', total: '10.00', billing: { email: 'Bo@Example.com' }, customer_note: `gift _svc_click=${CLICK}` }
    expect(readEcomB(delivery(order, { 'x-wc-webhook-topic': 'order.updated' }))).toEqual({
      kind: 'order', topic: 'order.updated', eventId: null, dedupKey: '2001:order.updated:processing', orderExternalId: '2001',
      change: { effect: 'count', order: { externalId: '2001', status: 'processing', currency: 'USD', total: 10, email: 'bo@example.com', clickId: CLICK } },
    })
    const effect = (status: string, topic = 'order.updated') => {
      const r = readEcomB(delivery({ id: 1, status }, { 'x-wc-webhook-topic': topic }))
      return r.kind === 'order' ? r.change.effect : r.kind
    }
    expect([effect('completed'), effect('refunded'), effect('failed'), effect('on-hold'), effect('completed', 'order.deleted')]).toEqual(['count', 'reverse', 'reverse', 'update', 'ignore'])
    expect(ecomBClick({ customer_note: 'none here', meta_data: [{ key: '_svc_click', value: CLICK }] })).toEqual({ clickId: CLICK, from: 'meta_data' })
  })
})

describe('senders/pay-a.ts', () => {
  const secret = 'whsec_0123456789abcdef'
  const now = 1_767_000_000_000
  const signed = (body: string, t = now / 1000, s = secret) => `t=${t},v1=${createHmac('sha256', s).update(`${t}.${body}`).digest('hex')}`

  test('signature: any v1 may match; a stale t, a missing header, a wrong secret', () => {
    const body = '{"id":"evt_1"}'
    const raw = te.encode(body)
    const t = now / 1000
    const wrong = signed(body, t, 'another').split(',')[1]
    expect([
      payASignature(secret, raw, `${signed(body)}`, now),
      payASignature(secret, raw, `t=${t},${wrong},${signed(body).split(',')[1]}`, now),
      payASignature(secret, raw, signed(body, t - 301), now),
      payASignature(secret, raw, null, now),
      payASignature(null, raw, signed(body), now),
      payASignature(secret, raw, `t=${t},${wrong}`, now),
    ]).toEqual(['valid', 'valid', 'stale', 'missing', 'invalid', 'invalid'])
    expect([payARefusal('stale'), payARefusal('missing'), payARefusal('invalid')]).toEqual([
      { signature: 'invalid', why: 'signature timestamp outside the 5-minute tolerance' }, { signature: 'missing' }, { signature: 'invalid' },
    ])
  })

  const event = (type: string, object: Record<string, unknown>) => delivery({ id: 'evt_1', type, data: { object } })

  test('read: a payment counts in the currency\'s units and names its product; a bad amount is an error; a refund; a subscription', () => {
    expect(readPayA(event('payment_intent.succeeded', { id: 'pi_1', amount: 1, amount_received: 500, currency: 'jpy', receipt_email: 'A@Example.com', metadata: { click_id: CLICK, product_id: '3' } }), 9, now)).toEqual({
      kind: 'order', topic: 'payment_intent.succeeded', eventId: 'evt_1', dedupKey: 'evt_1', orderExternalId: 'pi_1',
      change: { effect: 'count', order: { externalId: 'pi_1', status: 'paid', currency: 'JPY', total: 500, email: 'a@example.com', clickId: CLICK, refundedTotal: undefined, productId: null, paymentAccountId: 9 } },
      product: 3,
    })
    expect(readPayA(event('payment_intent.succeeded', { id: 'pi_1', amount_received: 12.5, currency: 'eur' }), null, now))
      .toEqual({ kind: 'error', topic: 'payment_intent.succeeded', eventId: 'evt_1', why: 'amount_received 12.5 is not an integer amount in minor units: not counted' })
    const refund = readPayA(event('charge.refunded', { id: 'ch_1', payment_intent: 'pi_1', amount: 2000, amount_refunded: 500, currency: 'eur' }), null, now)
    expect(refund.kind === 'order' && [refund.change.effect, refund.change.order, 'product' in refund]).toEqual(['refund', {
      externalId: 'pi_1', status: 'partially_refunded', currency: 'EUR', total: null, email: null, clickId: null, refundedTotal: 5, productId: null, paymentAccountId: null,
    }, false])
    const sub = readPayA(event('customer.subscription.deleted', { id: 'sub_1', customer: 'cus_1', status: 'canceled', current_period_end: 1_767_100_000, metadata: { _svc_click: CLICK } }), 4, now)
    expect(sub.kind === 'order' && [sub.dedupKey, sub.change.effect, sub.change.subscription]).toEqual(['evt_1', 'subscription', {
      source: 'pay-a', externalId: 'sub_1', paymentAccountId: 4, customerExternalId: 'cus_1', email: null, status: 'canceled', clickId: CLICK, productId: null,
      currentPeriodEnd: 1_767_100_000_000, canceledAt: now,
    }])
    expect(readPayA(event('invoice.paid', { id: 'in_1' }), null, now)).toEqual({ kind: 'ignored', topic: 'invoice.paid', eventId: 'evt_1', why: 'event type invoice.paid is not handled' })
  })
})

describe('senders/pay-b.ts', () => {
  test('a body repeating a key is refused before the provider is asked', () => {
    expect(payBAmbiguity(te.encode('{"id":"WH-1","id":"WH-2"}'))).toBe('the body repeats the key "id" in one object: refused (it could be read two ways)')
    expect(payBAmbiguity(te.encode('{"id":"WH-1"}'))).toBeNull()
  })

  test('read: a capture counts (no product list), a refund adds its own amount, other types are ignored', () => {
    const capture = { id: 'WH-1', event_type: 'PAYMENT.CAPTURE.COMPLETED', resource: { id: 'CAP-1', amount: { value: '10.00', currency_code: 'eur' }, custom_id: CLICK } }
    expect(readPayB(delivery(capture), 5)).toEqual({
      kind: 'order', topic: 'PAYMENT.CAPTURE.COMPLETED', eventId: 'WH-1', dedupKey: 'WH-1', orderExternalId: 'CAP-1',
      change: { effect: 'count', order: { externalId: 'CAP-1', status: 'paid', currency: 'EUR', total: 10, email: null, clickId: CLICK, paymentAccountId: 5 }, emailListId: null },
    })
    const refund = { id: 'WH-2', event_type: 'PAYMENT.CAPTURE.REFUNDED', resource: { id: 'REF-1', amount: { value: '.5', currency_code: 'EUR' }, links: [{ rel: 'up', href: 'https://api.example/v2/payments/captures/CAP-1' }] } }
    expect(readPayB(delivery(refund), 5)).toEqual({
      kind: 'order', topic: 'PAYMENT.CAPTURE.REFUNDED', eventId: 'WH-2', dedupKey: 'WH-2', orderExternalId: 'CAP-1',
      change: { effect: 'refund', order: { externalId: 'CAP-1', status: 'partially_refunded', currency: 'EUR', total: null, email: null, clickId: null, paymentAccountId: 5, refundedTotal: undefined, refundPart: 0.5, refundId: 'REF-1' } },
    })
    expect(readPayB(delivery({ id: 'WH-3', event_type: 'PAYMENT.SALE.COMPLETED', resource: {} }), 5)).toEqual({ kind: 'ignored', topic: 'PAYMENT.SALE.COMPLETED', eventId: 'WH-3', why: 'event type PAYMENT.SALE.COMPLETED is not handled' })
  })
})

describe('POST /webhook/ecom-a: a currency that is not ISO 4217', () => {
  const SECRET = 'ecom-a-app-secret-0123456789'
  let s: TestServer
  beforeAll(async () => {
    s = await startServer()
    const sd = seeder(s)
    const offer = await sd.offer('https://shop.example/?c={click_id}')
    await sd.campaign({ slug: 'shop', offers: [[offer, 1]] })
    expect((await s.api('PUT', '/admin/api/settings', { ecom_a_webhook_secret: SECRET })).status).toBe(200)
  }, SERVER_TIMEOUT_MS)
  afterAll(async () => {
    await s?.destroy()
  })

  test('"xyz" is kept as XYZ on the order and its sale: the money is neither dropped nor counted in the offer\'s currency', async () => {
    const res = await get(`${s.base}/c/shop`, { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36' })
    const click = new URL(res.headers.get('location')!).searchParams.get('c')!
    const body = JSON.stringify({ id: 555001, currency: 'xyz', total_price: '12.34', note_attributes: [{ name: '_svc_click', value: click }] })
    const answer = await fetch(`${s.base}/webhook/ecom-a`, { method: 'POST', body, headers: { 'x-ecoma-topic': 'orders/paid', 'x-ecoma-hmac-sha256': b64(SECRET, body) } })
    expect({ status: answer.status, body: await answer.json() }).toEqual({ status: 200, body: { ok: true, outcome: 'attributed' } })
    const conversions = (await s.api('GET', `/admin/api/conversions?click_id=${click}`)).body.items.map((c: Record<string, unknown>) => [c.type, c.revenue, c.currency, c.transaction_id])
    expect(conversions).toEqual([['sale', 12.34, 'XYZ', 'ecom-a:555001']])
    const orders = (await s.api('GET', '/admin/api/orders')).body.items.map((o: Record<string, unknown>) => [o.external_id, o.currency, o.total])
    expect(orders).toEqual([['555001', 'XYZ', 12.34]])
  })
})
