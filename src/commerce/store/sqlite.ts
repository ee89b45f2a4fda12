// Webhook events and orders on SQLite: prepared statements on the one shared connection. The receivers'
// writes (`in(null)`) are synchronous and run inside the transaction the caller opened on that connection
// (the conversion recorder's `within`), so they return plain values, never Promises. The admin reads vary
// with their optional filters (db/where.ts): each statement text is prepared once, on first use, and kept.
import type { Database, RawDb, RawStatement } from '../../db/client'
import type { Tx } from '../../db/engine'
import { where } from '../../db/where'
import type {
  CommerceQueries, CommerceStore, EventResult, NewRefund, NewWebhookEvent, OrderFilter, OrderRow, OrderUpsert, SubscriptionUpsert,
  WebhookEventFilter, WebhookEventRow,
} from './types'

/** The columns under their camelCase names (the drizzle row types of db/schema/commerce.ts). */
const EVENT = 'id, source, external_id AS externalId, dedup_key AS dedupKey, topic, order_external_id AS orderExternalId, signature, ' +
  'outcome, error, click_id AS clickId, order_id AS orderId, conversion_id AS conversionId, payload, deliveries, ' +
  'received_at AS receivedAt, last_received_at AS lastReceivedAt'
const ORDER = 'id, source, external_id AS externalId, status, currency, total, refunded, counted, ' +
  'counted_currency AS countedCurrency, reversed, email, click_id AS clickId, ' +
  'conversion_id AS conversionId, reversal_id AS reversalId, product_id AS productId, payment_account_id AS paymentAccountId, ' +
  'created_at AS createdAt, updated_at AS updatedAt'

const INSERT_EVENT = 'INSERT INTO webhook_events (source, external_id, dedup_key, topic, order_external_id, signature, outcome, error, ' +
  'payload, deliveries, received_at, last_received_at) VALUES ($source, $externalId, $dedupKey, $topic, $orderExternalId, $signature, ' +
  '$outcome, $error, $payload, 1, $receivedAt, $receivedAt)'

/** Named parameters of an event insert (never undefined: better-sqlite3 rejects it). */
const eventParams = (e: NewWebhookEvent, dedupKey: string | null) => ({
  source: e.source, externalId: e.externalId, dedupKey, topic: e.topic, orderExternalId: e.orderExternalId, signature: e.signature,
  outcome: e.outcome, error: e.error, payload: e.payload, receivedAt: e.receivedAt,
})

/** Statements whose text depends on which filters are set: prepared once per text. */
class StatementCache {
  private readonly statements = new Map<string, RawStatement>()
  constructor(private readonly raw: RawDb) {}
  get(sql: string): RawStatement {
    let st = this.statements.get(sql)
    if (!st) this.statements.set(sql, (st = this.raw.prepare(sql)))
    return st
  }
}

/** The receivers' queries: synchronous, on the shared connection (inside the caller's transaction). */
class SqliteCommerceQueries implements CommerceQueries {
  private readonly delivery: RawStatement
  private readonly upsert: RawStatement
  private readonly setConversion: RawStatement
  private readonly setReversal: RawStatement
  private readonly setRefunded: RawStatement
  private readonly setCounted: RawStatement
  private readonly setReversed: RawStatement
  private readonly refund: RawStatement
  private readonly byId: RawStatement
  private readonly setStatus: RawStatement
  private readonly subscription: RawStatement
  private readonly finish: RawStatement

