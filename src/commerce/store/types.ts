// What the commerce feature keeps: every webhook delivery (webhook_events) and the orders they describe.
// The receivers' writes run inside the conversion recorder's transaction (postback ConversionRecorder.within),
// so the event row, the order change and the conversion commit together: `in(tx)` gives queries bound to
// that transaction (Postgres) or to the shared connection inside it (SQLite: synchronous, tx null).
import type { orders, webhookEvents } from '../../db/schema'
import type { Tx } from '../../db/engine'

export type MaybeAsync<T> = T | Promise<T>
export type WebhookEventRow = typeof webhookEvents.$inferSelect
export type OrderRow = typeof orders.$inferSelect

export const WEBHOOK_SOURCES = ['ecom-a', 'ecom-b', 'pay-a', 'pay-b'] as const
export type WebhookSource = (typeof WEBHOOK_SOURCES)[number]
export const SIGNATURES = ['valid', 'legacy_key', 'ping', 'invalid', 'missing'] as const
export type SignatureOutcome = (typeof SIGNATURES)[number]
/**
 * attributed: a conversion was recorded for a click; unattributed: no click id in the event, or an unknown
 * one; recorded: the order changed, no money moved (already counted, fulfilled, pending…); ignored: nothing
 * to do (a topic svc does not handle, a ping, a body that is not JSON); rejected: refused (signature);
 * error: processing failed (the sender retries; a later delivery may succeed), or an amount svc cannot read
 * (pay-a: not integer minor units; answered 200, nothing counted: a redelivery would carry the same amount).
 */
export const OUTCOMES = ['attributed', 'unattributed', 'recorded', 'ignored', 'rejected', 'error'] as const
export type EventOutcome = (typeof OUTCOMES)[number]

export interface NewWebhookEvent {
  source: WebhookSource
  externalId: string | null
  /** Null: never deduplicated (refused or failed deliveries). */
  dedupKey: string | null
  topic: string | null
  orderExternalId: string | null
  signature: SignatureOutcome
  /** What it is while processing runs: overwritten by finishEvent. */
  outcome: EventOutcome
  error: string | null
  /** At most 64 KB (the caller crops). */
  payload: string | null
  receivedAt: number
}

export interface EventResult {
  outcome: EventOutcome
  error: string | null
  clickId: string | null
  orderId: number | null
  conversionId: number | null
}

export interface OrderUpsert {
  source: WebhookSource | 'native'
  externalId: string
  status: string
  currency: string | null
  /** Null: not known from this event (a refund): kept, or 0 for a new row. */
  total: number | null
  email: string | null
  /** Kept when the row already has one (the first attribution wins). */
  clickId: string | null
  /** Native orders (checkout): kept once set. */
  productId?: number | null
  paymentAccountId?: number | null
  now: number
}

export interface NewRefund {
  orderId: number
  source: WebhookSource
  /** The sender's refund id, or "<charge>:<cumulative amount>" when it sends totals only. */
  externalId: string
  amount: number
  currency: string | null
  conversionId: number | null
  now: number
}

export interface SubscriptionUpsert {
  source: WebhookSource
  externalId: string
  paymentAccountId: number | null
  customerExternalId: string | null
  email: string | null
  status: string
  /** Kept when the row already has one. */
  clickId: string | null
  productId: number | null
  currentPeriodEnd: number | null
  canceledAt: number | null
  now: number
}

/**
 * Queries of one transaction (see the header). Each returns a value on SQLite and a Promise on Postgres; the
 * writes answer what the engine reports (rows changed), which no caller needs.
 */
export interface CommerceQueries {
  /**
   * Inserts the event; for a dedup key already stored (same source), counts the redelivery on that row
   * instead (deliveries + 1, last_received_at) and answers duplicate: true with that row's id.
   */
  recordDelivery(e: NewWebhookEvent): MaybeAsync<{ id: number; duplicate: boolean }>
  /**
   * Inserts the order or updates status (unless it is cancelled, refunded or failed: those stay), currency,
   * total, email (and click_id when it had none); the row is
   * locked until the transaction ends (Postgres), so concurrent events of one order take turns. Returns the row.
   */
  upsertOrder(o: OrderUpsert): MaybeAsync<OrderRow>
  /** The sale counted: orders.conversion_id, what it counted and in which currency (the cap of every reversal). */
  setOrderCounted(orderId: number, conversionId: number, counted: number, currency: string | null, now: number): MaybeAsync<unknown>
  /** orders.reversed (what negative conversions took back so far); with reversalId, the cancellation's conversion too. */
  setOrderReversed(orderId: number, reversed: number, reversalId: number | null, now: number): MaybeAsync<unknown>
  /** Sets orders.conversion_id or orders.reversal_id. */
  setOrderConversion(orderId: number, field: 'conversion' | 'reversal', conversionId: number, now: number): MaybeAsync<unknown>
  /** One refund row; a refund already stored (same source and external id) is left as it is. */
  insertRefund(r: NewRefund): MaybeAsync<unknown>
  /** Inserts or updates the subscription (status, email, period end, cancellation; click and product kept once set). */
  upsertSubscription(s: SubscriptionUpsert): MaybeAsync<unknown>
  /** The order, locked until the transaction ends (Postgres); undefined when there is none. */
  lockOrder(id: number): MaybeAsync<OrderRow | undefined>
  setOrderStatus(id: number, status: string, now: number): MaybeAsync<unknown>
  /** Sets orders.refunded (the cumulative refunded amount, in the order's currency). */
  setOrderRefunded(orderId: number, refunded: number, now: number): MaybeAsync<unknown>
  /** The event's outcome and what it touched. */
  finishEvent(id: number, r: EventResult): MaybeAsync<unknown>
}

export interface WebhookEventFilter {
  source?: string
  outcome?: string
  orderExternalId?: string
  clickId?: string
}

export interface OrderFilter {
  source?: string
  status?: string
  clickId?: string
}

export interface CommerceStore {
  in(tx: Tx): CommerceQueries
  /** Deletes up to `limit` deliveries received before `cutoff`, oldest first; how many went (retention). */
  pruneEvents(cutoff: number, limit: number): Promise<number>
  /** A native order before its payment (checkout): upsertOrder in a transaction of its own. */
  createOrder(o: OrderUpsert): Promise<OrderRow>
  /** A delivery refused or failed, stored in a transaction of its own (dedup_key null: never deduplicated). */
  recordRefused(e: NewWebhookEvent): Promise<number>
  /** Newest first (id descending), ids below `before` when given; `limit` rows (the caller asks limit + 1). Without payloads (null). */
  listEvents(filter: WebhookEventFilter, before: number | undefined, limit: number): Promise<WebhookEventRow[]>
  findEvent(id: number): Promise<WebhookEventRow | undefined>
  /** Newest first, like listEvents. */
  listOrders(filter: OrderFilter, before: number | undefined, limit: number): Promise<OrderRow[]>
  findOrder(id: number): Promise<OrderRow | undefined>
}
