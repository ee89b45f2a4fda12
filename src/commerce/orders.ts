// What an order event does, once for both engines (a step body, see lib/steps.ts): inside one
// transaction, the delivery is recorded (a redelivery stops there), the order row follows the event, and
// the order counts as a conversion once, or is reversed once.
//
//   count    (ecom-a orders/create, orders/paid; ecom-b processing, completed): the first such event of an
//            order with a known click records a `sale` conversion of the order total, in the order's currency
//   reverse  (ecom-a orders/cancelled; ecom-b cancelled, refunded, failed): an order that counted records one
//            `chargeback` conversion of minus what it counted and was not reversed yet (orders.counted −
//            orders.reversed: a total raised after it counted does not raise the chargeback); an order that
//            never counted only changes status
//   refund   (pay-a charge.refunded, pay-b PAYMENT.CAPTURE.REFUNDED): the order's cumulative refunded amount,
//            never more than what counted; the new part is one `chargeback` conversion, capped at counted −
//            reversed. A refund never changes the order's total. An order that has not counted yet keeps the
//            amount (and its refund row), and nets it out when it counts: the sale of the full payment, then one
//            chargeback of min(refunded, sale)
// Money: every negative conversion is in the currency the sale counted in (orders.counted_currency); a refund
// in another currency is kept as a refund row and moves no money; the error says so on the event.
//   update   (fulfilled, pending, on-hold…): the order's status and totals, no money
import type { ConversionInput, ConversionType, RecordingQueries, RecordResult } from '../postback'
import type { Steps } from '../lib/steps'
import type { Unit } from '../lib/event-bus'
import type { CommerceQueries, EventResult, NewWebhookEvent, OrderRow, SubscriptionUpsert } from './store/types'

export type OrderEffect = 'count' | 'reverse' | 'refund' | 'update' | 'subscription' | 'ignore'

/**
 * Statuses after which an order never counts again (a late or replayed create/paid must not revive it). The
 * one way out, in the orders upsert: a payment that succeeds after failing moves `failed` to `paid`.
 */
export const TERMINAL = new Set(['cancelled', 'refunded', 'failed'])

export interface OrderEvent {
  delivery: NewWebhookEvent
  effect: OrderEffect
  order: {
    externalId: string
    status: string
    currency: string | null
    /** Null: this event does not say (a refund of processor B): the order keeps its total. */
    total: number | null
    email: string | null
    clickId: string | null
    /** refund: the cumulative refunded amount the sender reports… */
    refundedTotal?: number
    /** …or, from a sender that reports each refund alone, this refund's amount (added to what the order has). */
    refundPart?: number
    /** refund: the sender's id of this refund (else one is made from the order and the cumulative amount). */
    refundId?: string | null
    productId?: number | null
    paymentAccountId?: number | null
  }
  /** count: the list the buyer joins once the order is paid (the product's; null: none). */
  emailListId?: number | null
  /** subscription: the row to write (effect 'subscription'). */
  subscription?: Omit<SubscriptionUpsert, 'now'>
}

export interface OrderTypes {
  sale: ConversionType
  reversal: ConversionType
}

export type StepResult = EventResult & { duplicate: boolean }

const result = (r: Partial<EventResult> & Pick<EventResult, 'outcome'>, order?: OrderRow): StepResult => ({
  error: null, clickId: order?.clickId ?? null, orderId: order?.id ?? null, conversionId: null, duplicate: false, ...r,
})

export function* orderEventSteps(
  cq: CommerceQueries, q: RecordingQueries, record: (input: ConversionInput) => Steps<RecordResult>, types: OrderTypes, e: OrderEvent, unit: Unit,
): Steps<StepResult> {
  const delivery: { id: number; duplicate: boolean } = yield cq.recordDelivery(e.delivery)
  // A redelivery: the first delivery's outcome stands; nothing changes.
  if (delivery.duplicate) return { ...result({ outcome: 'recorded' }), duplicate: true }
  const r: StepResult = yield* apply(cq, q, record, types, e, unit)
  yield cq.finishEvent(delivery.id, r)
  return r
}

