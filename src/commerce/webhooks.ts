// The e-commerce receivers (spec §4, issue 11): ecom-a (the Shopify-shaped platform) and ecom-b (the
// WooCommerce-shaped one). Each checks its signature over the raw bytes, reads the order from the body
// (JSON, best effort), and runs the order's steps (orders.ts) in one transaction with the conversion they
// record. No HTTP here: routes.ts reads the request and answers what this returns.
import { hmacSha256, hmacSha256Base64, hmacSha256Hex, safeEqual } from '../lib/crypto'
import { parseJsonExact } from '../lib/json'
import { duplicateKey } from '../lib/json-duplicates'
import { RateLimiter } from '../lib/rate-limit'
import { errorFields, log } from '../lib/log'
import type { SettingsStore } from '../settings/store'
import type { ConversionRecorder } from '../postback/record'
import type { ConversionTypes } from '../postback/conversion-types'
import { ecomAClick, ecomBClick } from './extract'
import { readMinorUnits } from './money'
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
  /** The sender's address as the limits count it (lib/ip.ts clientKey: an IPv6 /64 is one); null: unknown. */
  client?: string | null
  /**
   * The address is over its limit of refused deliveries (routes.ts): a valid signature still counts, but
   * nothing it is refused for is stored and ecom-a's legacy ?key= is not even compared (a guessable value).
   */
  throttled?: boolean
}

export interface WebhookAnswer {
  status: 200 | 400 | 401
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

/**
 * ecom-a: HMAC-SHA256(secret, raw body) as base64 (the platform's own) or lowercase hex (spec §5 leaves the
 * encoding open). Both are compared, each in constant time, so timing tells nothing about which one matched.
 */
function ecomAHmacMatches(secret: string, body: Uint8Array, given: string): boolean {
  const mac = hmacSha256(secret, body)
  const base64 = safeEqual(given.trim(), mac.toString('base64'))
  const hex = safeEqual(given.trim(), mac.toString('hex'))
  return base64 || hex
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

/** Refused deliveries stored a minute, in all and per address (the rest are answered the same, not stored). */
export const STORED_REFUSALS_PER_MINUTE = 120
export const STORED_REFUSALS_PER_ADDRESS = 5
/** ecom-b pings (unsigned) stored an hour, in all and per address (each is still answered 200). */
export const STORED_PINGS_PER_HOUR = 30
export const STORED_PINGS_PER_ADDRESS = 3

function positiveInt(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : NaN
  return Number.isSafeInteger(n) && n > 0 ? n : null
}

export class WebhookReceiver {
  // What an unauthenticated sender can make svc store (refused deliveries, ecom-b's unsigned pings) is bounded
  // per address and in all; the per-address limit is taken first, so one address can never use up more than
  // its own share of the total the merchant's own misconfigured deliveries also need.
  /** Refused deliveries stored: 120 a minute in all, 5 a minute per address. */
  private readonly refusals = new RateLimiter(STORED_REFUSALS_PER_MINUTE, 60_000)
  private readonly refusalsPer = new RateLimiter(STORED_REFUSALS_PER_ADDRESS, 60_000)
  /** ecom-b's unsigned save-time pings stored: 30 an hour in all, 3 an hour per address (still answered 200). */
  private readonly pings = new RateLimiter(STORED_PINGS_PER_HOUR, 3_600_000)
  private readonly pingsPer = new RateLimiter(STORED_PINGS_PER_ADDRESS, 3_600_000)

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
    if (signature === 'invalid' || signature === 'missing') return this.refuse(d, 'ecom-a', signature, topic, now, signature === 'invalid' ? this.ecomAWhy(d) : undefined)
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
      // Unsigned: anyone can send one, so only a few are kept (the merchant needs to see the first).
      if (!this.storable(d, this.pingsPer, this.pings, now)) return { status: 200, body: { ok: true, outcome: 'ignored' } }
      return this.ignore('ecom-b', 'ping', null, null, raw.trim(), 'the platform\'s ping when a webhook is saved', now)
    }
    const secret = this.deps.settings.get('ecom_b_webhook_secret')
    const signature: SignatureOutcome = given === null ? 'missing' : secret && base64HmacMatches(secret, d.body, given) ? 'valid' : 'invalid'
    const topic = crop(header(d.headers, ECOM_B.topic), 100)
    const payload = this.payloadOf(d.body)
    if (signature !== 'valid') return this.refuse(d, 'ecom-b', signature, topic, now)
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
    return check === 'valid' ? this.payAEvent(d, null, now) : this.refusePayA(d, check, now)
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
    return this.refusePayA(d, check, now)
  }

