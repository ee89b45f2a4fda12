import { integer, text, real, primaryKey } from 'drizzle-orm/sqlite-core'
import { smallint } from 'drizzle-orm/pg-core'
import { table, ms, int8, type TableOptions } from '../table'

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
const shard = (after = 'currency'): TableOptions => ({ pg: { columns: { after, add: { shard: smallint('shard').notNull().default(0) }, primaryKey: true } } })
/**
 * The click rollups likewise (drizzle-pg/0032): the Postgres click store commits several batches at once, each on its
 * own shard (tracking/store/pg-click-store.ts), so batches of one campaign never wait for each other's COMMIT.
 */
const clickShard = (): TableOptions => shard('landingClicks')

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
}, (t) => [primaryKey({ columns: [t.hour, t.campaignId, t.sourceId, t.offerId, t.landingId] })], clickShard())

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
  /** revshare cost (conversions.cost) summed as revenue is: raw, and |cost| for negative types (drizzle/0030). */
  cost: real('cost').notNull().default(0),
  costAbs: real('cost_abs').notNull().default(0),
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
}, (t) => [primaryKey({ columns: [t.day, t.campaignId, t.sourceId, t.offerId, t.landingId] })], clickShard())

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
  /** revshare cost (conversions.cost) summed as revenue is: raw, and |cost| for negative types (drizzle/0030). */
  cost: real('cost').notNull().default(0),
  costAbs: real('cost_abs').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.day, t.campaignId, t.sourceId, t.offerId, t.landingId, t.type, t.currency] })], shard())

// Targeting rollups (issue 28): clicks and conversions per UTC hour/day and campaign, by visitor country
// (click_country_*, conversion_country_*) and by targeting path (click_path_*, conversion_path_*). Tables of their
// own rather than more key columns on the rollups above, and one per dimension rather than one keyed by both: a
// report by country then reads campaign × country rows (~50 per campaign-hour) and one by path campaign × path
// rows (a few), where country × path rows were ~5x more and read 20x slower than the campaign report (bench:
// scripts/bench-reports.ts); the reports by campaign/source/offer/landing keep their rows. A report by country
// and path together scans raw clicks (within retention), as the other visitor values do. A report by country over
// all campaigns reads the *_country_total_daily tables: campaign × country rows were still ~12x the campaign
// report's (~50 ms at 10M clicks); one row per day and country is a few thousand per 30 days.
// Keys: country '' = unknown, path_id 0 = the default rotation (NULLs never match in an upsert's conflict
// target). Written beside the rollups above, by the same writers, in the same transactions; the per-campaign daily
// tables by triggers (drizzle/0028, drizzle-pg/0025), the totals by the writers (below). Never pruned by click
// retention, like the others.

type Targeting = 'country' | 'path'
/** The key column of a targeting dimension: clicks.country ('' = unknown), clicks.path_id (0 = default rotation). */
const targetingKey = (d: Targeting) => (d === 'country' ? { country: text('country').notNull().default('') } : { pathId: integer('path_id').notNull().default(0) })

/** Clicks per UTC hour (or day), campaign and targeting value; excluded (own-IP) clicks are not counted. */
function clickTargeting<D extends Targeting>(d: D, time: 'hour' | 'day' | 'total') {
  const perCampaign = time !== 'total'
  const t = time === 'hour' ? 'hour' : 'day'
  return table(`click_${d}_${time === 'hour' ? 'hourly' : time === 'day' ? 'daily' : 'total_daily'}`, {
    [t]: ms(t).notNull(),
    ...(perCampaign ? { campaignId: integer('campaign_id').notNull() } : {}),
    ...targetingKey(d),
    clicks: integer('clicks').notNull().default(0),
    uniqueClicks: integer('unique_clicks').notNull().default(0),
    botClicks: integer('bot_clicks').notNull().default(0),
    cost: real('cost').notNull().default(0),
    landingViews: integer('landing_views').notNull().default(0),
    landingClicks: integer('landing_clicks').notNull().default(0),
  } as Record<string, any>, (c: any) => [primaryKey({ columns: [c[t], ...(perCampaign ? [c.campaignId] : []), d === 'country' ? c.country : c.pathId] })], clickShard())
}

/**
 * Conversions per UTC hour (or day) of the conversion date, campaign, targeting value (the country and path the
 * conversion copied from its click: conversions.country, conversions.path_id), type and currency. Raw sums, as
 * conversion_stats_hourly; sharded on Postgres likewise.
 */
function conversionTargeting<D extends Targeting>(d: D, time: 'hour' | 'day' | 'total') {
  const perCampaign = time !== 'total'
  const t = time === 'hour' ? 'hour' : 'day'
  return table(`conversion_${d}_${time === 'hour' ? 'hourly' : time === 'day' ? 'daily' : 'total_daily'}`, {
    [t]: ms(t).notNull(),
    ...(perCampaign ? { campaignId: integer('campaign_id').notNull() } : {}),
    ...targetingKey(d),
    type: text('type').notNull(),
    currency: text('currency').notNull().default(''),
    conversions: integer('conversions').notNull().default(0),
    revenue: real('revenue').notNull().default(0),
    revenueAbs: real('revenue_abs').notNull().default(0),
    cost: real('cost').notNull().default(0),
    costAbs: real('cost_abs').notNull().default(0),
  } as Record<string, any>, (c: any) => [
    primaryKey({ columns: [c[t], ...(perCampaign ? [c.campaignId] : []), d === 'country' ? c.country : c.pathId, c.type, c.currency] }),
  ], shard())
}

// The daily tables (and the totals below) are WITHOUT ROWID on SQLite (by hand, as 0002); the daily ones are kept by triggers only.
export const clickCountryHourly = clickTargeting('country', 'hour')
export const clickCountryDaily = clickTargeting('country', 'day')
export const clickPathHourly = clickTargeting('path', 'hour')
export const clickPathDaily = clickTargeting('path', 'day')
export const conversionCountryHourly = conversionTargeting('country', 'hour')
export const conversionCountryDaily = conversionTargeting('country', 'day')
export const conversionPathHourly = conversionTargeting('path', 'hour')
export const conversionPathDaily = conversionTargeting('path', 'day')
/**
 * Per UTC day and country over all campaigns (the report by country without a campaign). Written by the rollup
 * writers beside the hourly rows, last in their transaction and sorted (not by trigger: on Postgres a trigger
 * would lock this row, shared by every campaign, between two hourly rows, in an order two transactions can
 * cross; written last and in order, no two commits deadlock). Hand fix-ups of the hourly rows do not reach it.
 */
export const clickCountryTotalDaily = clickTargeting('country', 'total')
export const conversionCountryTotalDaily = conversionTargeting('country', 'total')

/**
 * How far a rollup fed from the clicks table has counted (SQLite: the click targeting rollups). `row_id`:
 * every click with an id up to it is in the rollup; the ones after it are counted from their rows by the
 * next fold (tracking/store/targeting-fold.ts), so a crash between the click's commit and the fold loses
 * nothing. Postgres writes its targeting rollups with the clicks and does not use it.
 */
export const rollupMarks = table('rollup_marks', {
  name: text('name').primaryKey(),
  rowId: int8('row_id').notNull(),
})
