// Processor B: provider-side webhook verification (against a local fake of its API) and the event reader.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { readPayBEvent } from '../../src/commerce/senders/pay-b'
import { PayBVerifier, type PayBAccount } from '../../src/commerce/senders/pay-b-api'
import { startPayBApi, type PayBApi } from '../helpers/pay-b-api'

const CLICK = '3f6c2a9e-8b1d-4c7e-9a2f-5d4b3c2a1e0f'
const account: PayBAccount = { clientId: 'client-1', clientSecret: 'secret-1', webhookId: 'WH-CONFIGURED-1' }

const te = new TextEncoder()
const sampleEvent = {
  id: 'WH-58D329510W468432D-8HN650336L201105X', event_version: '1.0', create_time: '2026-03-01T10:00:00.000Z',
  resource_type: 'capture', event_type: 'PAYMENT.CAPTURE.COMPLETED', summary: 'Payment completed for $ 10.0 USD',
  resource: { id: '27M47624FP291604U', status: 'COMPLETED', amount: { currency_code: 'USD', value: '10.00' }, custom_id: CLICK },
}
const rawSample = te.encode(JSON.stringify(sampleEvent))

function paypalHeaders(sig = 'good-signature==', prefix = 'PAYPAL'): Headers {
  return new Headers({
    [`${prefix}-AUTH-ALGO`]: 'SHA256withRSA',
    [`${prefix}-CERT-URL`]: 'https://api.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-a5cafa77',
    [`${prefix}-TRANSMISSION-ID`]: '69cd13f0-d67a-11e5-baa3-778b53f4ae55',
    [`${prefix}-TRANSMISSION-SIG`]: sig,
    [`${prefix}-TRANSMISSION-TIME`]: '2026-03-01T10:00:01Z',
    'content-type': 'application/json',
  })
}

/** The log lines written while `run` runs (console.log and console.error), for the no-secrets checks. */
async function captureLogs<T>(run: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const lines: string[] = []
  const { log, error } = console
  console.log = (...a: unknown[]) => { lines.push(a.map(String).join(' ')) }
  console.error = (...a: unknown[]) => { lines.push(a.map(String).join(' ')) }
  try {
    return { result: await run(), lines }
  } finally {
    console.log = log
    console.error = error
  }
}

