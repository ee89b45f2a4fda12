// Orders, one module for both engines (db/store-db.ts), and the receivers' queries. Those run inside the
// conversion recorder's transaction (postback ConversionRecorder.within / withinBatched), so the event row,
// the order change and the conversion commit together: `in(tx)` binds them to that transaction's Postgres
// handle, or on SQLite to the shared connection already inside it, where every call answers a plain value
// (statements prepared once per text by store-db), so the step generators of commerce/orders.ts stay
// synchronous.
import type { Tx } from '../../db/engine'
import { raw, sql, whereAll } from '../../db/sql'
import type { Queries, StoreDb } from '../../db/store-db'
import type { MaybeAsync } from '../../lib/steps'
import { OF_EMAIL_LIMIT } from './catalog'
import { eventStore, finishEvent, recordDelivery } from './events'
import { insertRefund } from './refunds'
import { upsertSubscription } from './subscriptions'
import type { CommerceQueries, CommerceStore, EventResult, NewRefund, NewWebhookEvent, OrderFilter, OrderRow, OrderUpsert, SubscriptionUpsert } from './types'

export const ORDER = raw(`id, source, external_id AS "externalId", status, currency, total, refunded, counted,
  counted_currency AS "countedCurrency", reversed, email, click_id AS "clickId", conversion_id AS "conversionId",
  reversal_id AS "reversalId", product_id AS "productId", payment_account_id AS "paymentAccountId",
  created_at AS "createdAt", updated_at AS "updatedAt"`)

/**
 * Inserts the order or updates it. A cancelled, refunded or failed order stays so: a late or replayed event
 * must not revive it; only a payment that succeeds after failing (another card) moves failed to paid. A
 * failure reported after the payment succeeded (an earlier attempt, delivered late) leaves the paid order as
 * it is. Once money moved (counted, or refunded early) the order keeps its currency: a later event in another
 * one cannot make its reversals count in that other currency. On Postgres the row comes back locked
 * (inserted or updated) until the transaction ends, so concurrent events of one order take turns.
 */
const upsertOrder = (q: Queries, o: OrderUpsert): MaybeAsync<OrderRow> =>
  q.get<OrderRow>(sql`INSERT INTO orders (source, external_id, status, currency, total, email, click_id, product_id, payment_account_id,
      created_at, updated_at)
    VALUES (${o.source}, ${o.externalId}, ${o.status}, ${o.currency}, ${o.total ?? 0}, ${o.email}, ${o.clickId}, ${o.productId ?? null},
      ${o.paymentAccountId ?? null}, ${o.now}, ${o.now})
    ON CONFLICT (source, external_id) DO UPDATE SET
      status = CASE WHEN orders.status IN ('cancelled', 'refunded') OR (orders.status = 'failed' AND excluded.status <> 'paid')
        OR (excluded.status = 'failed' AND orders.status IN ('paid', 'partially_refunded')) THEN orders.status ELSE excluded.status END,
      currency = CASE WHEN orders.conversion_id IS NOT NULL OR orders.refunded > 0 THEN coalesce(orders.currency, excluded.currency)
        ELSE coalesce(excluded.currency, orders.currency) END,
      total = coalesce(${o.total}, orders.total),
      email = coalesce(excluded.email, orders.email), click_id = coalesce(orders.click_id, excluded.click_id),
      product_id = coalesce(orders.product_id, excluded.product_id),
      payment_account_id = coalesce(orders.payment_account_id, excluded.payment_account_id),
      updated_at = excluded.updated_at
    RETURNING ${ORDER}`) as MaybeAsync<OrderRow>

/** The receivers' queries on one transaction's Queries (see the header). */
class ReceiverQueries implements CommerceQueries {
  constructor(private readonly q: Queries, private readonly db: StoreDb) {}

  recordDelivery(e: NewWebhookEvent) {
    return recordDelivery(this.q, e)
  }

