// Webhook events and orders on PostgreSQL: the same rows, ordering and shapes as store/sqlite.ts, through
// Bun's SQL client. The receivers' writes run through `in(tx)`: queries bound to the caller's transaction
// handle (the conversion recorder's), so the event row, the order change and the conversion commit together.
// ids and epoch-ms times are int8 (strings from the driver): converted with numCols, so a row has the same
// JS shape on both engines.
import type { SQL, TransactionSQL } from 'bun'
import type { Tx } from '../../db/engine'
import { num, numCols, type PgDatabase } from '../../db/pg/client'
import type {
  CommerceQueries, CommerceStore, EventResult, NewRefund, NewWebhookEvent, OrderFilter, OrderRow, OrderUpsert, SubscriptionUpsert,
  WebhookEventFilter, WebhookEventRow,
} from './types'

type Raw = Record<string, unknown>
type Fragment = SQL.Query<unknown>

/** The columns under their camelCase names (constant SQL text, no values), built on the handle that runs them. */
const eventCols = (sql: SQL) => sql`id, source, external_id AS "externalId", dedup_key AS "dedupKey", topic,
  order_external_id AS "orderExternalId", signature, outcome, error, click_id AS "clickId", order_id AS "orderId",
  conversion_id AS "conversionId", payload, deliveries, received_at AS "receivedAt", last_received_at AS "lastReceivedAt"`
/** As eventCols without the payload (up to 64 KB a row): what lists read. */
const listedEventCols = (sql: SQL) => sql`id, source, external_id AS "externalId", dedup_key AS "dedupKey", topic,
  order_external_id AS "orderExternalId", signature, outcome, error, click_id AS "clickId", order_id AS "orderId",
  conversion_id AS "conversionId", NULL::text AS payload, deliveries, received_at AS "receivedAt", last_received_at AS "lastReceivedAt"`
const orderCols = (sql: SQL) => sql`id, source, external_id AS "externalId", status, currency, total, refunded, counted,
  counted_currency AS "countedCurrency", reversed, email,
  click_id AS "clickId", conversion_id AS "conversionId", reversal_id AS "reversalId", product_id AS "productId",
  payment_account_id AS "paymentAccountId", created_at AS "createdAt", updated_at AS "updatedAt"`

const eventRows = (rows: Raw[]) =>
  numCols(rows, 'id', 'orderId', 'conversionId', 'deliveries', 'receivedAt', 'lastReceivedAt') as unknown as WebhookEventRow[]
/** float8 arrives as a number already; converted anyway so a driver change cannot turn totals into strings. */
const orderRows = (rows: Raw[]) =>
  numCols(rows, 'id', 'total', 'refunded', 'counted', 'reversed', 'conversionId', 'reversalId', 'createdAt', 'updatedAt') as unknown as OrderRow[]

/** The event insert's VALUES, on the handle that runs it. */
const eventValues = (sql: SQL, e: NewWebhookEvent, dedupKey: string | null) => sql`(${e.source}, ${e.externalId}, ${dedupKey},
  ${e.topic}, ${e.orderExternalId}, ${e.signature}, ${e.outcome}, ${e.error}, ${e.payload}, 1, ${e.receivedAt}::int8, ${e.receivedAt}::int8)`

/** The conditions, or an empty fragment (an empty array would not render). */
const all = (sql: SQL, conds: Fragment[]) => (conds.length ? conds : sql``)

/** The receivers' queries through one transaction (or savepoint) handle. */
class PgCommerceQueries implements CommerceQueries {
  constructor(private readonly sql: TransactionSQL) {}

  /**
   * A second delivery of one dedup key while the first's transaction is open waits on the unique index until
   * that one ends: after its COMMIT it takes the conflict branch (duplicate), after a rollback it inserts.
   */
  async recordDelivery(e: NewWebhookEvent): Promise<{ id: number; duplicate: boolean }> {
    const sql = this.sql
    const [row] = await sql`
      INSERT INTO webhook_events (source, external_id, dedup_key, topic, order_external_id, signature, outcome, error, payload,
        deliveries, received_at, last_received_at)
      VALUES ${eventValues(sql, e, e.dedupKey)}
      ON CONFLICT (source, dedup_key) DO UPDATE SET deliveries = webhook_events.deliveries + 1,
        last_received_at = excluded.received_at
      RETURNING id, deliveries`
    return { id: num(row.id), duplicate: num(row.deliveries) > 1 }
  }

