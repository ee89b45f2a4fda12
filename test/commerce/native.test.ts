// Native commerce over HTTP (issue 11), on the engine under test: payment accounts, per-account webhooks of
// processor A (its signing secret; native-pending, the endpoint svc registers) and processor B (verified by
// its API: a local fake speaking the wire format, including failure), checkout against a local fake of
// processor A's API (payment intent, webhook registration, failure), the post-purchase enrolment, and the
// customer's own orders.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Stripe from 'stripe'
import { get, startServer, type TestServer } from '../helpers/server'
import { seeder, SERVER_TIMEOUT_MS } from '../tracking/seed'
import { startPayBApi, type PayBApi } from '../helpers/pay-b-api'

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36'
const stripe = new Stripe('sk_test_dummy')
const ACCOUNT_SECRET = 'whsec_account_0123456789abcdef'
const REGISTERED_SECRET = 'whsec_registered_by_svc_0001'

/** A local fake of processor A's API: payment intents and webhook endpoints (form-encoded, Bearer key). */
function startPayAApi() {
  const requests: Array<{ path: string; auth: string | null; form: URLSearchParams }> = []
  let n = 0
  const state = { fail: null as null | number | 'hang' }
  const server = Bun.serve({
    port: 0,
    async fetch(req) {
      const url = new URL(req.url)
      const form = new URLSearchParams(await req.text())
      requests.push({ path: url.pathname, auth: req.headers.get('authorization'), form })
      if (state.fail === 'hang') return new Promise<Response>(() => {})
      if (typeof state.fail === 'number') return Response.json({ error: { message: 'processor is down' } }, { status: state.fail })
      if (req.headers.get('authorization') !== 'Bearer sk_test_merchant') return Response.json({ error: { message: 'Invalid API Key' } }, { status: 401 })
      if (url.pathname === '/v1/payment_intents') {
        const id = `pi_native_${++n}`
        return Response.json({ id, object: 'payment_intent', client_secret: `${id}_secret_abc`, amount: Number(form.get('amount')), currency: form.get('currency'), status: 'requires_payment_method' })
      }
      if (url.pathname === '/v1/webhook_endpoints') return Response.json({ id: 'we_1', object: 'webhook_endpoint', url: form.get('url'), status: 'enabled', secret: REGISTERED_SECRET })
      return new Response('not found', { status: 404 })
    },
  })
  return { base: `http://127.0.0.1:${server.port}`, requests, state, stop: () => server.stop(true) }
}

let s: TestServer
let payA: ReturnType<typeof startPayAApi>
let payB: PayBApi
let offer: number
let list: number

beforeAll(async () => {
  payA = startPayAApi()
  payB = startPayBApi()
  s = await startServer({ SVC_PAY_A_API: payA.base, SVC_PAY_B_API: payB.base, SVC_PUBLIC_URL: 'https://track.example' })
  const sd = seeder(s)
  offer = await sd.offer('https://shop.example/?c={click_id}')
  await sd.campaign({ slug: 'native', offers: [[offer, 1]] })
  list = (await s.api('POST', '/admin/api/email-lists', { name: 'Buyers' })).body.id
}, SERVER_TIMEOUT_MS)
afterAll(async () => {
  await s?.destroy()
  payA?.stop()
  payB?.stop()
})

async function newClick(): Promise<string> {
  const res = await get(`${s.base}/c/native`, { 'user-agent': BROWSER })
  return new URL(res.headers.get('location')!).searchParams.get('c')!
}
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 5_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await read()
    if (ok(v) || Date.now() > end) return v
    await Bun.sleep(50)
  }
}
const conversions = async (clickId: string) =>
  (await s.api('GET', `/admin/api/conversions?click_id=${clickId}`)).body.items.map((c: Record<string, unknown>) => [c.type, c.revenue, c.currency]).reverse()
const intentEvent = (id: string, metadata: Record<string, string>, amount = 4900, type = 'payment_intent.succeeded') => JSON.stringify({
  id: `evt_${id}_${type}`, object: 'event', type, created: 1700000000,
  data: { object: { id, object: 'payment_intent', amount, amount_received: amount, currency: 'usd', status: 'succeeded', receipt_email: 'buyer@example.com', metadata } },
})
async function payAWebhook(path: string, payload: string, secret: string) {
  const header = await stripe.webhooks.generateTestHeaderStringAsync({ payload, secret })
  const res = await fetch(`${s.base}${path}`, { method: 'POST', body: payload, headers: { 'paya-signature': header, 'content-type': 'application/json' } })
  return { status: res.status, body: await res.json() }
}

