import { pgTable, bigint, integer, text, doublePrecision, index, uniqueIndex } from 'drizzle-orm/pg-core'

// Postgres twin of ../schema/commerce.ts.
const ms = (name: string) => bigint(name, { mode: 'number' })

export const webhookEvents = pgTable('webhook_events', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  source: text('source').notNull(),
  externalId: text('external_id'),
  dedupKey: text('dedup_key'),
  topic: text('topic'),
  orderExternalId: text('order_external_id'),
  signature: text('signature').notNull(),
  outcome: text('outcome').notNull(),
  error: text('error'),
  clickId: text('click_id'),
  orderId: bigint('order_id', { mode: 'number' }),
  conversionId: bigint('conversion_id', { mode: 'number' }),
  payload: text('payload'),
  deliveries: integer('deliveries').notNull().default(1),
  receivedAt: ms('received_at').notNull(),
  lastReceivedAt: ms('last_received_at').notNull(),
}, (t) => [
  uniqueIndex('webhook_events_dedup_idx').on(t.source, t.dedupKey),
  index('webhook_events_received_idx').on(t.receivedAt),
  index('webhook_events_order_idx').on(t.source, t.orderExternalId),
])

export const orders = pgTable('orders', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  source: text('source').notNull(),
  externalId: text('external_id').notNull(),
  status: text('status').notNull(),
  currency: text('currency'),
  total: doublePrecision('total').notNull().default(0),
  refunded: doublePrecision('refunded').notNull().default(0),
  counted: doublePrecision('counted'),
  countedCurrency: text('counted_currency'),
  reversed: doublePrecision('reversed').notNull().default(0),
  email: text('email'),
  clickId: text('click_id'),
  conversionId: bigint('conversion_id', { mode: 'number' }),
  reversalId: bigint('reversal_id', { mode: 'number' }),
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

export const paymentAccounts = pgTable('payment_accounts', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  type: text('type').notNull(),
  name: text('name').notNull(),
  accountId: text('account_id').notNull().unique(),
  webhookSecret: text('webhook_secret'),
  apiKey: text('api_key'),
  clientId: text('client_id'),
  clientSecret: text('client_secret'),
  webhookRegisteredAt: ms('webhook_registered_at'),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
})

export const products = pgTable('products', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  name: text('name').notNull(),
  price: doublePrecision('price').notNull(),
  currency: text('currency').notNull(),
  offerId: integer('offer_id'),
  emailListId: integer('email_list_id'),
  paymentAccountId: integer('payment_account_id'),
  active: integer('active').notNull().default(1),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
})

export const refunds = pgTable('refunds', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  orderId: bigint('order_id', { mode: 'number' }).notNull(),
  source: text('source').notNull(),
  externalId: text('external_id').notNull(),
  amount: doublePrecision('amount').notNull(),
  currency: text('currency'),
  conversionId: bigint('conversion_id', { mode: 'number' }),
  createdAt: ms('created_at').notNull(),
}, (t) => [uniqueIndex('refunds_source_external_idx').on(t.source, t.externalId), index('refunds_order_idx').on(t.orderId)])

export const subscriptions = pgTable('subscriptions', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
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