  /** The row comes back locked (inserted or updated) until the transaction ends. */
  async upsertOrder(o: OrderUpsert): Promise<OrderRow> {
    const sql = this.sql
    const rows = await sql`
      INSERT INTO orders (source, external_id, status, currency, total, email, click_id, product_id, payment_account_id, created_at, updated_at)
      VALUES (${o.source}, ${o.externalId}, ${o.status}, ${o.currency}, coalesce(${o.total}::float8, 0), ${o.email}, ${o.clickId},
        ${o.productId ?? null}::int4, ${o.paymentAccountId ?? null}::int4, ${o.now}::int8, ${o.now}::int8)
      ON CONFLICT (source, external_id) DO UPDATE SET
        status = CASE WHEN orders.status IN ('cancelled', 'refunded') OR (orders.status = 'failed' AND excluded.status <> 'paid')
          OR (excluded.status = 'failed' AND orders.status IN ('paid', 'partially_refunded')) THEN orders.status ELSE excluded.status END,
        currency = CASE WHEN orders.conversion_id IS NOT NULL OR orders.refunded > 0 THEN coalesce(orders.currency, excluded.currency)
          ELSE coalesce(excluded.currency, orders.currency) END,
        total = coalesce(${o.total}::float8, orders.total),
        email = coalesce(excluded.email, orders.email), click_id = coalesce(orders.click_id, excluded.click_id),
        product_id = coalesce(orders.product_id, excluded.product_id),
        payment_account_id = coalesce(orders.payment_account_id, excluded.payment_account_id),
        updated_at = excluded.updated_at
      RETURNING ${orderCols(sql)}`
    return orderRows(rows)[0]!
  }

  async setOrderConversion(orderId: number, field: 'conversion' | 'reversal', conversionId: number, now: number): Promise<void> {
    const sql = this.sql
    if (field === 'conversion') await sql`UPDATE orders SET conversion_id = ${conversionId}::int8, updated_at = ${now}::int8 WHERE id = ${orderId}::int8`
    else await sql`UPDATE orders SET reversal_id = ${conversionId}::int8, updated_at = ${now}::int8 WHERE id = ${orderId}::int8`
  }

  async setOrderCounted(orderId: number, conversionId: number, counted: number, currency: string | null, now: number): Promise<void> {
    await this.sql`UPDATE orders SET conversion_id = ${conversionId}::int8, counted = ${counted}::float8, counted_currency = ${currency},
      updated_at = ${now}::int8 WHERE id = ${orderId}::int8`
  }

  async setOrderReversed(orderId: number, reversed: number, reversalId: number | null, now: number): Promise<void> {
    await this.sql`UPDATE orders SET reversed = ${reversed}::float8, reversal_id = coalesce(${reversalId}::int8, reversal_id),
      updated_at = ${now}::int8 WHERE id = ${orderId}::int8`
  }

  async lockOrder(id: number): Promise<OrderRow | undefined> {
    const sql = this.sql
    return orderRows(await sql`SELECT ${orderCols(sql)} FROM orders WHERE id = ${id}::int8 FOR UPDATE`)[0]
  }

  async setOrderStatus(id: number, status: string, now: number): Promise<void> {
    await this.sql`UPDATE orders SET status = ${status}, updated_at = ${now}::int8 WHERE id = ${id}::int8`
  }

  async insertRefund(r: NewRefund): Promise<void> {
    await this.sql`
      INSERT INTO refunds (order_id, source, external_id, amount, currency, conversion_id, created_at)
      VALUES (${r.orderId}::int8, ${r.source}, ${r.externalId}, ${r.amount}::float8, ${r.currency}, ${r.conversionId}::int8, ${r.now}::int8)
      ON CONFLICT (source, external_id) DO NOTHING`
  }

  async upsertSubscription(s: SubscriptionUpsert): Promise<void> {
    await this.sql`
      INSERT INTO subscriptions (source, external_id, payment_account_id, customer_external_id, email, status, click_id, product_id,
        current_period_end, canceled_at, created_at, updated_at)
      VALUES (${s.source}, ${s.externalId}, ${s.paymentAccountId}::int4, ${s.customerExternalId}, ${s.email}, ${s.status}, ${s.clickId},
        ${s.productId}::int4, ${s.currentPeriodEnd}::int8, ${s.canceledAt}::int8, ${s.now}::int8, ${s.now}::int8)
      ON CONFLICT (source, external_id) DO UPDATE SET status = excluded.status,
        email = coalesce(excluded.email, subscriptions.email),
        customer_external_id = coalesce(excluded.customer_external_id, subscriptions.customer_external_id),
        click_id = coalesce(subscriptions.click_id, excluded.click_id), product_id = coalesce(subscriptions.product_id, excluded.product_id),
        payment_account_id = coalesce(subscriptions.payment_account_id, excluded.payment_account_id),
        current_period_end = coalesce(excluded.current_period_end, subscriptions.current_period_end),
        canceled_at = coalesce(excluded.canceled_at, subscriptions.canceled_at), updated_at = excluded.updated_at`
  }

