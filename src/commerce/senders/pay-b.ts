// pay-b, the payment processor that signs with certificates (the PayPal-shaped one; docs/commerce.md): how a
// delivery is verified (by the provider's own API: pay-b-api.ts) and read into a plain description of its
// event, then into the order change the pipeline applies.
import { duplicateKey } from '../../lib/json-duplicates'
import { normalizeClickId } from '../../lib/click-id'
import { crop, currencyOf, decimalReader, emailOf, jsonObject, obj, shortText as text, type Obj } from '../parse'
import type { Delivery, PaymentAccount, Reading } from './delivery'
import type { PayBVerdict, PayBVerifier } from './pay-b-api'

/**
 * The provider verifies the raw text and we read it with JSON.parse (the last of two equal keys wins): a body
 * that repeats a key could be one event to the verifier and another to us. Refused (400) before asking.
 */
export function payBAmbiguity(body: Uint8Array): string | null {
  const dup = duplicateKey(new TextDecoder('utf-8', { fatal: false }).decode(body))
  return dup === null ? null : `the body repeats the key ${JSON.stringify(dup.slice(0, 100))} in one object: refused (it could be read two ways)`
}

/** The provider's answer for this account: its OAuth client and webhook id (payment_accounts.webhook_secret). */
export function verifyPayB(verifier: PayBVerifier, account: PaymentAccount, d: Delivery): Promise<PayBVerdict> {
  return verifier.verify({ clientId: account.clientId ?? '', clientSecret: account.clientSecret ?? '', webhookId: account.webhookSecret ?? '' }, d.headers, d.body)
}

/**
 * PAYMENT.CAPTURE.COMPLETED counts the capture; PAYMENT.CAPTURE.REFUNDED refunds (each refund's own amount,
 * added up, never past the capture); BILLING.SUBSCRIPTION.* writes the subscription; others are ignored.
 * A delivery is the event's id.
 */
export function readPayB(d: Delivery, accountId: number): Reading {
  const e = readPayBEvent(jsonObject(d.body))
  const type = crop(e.type, 100)
  const eventId = crop(e.id, 200)
  if (e.kind === 'subscription' && e.subscription?.externalId) {
    const sub = e.subscription
    const externalId = sub.externalId!
    return {
      kind: 'order', topic: type, eventId, dedupKey: eventId ?? `${externalId}:${type}:${sub.status}`, orderExternalId: null,
      change: {
        effect: 'subscription',
        order: { externalId, status: '', currency: null, total: 0, email: sub.email, clickId: sub.clickId },
        subscription: {
          source: 'pay-b', externalId: externalId.slice(0, 200), paymentAccountId: accountId, customerExternalId: crop(sub.customerExternalId, 200),
          email: emailOf(sub.email), status: crop(sub.status, 40) ?? 'unknown', clickId: sub.clickId, productId: null,
          currentPeriodEnd: sub.currentPeriodEnd, canceledAt: null,
        },
      },
    }
  }
  if ((e.kind !== 'capture-completed' && e.kind !== 'capture-refunded') || !e.orderExternalId) {
    return { kind: 'ignored', topic: type, eventId, why: `event type ${type ?? '(none)'} is not handled` }
  }
  const refund = e.kind === 'capture-refunded'
  return {
    kind: 'order', topic: type, eventId, dedupKey: eventId ?? `${e.orderExternalId}:${type}`, orderExternalId: e.orderExternalId,
    change: {
      effect: refund ? 'refund' : 'count',
      order: {
        externalId: e.orderExternalId.slice(0, 200), status: refund ? 'partially_refunded' : 'paid', currency: e.currency,
        // A refund event carries the refund's amount, not the capture's: the order keeps the total it has.
        total: refund ? null : e.amount, email: emailOf(e.email), clickId: e.clickId, paymentAccountId: accountId,
        ...(refund ? { refundedTotal: e.refundedTotal, refundPart: e.refundAmount, refundId: e.refundId ?? null } : {}),
      },
      ...(refund ? {} : { emailListId: null }),
    },
  }
}

// ---------------------------------------------------------------------------------------------------------
// The event reader

export type PayBEventKind = 'capture-completed' | 'capture-refunded' | 'subscription' | 'other'

export interface PayBSubscription {
  /** I-… */
  externalId: string | null
  /** APPROVAL_PENDING, APPROVED, ACTIVE, SUSPENDED, CANCELLED, EXPIRED… as sent. */
  status: string | null
  /** subscriber.payer_id */
  customerExternalId: string | null
  email: string | null
  clickId: string | null
  /** billing_info.next_billing_time in epoch ms. */
  currentPeriodEnd: number | null
}