describe('PayBVerifier', () => {
  let api: PayBApi
  let clock: number
  let verifier: PayBVerifier
  beforeEach(() => {
    api = startPayBApi()
    clock = 1_800_000_000_000
    verifier = new PayBVerifier({ apiBase: api.base, timeoutMs: 2000, now: () => clock })
  })
  afterEach(() => api.stop())

  test('SUCCESS → valid; the requests carry the documented wire format', async () => {
    expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('valid')
    expect(api.tokenRequests.length).toBe(1)
    const t = api.tokenRequests[0]
    expect(t.authorization).toBe(`Basic ${Buffer.from('client-1:secret-1').toString('base64')}`)
    expect(t.contentType).toStartWith('application/x-www-form-urlencoded')
    expect(t.body).toBe('grant_type=client_credentials')
    expect(api.verifyRequests.length).toBe(1)
    const v = api.verifyRequests[0]
    expect(v.authorization).toBe(`Bearer ${api.issued[0]}`)
    expect(v.contentType).toStartWith('application/json')
    expect(JSON.parse(v.body)).toEqual({
      auth_algo: 'SHA256withRSA',
      cert_url: 'https://api.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-a5cafa77',
      transmission_id: '69cd13f0-d67a-11e5-baa3-778b53f4ae55',
      transmission_sig: 'good-signature==',
      transmission_time: '2026-03-01T10:00:01Z',
      webhook_id: 'WH-CONFIGURED-1',
      webhook_event: sampleEvent,
    })
  })

  test('the PAYB- header names are accepted too', async () => {
    expect(await verifier.verify(account, paypalHeaders('good-signature==', 'PAYB'), rawSample)).toBe('valid')
  })

  test('FAILURE → invalid (a wrong signature, or another webhook id)', async () => {
    expect(await verifier.verify(account, paypalHeaders('forged=='), rawSample)).toBe('invalid')
    expect(await verifier.verify({ ...account, webhookId: 'WH-SOMEONE-ELSE' }, paypalHeaders(), rawSample)).toBe('invalid')
    expect(api.verifyRequests.length).toBe(2)
  })

  test('any verification_status other than SUCCESS → invalid', async () => {
    api.verifyFailure = { status: 200, body: '{"verification_status":"PENDING"}' }
    expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('invalid')
  })

  test('a missing transmission header → invalid, and the API is not called', async () => {
    for (const name of ['AUTH-ALGO', 'CERT-URL', 'TRANSMISSION-ID', 'TRANSMISSION-SIG', 'TRANSMISSION-TIME']) {
      const h = paypalHeaders()
      h.delete(`PAYPAL-${name}`)
      expect(await verifier.verify(account, h, rawSample)).toBe('invalid')
      h.set(`PAYPAL-${name}`, '   ')
      expect(await verifier.verify(account, h, rawSample)).toBe('invalid')
    }
    expect(await verifier.verify(account, new Headers(), rawSample)).toBe('invalid')
    expect(api.tokenRequests.length).toBe(0)
    expect(api.verifyRequests.length).toBe(0)
  })

  test('a body that is not a JSON object → invalid, and the API is not called', async () => {
    for (const body of ['not json', '', '[1,2]', '"text"', '{"a":1', '{"a":1} trailing']) {
      expect(await verifier.verify(account, paypalHeaders(), te.encode(body))).toBe('invalid')
    }
    expect(await verifier.verify(account, paypalHeaders(), new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]))).toBe('invalid')
    expect(api.tokenRequests.length).toBe(0)
    expect(api.verifyRequests.length).toBe(0)
  })

  test('the raw body text is spliced into webhook_event unchanged (number format, key order, spacing)', async () => {
    const raw = '{ "resource" : {"amount":{"value":1.10,"currency_code":"EUR"},  "id":"CAP-1"},\n  "id":"WH-ODD","event_type":"PAYMENT.CAPTURE.COMPLETED", "big": 12345678901234567890, "e": 1E+2, "u":"h\\u00e9 é \\/" }\n'
    expect(await verifier.verify(account, paypalHeaders(), te.encode(raw))).toBe('valid')
    const sent = api.verifyRequests[0].body
    expect(sent.includes(`"webhook_event":${raw}`)).toBe(true)
    expect(sent.endsWith(`"webhook_event":${raw}}`)).toBe(true)
    // And the whole request is still one JSON document.
    expect(JSON.parse(sent).webhook_event.resource.id).toBe('CAP-1')
  })

  test('the token is cached: 1 token request for 3 verifications (also concurrent ones)', async () => {
    for (let i = 0; i < 3; i++) expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('valid')
    expect(api.tokenRequests.length).toBe(1)
    expect(api.verifyRequests.length).toBe(3)

    const fresh = new PayBVerifier({ apiBase: api.base, now: () => clock })
    const all = await Promise.all([1, 2, 3].map(() => fresh.verify(account, paypalHeaders(), rawSample)))
    expect(all).toEqual(['valid', 'valid', 'valid'])
    expect(api.tokenRequests.length).toBe(2)
  })

  test('tokens are cached per client id', async () => {
    api.clients['client-2'] = 'secret-2'
    const other: PayBAccount = { clientId: 'client-2', clientSecret: 'secret-2', webhookId: 'WH-CONFIGURED-1' }
    expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('valid')
    expect(await verifier.verify(other, paypalHeaders(), rawSample)).toBe('valid')
    expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('valid')
    expect(await verifier.verify(other, paypalHeaders(), rawSample)).toBe('valid')
    expect(api.tokenRequests.length).toBe(2)
    expect(api.verifyRequests[1].authorization).toBe(`Bearer ${api.issued[1]}`)
    expect(api.verifyRequests[3].authorization).toBe(`Bearer ${api.issued[1]}`)
  })

  test('a token is used until 60 s before it expires, then a new one is fetched', async () => {
    api.expiresIn = 120
    expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('valid')
    clock += 59_000
    expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('valid')
    expect(api.tokenRequests.length).toBe(1)
    clock += 2_000 // 61 s after issue: within the last 60 s of its life
    expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('valid')
    expect(api.tokenRequests.length).toBe(2)
    expect(api.verifyRequests[2].authorization).toBe(`Bearer ${api.issued[1]}`)
  })

  test('a revoked token: 401 → one fresh token → the verification once more → valid', async () => {
    expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('valid')
    api.revokeTokens()
    expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('valid')
    expect(api.tokenRequests.length).toBe(2)
    expect(api.verifyRequests.length).toBe(3)
    expect(api.verifyRequests[1].authorization).toBe(`Bearer ${api.issued[0]}`)
    expect(api.verifyRequests[2].authorization).toBe(`Bearer ${api.issued[1]}`)
    // The fresh token is the cached one now.
    expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('valid')
    expect(api.tokenRequests.length).toBe(2)
  })

  test('401 again with a fresh token → unavailable, after exactly one retry', async () => {
    api.refuseAllTokens = true
    expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('unavailable')
    expect(api.tokenRequests.length).toBe(2)
    expect(api.verifyRequests.length).toBe(2)
  })

  test('verification 500, 503, 429, 404 → unavailable; 400 → invalid', async () => {
    for (const status of [500, 503, 429, 404]) {
      api.verifyFailure = { status }
      expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('unavailable')
    }
    api.verifyFailure = { status: 400, body: '{"name":"VALIDATION_ERROR"}' }
    expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('invalid')
    // The provider recovers: the cached token still works.
    api.verifyFailure = null
    expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('valid')
    expect(api.tokenRequests.length).toBe(1)
  })

  test('an unreadable verification answer → unavailable', async () => {
    api.verifyFailure = 'garbage'
    expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('unavailable')
    api.verifyFailure = { status: 200, body: '{"status":"ok"}' }
    expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('unavailable')
    api.verifyFailure = { status: 200, body: '[]' }
    expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('unavailable')
  })

  test('a closed connection → unavailable', async () => {
    api.verifyFailure = 'close'
    expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('unavailable')
    api.verifyFailure = null
    api.tokenFailure = 'close'
    const fresh = new PayBVerifier({ apiBase: api.base, now: () => clock })
    expect(await fresh.verify(account, paypalHeaders(), rawSample)).toBe('unavailable')
  })

  test('nothing listening (network error) → unavailable', async () => {
    const gone = startPayBApi()
    const base = gone.base
    gone.stop()
    const v = new PayBVerifier({ apiBase: base, timeoutMs: 2000 })
    expect(await v.verify(account, paypalHeaders(), rawSample)).toBe('unavailable')
  })

  test('a hanging verification → unavailable within timeoutMs', async () => {
    const v = new PayBVerifier({ apiBase: api.base, timeoutMs: 300, now: () => clock })
    api.verifyFailure = 'hang'
    const t0 = performance.now()
    expect(await v.verify(account, paypalHeaders(), rawSample)).toBe('unavailable')
    const took = performance.now() - t0
    expect(took).toBeGreaterThanOrEqual(250)
    expect(took).toBeLessThan(1000)
  })

  test('a hanging token endpoint → unavailable within timeoutMs', async () => {
    const v = new PayBVerifier({ apiBase: api.base, timeoutMs: 300, now: () => clock })
    api.tokenFailure = 'hang'
    const t0 = performance.now()
    expect(await v.verify(account, paypalHeaders(), rawSample)).toBe('unavailable')
    expect(performance.now() - t0).toBeLessThan(1000)
    expect(api.verifyRequests.length).toBe(0)
  })

  test('token endpoint failures → unavailable (500, unreadable answer)', async () => {
    api.tokenFailure = { status: 500 }
    expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('unavailable')
    api.tokenFailure = 'garbage'
    expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('unavailable')
    api.tokenFailure = { status: 200, body: '{"token_type":"Bearer","expires_in":100}' }
    expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('unavailable')
    expect(api.verifyRequests.length).toBe(0)
    // A failed token request is not cached: the next verification asks again.
    api.tokenFailure = null
    expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('valid')
  })

  test('a wrong client secret (token endpoint 401) → unavailable, not invalid: the merchant\'s configuration, not a forgery', async () => {
    // 'unavailable' makes the route answer 503, so the provider keeps retrying while the merchant fixes the secret.
    const bad = { ...account, clientSecret: 'not-the-secret' }
    expect(await verifier.verify(bad, paypalHeaders(), rawSample)).toBe('unavailable')
    expect(api.tokenRequests.length).toBe(1)
    expect(api.verifyRequests.length).toBe(0)
    // Fixed: the corrected secret gets its own token at once.
    expect(await verifier.verify(account, paypalHeaders(), rawSample)).toBe('valid')
  })

  test('an account without credentials or webhook id → unavailable, no API call', async () => {
    expect(await verifier.verify({ ...account, webhookId: '' }, paypalHeaders(), rawSample)).toBe('unavailable')
    expect(await verifier.verify({ ...account, clientSecret: '' }, paypalHeaders(), rawSample)).toBe('unavailable')
    expect(api.tokenRequests.length + api.verifyRequests.length).toBe(0)
  })

  test('no secret or token ever reaches the log', async () => {
    const secret = 'very-secret-client-secret-77'
    api.clients['client-9'] = secret
    const acct = { clientId: 'client-9', clientSecret: secret, webhookId: 'WH-CONFIGURED-1' }
    const { lines } = await captureLogs(async () => {
      await verifier.verify({ ...acct, clientSecret: 'wrong-secret-88' }, paypalHeaders(), rawSample)
      await verifier.verify(acct, paypalHeaders(), rawSample)
      api.verifyFailure = { status: 500 }
      await verifier.verify(acct, paypalHeaders(), rawSample)
      api.verifyFailure = 'close'
      await verifier.verify(acct, paypalHeaders(), rawSample)
      api.verifyFailure = null
      api.refuseAllTokens = true
      await verifier.verify(acct, paypalHeaders(), rawSample)
    })
    expect(lines.length).toBeGreaterThan(0)
    const all = lines.join('\n')
    for (const s of [secret, 'wrong-secret-88', Buffer.from(`client-9:${secret}`).toString('base64'), ...api.issued]) {
      expect(all.includes(s)).toBe(false)
    }
    expect(all).toContain('pay-b')
  })
})

