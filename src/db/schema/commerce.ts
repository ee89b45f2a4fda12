import { integer, text, real, index, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { table, bigId, id, int8, ms } from '../table'

/**
 * Every delivery a /webhook/* receiver answered (issue 11): what a merchant reads to see why an order was
 * or was not attributed. A redelivery of an event already processed is not a new row: `deliveries` counts
 * it on the first one (idempotency key: source + dedup_key, see commerce/events.ts).
 * signature: valid | legacy_key | ping | invalid | missing. outcome: attributed | unattributed | recorded |
 * ignored | rejected | error.
 */
export const webhookEvents = table('webhook_events', {
  id: bigId(),
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
  orderId: int8('order_id'),
  conversionId: int8('conversion_id'),
  /** The body as received (first 64 KB), for debugging an integration. */
  payload: text('payload'),
  deliveries: integer('deliveries').notNull().default(1),
  receivedAt: ms('received_at').notNull(),
  lastReceivedAt: ms('last_received_at').notNull(),
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
export const orders = table('orders', {
  id: bigId(),
  source: text('source').notNull(),
  externalId: text('external_id').notNull(),
  status: text('status').notNull(),
  currency: text('currency'),
  total: real('total').notNull().default(0),
  refunded: real('refunded').notNull().default(0),
  /** What the sale conversion counted (null: never counted) and in which currency: the cap of every reversal. */
  counted: real('counted'),
  countedCurrency: text('counted_currency'),
  /** What the negative conversions (refunds, cancellation) took back so far: never more than counted. */
  reversed: real('reversed').notNull().default(0),
  email: text('email'),
  clickId: text('click_id'),
  conversionId: int8('conversion_id'),
  reversalId: int8('reversal_id'),
  /** Native orders: the product and the payment account (null for store orders). */
  productId: integer('product_id'),
  paymentAccountId: integer('payment_account_id'),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
}, (t) => [
  uniqueIndex('orders_source_external_idx').on(t.source, t.externalId),
  index('orders_click_idx').on(t.clickId),
  index('orders_created_idx').on(t.createdAt),
  index('orders_email_idx').on(t.email),
])

/**
 * The merchant's accounts at the payment processors (native commerce). account_id is the path segment of
 * /webhook/pay-a/:account_id and /webhook/pay-b/:account_id (random, generated). Secrets are encrypted
 * with the instance's SecretBox and never shown again: webhook_secret (pay-a: the endpoint's signing
 * secret; pay-b: the provider's webhook id), api_key (pay-a), client_id + client_secret (pay-b OAuth).
 */
export const paymentAccounts = table('payment_accounts', {
  id: id(),
  type: text('type').notNull(),
  name: text('name').notNull(),
  accountId: text('account_id').notNull().unique(),
  webhookSecret: text('webhook_secret'),
  apiKey: text('api_key'),
  clientId: text('client_id'),
  clientSecret: text('client_secret'),
  /** When svc registered its webhook endpoint at the processor (pay-a, first checkout); null until then. */
  webhookRegisteredAt: ms('webhook_registered_at'),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
})

/** What the merchant sells natively: a price in a currency, the offer its sales convert on, the list buyers join. */
export const products = table('products', {
  id: id(),
  name: text('name').notNull(),
  price: real('price').notNull(),
  currency: text('currency').notNull(),
  offerId: integer('offer_id'),
  emailListId: integer('email_list_id'),
  paymentAccountId: integer('payment_account_id'),
  active: integer('active').notNull().default(1),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
})

/** One row per refund a sender reported (pay-a: each new part of a charge's cumulative refunded amount). */
export const refunds = table('refunds', {
  id: bigId(),
  orderId: int8('order_id').notNull(),
  source: text('source').notNull(),
  externalId: text('external_id').notNull(),
  amount: real('amount').notNull(),
  currency: text('currency'),
  conversionId: int8('conversion_id'),
  createdAt: ms('created_at').notNull(),
}, (t) => [uniqueIndex('refunds_source_external_idx').on(t.source, t.externalId), index('refunds_order_idx').on(t.orderId)])

/** Subscriptions as the processors report them (customer.subscription.*, BILLING.SUBSCRIPTION.*). */
export const subscriptions = table('subscriptions', {
  id: bigId(),
  source: text('source').notNull(),
  externalId: text('external_id').notNull(),
  paymentAccountId: integer('payment_account_id'),
  customerExternalId: text('customer_external_id'),
  email: text('email'),
  status: text('status').notNull(),
  clickId: text('click_id'),
  productId: integer('product_id'),
  currentPeriodEnd: ms('current_period_end'),
  canceledAt: ms('canceled_at'),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
}, (t) => [uniqueIndex('subscriptions_source_external_idx').on(t.source, t.externalId), index('subscriptions_email_idx').on(t.email)])
