// The e-commerce receivers (spec §4, issue 11): ecom-a (the Shopify-shaped platform) and ecom-b (the
// WooCommerce-shaped one). Each checks its signature over the raw bytes, reads the order from the body
// (JSON, best effort), and runs the order's steps (orders.ts) in one transaction with the conversion they
// record. No HTTP here: routes.ts reads the request and answers what this returns.
import { hmacSha256Base64, hmacSha256Hex, safeEqual } from '../lib/crypto'
import { parseJsonExact } from '../lib/json'
import { RateLimiter } from '../lib/rate-limit'
import { errorFields, log } from '../lib/log'
import type { SettingsStore } from '../settings/store'
import type { ConversionRecorder } from '../postback/record'
import type { ConversionTypes } from '../postback/conversion-types'
import { ecomAClick, ecomBClick } from './extract'
import { fromMinorUnits } from './money'
import { normalizeClickId } from '../lib/click-id'
import { readPayBEvent, type PayBVerifier } from './pay-b'
import { normalizeEmail } from '../email/address'
import { orderEventSteps, type OrderEffect, type OrderEvent, type StepResult } from './orders'
import type { CommerceStore, NewWebhookEvent, SignatureOutcome, WebhookSource } from './store/types'

/** What an event row keeps of the body, for a merchant reading why an order was not attributed. */
const PAYLOAD_KEPT = 64 * 1024

export interface Delivery {
  headers: Headers
  body: Uint8Array
  /** The request's query parameters (ecom-a's legacy ?key=). */
  query: URLSearchParams
}

export interface WebhookAnswer {
  status: 200 | 401
  /** `{ok:true, …}` or the error body. */
  body: Record<string, unknown>
}

/** A PayA-Signature older (or newer) than this is a replay: refused (the processor's own default). */
export const PAY_A_TOLERANCE_S = 300

/**
 * `PayA-Signature: t=<unix>,v1=<hex>[,v1=<hex>…]`: hex HMAC-SHA256 of "<t>.<raw body>"; any v1 may match
 * (several while a secret is rolled); t within PAY_A_TOLERANCE_S of now.
 */
export function payASignature(secret: string | null, body: Uint8Array, header: string | null, nowMs: number): SignatureOutcome | 'stale' {
  if (header === null || header.trim() === '') return 'missing'
  if (!secret) return 'invalid'
  let t: number | null = null
  const v1: string[] = []
  for (const part of header.split(',')) {
    const eq = part.indexOf('=')
    const k = part.slice(0, eq).trim()
    const v = part.slice(eq + 1).trim()
    if (k === 't' && /^\d{1,12}$/.test(v)) t = Number(v)
    else if (k === 'v1' && /^[0-9a-f]{64}$/.test(v)) v1.push(v)
  }
  if (t === null || v1.length === 0) return 'invalid'
  const signed = Buffer.concat([Buffer.from(`${t}.`), body])
  const expected = hmacSha256Hex(secret, signed)
  // Every candidate is compared (constant time each), so timing tells nothing about which one matched.
  let ok = false
  for (const s of v1) ok = safeEqual(s, expected) || ok
  if (!ok) return 'invalid'
  return Math.abs(nowMs / 1000 - t) > PAY_A_TOLERANCE_S ? 'stale' : 'valid'
}

/** Header names: ours first, then the platform's own (the same values; either is accepted). */
const ECOM_A = { signature: ['x-ecoma-hmac-sha256', 'x-shopify-hmac-sha256'], topic: ['x-ecoma-topic', 'x-shopify-topic'], id: ['x-ecoma-webhook-id', 'x-shopify-webhook-id'] }
const ECOM_B = { signature: ['x-ecomb-webhook-signature', 'x-wc-webhook-signature'], topic: ['x-ecomb-webhook-topic', 'x-wc-webhook-topic'] }

const header = (h: Headers, names: readonly string[]): string | null => {
  for (const n of names) {
    const v = h.get(n)
    if (v !== null && v !== '') return v
  }
  return null
}