  upsertOrder(o: OrderUpsert) {
    return upsertOrder(this.q, o)
  }

  setOrderCounted(orderId: number, conversionId: number, counted: number, currency: string | null, now: number) {
    return this.q.run(sql`UPDATE orders SET conversion_id = ${conversionId}, counted = ${counted}, counted_currency = ${currency},
      updated_at = ${now} WHERE id = ${orderId}`)
  }

  setOrderReversed(orderId: number, reversed: number, reversalId: number | null, now: number) {
    return this.q.run(sql`UPDATE orders SET reversed = ${reversed}, reversal_id = coalesce(${reversalId}, reversal_id), updated_at = ${now}
      WHERE id = ${orderId}`)
  }

  setOrderConversion(orderId: number, field: 'conversion' | 'reversal', conversionId: number, now: number) {
    const column = raw(field === 'conversion' ? 'conversion_id' : 'reversal_id')
    return this.q.run(sql`UPDATE orders SET ${column} = ${conversionId}, updated_at = ${now} WHERE id = ${orderId}`)
  }

  insertRefund(r: NewRefund) {
    return insertRefund(this.q, r)
  }

  upsertSubscription(s: SubscriptionUpsert) {
    return upsertSubscription(this.q, s)
  }

  lockOrder(id: number) {
    return this.q.get<OrderRow>(sql`SELECT ${ORDER} FROM orders WHERE id = ${id} ${this.db.forUpdate}`)
  }

  setOrderStatus(id: number, status: string, now: number) {
    return this.q.run(sql`UPDATE orders SET status = ${status}, updated_at = ${now} WHERE id = ${id}`)
  }

  setOrderRefunded(orderId: number, refunded: number, now: number) {
    return this.q.run(sql`UPDATE orders SET refunded = ${refunded}, updated_at = ${now} WHERE id = ${orderId}`)
  }

  finishEvent(id: number, r: EventResult) {
    return finishEvent(this.q, id, r)
  }
}

export const orderStore = (db: StoreDb) => ({
  listOrders: (filter: OrderFilter, before: number | undefined, limit: number): Promise<OrderRow[]> =>
    db.all<OrderRow>(sql`SELECT ${ORDER} FROM orders ${whereAll([
      filter.source !== undefined && sql`source = ${filter.source}`,
      filter.status !== undefined && sql`status = ${filter.status}`,
      filter.clickId !== undefined && sql`click_id = ${filter.clickId}`,
      before !== undefined && sql`id < ${before}`,
    ])} ORDER BY id DESC LIMIT ${limit}`),

  findOrder: (id: number): Promise<OrderRow | undefined> => db.get<OrderRow>(sql`SELECT ${ORDER} FROM orders WHERE id = ${id}`),

  /** A customer's orders (email exactly as stored), newest first. */
  ordersOfEmail: (email: string): Promise<OrderRow[]> =>
    db.all<OrderRow>(sql`SELECT ${ORDER} FROM orders WHERE email = ${email} ORDER BY id DESC LIMIT ${OF_EMAIL_LIMIT}`),

  /** A native order before its payment (checkout): the upsert in a transaction of its own. */
  createOrder: (o: OrderUpsert): Promise<OrderRow> =>
    db.atomically(function* (q) {
      const row: OrderRow = yield upsertOrder(q, o)
      return row
    }),
})

/** The commerce store (webhook events, orders) on either engine. */
export function commerceStoreOn(db: StoreDb): CommerceStore {
  // SQLite: the one shared connection, so one ReceiverQueries serves every transaction (no allocation per webhook).
  let shared: CommerceQueries | undefined
  const { ordersOfEmail: _, ...orders } = orderStore(db)
  return {
    in: (tx: Tx) => (tx === null ? (shared ??= new ReceiverQueries(db.in(null), db)) : new ReceiverQueries(db.in(tx), db)),
    ...eventStore(db),
    ...orders,
  }
}