  /**
   * POST /webhook/pay-b/:account_id: verified by the provider's own API (the account's OAuth client and
   * webhook id). Unreachable → 503, so the sender retries (a 401 would tell it the event is forged).
   */
  async payBAccount(accountId: string, d: Delivery, now = Date.now()): Promise<WebhookAnswer | 'not-found' | 'unavailable'> {
    const account = await this.deps.accounts?.byAccountId(accountId)
    if (!account || account.type !== 'pay-b' || !this.deps.payB) return 'not-found'
    // The provider verifies the raw text and we read it with JSON.parse (the last of two equal keys wins): a
    // body that repeats a key could be one event to the verifier and another to us. Refused before asking.
    const dup = duplicateKey(new TextDecoder('utf-8', { fatal: false }).decode(d.body))
    if (dup !== null) {
      return { status: 400, body: { error: `the body repeats the key ${JSON.stringify(dup.slice(0, 100))} in one object: refused (it could be read two ways)` } }
    }
    const verdict = await this.deps.payB.verify(
      { clientId: account.clientId ?? '', clientSecret: account.clientSecret ?? '', webhookId: account.webhookSecret ?? '' }, d.headers, d.body,
    )
    if (verdict === 'unavailable') return 'unavailable'
    if (verdict === 'invalid') return this.refuse(d, 'pay-b', 'invalid', null, now)
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

  private refusePayA(d: Delivery, check: ReturnType<typeof payASignature>, now: number): Promise<WebhookAnswer> {
    if (check === 'stale') return this.refuse(d, 'pay-a', 'invalid', null, now, 'signature timestamp outside the 5-minute tolerance')
    return this.refuse(d, 'pay-a', check === 'valid' ? 'invalid' : check, null, now)
  }

  /**
   * A verified pay-a event: payment_intent.succeeded counts the payment (and the buyer joins the product's
   * list: the post-purchase automation); payment_intent.payment_failed marks it `failed`; charge.refunded refunds (partial refunds
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
    let total: number | null
    let refundedTotal: number | undefined
    // Amounts are integer minor units; anything else is not counted as 0 but stored as an error (answered
    // 200: a redelivery would carry the same amount).
    const minor = (field: string): number | null => readMinorUnits(obj[field], currency)
    const unreadable = (field: string) => this.amountError(type, eventId, payload, field, obj[field], now)
    if (type === 'payment_intent.succeeded' || type === 'payment_intent.payment_failed') {
      externalId = text(obj.id)
      effect = type === 'payment_intent.succeeded' ? 'count' : 'update'
      // The spec's states (§3): paid, failed. A failed payment intent can still succeed with another card: a
      // later success moves a failed order to paid (and it counts); a failure reported after the success (an
      // earlier attempt, delivered late) leaves the paid order as it is (the orders upsert, both engines).
      status = type === 'payment_intent.succeeded' ? 'paid' : 'failed'
      const field = type === 'payment_intent.succeeded' && obj.amount_received !== undefined && obj.amount_received !== null ? 'amount_received' : 'amount'
      total = minor(field)
      if (total === null) return unreadable(field)
    } else if (type === 'charge.refunded') {
      // Joined back to the sale through its payment intent.
      externalId = text(obj.payment_intent) ?? text(obj.id)
      effect = 'refund'
      const amount = minor('amount')
      if (amount === null) return unreadable('amount')
      const refunded = minor('amount_refunded')
      if (refunded === null) return unreadable('amount_refunded')
      refundedTotal = refunded
      status = obj.refunded === true || refundedTotal >= amount ? 'refunded' : 'partially_refunded'
      // A refund never changes the order's total (the charge's amount is not the sale's).
      total = null
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

  /**
   * ecom-a: the HMAC header when one is sent; the legacy ?key= otherwise, only while no HMAC secret is set
   * (once ecom_a_webhook_secret is set the platform signs, and a guessable key is no way in), and never from
   * an address over its limit of refusals.
   */
  private ecomASignature(d: Delivery): SignatureOutcome {
    const given = header(d.headers, ECOM_A.signature)
    if (given !== null) {
      const secret = this.deps.settings.get('ecom_a_webhook_secret')
      return secret && ecomAHmacMatches(secret, d.body, given) ? 'valid' : 'invalid'
    }
    const key = d.query.get('key')
    if (key === null) return 'missing'
    if (this.deps.settings.get('ecom_a_webhook_secret') || d.throttled) return 'invalid'
    const expected = this.deps.settings.get('ecom_a_webhook_key')
    return expected && safeEqual(key, expected) ? 'legacy_key' : 'invalid'
  }

  /** Why an ecom-a delivery was refused, when it is the legacy key refused because an HMAC secret is set. */
  private ecomAWhy(d: Delivery): string | undefined {
    return header(d.headers, ECOM_A.signature) === null && d.query.get('key') !== null && this.deps.settings.get('ecom_a_webhook_secret')
      ? 'the legacy ?key= is refused while ecom_a_webhook_secret is set: deliveries must be signed (X-EcomA-Hmac-SHA256)'
      : undefined
  }

  /** A pay-a amount that is not integer minor units: stored as an error event (no order change, no money), 200. */
  private async amountError(type: string | null, eventId: string | null, payload: string, field: string, value: unknown, now: number): Promise<WebhookAnswer> {
    const shown = (JSON.stringify(value) ?? String(value)).slice(0, 40)
    await this.deps.store.recordRefused({
      ...this.delivery('pay-a', 'valid', type, eventId, null, null, payload, now), outcome: 'error',
      error: `${field} ${shown} is not an integer amount in minor units: not counted`,
    })
    return { status: 200, body: { ok: true, outcome: 'error' } }
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
  private async refuse(d: Delivery, source: WebhookSource, signature: SignatureOutcome, topic: string | null, now: number, why?: string): Promise<WebhookAnswer> {
    const error = why ?? (signature === 'missing' ? 'missing signature' : 'invalid signature')
    if (this.storable(d, this.refusalsPer, this.refusals, now)) await this.deps.store.recordRefused({
      ...this.delivery(source, signature, topic, null, null, null, '', now), payload: null, outcome: 'rejected', error,
    })
    return { status: 401, body: { error } }
  }

  /** Whether an unauthenticated delivery may be stored: its address's share first, then the total. */
  private storable(d: Delivery, perAddress: RateLimiter, total: RateLimiter, now: number): boolean {
    if (d.throttled) return false
    if (d.client && !perAddress.hit(d.client, now).allowed) return false
    return total.hit('all', now).allowed
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
