import { pgTable, integer, bigint, text, doublePrecision, index } from 'drizzle-orm/pg-core'

// Postgres twin of ../schema/conversions.ts. Seed rows (built-in types, default status map) are in
// drizzle-pg/0001_seed_and_rollup_triggers.sql, as drizzle/0001_defaults.sql seeds them on SQLite.
const ms = (name: string) => bigint(name, { mode: 'number' })

export const conversionTypes = pgTable('conversion_types', {
  slug: text('slug').primaryKey(),
  name: text('name').notNull(),
  includeInConversions: integer('include_in_conversions').notNull(),
  includeInRevenue: integer('include_in_revenue').notNull(),
  sendPostback: integer('send_postback').notNull(),
  negative: integer('negative').notNull().default(0),
  builtin: integer('builtin').notNull().default(0),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
})

export const statusMap = pgTable('status_map', {
  status: text('status').primaryKey(),
  typeSlug: text('type_slug').notNull(),
})

export const conversions = pgTable('conversions', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  /** clicks.id, a bigint there. */
  clickRowId: bigint('click_row_id', { mode: 'number' }).notNull(),
  clickId: text('click_id').notNull(),
  campaignId: integer('campaign_id').notNull(),
  sourceId: integer('source_id'),
  offerId: integer('offer_id'),
  landingId: integer('landing_id'),
  type: text('type').notNull(),
  status: text('status'),
  revenue: doublePrecision('revenue').notNull(),
  currency: text('currency'),
  transactionId: text('transaction_id'),
  email: text('email'),
  date: ms('date').notNull(),
  createdAt: ms('created_at').notNull(),
  /** Set by the forward job when the request to the source went out with placeholders svc could not fill. */
  forwardWarning: text('forward_warning'),
}, (t) => [
  index('conversions_click_tid_idx').on(t.clickRowId, t.transactionId),
  index('conversions_click_id_idx').on(t.clickId),
  index('conversions_campaign_date_idx').on(t.campaignId, t.date),
  index('conversions_date_idx').on(t.date),
])

export const postbackErrors = pgTable('postback_errors', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  reason: text('reason').notNull(),
  clickId: text('click_id'),
  query: text('query').notNull(),
  ip: text('ip'),
  /** conversions.id, a bigint there. */
  conversionId: bigint('conversion_id', { mode: 'number' }),
  createdAt: ms('created_at').notNull(),
}, (t) => [index('postback_errors_created_idx').on(t.createdAt)])

/** Twin of ../schema/conversions.ts conversionStatusHistory (the postback_status_updates mode). */
export const conversionStatusHistory = pgTable('conversion_status_history', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  conversionId: bigint('conversion_id', { mode: 'number' }).notNull(),
  type: text('type').notNull(),
  status: text('status'),
  revenue: doublePrecision('revenue').notNull(),
  reversalId: bigint('reversal_id', { mode: 'number' }),
  changedAt: ms('changed_at').notNull(),
}, (t) => [index('conversion_status_history_conversion_idx').on(t.conversionId)])