  constructor(raw: RawDb) {
    // A NULL dedup_key never conflicts (NULLs are distinct in a unique index): refused deliveries stay apart.
    this.delivery = raw.prepare(
      `${INSERT_EVENT} ON CONFLICT (source, dedup_key) DO UPDATE SET deliveries = webhook_events.deliveries + 1, ` +
        'last_received_at = excluded.received_at RETURNING id, deliveries',
    )
    this.upsert = raw.prepare(
      'INSERT INTO orders (source, external_id, status, currency, total, email, click_id, product_id, payment_account_id, created_at, updated_at) ' +
        'VALUES ($source, $externalId, $status, $currency, coalesce($total, 0), $email, $clickId, $productId, $paymentAccountId, $now, $now) ' +
        // A cancelled, refunded or failed order stays so: a late or replayed event must not revive it; only a
        // payment that succeeds after failing (another card) moves failed to paid. A failure reported after the
        // payment succeeded (an earlier attempt, delivered late) leaves the paid order as it is.
        'ON CONFLICT (source, external_id) DO UPDATE SET status = CASE ' +
        "WHEN orders.status IN ('cancelled', 'refunded') OR (orders.status = 'failed' AND excluded.status <> 'paid') " +
        "OR (excluded.status = 'failed' AND orders.status IN ('paid', 'partially_refunded')) THEN orders.status ELSE excluded.status END, " +
        // Once money moved (counted, or refunded early) the order keeps its currency: a later event in another one
        // cannot make its reversals count in that other currency.
        'currency = CASE WHEN orders.conversion_id IS NOT NULL OR orders.refunded > 0 THEN coalesce(orders.currency, excluded.currency) ' +
        'ELSE coalesce(excluded.currency, orders.currency) END, total = coalesce($total, orders.total), ' +
        'email = coalesce(excluded.email, orders.email), click_id = coalesce(orders.click_id, excluded.click_id), ' +
        'product_id = coalesce(orders.product_id, excluded.product_id), ' +
        'payment_account_id = coalesce(orders.payment_account_id, excluded.payment_account_id), ' +
        `updated_at = excluded.updated_at RETURNING ${ORDER}`,
    )
    this.setConversion = raw.prepare('UPDATE orders SET conversion_id = $conversionId, updated_at = $now WHERE id = $orderId')
    this.setReversal = raw.prepare('UPDATE orders SET reversal_id = $conversionId, updated_at = $now WHERE id = $orderId')
    this.setCounted = raw.prepare(
      'UPDATE orders SET conversion_id = $conversionId, counted = $counted, counted_currency = $currency, updated_at = $now WHERE id = $orderId',
    )
    this.setReversed = raw.prepare(
      'UPDATE orders SET reversed = $reversed, reversal_id = coalesce($reversalId, reversal_id), updated_at = $now WHERE id = $orderId',
    )
    this.setRefunded = raw.prepare('UPDATE orders SET refunded = $refunded, updated_at = $now WHERE id = $orderId')
    this.byId = raw.prepare(`SELECT ${ORDER} FROM orders WHERE id = $id`)
    this.setStatus = raw.prepare('UPDATE orders SET status = $status, updated_at = $now WHERE id = $id')
    this.refund = raw.prepare(
      'INSERT INTO refunds (order_id, source, external_id, amount, currency, conversion_id, created_at) ' +
        'VALUES ($orderId, $source, $externalId, $amount, $currency, $conversionId, $now) ON CONFLICT (source, external_id) DO NOTHING',
    )
    this.subscription = raw.prepare(
      'INSERT INTO subscriptions (source, external_id, payment_account_id, customer_external_id, email, status, click_id, product_id, ' +
        'current_period_end, canceled_at, created_at, updated_at) VALUES ($source, $externalId, $paymentAccountId, $customerExternalId, ' +
        '$email, $status, $clickId, $productId, $currentPeriodEnd, $canceledAt, $now, $now) ON CONFLICT (source, external_id) DO UPDATE SET ' +
        'status = excluded.status, email = coalesce(excluded.email, subscriptions.email), ' +
        'customer_external_id = coalesce(excluded.customer_external_id, subscriptions.customer_external_id), ' +
        'click_id = coalesce(subscriptions.click_id, excluded.click_id), product_id = coalesce(subscriptions.product_id, excluded.product_id), ' +
        'payment_account_id = coalesce(subscriptions.payment_account_id, excluded.payment_account_id), ' +
        'current_period_end = coalesce(excluded.current_period_end, subscriptions.current_period_end), ' +
        'canceled_at = coalesce(excluded.canceled_at, subscriptions.canceled_at), updated_at = excluded.updated_at',
    )
    this.finish = raw.prepare(
      'UPDATE webhook_events SET outcome = $outcome, error = $error, click_id = $clickId, order_id = $orderId, ' +
        'conversion_id = $conversionId WHERE id = $id',
    )
  }

  recordDelivery(e: NewWebhookEvent): { id: number; duplicate: boolean } {
    const row = this.delivery.get(eventParams(e, e.dedupKey)) as { id: number; deliveries: number }
    return { id: Number(row.id), duplicate: Number(row.deliveries) > 1 }
  }

  upsertOrder(o: OrderUpsert): OrderRow {
    return this.upsert.get({
      source: o.source, externalId: o.externalId, status: o.status, currency: o.currency, total: o.total, email: o.email,
      clickId: o.clickId, productId: o.productId ?? null, paymentAccountId: o.paymentAccountId ?? null, now: o.now,
    }) as OrderRow
  }

  setOrderConversion(orderId: number, field: 'conversion' | 'reversal', conversionId: number, now: number): void {
    ;(field === 'conversion' ? this.setConversion : this.setReversal).run({ orderId, conversionId, now })
  }

