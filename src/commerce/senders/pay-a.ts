// pay-a, the payment processor with signed webhooks (the Stripe-shaped one; docs/commerce.md): how a delivery
// is verified and read, on the legacy global endpoint (pay-a-ecom) and per payment account.
import { hmacSha256Hex, safeEqual } from '../../lib/crypto'
import { normalizeClickId } from '../../lib/click-id'
import type { OrderEffect } from '../orders'
import type { SignatureOutcome } from '../store/types'
import { crop, currencyOf, emailOf, header, jsonObject, positiveInt, readMinorUnits, text, type Obj } from '../parse'
import type { Delivery, Reading } from './delivery'

/** Header names: ours first, then the processor's own. */
export const PAY_A_SIGNATURE = ['paya-signature', 'stripe-signature'] as const

/** A PayA-Signature older (or newer) than this is a replay: refused (the processor's own default). */
export const PAY_A_TOLERANCE_S = 300

/** The registration path at the processor (webhooks.ts payAAccount, checkout.ts). */
export const NATIVE_PENDING = 'native-pending'

export type PayACheck = SignatureOutcome | 'stale'

/**
 * `PayA-Signature: t=<unix>,v1=<hex>[,v1=<hex>…]`: hex HMAC-SHA256 of "<t>.<raw body>"; any v1 may match
 * (several while a secret is rolled); t within PAY_A_TOLERANCE_S of now. The secret: the setting
 * pay_a_ecom_webhook_secret (global endpoint) or the payment account's signing secret.
 */
export function payASignature(secret: string | null, body: Uint8Array, given: string | null, nowMs: number): PayACheck {
  if (given === null || given.trim() === '') return 'missing'
  if (!secret) return 'invalid'
  let t: number | null = null
  const v1: string[] = []
  for (const part of given.split(',')) {
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

/** The signature header of a delivery. */
export const payASignatureHeader = (h: Headers) => header(h, PAY_A_SIGNATURE)

/** How a failed check is refused: the signature outcome stored, and the message when it is not the plain one. */
export function payARefusal(check: PayACheck): { signature: SignatureOutcome; why?: string } {
  if (check === 'stale') return { signature: 'invalid', why: 'signature timestamp outside the 5-minute tolerance' }
  return { signature: check === 'valid' ? 'invalid' : check }
}

/** The click id a store put in the payment's metadata: `_svc_click`, `click_id` or `svc_click`. */
function payAClick(metadata: Obj): string | null {
  for (const k of ['_svc_click', 'click_id', 'svc_click']) {
    const id = normalizeClickId(text(metadata[k]))
    if (id) return id
  }
  return null
}

/**
 * A verified event: payment_intent.succeeded counts the payment (and the buyer joins the product's list: the
 * post-purchase automation); payment_intent.payment_failed marks it `failed`; charge.refunded refunds
 * (partial refunds add up, never past what was paid); customer.subscription.* writes the subscription row.
 * A delivery is the event's id. `accountId`: the payment account it came for (null: the global endpoint).
 */
export function readPayA(d: Delivery, accountId: number | null, now: number): Reading {
  const event = jsonObject(d.body)
  if (!event) return { kind: 'ignored', topic: null, eventId: null, why: 'the body is not a JSON object' }
  const type = crop(text(event.type), 100)
  const eventId = crop(text(event.id), 200)
  const obj = ((event.data as Obj | undefined)?.object ?? null) as Obj | null
  if (!obj || typeof obj !== 'object') return { kind: 'ignored', topic: type, eventId, why: 'the event has no data.object' }
  const currency = currencyOf(obj.currency)
  const metadata = (obj.metadata && typeof obj.metadata === 'object' ? obj.metadata : {}) as Obj
  const clickId = payAClick(metadata)
  const productId = positiveInt(metadata.product_id)
  const email = emailOf(text(obj.receipt_email) ?? text(metadata.email) ?? text(obj.billing_details && (obj.billing_details as Obj).email))
  const dedupKey = (externalId: string) => eventId ?? `${externalId}:${type}`
  if (type?.startsWith('customer.subscription.')) {
    const externalId = text(obj.id)
    if (!externalId) return { kind: 'ignored', topic: type, eventId, why: 'the subscription has no id' }
    const items = (obj.items as { data?: Array<Obj> } | undefined)?.data
    const periodEnd = positiveInt(items?.[0]?.current_period_end) ?? positiveInt(obj.current_period_end)
    const canceledAt = positiveInt(obj.canceled_at) ?? (type === 'customer.subscription.deleted' ? Math.floor(now / 1000) : null)
    return {
      kind: 'order', topic: type, eventId, dedupKey: dedupKey(externalId), orderExternalId: null,
      change: {
        effect: 'subscription',
        order: { externalId, status: '', currency, total: 0, email, clickId },
        subscription: {
          source: 'pay-a', externalId: externalId.slice(0, 200), paymentAccountId: accountId,
          customerExternalId: crop(text(obj.customer), 200), email, status: crop(text(obj.status), 40) ?? 'unknown', clickId, productId,
          currentPeriodEnd: periodEnd === null ? null : periodEnd * 1000, canceledAt: canceledAt === null ? null : canceledAt * 1000,
        },
      },
    }
  }
  let effect: OrderEffect
  let externalId: string | null
  let status: string
  let total: number | null
  let refundedTotal: number | undefined
  // Amounts are integer minor units; anything else is not counted as 0 but stored as an error (answered
  // 200: a redelivery would carry the same amount).
  const minor = (field: string): number | null => readMinorUnits(obj[field], currency)
  const unreadable = (field: string): Reading => {
    const shown = (JSON.stringify(obj[field]) ?? String(obj[field])).slice(0, 40)
    return { kind: 'error', topic: type, eventId, why: `${field} ${shown} is not an integer amount in minor units: not counted` }
  }
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
    return { kind: 'ignored', topic: type, eventId, why: `event type ${type ?? '(none)'} is not handled` }
  }
  if (!externalId) return { kind: 'ignored', topic: type, eventId, why: 'the event names no payment intent' }
  return {
    kind: 'order', topic: type, eventId, dedupKey: dedupKey(externalId), orderExternalId: externalId,
    change: {
      effect,
      order: {
        externalId: externalId.slice(0, 200), status, currency, total, email, clickId, refundedTotal, productId: null,
        paymentAccountId: accountId,
      },
    },
    // The product's list is where the buyer goes once paid (its automations: the post-purchase sequence).
    ...(effect === 'count' ? { product: productId } : {}),
  }
}
