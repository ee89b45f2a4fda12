// Issue 25, finding 6 and two Low findings, on the engine under test, over HTTP with each sender's address
// set through X-Forwarded-For (SVC_TRUST_PROXY=1):
//   - webhook secrets of payment accounts: 16 characters or more for pay-a (pay-b's field is the provider's
//     webhook id, no secret); the legacy ?key= refused once an HMAC secret is set;
//   - 401s throttled per address (an IPv6 /64 is one): after 20 a minute, 429 with retry-after; a valid
//     signature from that address still counts; pay-b is not even verified then;
//   - what an unsigned sender can make svc store is bounded: ecom-b pings and refused deliveries, per
//     address, so one stranger cannot use up the total for everyone;
//   - pay-b bodies that repeat a key are refused (400) before the provider is asked.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import Stripe from 'stripe'
import { startServer, type TestServer } from '../helpers/server'
import { testDb } from '../helpers/db'
import { SERVER_TIMEOUT_MS } from '../tracking/seed'
import { startPayBApi, type PayBApi } from '../helpers/pay-b-api'

const SECRET_A = 'ecom-a-app-secret-abuse-0123456'
const SECRET_B = 'ecom-b-webhook-secret-abuse-987'
const PAY_A_SECRET = 'whsec_abuse_0123456789abcdefghij'
const stripe = new Stripe('sk_test_dummy')

let s: TestServer
let payB: PayBApi

beforeAll(async () => {
  payB = startPayBApi()
  s = await startServer({ SVC_TRUST_PROXY: '1', SVC_PAY_B_API: payB.base })
  expect((await s.api('PUT', '/admin/api/settings', { ecom_a_webhook_secret: SECRET_A, ecom_b_webhook_secret: SECRET_B, pay_a_ecom_webhook_secret: PAY_A_SECRET })).status).toBe(200)
}, SERVER_TIMEOUT_MS)
afterAll(async () => {
  await s?.destroy()
  payB?.stop()
})