function* apply(
  cq: CommerceQueries, q: RecordingQueries, record: (input: ConversionInput) => Steps<RecordResult>, types: OrderTypes, e: OrderEvent, unit: Unit,
): Steps<StepResult> {
  if (e.effect === 'ignore') return result({ outcome: 'ignored' })
  const now = e.delivery.receivedAt
  if (e.effect === 'subscription') {
    yield cq.upsertSubscription({ ...e.subscription!, now })
    return result({ outcome: 'recorded', clickId: e.subscription!.clickId })
  }
  const o = e.order
  const order: OrderRow = yield cq.upsertOrder({
    source: e.delivery.source, externalId: o.externalId, status: o.status, currency: o.currency, total: o.total, email: o.email,
    clickId: o.clickId, productId: o.productId ?? null, paymentAccountId: o.paymentAccountId ?? null, now,
  })
  if (e.effect === 'update') return result({ outcome: 'recorded' }, order)
  if (e.effect === 'count') {
    if (order.conversionId !== null) return result({ outcome: 'recorded' }, order)
    if (TERMINAL.has(order.status)) return result({ outcome: 'recorded', error: `the order is ${order.status}: it does not count` }, order)
    // Paid once: the buyer joins the product's list (its automations are the post-purchase sequence),
    // attributed or not.
    if (e.emailListId !== undefined) {
      yield unit.emit('order.paid', {
        orderId: order.id, source: order.source, email: order.email, emailListId: e.emailListId ?? null, productId: order.productId,
        clickId: order.clickId, paidAt: now,
      })
    }
    if (!order.clickId) return result({ outcome: 'unattributed', error: 'no click id in the order' }, order)
    const click: Awaited<ReturnType<RecordingQueries['findClick']>> = yield q.findClick(order.clickId)
    if (!click) return result({ outcome: 'unattributed', error: `click ${order.clickId} not found` }, order)
    // The event's own currency: an order refunded early keeps the refund's (the upsert froze it).
    const currency = o.currency ?? order.currency ?? click.offer_currency
    const counted = order.total
    const rec: RecordResult = yield* record({
      click, type: types.sale, status: e.delivery.topic, revenue: counted, currency,
      transactionId: `${e.delivery.source}:${order.externalId}`, email: order.email, date: now, dedupByTransactionId: false,
    })
    if (!rec.recorded) return result({ outcome: 'recorded' }, order)
    yield cq.setOrderCounted(order.id, rec.conversion.id, counted, currency, now)
    let error: string | null = null
    // Refunded before it was paid (senders do not keep order): the refund nets out now, as one negative
    // conversion of at most what the sale counted, in the sale's currency only.
    if (order.refunded > 0) {
      if (order.currency !== null && order.currency !== currency) {
        error = `a refund of ${order.refunded} ${order.currency} came before this payment in ${currency}: not netted (another currency)`
      } else {
        const back = round(Math.min(order.refunded, counted - order.reversed))
        if (order.refunded > back) error = `the refunds before the payment (${order.refunded}) exceed what it counted: ${Math.max(back, 0)} reversed`
        if (back > 0) {
          const rev: RecordResult = yield* record({
            click, type: types.reversal, status: e.delivery.topic, revenue: -back, currency,
            transactionId: `${e.delivery.source}:${order.externalId}:refund:${order.refunded}`, email: order.email, date: now, dedupByTransactionId: false,
          })
          if (rev.recorded) yield cq.setOrderReversed(order.id, round(order.reversed + back), null, now)
        }
      }
    }
    return result({ outcome: 'attributed', conversionId: rec.conversion.id, error }, order)
  }
  if (e.effect === 'refund') return yield* refund(cq, q, record, types, e, order, now)
  // reverse: what counted and was not reversed yet (never more: the total may have changed since it counted)
  if (order.conversionId === null || order.reversalId !== null || !order.clickId) return result({ outcome: 'recorded' }, order)
  const back = round((order.counted ?? order.total) - order.reversed)
  if (!(back > 0)) return result({ outcome: 'recorded', error: 'nothing left to reverse: the refunds took back all it counted' }, order)
  const click: Awaited<ReturnType<RecordingQueries['findClick']>> = yield q.findClick(order.clickId)
  if (!click) return result({ outcome: 'recorded', error: `click ${order.clickId} not found: nothing to reverse` }, order)
  const rec: RecordResult = yield* record({
    click, type: types.reversal, status: e.delivery.topic, revenue: -back, currency: order.countedCurrency ?? order.currency ?? click.offer_currency,
    transactionId: `${e.delivery.source}:${order.externalId}:reversal`, email: order.email, date: now, dedupByTransactionId: false,
  })
  if (!rec.recorded) return result({ outcome: 'recorded' }, order)
  yield cq.setOrderReversed(order.id, round(order.reversed + back), rec.conversion.id, now)
  return result({ outcome: 'attributed', conversionId: rec.conversion.id }, order)
}

