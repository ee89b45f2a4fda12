import { sqliteTable, integer, text, real, primaryKey } from 'drizzle-orm/sqlite-core'

// Incrementally maintained rollups that reports read instead of raw rows. Keys use 0 for "none"
// (a click without landing), because NULLs never match in an upsert's conflict target.

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
}, (t) => [primaryKey({ columns: [t.hour, t.campaignId, t.sourceId, t.offerId, t.landingId] })])

/**
 * Conversions per UTC hour of the conversion date, attribution and type. Counts and revenue are raw
 * (positive); reports apply the type's include flags and sign when they read, so flag edits apply at once.
 */
export const conversionStatsHourly = sqliteTable('conversion_stats_hourly', {
  hour: integer('hour').notNull(),
  campaignId: integer('campaign_id').notNull(),
  sourceId: integer('source_id').notNull(),
  offerId: integer('offer_id').notNull(),
  landingId: integer('landing_id').notNull(),
  type: text('type').notNull(),
  conversions: integer('conversions').notNull().default(0),
  revenue: real('revenue').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.hour, t.campaignId, t.sourceId, t.offerId, t.landingId, t.type] })])