const sign = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('base64')
const answer = async (res: Response) => ({ status: res.status, body: await res.json(), retryAfter: res.headers.get('retry-after') })
const shopOrder = (id: number) => JSON.stringify({ id, currency: 'USD', total_price: '10.00', financial_status: 'paid' })
const post = (path: string, ip: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${s.base}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-forwarded-for': ip, ...headers } })
const count = async (where: string) => Number((await testDb(s).get<{ n: number }>(`SELECT count(*) AS n FROM webhook_events WHERE ${where}`))!.n)

describe('payment account webhook secrets', () => {
  test('a pay-a webhook_secret under 16 characters is 400 naming the field; pay-b\'s webhook id has no such rule', async () => {
    for (const secret of ['x', 'whsec_short_123']) {
      expect(await s.api('POST', '/admin/api/payment-accounts', { type: 'pay-a', name: 'A', webhook_secret: secret })).toMatchObject({
        status: 400, body: { error: 'webhook_secret: must be at least 16 characters (a short secret can be guessed)' },
      })
    }
    const ok = await s.api('POST', '/admin/api/payment-accounts', { type: 'pay-a', name: 'A', webhook_secret: 'whsec_long_enough_12' })
    expect(ok.status).toBe(201)
    expect(await s.api('PATCH', `/admin/api/payment-accounts/${ok.body.id}`, { webhook_secret: 'x' })).toMatchObject({
      status: 400, body: { error: 'webhook_secret: must be at least 16 characters (a short secret can be guessed)' },
    })
    expect((await s.api('POST', '/admin/api/payment-accounts', { type: 'pay-b', name: 'B', webhook_secret: 'WH-1', client_id: 'c', client_secret: 's' })).status).toBe(201)
  })
})

describe('the legacy ?key= and the 401 throttle', () => {
  test('?key= is refused (401) while ecom_a_webhook_secret is set, even the right one', async () => {
    // A key stored before the 16-character rule (settings written directly, as an old instance has it).
    await s.ctx.settings.setJson('ecom_a_webhook_key', 'legacy-key-that-is-right-0001')
    try {
      const res = await post('/webhook/ecom-a?key=legacy-key-that-is-right-0001', '198.51.100.10', shopOrder(1), { 'x-shopify-topic': 'orders/create' })
      expect(await answer(res)).toEqual({
        status: 401, retryAfter: null,
        body: { error: 'the legacy ?key= is refused while ecom_a_webhook_secret is set: deliveries must be signed (X-EcomA-Hmac-SHA256)' },
      })
    } finally {
      await s.ctx.settings.setJson('ecom_a_webhook_key', null)
    }
  })

  test('guessing a one-character key ("k", 36 guesses from one address): 20 × 401, then 429 with retry-after, never 200', async () => {
    expect((await s.api('PUT', '/admin/api/settings', { ecom_a_webhook_secret: null })).status).toBe(200)
    await s.ctx.settings.setJson('ecom_a_webhook_key', 'k')
    try {
      const statuses: number[] = []
      let throttled: Awaited<ReturnType<typeof answer>> | null = null
      for (const guess of '0123456789abcdefghijklmnopqrstuvwxyz') {
        const res = await post(`/webhook/ecom-a?key=${guess}`, '198.51.100.20', shopOrder(2), { 'x-shopify-topic': 'orders/create' })
        statuses.push(res.status)
        if (res.status === 429 && !throttled) throttled = await answer(res)
        else await res.body?.cancel()
      }
      // "k" is the 21st guess: today it would have been the 200.
      expect(statuses).toEqual([...Array(20).fill(401), ...Array(16).fill(429)])
      expect(throttled!.body).toEqual({ error: 'too many refused deliveries from this address; retry later' })
      expect(Number(throttled!.retryAfter)).toBeGreaterThan(0)
      expect(Number(throttled!.retryAfter)).toBeLessThanOrEqual(60)
      // Another address is not affected; an address of the same IPv6 /64 is.
      expect((await post('/webhook/ecom-a?key=k', '198.51.100.21', shopOrder(3), { 'x-shopify-topic': 'orders/create' })).status).toBe(200)
    } finally {
      await s.ctx.settings.setJson('ecom_a_webhook_key', null)
      expect((await s.api('PUT', '/admin/api/settings', { ecom_a_webhook_secret: SECRET_A })).status).toBe(200)
    }
  })

  test('an IPv6 /64 counts as one address; a valid signature from a throttled address still counts', async () => {
    const body = shopOrder(4)
    for (let i = 0; i < 20; i++) {
      const res = await post('/webhook/ecom-a', `2001:db8:25:6::${(i + 1).toString(16)}`, body, { 'x-shopify-topic': 'orders/create', 'x-shopify-hmac-sha256': sign('wrong-secret', body) })
      expect(res.status).toBe(401)
    }
    const next = await post('/webhook/ecom-a', '2001:db8:25:6:ffff::1', body, { 'x-shopify-topic': 'orders/create', 'x-shopify-hmac-sha256': sign('wrong-secret', body) })
    expect(next.status).toBe(429)
    const valid = await post('/webhook/ecom-a', '2001:db8:25:6::99', body, { 'x-shopify-topic': 'orders/create', 'x-shopify-hmac-sha256': sign(SECRET_A, body) })
    expect(await answer(valid)).toEqual({ status: 200, retryAfter: null, body: { ok: true, outcome: 'unattributed' } })
    // pay-a: the same throttle, the same exception for a valid signature.
    const payload = JSON.stringify({ id: 'evt_abuse_1', object: 'event', type: 'invoice.paid', data: { object: { id: 'in_1', object: 'invoice' } } })
    const header = await stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: PAY_A_SECRET })
    expect((await post('/webhook/pay-a-ecom', '2001:db8:25:6::7', payload, { 'paya-signature': 'v1=nope' })).status).toBe(429)
    expect((await post('/webhook/pay-a-ecom', '2001:db8:25:6::7', payload, { 'paya-signature': header })).status).toBe(200)
  })

  test('pay-b: an address over the limit gets 429 before the provider is asked', async () => {
    const acct = (await s.api('POST', '/admin/api/payment-accounts', { type: 'pay-b', name: 'PB', webhook_secret: payB.webhookId, client_id: 'client-1', client_secret: 'secret-1' })).body
    const headers = {
      'PAYPAL-AUTH-ALGO': 'SHA256withRSA', 'PAYPAL-CERT-URL': 'https://api.paypal.com/v1/notifications/certs/CERT-1',
      'PAYPAL-TRANSMISSION-ID': '69cd13f0-d67a-11e5-baa3-778b53f4ae55', 'PAYPAL-TRANSMISSION-SIG': 'forged==', 'PAYPAL-TRANSMISSION-TIME': '2026-03-01T10:00:01Z',
    }
    const body = JSON.stringify({ id: 'WH-ABUSE', event_type: 'PAYMENT.CAPTURE.COMPLETED', resource: { id: 'CAP-ABUSE', amount: { currency_code: 'EUR', value: '1.00' } } })
    for (let i = 0; i < 20; i++) expect((await post(`/webhook/pay-b/${acct.account_id}`, '198.51.100.30', body, headers)).status).toBe(401)
    const asked = payB.verifyRequests.length
    const res = await post(`/webhook/pay-b/${acct.account_id}`, '198.51.100.30', body, headers)
    expect(res.status).toBe(429)
    expect(res.headers.get('retry-after')).not.toBeNull()
    expect(payB.verifyRequests.length).toBe(asked)
  })
})

