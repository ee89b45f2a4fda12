import { integer, text, real, index } from 'drizzle-orm/sqlite-core'
import { index as pgIndex } from 'drizzle-orm/pg-core'
import { table, bigId, id, int8, ms } from '../table'

/** Configurable conversion types (spec §2). `negative` = counts negative (chargeback). */
export const conversionTypes = table('conversion_types', {
  slug: text('slug').primaryKey(),
  name: text('name').notNull(),
  includeInConversions: integer('include_in_conversions', { mode: 'boolean' }).notNull(),
  includeInRevenue: integer('include_in_revenue', { mode: 'boolean' }).notNull(),
  sendPostback: integer('send_postback', { mode: 'boolean' }).notNull(),
  negative: integer('negative', { mode: 'boolean' }).notNull().default(false),
  /** Built-in types may be edited but not deleted. */
  builtin: integer('builtin', { mode: 'boolean' }).notNull().default(false),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
})

/** Received postback status (lower-cased) → conversion type slug. */
export const statusMap = table('status_map', {
  status: text('status').primaryKey(),
  typeSlug: text('type_slug').notNull(),
})

export const conversions = table('conversions', {
  id: bigId(),
  clickRowId: int8('click_row_id').notNull(),
  /**
   * The click's created_at, copied at record time (issue 31): on Postgres clicks are partitioned by day, and a
   * join by row id that also names the click's time probes one partition instead of every day's.
   * 0: a conversion recorded before the column existed whose click was already gone.
   */
  clickCreatedAt: ms('click_created_at').notNull().default(0),
  clickId: text('click_id').notNull(),
  campaignId: integer('campaign_id').notNull(),
  sourceId: integer('source_id'),
  offerId: integer('offer_id'),
  landingId: integer('landing_id'),
  /** The click's country (ISO alpha-2) and targeting path (null: default rotation), copied at record time (issue 28). */
  country: text('country'),
  pathId: integer('path_id'),
  /** Type slug; flags are read from conversion_types at report time so flag edits apply retroactively. */
  type: text('type').notNull(),
  status: text('status'),
  revenue: real('revenue').notNull(),
  currency: text('currency'),
  /** revshare: the campaign's share of `revenue` when it was recorded (revshare_percent), in `currency`; 0 otherwise. */
  cost: real('cost').notNull().default(0),
  transactionId: text('transaction_id'),
  email: text('email'),
  /** Conversion time (from the postback, default: received time), epoch ms. */
  date: ms('date').notNull(),
  createdAt: ms('created_at').notNull(),
  /** Set by the forward job when the request to the source went out with placeholders svc could not fill. */
  forwardWarning: text('forward_warning'),
  /**
   * The raw query string of the /postback request that recorded it (or last moved it: status updates), cut at
   * 4096 characters like postback_errors.query; null for conversions made by webhooks, commerce or the API.
   */
  postbackQuery: text('postback_query'),
}, (t) => [
  index('conversions_click_tid_idx').on(t.clickRowId, t.transactionId),
  // No index on click_id: a random UUID key dirtied one more page per postback, anywhere in the tree (dropped
  // in 0017: +25-65 % postbacks/s). A click's conversions are found through its row (click_row_id) instead.
  // Postgres still has it (drizzle-pg/0000; that measurement was SQLite's page writes).
  index('conversions_campaign_date_idx').on(t.campaignId, t.date),
  index('conversions_date_idx').on(t.date),
], { pg: { indexes: (t) => [pgIndex('conversions_click_id_idx').on(t.clickId!)] } })

/** Postbacks that recorded nothing for a reason the operator should see (unknown click, unreplaced macro…). */
export const postbackErrors = table('postback_errors', {
  id: id(),
  reason: text('reason').notNull(),
  clickId: text('click_id'),
  query: text('query').notNull(),
  ip: text('ip'),
  /** Set on a warning row: the postback recorded this conversion despite the problem. Null: it recorded nothing. */
  conversionId: int8('conversion_id'),
  createdAt: ms('created_at').notNull(),
}, (t) => [index('postback_errors_created_idx').on(t.createdAt)])

/**
 * The opt-in `postback_status_updates` mode (postback/status-update.ts): a conversion's state BEFORE each
 * in-place change, or, with reversal_id set, its state when a negative postback was recorded against it as
 * a conversion of its own (the original row keeps its type).
 */
export const conversionStatusHistory = table('conversion_status_history', {
  id: bigId(),
  conversionId: int8('conversion_id').notNull(),
  type: text('type').notNull(),
  status: text('status'),
  revenue: real('revenue').notNull(),
  reversalId: int8('reversal_id'),
  /** The raw /postback query of that state (conversions.postback_query before the change); null when none. */
  query: text('query'),
  changedAt: ms('changed_at').notNull(),
}, (t) => [index('conversion_status_history_conversion_idx').on(t.conversionId)])
