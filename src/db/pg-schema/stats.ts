import { pgTable, integer, smallint, bigint, text, doublePrecision, primaryKey } from 'drizzle-orm/pg-core'

// Postgres twin of ../schema/stats.ts. As on SQLite, the daily tables are kept equal to the sum of their
// hourly rows by triggers (plpgsql here, hand-written in drizzle-pg/0001_seed_and_rollup_triggers.sql),
// so the stores write only the hourly tables on both engines. hour/day are epoch-ms bigints.
const ms = (name: string) => bigint(name, { mode: 'number' })

export const clickStatsHourly = pgTable('click_stats_hourly', {
  hour: ms('hour').notNull(),
  campaignId: integer('campaign_id').notNull(),
  sourceId: integer('source_id').notNull(),
  offerId: integer('offer_id').notNull(),
  landingId: integer('landing_id').notNull(),
  clicks: integer('clicks').notNull().default(0),
  uniqueClicks: integer('unique_clicks').notNull().default(0),
  botClicks: integer('bot_clicks').notNull().default(0),
  cost: doublePrecision('cost').notNull().default(0),
  landingViews: integer('landing_views').notNull().default(0),
  landingClicks: integer('landing_clicks').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.hour, t.campaignId, t.sourceId, t.offerId, t.landingId] })])

export const conversionStatsHourly = pgTable('conversion_stats_hourly', {
  hour: ms('hour').notNull(),
  campaignId: integer('campaign_id').notNull(),
  sourceId: integer('source_id').notNull(),
  offerId: integer('offer_id').notNull(),
  landingId: integer('landing_id').notNull(),
  type: text('type').notNull(),
  /** As on SQLite: the conversions' currency, '' for none (read as cost_currency). Migration 0022. */
  currency: text('currency').notNull().default(''),
  /**
   * Striped counters: transactions that run side by side add to different rows of one campaign-hour
   * (reports sum them anyway). One row each held its lock from the upsert until the durable COMMIT, so
   * every postback of a campaign waited for the others' fsyncs (measured: 8.9 ms per upsert). Migration 0015.
   */
  shard: smallint('shard').notNull().default(0),
  conversions: integer('conversions').notNull().default(0),
  revenue: doublePrecision('revenue').notNull().default(0),
  revenueAbs: doublePrecision('revenue_abs').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.hour, t.campaignId, t.sourceId, t.offerId, t.landingId, t.type, t.currency, t.shard] })])

export const clickStatsDaily = pgTable('click_stats_daily', {
  day: ms('day').notNull(),
  campaignId: integer('campaign_id').notNull(),
  sourceId: integer('source_id').notNull(),
  offerId: integer('offer_id').notNull(),
  landingId: integer('landing_id').notNull(),
  clicks: integer('clicks').notNull().default(0),
  uniqueClicks: integer('unique_clicks').notNull().default(0),
  botClicks: integer('bot_clicks').notNull().default(0),
  cost: doublePrecision('cost').notNull().default(0),
  landingViews: integer('landing_views').notNull().default(0),
  landingClicks: integer('landing_clicks').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.day, t.campaignId, t.sourceId, t.offerId, t.landingId] })])

export const conversionStatsDaily = pgTable('conversion_stats_daily', {
  day: ms('day').notNull(),
  campaignId: integer('campaign_id').notNull(),
  sourceId: integer('source_id').notNull(),
  offerId: integer('offer_id').notNull(),
  landingId: integer('landing_id').notNull(),
  type: text('type').notNull(),
  /** As on SQLite: the conversions' currency, '' for none (read as cost_currency). Migration 0022. */
  currency: text('currency').notNull().default(''),
  /** The hourly row's shard (the trigger copies it), for the same reason. */
  shard: smallint('shard').notNull().default(0),
  conversions: integer('conversions').notNull().default(0),
  revenue: doublePrecision('revenue').notNull().default(0),
  revenueAbs: doublePrecision('revenue_abs').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.day, t.campaignId, t.sourceId, t.offerId, t.landingId, t.type, t.currency, t.shard] })])
