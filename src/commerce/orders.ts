// What an order event does, once for both engines (a step body, see postback/steps.ts): inside one
// transaction, the delivery is recorded (a redelivery stops there), the order row follows the event, and
// the order counts as a conversion once, or is reversed once.
//
//   count    (ecom-a orders/create, orders/paid; ecom-b processing, completed): the first such event of an
//            order with a known click records a `sale` conversion of the order total, in the order's currency
//   reverse  (ecom-a orders/cancelled; ecom-b cancelled, refunded, failed): an order that counted records one
//            `chargeback` conversion of minus its total; an order that never counted only changes status
//   refund   (pay-a charge.refunded): the order's cumulative refunded amount, never more than its total; the
//            new part is one `chargeback` conversion of minus that part (an order that has not counted yet
//            keeps the amount, and nets it out when it counts)
//   update   (fulfilled, pending, on-hold…): the order's status and totals, no money
import type { ConversionInput, RecordResult } from '../postback/record'
import type { ConversionType } from '../postback/conversion-types'
import type { RecordingQueries } from '../postback/store'
import type { Steps } from '../postback/steps'
import type { Unit } from '../lib/event-bus'
import type { CommerceQueries, EventResult, NewWebhookEvent, OrderRow, SubscriptionUpsert } from './store/types'

export type OrderEffect = 'count' | 'reverse' | 'refund' | 'update' | 'subscription' | 'ignore'

/** Statuses after which an order never counts again (a late or replayed create/paid must not revive it). */
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
    const rec: RecordResult = yield* record({
      click, type: types.sale, status: e.delivery.topic, revenue: order.total, currency: order.currency ?? click.offer_currency,
      transactionId: `${e.delivery.source}:${order.externalId}`, email: order.email, date: now, dedupByTransactionId: false,
    })
    if (!rec.recorded) return result({ outcome: 'recorded' }, order)
    yield cq.setOrderConversion(order.id, 'conversion', rec.conversion.id, now)
    // Refunded before it was paid (senders do not keep order): the refund nets out now.
    if (order.refunded > 0) {
      yield* record({
        click, type: types.reversal, status: e.delivery.topic, revenue: -order.refunded, currency: order.currency ?? click.offer_currency,
        transactionId: `${e.delivery.source}:${order.externalId}:refund:${order.refunded}`, email: order.email, date: now, dedupByTransactionId: false,
      })
    }
    return result({ outcome: 'attributed', conversionId: rec.conversion.id }, order)
  }
  if (e.effect === 'refund') {
    const target = Math.min(Math.max(o.refundedTotal ?? order.refunded + (o.refundPart ?? 0), 0), order.total)
    const part = Math.round((target - order.refunded) * 1e8) / 1e8
    if (part <= 0) return result({ outcome: 'recorded' }, order)
    yield cq.setOrderRefunded(order.id, target, now)
    const refund = { orderId: order.id, source: e.delivery.source, externalId: (o.refundId ?? `${order.externalId}:${target}`).slice(0, 200), amount: part, currency: order.currency, now }
    if (order.conversionId === null || order.reversalId !== null || !order.clickId) {
      yield cq.insertRefund({ ...refund, conversionId: null })
      return result({ outcome: 'recorded' }, order)
    }
    const click: Awaited<ReturnType<RecordingQueries['findClick']>> = yield q.findClick(order.clickId)
    if (!click) {
      yield cq.insertRefund({ ...refund, conversionId: null })
      return result({ outcome: 'recorded', error: `click ${order.clickId} not found: nothing to reverse` }, order)
    }
    const rec: RecordResult = yield* record({
      click, type: types.reversal, status: e.delivery.topic, revenue: -part, currency: order.currency ?? click.offer_currency,
      transactionId: `${e.delivery.source}:${order.externalId}:refund:${target}`, email: order.email, date: now, dedupByTransactionId: false,
    })
    const conversionId = rec.recorded ? rec.conversion.id : null
    yield cq.insertRefund({ ...refund, conversionId })
    return result({ outcome: 'attributed', conversionId }, order)
  }
  // reverse: what counted and was not refunded yet
  if (order.conversionId === null || order.reversalId !== null || !order.clickId) return result({ outcome: 'recorded' }, order)
  const click: Awaited<ReturnType<RecordingQueries['findClick']>> = yield q.findClick(order.clickId)
  if (!click) return result({ outcome: 'recorded', error: `click ${order.clickId} not found: nothing to reverse` }, order)
  const rec: RecordResult = yield* record({
    click, type: types.reversal, status: e.delivery.topic, revenue: -Math.max(order.total - order.refunded, 0), currency: order.currency ?? click.offer_currency,
    transactionId: `${e.delivery.source}:${order.externalId}:reversal`, email: order.email, date: now, dedupByTransactionId: false,
  })
  if (!rec.recorded) return result({ outcome: 'recorded' }, order)
  yield cq.setOrderConversion(order.id, 'reversal', rec.conversion.id, now)
  return result({ outcome: 'attributed', conversionId: rec.conversion.id }, order)
}