describe('processor A, per payment account', () => {
  test('the account\'s own secret; unknown account 404; a pay-b account is not a pay-a one', async () => {
    const acct = await s.api('POST', '/admin/api/payment-accounts', { type: 'pay-a', name: 'Main', webhook_secret: ACCOUNT_SECRET, api_key: 'sk_test_merchant' })
    expect(acct.status).toBe(201)
    const path = `/webhook/pay-a/${acct.body.account_id}`
    const click = await newClick()
    const payload = intentEvent('pi_acct_1', { _svc_click: click })
    expect(await payAWebhook(path, payload, ACCOUNT_SECRET)).toEqual({ status: 200, body: { ok: true, outcome: 'attributed' } })
    expect(await conversions(click)).toEqual([['sale', 49, 'USD']])
    expect(await payAWebhook(path, payload, 'whsec_wrong')).toEqual({ status: 401, body: { error: 'invalid signature' } })
    expect(await payAWebhook('/webhook/pay-a/acct_doesnotexist0000000000', payload, ACCOUNT_SECRET)).toEqual({ status: 404, body: { error: 'payment account not found' } })
    const b = await s.api('POST', '/admin/api/payment-accounts', { type: 'pay-b', name: 'B', webhook_secret: payB.webhookId, client_id: 'client-1', client_secret: 'secret-1' })
    expect((await payAWebhook(`/webhook/pay-a/${b.body.account_id}`, payload, ACCOUNT_SECRET)).status).toBe(404)
  })
})