  async setOrderRefunded(orderId: number, refunded: number, now: number): Promise<void> {
    await this.sql`UPDATE orders SET refunded = ${refunded}::float8, updated_at = ${now}::int8 WHERE id = ${orderId}::int8`
  }

  async finishEvent(id: number, r: EventResult): Promise<void> {
    await this.sql`
      UPDATE webhook_events SET outcome = ${r.outcome}, error = ${r.error}, click_id = ${r.clickId},
        order_id = ${r.orderId}::int8, conversion_id = ${r.conversionId}::int8
      WHERE id = ${id}::int8`
  }
}

export class PgCommerceStore implements CommerceStore {
  private readonly sql: SQL

  constructor(database: PgDatabase) {
    this.sql = database.sql
  }

  /** The queries bound to the caller's transaction (or savepoint) handle. */
  in(tx: Tx): CommerceQueries {
    if (!tx) throw new Error('commerce store: Postgres queries need the transaction handle they belong to')
    return new PgCommerceQueries(tx)
  }

  /** SKIP LOCKED: two instances pruning at once take different rows. */
  async pruneEvents(cutoff: number, limit: number): Promise<number> {
    const r = await this.sql`
      DELETE FROM webhook_events WHERE id IN (
        SELECT id FROM webhook_events WHERE received_at < ${cutoff}::int8 ORDER BY received_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)`
    return r.count
  }

  async createOrder(o: OrderUpsert): Promise<OrderRow> {
    return (await this.sql.begin((tx) => new PgCommerceQueries(tx).upsertOrder(o))) as OrderRow
  }

  /** A transaction of its own; never deduplicated, so its dedup_key is stored as NULL. */
  async recordRefused(e: NewWebhookEvent): Promise<number> {
    return num(await this.sql.begin(async (tx) => {
      const [row] = await tx`
        INSERT INTO webhook_events (source, external_id, dedup_key, topic, order_external_id, signature, outcome, error, payload,
          deliveries, received_at, last_received_at)
        VALUES ${eventValues(tx, e, null)}
        RETURNING id`
      return row.id
    }))
  }

  async listEvents(filter: WebhookEventFilter, before: number | undefined, limit: number): Promise<WebhookEventRow[]> {
    const sql = this.sql
    const conds = [
      filter.source === undefined ? null : sql`AND source = ${filter.source}`,
      filter.outcome === undefined ? null : sql`AND outcome = ${filter.outcome}`,
      filter.orderExternalId === undefined ? null : sql`AND order_external_id = ${filter.orderExternalId}`,
      filter.clickId === undefined ? null : sql`AND click_id = ${filter.clickId}`,
      before === undefined ? null : sql`AND id < ${before}::int8`,
    ].filter((c) => c !== null)
    const rows = await sql`SELECT ${listedEventCols(sql)} FROM webhook_events WHERE TRUE ${all(sql, conds)} ORDER BY id DESC LIMIT ${limit}::int`
    return eventRows(rows)
  }

  async findEvent(id: number): Promise<WebhookEventRow | undefined> {
    const sql = this.sql
    return eventRows(await sql`SELECT ${eventCols(sql)} FROM webhook_events WHERE id = ${id}::int8`)[0]
  }

  async listOrders(filter: OrderFilter, before: number | undefined, limit: number): Promise<OrderRow[]> {
    const sql = this.sql
    const conds = [
      filter.source === undefined ? null : sql`AND source = ${filter.source}`,
      filter.status === undefined ? null : sql`AND status = ${filter.status}`,
      filter.clickId === undefined ? null : sql`AND click_id = ${filter.clickId}`,
      before === undefined ? null : sql`AND id < ${before}::int8`,
    ].filter((c) => c !== null)
    const rows = await sql`SELECT ${orderCols(sql)} FROM orders WHERE TRUE ${all(sql, conds)} ORDER BY id DESC LIMIT ${limit}::int`
    return orderRows(rows)
  }

  async findOrder(id: number): Promise<OrderRow | undefined> {
    const sql = this.sql
    return orderRows(await sql`SELECT ${orderCols(sql)} FROM orders WHERE id = ${id}::int8`)[0]
  }
}
