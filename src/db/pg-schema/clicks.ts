import { pgTable, integer, bigint, text, doublePrecision, index, uniqueIndex } from 'drizzle-orm/pg-core'

/**
 * Postgres twin of ../schema/clicks.ts. On SQLite click_id lookups go through click_index/click_index_state,
 * a bucketed index built in bulk to avoid one random B-tree page write per click; those two tables are
 * SQLite-only and deliberately absent here. Postgres gets a plain UNIQUE index on click_id instead: its
 * write path (WAL + shared buffers, group commit by the server) absorbs the random index insert, and the
 * unique constraint catches a duplicate click_id at insert time.
 * Still no foreign keys, for the same reason as on SQLite (a click is a historical fact).
 */
export const clicks = pgTable('clicks', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  clickId: text('click_id').notNull(),
  campaignId: integer('campaign_id').notNull(),
  sourceId: integer('source_id'),
  offerId: integer('offer_id'),
  landingId: integer('landing_id'),
  ip: text('ip'),
  userAgent: text('user_agent'),
  referrer: text('referrer'),
  sub1: text('sub1'), sub2: text('sub2'), sub3: text('sub3'), sub4: text('sub4'), sub5: text('sub5'),
  sub6: text('sub6'), sub7: text('sub7'), sub8: text('sub8'), sub9: text('sub9'), sub10: text('sub10'),
  params: text('params'),
  botReason: text('bot_reason'),
  excluded: integer('excluded').notNull().default(0),
  isUnique: integer('is_unique').notNull().default(0),
  cost: doublePrecision('cost').notNull().default(0),
  deviceType: text('device_type'),
  os: text('os'),
  browser: text('browser'),
  referrerDomain: text('referrer_domain'),
  /** First page view of the click's landing (pixel.js); null until then. */
  landingViewedAt: bigint('landing_viewed_at', { mode: 'number' }),
  /** First click-through from the landing to the offer (/r); null until then. */
  landingClickedAt: bigint('landing_clicked_at', { mode: 'number' }),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
}, (t) => [
  uniqueIndex('clicks_click_id_idx').on(t.clickId),
  index('clicks_campaign_created_idx').on(t.campaignId, t.createdAt),
  index('clicks_created_idx').on(t.createdAt),
])