describe('readPayBEvent', () => {
  test('PAYMENT.CAPTURE.COMPLETED', () => {
    const e = readPayBEvent({
      id: 'WH-58D329510W468432D-8HN650336L201105X', event_version: '1.0', create_time: '2019-02-14T21:50:07.940Z',
      resource_type: 'capture', resource_version: '2.0', event_type: 'PAYMENT.CAPTURE.COMPLETED',
      summary: 'Payment completed for $ 2.51 USD',
      resource: {
        id: '27M47624FP291604U', status: 'COMPLETED', amount: { currency_code: 'usd', value: '2.51' }, final_capture: true,
        custom_id: CLICK.toUpperCase(), invoice_id: 'INV-1001',
        seller_protection: { status: 'ELIGIBLE' },
        seller_receivable_breakdown: { gross_amount: { currency_code: 'USD', value: '2.51' }, paypal_fee: { currency_code: 'USD', value: '0.37' }, net_amount: { currency_code: 'USD', value: '2.14' } },
        supplementary_data: { related_ids: { order_id: '4K5112848U951142F' } },
        links: [
          { href: 'https://api.paypal.com/v2/payments/captures/27M47624FP291604U', rel: 'self', method: 'GET' },
          { href: 'https://api.paypal.com/v2/payments/captures/27M47624FP291604U/refund', rel: 'refund', method: 'POST' },
          { href: 'https://api.paypal.com/v2/checkout/orders/4K5112848U951142F', rel: 'up', method: 'GET' },
        ],
      },
      links: [{ href: 'https://api.paypal.com/v1/notifications/webhooks-events/WH-58D329510W468432D-8HN650336L201105X', rel: 'self', method: 'GET' }],
    })
    expect(e).toEqual({
      id: 'WH-58D329510W468432D-8HN650336L201105X', type: 'PAYMENT.CAPTURE.COMPLETED', kind: 'capture-completed',
      orderExternalId: '27M47624FP291604U', relatedOrderId: '4K5112848U951142F', amount: 2.51, currency: 'USD', clickId: CLICK, email: null,
    })
  })

  test('capture: the click id from invoice_id when custom_id is not a UUID; none when neither is', () => {
    const cap = (custom_id: unknown, invoice_id: unknown) => readPayBEvent({
      id: 'WH-1', event_type: 'PAYMENT.CAPTURE.COMPLETED', resource: { id: 'CAP', amount: { value: '1.00', currency_code: 'EUR' }, custom_id, invoice_id },
    }).clickId
    expect(cap('order-77', CLICK.toUpperCase())).toBe(CLICK)
    expect(cap(undefined, CLICK)).toBe(CLICK)
    expect(cap('order-77', 'INV-1')).toBeNull()
    expect(cap(42, null)).toBeNull()
    expect(cap(` ${CLICK} `, null)).toBe(CLICK)
  })

  test('PAYMENT.CAPTURE.REFUNDED: the capture from the up link; this refund\'s amount; the reported cumulative total', () => {
    const e = readPayBEvent({
      id: 'WH-1Y256891SG146025S-8LA63402NJ651402W', event_version: '1.0', create_time: '2018-08-15T19:14:04.543Z',
      resource_type: 'refund', resource_version: '2.0', event_type: 'PAYMENT.CAPTURE.REFUNDED',
      summary: 'A $ 0.99 USD capture payment was refunded',
      resource: {
        id: '1Y107995YT783435V', status: 'COMPLETED', custom_id: CLICK, invoice_id: 'INV-1001',
        seller_payable_breakdown: {
          gross_amount: { currency_code: 'USD', value: '0.99' }, paypal_fee: { currency_code: 'USD', value: '0.02' },
          net_amount: { currency_code: 'USD', value: '0.97' }, total_refunded_amount: { currency_code: 'USD', value: '1.98' },
        },
        amount: { currency_code: 'USD', value: '0.99' },
        update_time: '2018-08-15T12:13:29-07:00', create_time: '2018-08-15T12:13:29-07:00',
        links: [
          { href: 'https://api.paypal.com/v2/payments/refunds/1Y107995YT783435V', rel: 'self', method: 'GET' },
          { href: 'https://api.paypal.com/v2/payments/captures/0JF852973C016714D', rel: 'up', method: 'GET' },
        ],
      },
    })
    expect(e).toEqual({
      id: 'WH-1Y256891SG146025S-8LA63402NJ651402W', type: 'PAYMENT.CAPTURE.REFUNDED', kind: 'capture-refunded',
      orderExternalId: '0JF852973C016714D', relatedOrderId: null, amount: 0.99, currency: 'USD', clickId: CLICK, email: null,
      refundId: '1Y107995YT783435V', refundAmount: 0.99, refundedTotal: 1.98,
    })
  })

  test('refund without an up link: the capture from related_ids.capture_id; no cumulative total → refundedTotal absent', () => {
    const e = readPayBEvent({
      id: 'WH-2', event_type: 'PAYMENT.CAPTURE.REFUNDED',
      resource: {
        id: 'REF-2', amount: { currency_code: 'JPY', value: '500' },
        supplementary_data: { related_ids: { capture_id: 'CAP-2', order_id: 'ORD-2' } },
        links: [{ href: 'https://api.paypal.com/v2/payments/refunds/REF-2', rel: 'self' }],
      },
    })
    expect(e.kind).toBe('capture-refunded')
    expect(e.orderExternalId).toBe('CAP-2')
    expect(e.relatedOrderId).toBe('ORD-2')
    expect(e.amount).toBe(500)
    expect(e.refundAmount).toBe(500)
    expect(e.currency).toBe('JPY')
    expect(e.refundId).toBe('REF-2')
    expect('refundedTotal' in e).toBe(false)
  })

  test('BILLING.SUBSCRIPTION.CREATED (and the other BILLING.SUBSCRIPTION.* events)', () => {
    const resource = {
      id: 'I-BW452GLLEP1G', plan_id: 'P-5ML4271244454362WXNWU5NQ', status: 'APPROVAL_PENDING', status_update_time: '2026-03-01T10:00:00Z',
      custom_id: CLICK, quantity: '1', start_time: '2026-03-01T10:00:00Z', create_time: '2026-03-01T10:00:00Z',
      subscriber: { name: { given_name: 'John', surname: 'Doe' }, email_address: 'customer@example.com', payer_id: 'QYR5Z8XDVJNXQ' },
      billing_info: { next_billing_time: '2026-04-01T10:00:00Z', failed_payments_count: 0 },
      links: [{ href: 'https://www.paypal.com/webapps/billing/subscriptions?ba_token=BA-2M539689T3856352J', rel: 'approve', method: 'GET' }],
    }
    const e = readPayBEvent({ id: 'WH-77687562XN25889J8-8Y6T55435R66168T6', event_type: 'BILLING.SUBSCRIPTION.CREATED', resource_type: 'subscription', resource })
    expect(e).toEqual({
      id: 'WH-77687562XN25889J8-8Y6T55435R66168T6', type: 'BILLING.SUBSCRIPTION.CREATED', kind: 'subscription',
      orderExternalId: null, relatedOrderId: null, amount: 0, currency: null, clickId: CLICK, email: 'customer@example.com',
      subscription: {
        externalId: 'I-BW452GLLEP1G', status: 'APPROVAL_PENDING', customerExternalId: 'QYR5Z8XDVJNXQ', email: 'customer@example.com',
        clickId: CLICK, currentPeriodEnd: Date.parse('2026-04-01T10:00:00Z'),
      },
    })
    const cancelled = readPayBEvent({ id: 'WH-3', event_type: 'BILLING.SUBSCRIPTION.CANCELLED', resource: { ...resource, status: 'CANCELLED', billing_info: {} } })
    expect(cancelled.kind).toBe('subscription')
    expect(cancelled.subscription?.status).toBe('CANCELLED')
    expect(cancelled.subscription?.currentPeriodEnd).toBeNull()
  })

  test('other event types → kind other', () => {
    const e = readPayBEvent({ id: 'WH-9', event_type: 'PAYMENT.SALE.COMPLETED', resource: { id: 'SALE-1', amount: { total: '9.99', currency: 'USD' } } })
    expect(e).toEqual({ id: 'WH-9', type: 'PAYMENT.SALE.COMPLETED', kind: 'other', orderExternalId: null, relatedOrderId: null, amount: 0, currency: null, clickId: null, email: null })
  })

  test('anything malformed → null fields, never throws', () => {
    const empty = { id: null, type: null, kind: 'other', orderExternalId: null, relatedOrderId: null, amount: 0, currency: null, clickId: null, email: null }
    for (const v of [null, undefined, 'text', 42, [], [{ event_type: 'PAYMENT.CAPTURE.COMPLETED' }], {}]) expect(readPayBEvent(v)).toEqual(empty as never)
    // A type without a resource: the id and type, nothing else.
    expect(readPayBEvent({ id: 'WH-1', event_type: 'PAYMENT.CAPTURE.COMPLETED', resource: 'x' })).toEqual({ ...empty, id: 'WH-1', type: 'PAYMENT.CAPTURE.COMPLETED' } as never)
    const weird = readPayBEvent({
      id: { x: 1 }, event_type: 'PAYMENT.CAPTURE.COMPLETED',
      resource: { id: ['CAP'], amount: { value: '1,000.00', currency_code: 'EURO' }, custom_id: { a: 1 }, supplementary_data: 'x' },
    })
    expect(weird).toEqual({ ...empty, type: 'PAYMENT.CAPTURE.COMPLETED', kind: 'capture-completed' } as never)
    const refund = readPayBEvent({
      event_type: 'PAYMENT.CAPTURE.REFUNDED',
      resource: { amount: null, links: [null, 'x', { rel: 'up', href: 42 }, { rel: 'up', href: 'https://api.paypal.com/v2/checkout/orders/O-1' }], seller_payable_breakdown: { total_refunded_amount: 'x' } },
    })
    expect(refund.kind).toBe('capture-refunded')
    expect(refund.orderExternalId).toBeNull()
    expect(refund.amount).toBe(0)
    expect(refund.refundId).toBeNull()
    expect('refundedTotal' in refund).toBe(false)
    const sub = readPayBEvent({ event_type: 'BILLING.SUBSCRIPTION.ACTIVATED', resource: { subscriber: 'x', billing_info: { next_billing_time: 'soon' }, custom_id: 'nope' } })
    expect(sub.subscription).toEqual({ externalId: null, status: null, customerExternalId: null, email: null, clickId: null, currentPeriodEnd: null })
    // A cyclic object is read without trouble too.
    const cyclic: Record<string, unknown> = { event_type: 'PAYMENT.CAPTURE.COMPLETED' }
    cyclic.resource = cyclic
    expect(() => readPayBEvent(cyclic)).not.toThrow()
  })
})
