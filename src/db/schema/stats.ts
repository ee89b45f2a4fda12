import { integer, text, real, primaryKey } from 'drizzle-orm/sqlite-core'
import { smallint } from 'drizzle-orm/pg-core'
import { table, ms, type TableOptions } from '../table'

// Incrementally maintained rollups that reports read instead of raw rows. Keys use 0 for "none"
// (a click without landing), because NULLs never match in an upsert's conflict target.
//
// Hourly rows are written by the click commit (tracking/store/click-rollup.ts) and the conversion recorder
// (postback/rollup.ts, subscribed by reports/). The daily tables are kept equal to the sum of their hourly rows by SQL
// triggers (migration 0002): a 30-day report reads ~24x fewer rows, which is what keeps it in single-digit
// milliseconds at 10M clicks; hourly rows remain for time-zone day boundaries and hour grouping.
// Postgres has the same triggers in plpgsql (drizzle-pg/0001_seed_and_rollup_triggers.sql).

/**
 * Postgres only, on the conversion rollups: striped counters. Transactions that run side by side add to
 * different rows of one campaign-hour (reports sum them anyway); with one row each held its lock from the upsert
 * until the durable COMMIT, so every postback of a campaign waited for the others' fsyncs (measured: 8.9 ms per
 * upsert). drizzle-pg/0015; the daily row takes the hourly row's shard (the trigger). SQLite's one writer needs none.
 */
const shard = (): TableOptions => ({ pg: { columns: { after: 'currency', add: { shard: smallint('shard').notNull().default(0) }, primaryKey: true } } })

/** Clicks per UTC hour and campaign/source/offer/landing; excluded (own-IP) clicks are not counted. */
export const clickStatsHourly = table('click_stats_hourly', {
  hour: ms('hour').notNull(),
  campaignId: integer('campaign_id').notNull(),
  sourceId: integer('source_id').notNull(),
  offerId: integer('offer_id').notNull(),
  landingId: integer('landing_id').notNull(),
  clicks: integer('clicks').notNull().default(0),
  uniqueClicks: integer('unique_clicks').notNull().default(0),
  botClicks: integer('bot_clicks').notNull().default(0),
  cost: real('cost').notNull().default(0),
  landingViews: integer('landing_views').notNull().default(0),
  landingClicks: integer('landing_clicks').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.hour, t.campaignId, t.sourceId, t.offerId, t.landingId] })])

/**
 * Conversions per UTC hour of the conversion date, attribution, type and currency (reports never add two
 * currencies). Counts and revenue are raw;
 * reports apply the type's include flags and sign when they read, so flag edits apply at once.
 * `revenue_abs` (sum of |revenue|) is what a negative type subtracts: refunds arrive with positive or
 * negative payouts, and a flag can turn negative later, so both sums are kept.
 */
export const conversionStatsHourly = table('conversion_stats_hourly', {
  hour: ms('hour').notNull(),
  campaignId: integer('campaign_id').notNull(),
  sourceId: integer('source_id').notNull(),
  offerId: integer('offer_id').notNull(),
  landingId: integer('landing_id').notNull(),
  type: text('type').notNull(),
  /** The conversions' currency (upper-case), '' for none: read as the cost_currency setting (migration 0025). */
  currency: text('currency').notNull().default(''),
  conversions: integer('conversions').notNull().default(0),
  revenue: real('revenue').notNull().default(0),
  revenueAbs: real('revenue_abs').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.hour, t.campaignId, t.sourceId, t.offerId, t.landingId, t.type, t.currency] })], shard())

/**
 * click_stats_hourly summed per UTC day (day = epoch ms of 00:00 UTC); maintained by triggers only.
 * Created WITHOUT ROWID by migration 0002 (by hand: drizzle-kit does not model it).
 */
export const clickStatsDaily = table('click_stats_daily', {
  day: ms('day').notNull(),
  campaignId: integer('campaign_id').notNull(),
  sourceId: integer('source_id').notNull(),
  offerId: integer('offer_id').notNull(),
  landingId: integer('landing_id').notNull(),
  clicks: integer('clicks').notNull().default(0),
  uniqueClicks: integer('unique_clicks').notNull().default(0),
  botClicks: integer('bot_clicks').notNull().default(0),
  cost: real('cost').notNull().default(0),
  landingViews: integer('landing_views').notNull().default(0),
  landingClicks: integer('landing_clicks').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.day, t.campaignId, t.sourceId, t.offerId, t.landingId] })])

/** conversion_stats_hourly summed per UTC day; maintained by triggers only; WITHOUT ROWID (see above). */
export const conversionStatsDaily = table('conversion_stats_daily', {
  day: ms('day').notNull(),
  campaignId: integer('campaign_id').notNull(),
  sourceId: integer('source_id').notNull(),
  offerId: integer('offer_id').notNull(),
  landingId: integer('landing_id').notNull(),
  type: text('type').notNull(),
  /** The conversions' currency (upper-case), '' for none: read as the cost_currency setting (migration 0025). */
  currency: text('currency').notNull().default(''),
  conversions: integer('conversions').notNull().default(0),
  revenue: real('revenue').notNull().default(0),
  revenueAbs: real('revenue_abs').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.day, t.campaignId, t.sourceId, t.offerId, t.landingId, t.type, t.currency] })], shard())
