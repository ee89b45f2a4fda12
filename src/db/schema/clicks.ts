import { sqliteTable, integer, text, index, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { campaigns, sources, offers, landings } from './campaigns'

/**
 * One row per tracked visit. Written only by the tracking feature's group-commit writer.
 * No foreign keys to campaigns/offers/landings on purpose: a click is a historical fact that must be
 * insertable at full speed and must survive edits of the records it points at.
 */
export const clicks = sqliteTable('clicks', {
  id: integer('id').primaryKey({ autoIncrement: true }),
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
  /** Every other visitor query parameter (utm_*, source macros…) as a JSON object. */
  params: text('params'),
  createdAt: integer('created_at').notNull(),
}, (t) => [
  uniqueIndex('clicks_click_id_idx').on(t.clickId),
  index('clicks_campaign_created_idx').on(t.campaignId, t.createdAt),
])

// Referenced only for drizzle relations/documentation; see the note above about missing FKs.
void campaigns; void sources; void offers; void landings