/** base64(HMAC-SHA256(secret, raw body)) against the header, in constant time. */
function base64HmacMatches(secret: string, body: Uint8Array, given: string): boolean {
  return safeEqual(given.trim(), hmacSha256Base64(secret, body))
}

function parseJson(body: Uint8Array): Record<string, unknown> | null {
  try {
    const v = parseJsonExact(new TextDecoder('utf-8', { fatal: false }).decode(body))
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null
  } catch {
    return null
  }
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' ? String(v) : null)
/** Money as the platforms send it (decimal strings, or numbers): a finite number, else 0. */
function money(v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d{1,12}(\.\d{1,8})?$/.test(v.trim()) ? Number(v.trim()) : NaN
  return Number.isFinite(n) ? n : 0
}
const currencyOf = (v: unknown): string | null => {
  const c = text(v)
  return c && /^[A-Za-z]{3}$/.test(c) ? c.toUpperCase() : null
}
const crop = (s: string | null, n: number) => (s === null ? null : s.slice(0, n))
/** An address as svc stores them everywhere (email/address.ts), so a customer's account finds its orders; else none. */
const emailOf = (v: string | null | undefined): string | null => (v ? normalizeEmail(v) : null)

/** The click id a store put in the payment's metadata: `_svc_click`, `click_id` or `svc_click`. */
function payAClick(metadata: Record<string, unknown>): string | null {
  for (const k of ['_svc_click', 'click_id', 'svc_click']) {
    const id = normalizeClickId(text(metadata[k]))
    if (id) return id
  }
  return null
}

/** The registration path at the processor (see payAAccount). */
export const NATIVE_PENDING = 'native-pending'
const PAY_A_SIGNATURE = ['paya-signature', 'stripe-signature']

/** A payment account as the receivers need it (secrets decrypted): commerce/accounts.ts. */
export interface PaymentAccount {
  id: number
  type: string
  webhookSecret: string | null
  clientId: string | null
  clientSecret: string | null
}
export interface AccountLookup {
  byAccountId(accountId: string): Promise<PaymentAccount | undefined>
  /** pay-a accounts whose webhook endpoint svc registered (what native-pending checks against). */
  registeredPayA(): Promise<PaymentAccount[]>
}

function positiveInt(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : NaN
  return Number.isSafeInteger(n) && n > 0 ? n : null
}

export class WebhookReceiver {
  /** Refused deliveries are stored for the merchant, but a stranger's flood of them is not: 120 a minute in all. */
  private readonly refusals = new RateLimiter(120, 60_000)

  constructor(private readonly deps: {
    store: CommerceStore
    recorder: ConversionRecorder
    types: ConversionTypes
    settings: SettingsStore
    accounts?: AccountLookup
    payB?: PayBVerifier
    /** A native product: the list its buyers join. */
    productOf?: (id: number) => Promise<{ id: number; emailListId: number | null } | undefined>
  }) {}

  /** POST /webhook/ecom-a */
  async ecomA(d: Delivery, now = Date.now()): Promise<WebhookAnswer> {
    const signature = this.ecomASignature(d)
    const topic = crop(header(d.headers, ECOM_A.topic), 100)
    const payload = this.payloadOf(d.body)
    if (signature === 'invalid' || signature === 'missing') return this.refuse('ecom-a', signature, topic, now)
    const order = parseJson(d.body)
    const eventId = crop(header(d.headers, ECOM_A.id), 200)
    if (!order) return this.ignore('ecom-a', signature, topic, eventId, payload, 'the body is not a JSON object', now)
    const externalId = text(order.id)
    if (!externalId) return this.ignore('ecom-a', signature, topic, eventId, payload, 'the order has no id', now)
    const effect: OrderEffect = topic === 'orders/create' || topic === 'orders/paid' ? 'count'
      : topic === 'orders/cancelled' ? 'reverse'
        : topic === 'orders/fulfilled' || topic === 'orders/updated' ? 'update' : 'ignore'
    const status = effect === 'reverse' ? 'cancelled' : topic === 'orders/paid' ? 'paid' : topic === 'orders/fulfilled' ? 'fulfilled'
      : text(order.financial_status) ?? 'open'
    const email = text(order.email) ?? text((order.customer as Record<string, unknown> | undefined)?.email)
    return this.run({
      delivery: this.delivery('ecom-a', signature, topic, eventId, eventId ?? `${externalId}:${topic ?? ''}`, externalId, payload, now),
      effect,
      order: {
        externalId: externalId.slice(0, 200), status, currency: currencyOf(order.currency), total: money(order.total_price),
        email: emailOf(email), clickId: ecomAClick(order)?.clickId ?? null,
      },
    })
  }

  /** POST /webhook/ecom-b */
  async ecomB(d: Delivery, now = Date.now()): Promise<WebhookAnswer> {
    const given = header(d.headers, ECOM_B.signature)
    const raw = new TextDecoder().decode(d.body.subarray(0, 64))
    // The platform's ping when a webhook is saved: unsigned `webhook_id=N`; it must get exactly 200.
    if (given === null && /^webhook_id=\d{1,12}$/.test(raw.trim()) && d.body.length < 64) {
      return this.ignore('ecom-b', 'ping', null, null, raw.trim(), 'the platform\'s ping when a webhook is saved', now)
    }
    const secret = this.deps.settings.get('ecom_b_webhook_secret')
    const signature: SignatureOutcome = given === null ? 'missing' : secret && base64HmacMatches(secret, d.body, given) ? 'valid' : 'invalid'
    const topic = crop(header(d.headers, ECOM_B.topic), 100)
    const payload = this.payloadOf(d.body)
    if (signature !== 'valid') return this.refuse('ecom-b', signature, topic, now)
    const order = parseJson(d.body)
    if (!order) return this.ignore('ecom-b', signature, topic, null, payload, 'the body is not a JSON object', now)
    const externalId = text(order.id)
    if (!externalId) return this.ignore('ecom-b', signature, topic, null, payload, 'the order has no id', now)
    const status = (text(order.status) ?? 'pending').toLowerCase()
    const effect: OrderEffect = topic === 'order.deleted' ? 'ignore'
      : status === 'processing' || status === 'completed' ? 'count'
        : status === 'cancelled' || status === 'refunded' || status === 'failed' ? 'reverse' : 'update'
    const email = text((order.billing as Record<string, unknown> | undefined)?.email)
    return this.run({
      // No event id on this platform: one delivery per order, topic and status (a retry repeats all three).
      delivery: this.delivery('ecom-b', signature, topic, null, `${externalId}:${topic ?? ''}:${status}`, externalId, payload, now),
      effect,
      order: {
        externalId: externalId.slice(0, 200), status: status.slice(0, 40), currency: currencyOf(order.currency), total: money(order.total),
        email: emailOf(email), clickId: ecomBClick(order)?.clickId ?? null,
      },
    })
  }

  /**
   * POST /webhook/pay-a-ecom: the payment processor's events for a store outside svc (legacy global endpoint,
   * setting pay_a_ecom_webhook_secret).
   */
  async payAEcom(d: Delivery, now = Date.now()): Promise<WebhookAnswer> {
    const check = payASignature(this.deps.settings.get('pay_a_ecom_webhook_secret'), d.body, header(d.headers, PAY_A_SIGNATURE), now)
    return check === 'valid' ? this.payAEvent(d, null, now) : this.refusePayA(check, now)
  }

  /**
   * POST /webhook/pay-a/:account_id: the same events, checked with that payment account's signing secret.
   * `native-pending` is the path svc registers at the processor (first checkout): it is checked against
   * every account whose endpoint svc registered, and the one whose secret matches is the account. Unknown
   * account → 404 (the processor retries for days while the merchant fixes the URL).
   */
  async payAAccount(accountId: string, d: Delivery, now = Date.now()): Promise<WebhookAnswer | 'not-found'> {
    const accounts = this.deps.accounts
    if (!accounts) return 'not-found'
    const given = header(d.headers, PAY_A_SIGNATURE)
    const candidates = accountId === NATIVE_PENDING
      ? await accounts.registeredPayA()
      : [await accounts.byAccountId(accountId)].filter((a): a is PaymentAccount => a !== undefined && a.type === 'pay-a')
    if (candidates.length === 0) return 'not-found'
    let check: ReturnType<typeof payASignature> = 'invalid'
    for (const account of candidates) {
      check = payASignature(account.webhookSecret, d.body, given, now)
      if (check === 'valid') return this.payAEvent(d, account, now)
      if (check === 'missing' || check === 'stale') break
    }
    return this.refusePayA(check, now)
  }

  /**
   * POST /webhook/pay-b/:account_id: verified by the provider's own API (the account's OAuth client and
   * webhook id). Unreachable → 503, so the sender retries (a 401 would tell it the event is forged).
   */
  async payBAccount(accountId: string, d: Delivery, now = Date.now()): Promise<WebhookAnswer | 'not-found' | 'unavailable'> {
    const account = await this.deps.accounts?.byAccountId(accountId)
    if (!account || account.type !== 'pay-b' || !this.deps.payB) return 'not-found'
    const verdict = await this.deps.payB.verify(
      { clientId: account.clientId ?? '', clientSecret: account.clientSecret ?? '', webhookId: account.webhookSecret ?? '' }, d.headers, d.body,
    )
    if (verdict === 'unavailable') return 'unavailable'
    if (verdict === 'invalid') return this.refuse('pay-b', 'invalid', null, now)
    const payload = this.payloadOf(d.body)
    const e = readPayBEvent(parseJson(d.body))
    const type = crop(e.type, 100)
    const eventId = crop(e.id, 200)
    if (e.kind === 'subscription' && e.subscription?.externalId) {
      const sub = e.subscription
      return this.run({
        delivery: this.delivery('pay-b', 'valid', type, eventId, eventId ?? `${sub.externalId}:${type}:${sub.status}`, null, payload, now),
        effect: 'subscription',
        order: { externalId: sub.externalId!, status: '', currency: null, total: 0, email: sub.email, clickId: sub.clickId },
        subscription: {
          source: 'pay-b', externalId: sub.externalId!.slice(0, 200), paymentAccountId: account.id, customerExternalId: crop(sub.customerExternalId, 200),
          email: emailOf(sub.email), status: crop(sub.status, 40) ?? 'unknown', clickId: sub.clickId, productId: null,
          currentPeriodEnd: sub.currentPeriodEnd, canceledAt: null,
        },
      })
    }
    if ((e.kind !== 'capture-completed' && e.kind !== 'capture-refunded') || !e.orderExternalId) {
      return this.ignore('pay-b', 'valid', type, eventId, payload, `event type ${type ?? '(none)'} is not handled`, now)
    }
    const refund = e.kind === 'capture-refunded'
    return this.run({
      delivery: this.delivery('pay-b', 'valid', type, eventId, eventId ?? `${e.orderExternalId}:${type}`, e.orderExternalId, payload, now),
      effect: refund ? 'refund' : 'count',
      order: {
        externalId: e.orderExternalId.slice(0, 200), status: refund ? 'partially_refunded' : 'paid', currency: e.currency,
        // A refund event carries the refund's amount, not the capture's: the order keeps the total it has.
        total: refund ? null : e.amount, email: emailOf(e.email), clickId: e.clickId, paymentAccountId: account.id,
        ...(refund ? { refundedTotal: e.refundedTotal, refundPart: e.refundAmount, refundId: e.refundId ?? null } : {}),
      },
      ...(refund ? {} : { emailListId: null }),
    })
  }

  private refusePayA(check: ReturnType<typeof payASignature>, now: number): Promise<WebhookAnswer> {
    if (check === 'stale') return this.refuse('pay-a', 'invalid', null, now, 'signature timestamp outside the 5-minute tolerance')
    return this.refuse('pay-a', check === 'valid' ? 'invalid' : check, null, now)
  }

  /**
   * A verified pay-a event: payment_intent.succeeded counts the payment (and the buyer joins the product's
   * list: the post-purchase automation); payment_failed marks it; charge.refunded refunds (partial refunds
   * add up, never past what was paid); customer.subscription.* writes the subscription row.
   */
  private async payAEvent(d: Delivery, account: PaymentAccount | null, now: number): Promise<WebhookAnswer> {
    const payload = this.payloadOf(d.body)
    const event = parseJson(d.body)
    if (!event) return this.ignore('pay-a', 'valid', null, null, payload, 'the body is not a JSON object', now)
    const type = crop(text(event.type), 100)
    const eventId = crop(text(event.id), 200)
    const obj = ((event.data as Record<string, unknown> | undefined)?.object ?? null) as Record<string, unknown> | null
    if (!obj || typeof obj !== 'object') return this.ignore('pay-a', 'valid', type, eventId, payload, 'the event has no data.object', now)
    const currency = currencyOf(obj.currency)
    const metadata = (obj.metadata && typeof obj.metadata === 'object' ? obj.metadata : {}) as Record<string, unknown>
    const clickId = payAClick(metadata)
    const productId = positiveInt(metadata.product_id)
    const email = emailOf(text(obj.receipt_email) ?? text(metadata.email) ?? text(obj.billing_details && (obj.billing_details as Record<string, unknown>).email))
    const dedup = (externalId: string) => eventId ?? `${externalId}:${type}`
    if (type?.startsWith('customer.subscription.')) {
      const externalId = text(obj.id)
      if (!externalId) return this.ignore('pay-a', 'valid', type, eventId, payload, 'the subscription has no id', now)
      const items = (obj.items as { data?: Array<Record<string, unknown>> } | undefined)?.data
      const periodEnd = positiveInt(items?.[0]?.current_period_end) ?? positiveInt(obj.current_period_end)
      const canceledAt = positiveInt(obj.canceled_at) ?? (type === 'customer.subscription.deleted' ? Math.floor(now / 1000) : null)
      return this.run({
        delivery: this.delivery('pay-a', 'valid', type, eventId, dedup(externalId), null, payload, now),
        effect: 'subscription',
        order: { externalId, status: '', currency, total: 0, email, clickId },
        subscription: {
          source: 'pay-a', externalId: externalId.slice(0, 200), paymentAccountId: account?.id ?? null,
          customerExternalId: crop(text(obj.customer), 200), email, status: crop(text(obj.status), 40) ?? 'unknown', clickId, productId,
          currentPeriodEnd: periodEnd === null ? null : periodEnd * 1000, canceledAt: canceledAt === null ? null : canceledAt * 1000,
        },
      })
    }
    let effect: OrderEffect
    let externalId: string | null
    let status: string
    let total: number
    let refundedTotal: number | undefined
    if (type === 'payment_intent.succeeded' || type === 'payment_intent.payment_failed') {
      externalId = text(obj.id)
      effect = type === 'payment_intent.succeeded' ? 'count' : 'update'
      // Not 'failed': a payment intent that failed can still succeed with another card.
      status = type === 'payment_intent.succeeded' ? 'paid' : 'payment_failed'
      total = fromMinorUnits(type === 'payment_intent.succeeded' ? obj.amount_received ?? obj.amount : obj.amount, currency)
    } else if (type === 'charge.refunded') {
      // Joined back to the sale through its payment intent.
      externalId = text(obj.payment_intent) ?? text(obj.id)
      effect = 'refund'
      const amount = fromMinorUnits(obj.amount, currency)
      refundedTotal = fromMinorUnits(obj.amount_refunded, currency)
      status = obj.refunded === true || refundedTotal >= amount ? 'refunded' : 'partially_refunded'
      total = amount
    } else {
      return this.ignore('pay-a', 'valid', type, eventId, payload, `event type ${type ?? '(none)'} is not handled`, now)
    }
    if (!externalId) return this.ignore('pay-a', 'valid', type, eventId, payload, 'the event names no payment intent', now)
    // The product's list is where the buyer goes once paid (its automations: the post-purchase sequence).
    const product = effect === 'count' && productId !== null && this.deps.productOf ? await this.deps.productOf(productId) : undefined
    return this.run({
      delivery: this.delivery('pay-a', 'valid', type, eventId, dedup(externalId), externalId, payload, now),
      effect,
      order: {
        externalId: externalId.slice(0, 200), status, currency, total, email, clickId, refundedTotal, productId: product ? product.id : null,
        paymentAccountId: account?.id ?? null,
      },
      ...(effect === 'count' ? { emailListId: product?.emailListId ?? null } : {}),
    })
  }

  /** ecom-a: the HMAC header when one is sent; the legacy ?key= otherwise. */
  private ecomASignature(d: Delivery): SignatureOutcome {
    const given = header(d.headers, ECOM_A.signature)
    if (given !== null) {
      const secret = this.deps.settings.get('ecom_a_webhook_secret')
      return secret && base64HmacMatches(secret, d.body, given) ? 'valid' : 'invalid'
    }
    const key = d.query.get('key')
    if (key === null) return 'missing'
    const expected = this.deps.settings.get('ecom_a_webhook_key')
    return expected && safeEqual(key, expected) ? 'legacy_key' : 'invalid'
  }

  private payloadOf(body: Uint8Array): string {
    // Cut on a byte count, decoded leniently: a split character becomes U+FFFD, never an exception. No NULs
    // (Postgres text cannot hold them).
    return new TextDecoder('utf-8', { fatal: false }).decode(body.subarray(0, PAYLOAD_KEPT)).replace(/\u0000/g, '')
  }

  private delivery(source: WebhookSource, signature: SignatureOutcome, topic: string | null, externalId: string | null, dedupKey: string | null,
    orderExternalId: string | null, payload: string, now: number): NewWebhookEvent {
    return {
      source, externalId, dedupKey: crop(dedupKey, 300), topic, orderExternalId: crop(orderExternalId, 200), signature, outcome: 'recorded', error: null,
      payload, receivedAt: now,
    }
  }

  /** Stored without the body: an unsigned stranger's bytes are not kept. */
  private async refuse(source: WebhookSource, signature: SignatureOutcome, topic: string | null, now: number, why?: string): Promise<WebhookAnswer> {
    const error = why ?? (signature === 'missing' ? 'missing signature' : 'invalid signature')
    if (this.refusals.hit('all', now).allowed) await this.deps.store.recordRefused({
      ...this.delivery(source, signature, topic, null, null, null, '', now), payload: null, outcome: 'rejected', error,
    })
    return { status: 401, body: { error } }
  }

  private async ignore(source: WebhookSource, signature: SignatureOutcome, topic: string | null, eventId: string | null, payload: string, why: string, now: number): Promise<WebhookAnswer> {
    await this.deps.store.recordRefused({ ...this.delivery(source, signature, topic, eventId, null, null, payload, now), outcome: 'ignored', error: why })
    return { status: 200, body: { ok: true, outcome: 'ignored' } }
  }

  /** The order's steps and their conversion in one transaction; a failure is stored (outcome error) and thrown (→ 500: the sender retries). */
  private async run(e: OrderEvent): Promise<WebhookAnswer> {
    const { recorder, store, types } = this.deps
    const orderTypes = { sale: types.resolve('sale'), reversal: types.resolve('chargeback') }
    let r: StepResult
    try {
      // Group-committed with the other deliveries of this event-loop turn (SQLite), each in its own savepoint.
      r = await recorder.withinBatched((record, q, tx, unit) => orderEventSteps(store.in(tx), q, record, orderTypes, e, unit))
    } catch (err) {
      log.error('commerce: a webhook event could not be processed (the sender will retry)', { source: e.delivery.source, topic: e.delivery.topic, ...errorFields(err) })
      await store.recordRefused({ ...e.delivery, dedupKey: null, outcome: 'error', error: String(errorFields(err).error ?? 'error').slice(0, 500) }).catch(() => {})
      throw err
    }
    return { status: 200, body: { ok: true, outcome: r.outcome, ...(r.duplicate ? { duplicate: true } : {}) } }
  }
}
