import { sqliteTable, integer, text, real, index, uniqueIndex } from 'drizzle-orm/sqlite-core'

/**
 * Every delivery a /webhook/* receiver answered (issue 11): what a merchant reads to see why an order was
 * or was not attributed. A redelivery of an event already processed is not a new row: `deliveries` counts
 * it on the first one (idempotency key: source + dedup_key, see commerce/events.ts).
 * signature: valid | legacy_key | ping | invalid | missing. outcome: attributed | unattributed | recorded |
 * ignored | rejected | error.
 */
export const webhookEvents = sqliteTable('webhook_events', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  source: text('source').notNull(),
  /** The sender's event id, when it has one. */
  externalId: text('external_id'),
  /** external_id, else "<order id>:<event type>"; null for refused deliveries (never deduplicated). */
  dedupKey: text('dedup_key'),
  topic: text('topic'),
  orderExternalId: text('order_external_id'),
  signature: text('signature').notNull(),
  outcome: text('outcome').notNull(),
  error: text('error'),
  clickId: text('click_id'),
  orderId: integer('order_id'),
  conversionId: integer('conversion_id'),
  /** The body as received (first 64 KB), for debugging an integration. */
  payload: text('payload'),
  deliveries: integer('deliveries').notNull().default(1),
  receivedAt: integer('received_at').notNull(),
  lastReceivedAt: integer('last_received_at').notNull(),
}, (t) => [
  uniqueIndex('webhook_events_dedup_idx').on(t.source, t.dedupKey),
  index('webhook_events_received_idx').on(t.receivedAt),
  index('webhook_events_order_idx').on(t.source, t.orderExternalId),
])

/**
 * Orders as the stores and processors report them (ecom-a, ecom-b; native commerce later), one row per
 * source and external id. conversion_id: the sale conversion once the order counted; reversal_id: the
 * negative conversion of its cancellation. Money in the order's currency, as decimals.
 */
export const orders = sqliteTable('orders', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  source: text('source').notNull(),
  externalId: text('external_id').notNull(),
  status: text('status').notNull(),
  currency: text('currency'),
  total: real('total').notNull().default(0),
  refunded: real('refunded').notNull().default(0),
  email: text('email'),
  clickId: text('click_id'),
  conversionId: integer('conversion_id'),
  reversalId: integer('reversal_id'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [
  uniqueIndex('orders_source_external_idx').on(t.source, t.externalId),
  index('orders_click_idx').on(t.clickId),
  index('orders_created_idx').on(t.createdAt),
])