describe('checkout with processor A', () => {
  let product: number
  let account: { id: number; account_id: string }

  beforeAll(async () => {
    account = (await s.api('POST', '/admin/api/payment-accounts', { type: 'pay-a', name: 'Shop', api_key: 'sk_test_merchant' })).body
    product = (await s.api('POST', '/admin/api/products', { name: 'Course', price: 49, currency: 'USD', offer_id: offer, email_list_id: list, payment_account_id: account.id })).body.id
  })

  test('a pending order tied to the click, a payment intent with the click in its metadata, the endpoint registered once', async () => {
    const click = await newClick()
    const res = await fetch(`${s.base}/api/checkout`, { method: 'POST', body: JSON.stringify({ product_id: product, email: 'Buyer@Example.com' }), headers: { 'content-type': 'application/json', cookie: `_svc_click=${click}` } })
    expect(res.status).toBe(200)
    const body = await res.json() as { order_id: number; payment_intent: string; client_secret: string; amount: number; currency: string }
    expect(body).toEqual({ order_id: expect.any(Number), payment_intent: expect.stringMatching(/^pi_native_/), client_secret: `${body.payment_intent}_secret_abc`, amount: 49, currency: 'USD' })
    const registration = payA.requests.find((r) => r.path === '/v1/webhook_endpoints')!
    expect(registration.form.get('url')).toBe('https://track.example/webhook/pay-a/native-pending')
    expect(registration.form.getAll('enabled_events[]')).toContain('payment_intent.succeeded')
    const intent = payA.requests.filter((r) => r.path === '/v1/payment_intents').at(-1)!
    expect(Object.fromEntries(intent.form)).toMatchObject({ amount: '4900', currency: 'usd', 'metadata[_svc_click]': click, 'metadata[product_id]': String(product), receipt_email: 'buyer@example.com' })
    expect((await s.api('GET', `/admin/api/orders/${body.order_id}`)).body).toMatchObject({ source: 'pay-a', external_id: body.payment_intent, status: 'pending', click_id: click, product_id: product, total: 49 })
    // A second checkout does not register again.
    await fetch(`${s.base}/api/checkout`, { method: 'POST', body: JSON.stringify({ product_id: product }), headers: { 'content-type': 'application/json' } })
    expect(payA.requests.filter((r) => r.path === '/v1/webhook_endpoints')).toHaveLength(1)

    // The processor reports the payment on the registered endpoint: the order is paid, the sale recorded,
    // the buyer joins the product's list (the post-purchase automation), and sees the order in the account.
    const paid = await payAWebhook('/webhook/pay-a/native-pending', intentEvent(body.payment_intent, { _svc_click: click, product_id: String(product) }), REGISTERED_SECRET)
    expect(paid).toEqual({ status: 200, body: { ok: true, outcome: 'attributed' } })
    expect(await conversions(click)).toEqual([['sale', 49, 'USD']])
    expect((await s.api('GET', `/admin/api/orders/${body.order_id}`)).body).toMatchObject({ status: 'paid', conversion_id: expect.any(Number) })
    const subs = await until(() => s.api('GET', `/admin/api/email-lists/${list}/subscribers`), (r) => r.body.items.length > 0)
    expect(subs.body.items.map((x: { email: string; source: string }) => [x.email, x.source])).toEqual([['buyer@example.com', 'purchase']])
  })

  test('resend the post-purchase automation of a paid order: the buyer gets the sequence again from its first step', async () => {
    expect((await s.api('POST', '/admin/api/automations', { list_id: list, name: 'Thanks', steps: [{ delay_minutes: 0, subject: 'Thank you', text: 'Welcome aboard.' }] })).status).toBe(201)
    await Bun.sleep(150) // the automation table reloads after its write commits
    const order = (await s.api('GET', '/admin/api/orders?source=pay-a&status=paid')).body.items.find((o: { product_id: number | null }) => o.product_id === product)
    const outbox = async () => (await s.api('GET', '/admin/api/outbox?email=buyer@example.com')).body.items.length
    const before = await outbox()
    expect(await s.api('POST', `/admin/api/orders/${order.id}/resend-automation`)).toMatchObject({ status: 200, body: { ok: true } })
    expect(await until(outbox, (n) => n > before)).toBe(before + 1)
    expect(await s.api('POST', '/admin/api/orders/999999/resend-automation')).toMatchObject({ status: 404, body: { error: 'order not found' } })
  })

  test('the offer and the list a product uses cannot be deleted (409 naming the product)', async () => {
    expect(await s.api('DELETE', `/admin/api/email-lists/${list}`)).toMatchObject({
      status: 409, body: { error: `email list is used by product "Course" (id ${product}); change the product's email_list_id first` },
    })
    const spare = await seeder(s).offer('https://shop.example/spare')
    const p2 = (await s.api('POST', '/admin/api/products', { name: 'Spare', price: 5, offer_id: spare })).body.id
    expect(await s.api('DELETE', `/admin/api/offers/${spare}`)).toMatchObject({
      status: 409, body: { error: `offer is used by product "Spare" (id ${p2}); change the product's offer_id first` },
    })
    expect((await s.api('PATCH', `/admin/api/products/${p2}`, { offer_id: null })).status).toBe(200)
    expect((await s.api('DELETE', `/admin/api/offers/${spare}`)).status).toBe(200)
  })

  test('400 for a bad or unsellable product; 502 when the processor fails, and no order then', async () => {
    const bad = await fetch(`${s.base}/api/checkout`, { method: 'POST', body: JSON.stringify({ product_id: 'x' }), headers: { 'content-type': 'application/json' } })
    expect({ status: bad.status, body: await bad.json() }).toEqual({ status: 400, body: { error: 'product_id: must be a positive integer' } })
    const unknown = await fetch(`${s.base}/api/checkout`, { method: 'POST', body: JSON.stringify({ product_id: 999999 }), headers: { 'content-type': 'application/json' } })
    expect({ status: unknown.status, body: await unknown.json() }).toEqual({ status: 400, body: { error: 'product_id: no such product for sale' } })
    const before = (await s.api('GET', '/admin/api/orders?source=pay-a&limit=500')).body.items.length
    payA.state.fail = 500
    try {
      const down = await fetch(`${s.base}/api/checkout`, { method: 'POST', body: JSON.stringify({ product_id: product }), headers: { 'content-type': 'application/json' } })
      expect({ status: down.status, body: await down.json() }).toEqual({ status: 502, body: { error: 'the payment processor refused (500: processor is down)' } })
    } finally {
      payA.state.fail = null
    }
    // A processor that never answers: a clear 502 after the provider timeout (SVC_JOBS_TIMEOUT_MS, 2 s in tests).
    payA.state.fail = 'hang'
    try {
      const started = Date.now()
      const hung = await fetch(`${s.base}/api/checkout`, { method: 'POST', body: JSON.stringify({ product_id: product }), headers: { 'content-type': 'application/json' } })
      expect({ status: hung.status, body: await hung.json() }).toEqual({ status: 502, body: { error: 'the payment processor did not answer (timeout)' } })
      expect(Date.now() - started).toBeLessThan(8_000)
    } finally {
      payA.state.fail = null
    }
    expect((await s.api('GET', '/admin/api/orders?source=pay-a&limit=500')).body.items.length).toBe(before)
  }, 20_000)
})

