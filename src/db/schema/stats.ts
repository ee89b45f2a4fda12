import { sqliteTable, integer, text, real, primaryKey } from 'drizzle-orm/sqlite-core'

// Incrementally maintained rollups that reports read instead of raw rows. Keys use 0 for "none"
// (a click without landing), because NULLs never match in an upsert's conflict target.
//
// Hourly rows are written by the click commit (tracking/store/click-rollup.ts) and the conversion recorder
// (reports/conversion-rollup.ts). The daily tables are kept equal to the sum of their hourly rows by SQL
// triggers (migration 0002): a 30-day report reads ~24x fewer rows, which is what keeps it in single-digit
// milliseconds at 10M clicks; hourly rows remain for time-zone day boundaries and hour grouping.

/** Clicks per UTC hour and campaign/source/offer/landing; excluded (own-IP) clicks are not counted. */
export const clickStatsHourly = sqliteTable('click_stats_hourly', {
  hour: integer('hour').notNull(),
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
export const conversionStatsHourly = sqliteTable('conversion_stats_hourly', {
  hour: integer('hour').notNull(),
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
}, (t) => [primaryKey({ columns: [t.hour, t.campaignId, t.sourceId, t.offerId, t.landingId, t.type, t.currency] })])

/**
 * click_stats_hourly summed per UTC day (day = epoch ms of 00:00 UTC); maintained by triggers only.
 * Created WITHOUT ROWID by migration 0002 (by hand: drizzle-kit does not model it).
 */
export const clickStatsDaily = sqliteTable('click_stats_daily', {
  day: integer('day').notNull(),
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
export const conversionStatsDaily = sqliteTable('conversion_stats_daily', {
  day: integer('day').notNull(),
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
}, (t) => [primaryKey({ columns: [t.day, t.campaignId, t.sourceId, t.offerId, t.landingId, t.type, t.currency] })])
