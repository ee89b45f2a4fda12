// What a merchant does by hand to an order (section commerce): mark it refunded (all or part), with its
// negative conversion, when the money went back outside a webhook (a bank transfer, a refund made at the
// processor before svc listened). svc moves no money: refund at the processor yourself.
import { Type } from '@sinclair/typebox'
import { invalid, notFound } from '../lib/errors'
import { Int } from '../lib/fields'
import { defineVerb } from '../lib/verb'
import type { ConversionInput, ConversionRecorder, ConversionTypes, RecordingQueries, RecordResult } from '../postback'
import type { Steps } from '../lib/steps'
import { round } from './orders'
import type { CommerceQueries, CommerceStore, OrderRow, WebhookSource } from './store/types'

export interface ManualRefund {
  order_id: number
  amount: number
  refunded_total: number
  status: string
  conversion_id: number | null
}

function* refundSteps(
  cq: CommerceQueries, q: RecordingQueries, record: (input: ConversionInput) => Steps<RecordResult>, types: ConversionTypes,
  orderId: number, amount: number | undefined, now: number,
): Steps<ManualRefund> {
  const order: OrderRow | undefined = yield cq.lockOrder(orderId)
  if (!order) throw notFound('order not found')
  // What counted (or, before it counts, its total) is the most that can be refunded.
  const remaining = round((order.counted ?? order.total) - order.refunded)
  const part = amount ?? remaining
  if (!(remaining > 0)) throw invalid('amount: nothing is left to refund on this order')
  if (!(part > 0) || part > remaining) throw invalid(`amount: must be more than 0 and at most ${remaining} (what is left to refund)`)
  const target = round(order.refunded + part)
  const status = target >= (order.counted ?? order.total) ? 'refunded' : 'partially_refunded'
  yield cq.setOrderRefunded(order.id, target, now)
  yield cq.setOrderStatus(order.id, status, now)
  let conversionId: number | null = null
  // Only an order that counted has revenue to take back, and never more than it counted minus what was taken back.
  const back = order.reversalId !== null ? 0 : round(Math.min(part, (order.counted ?? order.total) - order.reversed))
  if (order.conversionId !== null && back > 0 && order.clickId) {
    const click: Awaited<ReturnType<RecordingQueries['findClick']>> = yield q.findClick(order.clickId)
    if (click) {
      const rec: RecordResult = yield* record({
        click, type: types.resolve('chargeback'), status: 'manual_refund', revenue: -back,
        currency: order.countedCurrency ?? order.currency ?? click.offer_currency,
        transactionId: `${order.source}:${order.externalId}:refund:${target}`, email: order.email, date: now, dedupByTransactionId: false,
      })
      if (rec.recorded) {
        conversionId = rec.conversion.id
        yield cq.setOrderReversed(order.id, round(order.reversed + back), null, now)
      }
    }
  }
  yield cq.insertRefund({
    orderId: order.id, source: order.source as WebhookSource, externalId: `manual:${order.externalId}:${target}`.slice(0, 200), amount: part,
    currency: order.currency, conversionId, now,
  })
  return { order_id: order.id, amount: part, refunded_total: target, status, conversion_id: conversionId }
}

export function manualOrderVerbs(deps: {
  store: CommerceStore; recorder: ConversionRecorder; types: ConversionTypes
  /** The product of an order (its list). */
  productOf(id: number): Promise<{ id: number; emailListId: number | null } | undefined>
  /** The email feature's restart of a list's automations for an address (late-bound: built after commerce). */
  restartAutomations(listId: number, email: string): Promise<unknown>
}) {
  return {
    resendAutomation: defineVerb({
      name: 'commerce.orders.resend-automation',
      summary: "Send the post-purchase automation of the order's product to its buyer again, from the first step",
      permission: 'commerce:write',
      input: Type.Object({ id: Int({ minimum: 1 }) }),
      async run(_actor, { id }) {
        const order = await deps.store.findOrder(id)
        if (!order) throw notFound('order not found')
        const product = order.productId === null ? undefined : await deps.productOf(order.productId)
        if (!product || product.emailListId === null) throw invalid("the order's product has no email list: there is no post-purchase automation")
        if (!order.email) throw invalid('the order has no email address')
        await deps.restartAutomations(product.emailListId, order.email)
        return { ok: true as const }
      },
    }),
    refund: defineVerb({
      name: 'commerce.orders.refund',
      summary: 'Mark an order refunded (all that is left, or `amount`), with its negative conversion; moves no money at the processor',
      permission: 'commerce:write',
      input: Type.Object({ id: Int({ minimum: 1 }), amount: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1e9 })) }),
      async run(_actor, { id, amount }): Promise<ManualRefund> {
        const now = Date.now()
        return deps.recorder.within((record, q, tx) => refundSteps(deps.store.in(tx), q, record, deps.types, id, amount, now))
      },
    }),
  }
}