describe('processor B, per payment account', () => {
  const headers = (sig: string) => ({
    'PAYPAL-AUTH-ALGO': 'SHA256withRSA', 'PAYPAL-CERT-URL': 'https://api.paypal.com/v1/notifications/certs/CERT-1',
    'PAYPAL-TRANSMISSION-ID': '69cd13f0-d67a-11e5-baa3-778b53f4ae55', 'PAYPAL-TRANSMISSION-SIG': sig, 'PAYPAL-TRANSMISSION-TIME': '2026-03-01T10:00:01Z',
    'content-type': 'application/json',
  })
  const capture = (id: string, clickId: string) => JSON.stringify({
    id: `WH-${id}`, event_type: 'PAYMENT.CAPTURE.COMPLETED', resource_type: 'capture',
    resource: { id, status: 'COMPLETED', amount: { currency_code: 'EUR', value: '19.99' }, custom_id: clickId, supplementary_data: { related_ids: { order_id: '5O190127TN364715T' } } },
  })
  const refund = (captureId: string, refundId: string, value: string) => JSON.stringify({
    id: `WH-${refundId}`, event_type: 'PAYMENT.CAPTURE.REFUNDED', resource_type: 'refund',
    resource: { id: refundId, status: 'COMPLETED', amount: { currency_code: 'EUR', value }, links: [{ rel: 'up', href: `https://api.paypal.com/v2/payments/captures/${captureId}`, method: 'GET' }] },
  })

  test('verified by the provider: the capture counts, refunds add up; FAILURE is 401; the API down is 503', async () => {
    const acct = (await s.api('POST', '/admin/api/payment-accounts', { type: 'pay-b', name: 'PB', webhook_secret: payB.webhookId, client_id: 'client-1', client_secret: 'secret-1' })).body
    const path = `${s.base}/webhook/pay-b/${acct.account_id}`
    const click = await newClick()
    const post = async (body: string, sig = payB.goodSig) => {
      const res = await fetch(path, { method: 'POST', body, headers: headers(sig) })
      return { status: res.status, body: await res.json() }
    }
    expect(await post(capture('CAP-1', click))).toEqual({ status: 200, body: { ok: true, outcome: 'attributed' } })
    expect(await post(capture('CAP-1', click))).toEqual({ status: 200, body: { ok: true, outcome: 'recorded', duplicate: true } })
    expect(await post(refund('CAP-1', 'REF-1', '5.00'))).toEqual({ status: 200, body: { ok: true, outcome: 'attributed' } })
    expect(await post(refund('CAP-1', 'REF-2', '99.00'))).toEqual({ status: 200, body: { ok: true, outcome: 'attributed' } })
    expect(await conversions(click)).toEqual([['sale', 19.99, 'EUR'], ['chargeback', -5, 'EUR'], ['chargeback', -14.99, 'EUR']])
    const refunds = (await s.api('GET', '/admin/api/refunds?source=pay-b')).body.items.map((r: { external_id: string; amount: number }) => [r.external_id, r.amount])
    expect(refunds).toEqual([['REF-2', 14.99], ['REF-1', 5]])
    expect(await post(capture('CAP-2', click), 'forged')).toEqual({ status: 401, body: { error: 'invalid signature' } })
    payB.verifyFailure = { status: 500 }
    try {
      expect(await post(capture('CAP-3', click))).toEqual({ status: 503, body: { error: "the payment processor's verification API is unavailable; retry later" } })
    } finally {
      payB.verifyFailure = null
    }
    expect((await fetch(`${s.base}/webhook/pay-b/acct_unknown`, { method: 'POST', body: capture('CAP-4', click), headers: headers(payB.goodSig) })).status).toBe(404)
  })
})