  setOrderCounted(orderId: number, conversionId: number, counted: number, currency: string | null, now: number): void {
    this.setCounted.run({ orderId, conversionId, counted, currency, now })
  }

  setOrderReversed(orderId: number, reversed: number, reversalId: number | null, now: number): void {
    this.setReversed.run({ orderId, reversed, reversalId, now })
  }

  lockOrder(id: number): OrderRow | undefined {
    return (this.byId.get({ id }) as OrderRow | undefined) ?? undefined
  }

  setOrderStatus(id: number, status: string, now: number): void {
    this.setStatus.run({ id, status, now })
  }

  insertRefund(r: NewRefund): void {
    this.refund.run({ ...r })
  }

  upsertSubscription(s: SubscriptionUpsert): void {
    this.subscription.run({ ...s })
  }

  setOrderRefunded(orderId: number, refunded: number, now: number): void {
    this.setRefunded.run({ orderId, refunded, now })
  }

  finishEvent(id: number, r: EventResult): void {
    this.finish.run({ id, outcome: r.outcome, error: r.error, clickId: r.clickId, orderId: r.orderId, conversionId: r.conversionId })
  }
}

export class SqliteCommerceStore implements CommerceStore {
  private readonly queries: SqliteCommerceQueries
  private readonly cache: StatementCache
  private readonly insertRefused: RawStatement
  private readonly eventById: RawStatement
  private readonly orderById: RawStatement
  private readonly raw: RawDb

  constructor(database: Database) {
    const raw = (this.raw = database.raw)
    this.queries = new SqliteCommerceQueries(raw)
    this.cache = new StatementCache(raw)
    this.insertRefused = raw.prepare(INSERT_EVENT)
    this.eventById = raw.prepare(`SELECT ${EVENT} FROM webhook_events WHERE id = $id`)
    this.orderById = raw.prepare(`SELECT ${ORDER} FROM orders WHERE id = $id`)
  }

  /** SQLite: `tx` is null, the caller's transaction is open on the shared connection these statements use. */
  in(_tx: Tx): CommerceQueries {
    return this.queries
  }

  /** One statement (atomic on its own); never deduplicated, so its dedup_key is stored as NULL. */
  async pruneEvents(cutoff: number, limit: number): Promise<number> {
    return this.cache.get('DELETE FROM webhook_events WHERE id IN (SELECT id FROM webhook_events WHERE received_at < $cutoff ORDER BY received_at LIMIT $limit)')
      .run({ cutoff, limit }).changes
  }

  async createOrder(o: OrderUpsert): Promise<OrderRow> {
    return this.raw.transaction(() => this.queries.upsertOrder(o))()
  }

  async recordRefused(e: NewWebhookEvent): Promise<number> {
    return Number(this.insertRefused.run(eventParams(e, null)).lastInsertRowid)
  }

  async listEvents(filter: WebhookEventFilter, before: number | undefined, limit: number): Promise<WebhookEventRow[]> {
    const w = where([
      ['source = $source', 'source', filter.source],
      ['outcome = $outcome', 'outcome', filter.outcome],
      ['order_external_id = $orderExternalId', 'orderExternalId', filter.orderExternalId],
      ['click_id = $clickId', 'clickId', filter.clickId],
      ['id < $before', 'before', before],
    ])
    // Lists leave the payload out (up to 64 KB a row); findEvent has it.
    const cols = EVENT.replace('payload,', 'NULL AS payload,')
    return this.cache.get(`SELECT ${cols} FROM webhook_events ${w.sql} ORDER BY id DESC LIMIT $limit`).all({ ...w.params, limit }) as WebhookEventRow[]
  }

  async findEvent(id: number): Promise<WebhookEventRow | undefined> {
    return (this.eventById.get({ id }) as WebhookEventRow | null) ?? undefined
  }

  async listOrders(filter: OrderFilter, before: number | undefined, limit: number): Promise<OrderRow[]> {
    const w = where([
      ['source = $source', 'source', filter.source],
      ['status = $status', 'status', filter.status],
      ['click_id = $clickId', 'clickId', filter.clickId],
      ['id < $before', 'before', before],
    ])
    return this.cache.get(`SELECT ${ORDER} FROM orders ${w.sql} ORDER BY id DESC LIMIT $limit`).all({ ...w.params, limit }) as OrderRow[]
  }

  async findOrder(id: number): Promise<OrderRow | undefined> {
    return (this.orderById.get({ id }) as OrderRow | null) ?? undefined
  }
}