/** Money as decimals, rounded away from float noise (8 places, as the senders' amounts). */
export const round = (n: number) => Math.round(n * 1e8) / 1e8

/**
 * A refund: the order's refunded amount follows the sender's (never past what counted, or the order's total
 * while it has not counted; an early refund has no total to cap it and is kept whole), one refund row per new
 * part, and one negative conversion of at most what counted minus what was reversed already. A refund in
 * another currency than the order's is kept as a row and moves no money. The event never changes the total.
 */
function* refund(
  cq: CommerceQueries, q: RecordingQueries, record: (input: ConversionInput) => Steps<RecordResult>, types: OrderTypes, e: OrderEvent,
  order: OrderRow, now: number,
): Steps<StepResult> {
  const o = e.order
  const orderCurrency = order.countedCurrency ?? order.currency
  if (o.currency && orderCurrency && o.currency !== orderCurrency) {
    const amount = o.refundPart ?? o.refundedTotal ?? 0
    yield cq.insertRefund({
      orderId: order.id, source: e.delivery.source, externalId: (o.refundId ?? `${order.externalId}:${o.currency}:${amount}`).slice(0, 200), amount,
      currency: o.currency, conversionId: null, now,
    })
    return result({ outcome: 'recorded', error: `a refund in ${o.currency} of an order in ${orderCurrency}: not counted (another currency)` }, order)
  }
  const reported = round(Math.max(o.refundedTotal ?? order.refunded + (o.refundPart ?? 0), 0))
  const cap = order.counted ?? (order.total > 0 ? order.total : Infinity)
  const target = Math.min(reported, cap)
  const part = round(target - order.refunded)
  const over = reported > cap ? `the refunds reported (${reported}) exceed what the order ${order.counted === null ? 'totals' : 'counted'} (${cap})` : null
  if (part <= 0) return result({ outcome: 'recorded', error: over }, order)
  yield cq.setOrderRefunded(order.id, target, now)
  const row = { orderId: order.id, source: e.delivery.source, externalId: (o.refundId ?? `${order.externalId}:${target}`).slice(0, 200), amount: part, currency: order.currency, now }
  // Not counted yet: the refund waits on the order and nets out when it counts.
  if (order.conversionId === null || !order.clickId) {
    yield cq.insertRefund({ ...row, conversionId: null })
    return result({ outcome: 'recorded', error: over }, order)
  }
  const back = order.reversalId !== null ? 0 : round(Math.min(part, (order.counted ?? order.total) - order.reversed))
  if (!(back > 0)) {
    yield cq.insertRefund({ ...row, conversionId: null })
    return result({ outcome: 'recorded', error: over ?? 'nothing left to reverse: it was taken back already' }, order)
  }
  const click: Awaited<ReturnType<RecordingQueries['findClick']>> = yield q.findClick(order.clickId)
  if (!click) {
    yield cq.insertRefund({ ...row, conversionId: null })
    return result({ outcome: 'recorded', error: `click ${order.clickId} not found: nothing to reverse` }, order)
  }
  const rec: RecordResult = yield* record({
    click, type: types.reversal, status: e.delivery.topic, revenue: -back, currency: orderCurrency ?? click.offer_currency,
    transactionId: `${e.delivery.source}:${order.externalId}:refund:${target}`, email: order.email, date: now, dedupByTransactionId: false,
  })
  const conversionId = rec.recorded ? rec.conversion.id : null
  if (rec.recorded) yield cq.setOrderReversed(order.id, round(order.reversed + back), null, now)
  yield cq.insertRefund({ ...row, conversionId })
  const short = back < part ? `only ${back} of this refund's ${part} was left to reverse` : null
  return result({ outcome: 'attributed', conversionId, error: over ?? short }, order)
}