describe('what an unsigned sender can make svc store', () => {
  test('300 ecom-b pings from one address: each answered 200, 3 stored (was 300)', async () => {
    const before = await count("signature = 'ping'")
    for (let i = 0; i < 300; i++) {
      const res = await post('/webhook/ecom-b', '198.51.100.40', `webhook_id=${i + 1}`, { 'content-type': 'application/x-www-form-urlencoded' })
      expect(res.status).toBe(200)
      await res.body?.cancel()
    }
    expect((await count("signature = 'ping'")) - before).toBe(3)
    // Another address (the merchant saving a webhook) still gets its ping stored.
    expect((await post('/webhook/ecom-b', '198.51.100.41', 'webhook_id=77', { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(200)
    expect((await count("signature = 'ping'")) - before).toBe(4)
  })

  test('a stranger\'s 150 unsigned deliveries store 5 rows; the merchant\'s misconfigured delivery is still stored', async () => {
    const before = await count("outcome = 'rejected'")
    const statuses: number[] = []
    for (let i = 0; i < 150; i++) {
      const res = await post('/webhook/ecom-b', '198.51.100.50', JSON.stringify({ id: i }), { 'x-wc-webhook-topic': 'order.created' })
      statuses.push(res.status)
      await res.body?.cancel()
    }
    expect(statuses).toEqual([...Array(20).fill(401), ...Array(130).fill(429)])
    expect((await count("outcome = 'rejected'")) - before).toBe(5)
    const body = JSON.stringify({ id: 42, status: 'processing' })
    const mine = await post('/webhook/ecom-b', '198.51.100.51', body, { 'x-wc-webhook-topic': 'order.created', 'x-wc-webhook-signature': sign('an-old-secret-0000000', body) })
    expect(mine.status).toBe(401)
    const latest = (await s.api('GET', '/admin/api/webhook-events?source=ecom-b&outcome=rejected&limit=1')).body.items[0]
    expect(latest).toMatchObject({ signature: 'invalid', topic: 'order.created', error: 'invalid signature' })
    expect((await count("outcome = 'rejected'")) - before).toBe(6)
  })
})

describe('pay-b: a body that repeats a key', () => {
  test('is refused with 400 before the provider is asked (the verifier and JSON.parse would read it differently)', async () => {
    const acct = (await s.api('POST', '/admin/api/payment-accounts', { type: 'pay-b', name: 'PB dup', webhook_secret: payB.webhookId, client_id: 'client-1', client_secret: 'secret-1' })).body
    const headers = {
      'PAYPAL-AUTH-ALGO': 'SHA256withRSA', 'PAYPAL-CERT-URL': 'https://api.paypal.com/v1/notifications/certs/CERT-1',
      'PAYPAL-TRANSMISSION-ID': '69cd13f0-d67a-11e5-baa3-778b53f4ae55', 'PAYPAL-TRANSMISSION-SIG': payB.goodSig, 'PAYPAL-TRANSMISSION-TIME': '2026-03-01T10:00:01Z',
    }
    const asked = payB.verifyRequests.length
    const bodies: Array<[string, string]> = [
      ['{"id":"WH-DUP-1","event_type":"PAYMENT.CAPTURE.COMPLETED","resource":{"id":"CAP-D1","amount":{"currency_code":"EUR","value":"1.00","value":"1000.00"}}}', 'value'],
      ['{"id":"WH-DUP-2","event_type":"PAYMENT.CAPTURE.REFUNDED","event_type":"PAYMENT.CAPTURE.COMPLETED","resource":{"id":"CAP-D2"}}', 'event_type'],
      // The same name spelled with an escape is the same key.
      ['{"id":"WH-DUP-3","resource":{"custom_id":"a","\\u0063ustom_id":"b"}}', 'custom_id'],
    ]
    for (const [body, key] of bodies) {
      const res = await post(`/webhook/pay-b/${acct.account_id}`, '198.51.100.60', body, headers)
      expect(await answer(res)).toEqual({ status: 400, retryAfter: null, body: { error: `the body repeats the key "${key}" in one object: refused (it could be read two ways)` } })
    }
    expect(payB.verifyRequests.length).toBe(asked)
    // Equal names in different objects are fine.
    const ok = '{"id":"WH-DUP-OK","event_type":"PAYMENT.CAPTURE.COMPLETED","resource":{"id":"CAP-OK","amount":{"currency_code":"EUR","value":"1.00"},"seller":{"id":"x","amount":{"value":"1.00"}}}}'
    expect((await post(`/webhook/pay-b/${acct.account_id}`, '198.51.100.60', ok, headers)).status).toBe(200)
    expect(payB.verifyRequests.length).toBe(asked + 1)
  })
})

describe('short secrets stored before the rule', () => {
  test('are said at start: a log line per setting and per pay-a account', async () => {
    const first = await startServer()
    let restarted: TestServer | null = null
    try {
      await first.ctx.settings.setJson('ecom_a_webhook_secret', ' ')
      const acct = (await first.api('POST', '/admin/api/payment-accounts', { type: 'pay-a', name: 'Old', webhook_secret: 'whsec_long_enough_0001' })).body
      // As an account saved before the rule has it: "x", encrypted like every secret.
      await testDb(first).run('UPDATE payment_accounts SET webhook_secret = $s WHERE id = $id', { s: first.ctx.box.encrypt('x'), id: acct.id })
      await first.stop()
      const lines: string[] = []
      const { log, error } = console
      console.log = (...a: unknown[]) => { lines.push(a.map(String).join(' ')) }
      console.error = (...a: unknown[]) => { lines.push(a.map(String).join(' ')) }
      try {
        restarted = await startServer({}, first.dataDir)
        for (let i = 0; i < 50 && !lines.some((l) => l.includes(`payment account ${acct.id}:`)); i++) await Bun.sleep(20)
      } finally {
        console.log = log
        console.error = error
      }
      expect(lines.some((l) => l.includes('WARN') && l.includes('ecom_a_webhook_secret is shorter than 16 characters (or only whitespace): anyone can guess it.'))).toBe(true)
      expect(lines.some((l) => l.includes('WARN') && l.includes(`payment account ${acct.id}: its webhook_secret is shorter than 16 characters`))).toBe(true)
      expect(lines.join('\n')).not.toContain('whsec_long_enough_0001')
    } finally {
      if (restarted) await restarted.destroy()
      else await first.destroy()
    }
  }, SERVER_TIMEOUT_MS)
})