export interface PayBEvent {
  /** The envelope's id (WH-…): the dedupe key. */
  id: string | null
  /** event_type as sent. */
  type: string | null
  kind: PayBEventKind
  /**
   * The capture id: the order as this processor knows it (a refund names the capture it refunds, so both
   * events land on the same order). null for subscriptions and other events.
   */
  orderExternalId: string | null
  /** The provider's checkout order id (supplementary_data.related_ids.order_id) when sent, else null. */
  relatedOrderId: string | null
  /** capture-completed: the captured amount; capture-refunded: this refund's amount; else 0. Decimal. */
  amount: number
  /** Upper-case three letters (parse.ts currencyOf), or null. */
  currency: string | null
  clickId: string | null
  email: string | null
  /** capture-refunded: this refund's id (the dedupe key of a refund). */
  refundId?: string | null
  /** capture-refunded: this refund's own amount (the same as `amount`). */
  refundAmount?: number
  /**
   * capture-refunded: the capture's cumulative refunded amount, only when the provider reports it
   * (seller_payable_breakdown.total_refunded_amount); absent otherwise.
   */
  refundedTotal?: number
  subscription?: PayBSubscription
}

/** The provider's decimal strings (`"10.00"`, `".5"`), at most 15 integer digits; a number is taken as is. Anything else: 0. */
const money = decimalReader(15, true)
const payerEmail = (v: unknown): string | null => {
  const e = text(v, 254)
  return e && e.includes('@') ? e : null
}
/** The click id the checkout put in custom_id, else in invoice_id; only a UUID counts. */
const clickOf = (r: Obj): string | null => normalizeClickId(text(r.custom_id)) ?? normalizeClickId(text(r.invoice_id))
const relatedIds = (r: Obj): Obj => obj(obj(r.supplementary_data)?.related_ids) ?? {}

/** The capture a refund belongs to: its `up` link (…/v2/payments/captures/<id>), else related_ids.capture_id. */
function refundedCapture(r: Obj): string | null {
  if (Array.isArray(r.links)) {
    for (const l of r.links) {
      const link = obj(l)
      if (!link || link.rel !== 'up' || typeof link.href !== 'string') continue
      const m = /\/captures\/([A-Za-z0-9_-]{1,100})(?:[/?#]|$)/.exec(link.href)
      if (m) return m[1]
    }
  }
  return text(relatedIds(r).capture_id)
}

/** Date text → epoch ms, or null. */
function timeOf(v: unknown): number | null {
  if (typeof v !== 'string' || v.length > 64) return null
  const t = Date.parse(v)
  return Number.isFinite(t) ? t : null
}

/**
 * The event as the receiver needs it. Never throws: anything malformed leaves its fields null (amount 0).
 *
 * PAYMENT.CAPTURE.COMPLETED   orderExternalId = the capture id; amount/currency from amount.{value,currency_code}
 * PAYMENT.CAPTURE.REFUNDED    orderExternalId = the refunded capture's id; amount = refundAmount = this refund's
 *                             amount; refundId. The provider sends each refund's own amount, not a running
 *                             total: the caller accumulates the refunds of a capture itself (keyed by refundId
 *                             so a redelivery does not count twice). refundedTotal is set only when the
 *                             event also reports the capture's cumulative total_refunded_amount.
 * BILLING.SUBSCRIPTION.*      subscription (no amount: the provider sends none; renewals come as
 *                             PAYMENT.SALE.COMPLETED, which is 'other' here)
 */
export function readPayBEvent(event: unknown): PayBEvent {
  const e = obj(event) ?? {}
  const type = text(e.event_type, 100)
  const r = obj(e.resource)
  const base: PayBEvent = {
    id: text(e.id), type, kind: 'other', orderExternalId: null, relatedOrderId: null, amount: 0, currency: null, clickId: null, email: null,
  }
  if (!r || !type) return base
  const amount = obj(r.amount) ?? {}
  const payer = payerEmail(obj(r.payer)?.email_address)
  if (type === 'PAYMENT.CAPTURE.COMPLETED') {
    return {
      ...base, kind: 'capture-completed', orderExternalId: text(r.id), relatedOrderId: text(relatedIds(r).order_id),
      amount: money(amount.value), currency: currencyOf(amount.currency_code), clickId: clickOf(r), email: payer,
    }
  }
  if (type === 'PAYMENT.CAPTURE.REFUNDED') {
    const refundAmount = money(amount.value)
    const total = obj(obj(r.seller_payable_breakdown)?.total_refunded_amount)
    const out: PayBEvent = {
      ...base, kind: 'capture-refunded', orderExternalId: refundedCapture(r), relatedOrderId: text(relatedIds(r).order_id),
      amount: refundAmount, currency: currencyOf(amount.currency_code), clickId: clickOf(r), email: payer,
      refundId: text(r.id), refundAmount,
    }
    if (total && total.value !== undefined) {
      const t = money(total.value)
      if (t > 0) out.refundedTotal = t
    }
    return out
  }
  if (type.startsWith('BILLING.SUBSCRIPTION.')) {
    const subscriber = obj(r.subscriber) ?? {}
    const subscription: PayBSubscription = {
      externalId: text(r.id),
      status: text(r.status, 40),
      customerExternalId: text(subscriber.payer_id),
      email: payerEmail(subscriber.email_address),
      clickId: normalizeClickId(text(r.custom_id)),
      currentPeriodEnd: timeOf(obj(r.billing_info)?.next_billing_time),
    }
    return { ...base, kind: 'subscription', clickId: subscription.clickId, email: subscription.email, subscription }
  }
  return base
}
