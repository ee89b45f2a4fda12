import { integer, text, real, index } from 'drizzle-orm/sqlite-core'
import { table, id, ms } from '../table'

/**
 * Cost updates (issue 29, docs/costs.md): one row per local day of each update sent (POST /admin/api/cost-updates
 * or a CSV row), the history the operator reads back. The clicks themselves carry the cost (clicks.cost, replaced
 * by the update), so a row here is a record of what was applied, never summed by reports.
 * No foreign key to campaigns: history survives the campaign, as clicks do.
 */
export const costUpdates = table('cost_updates', {
  id: id(),
  campaignId: integer('campaign_id').notNull(),
  /** The local date (YYYY-MM-DD) in `time_zone`. */
  day: text('day').notNull(),
  timeZone: text('time_zone').notNull(),
  /** Which clicks: sub1..sub10 or a stored link parameter's name, and its value; both null = every click of the day. */
  subName: text('sub_name'),
  subValue: text('sub_value'),
  /** The day's share of the update, in `currency` (the cost_currency setting when it was applied). */
  amount: real('amount').notNull(),
  currency: text('currency').notNull(),
  /** Clicks whose cost was replaced. */
  clicks: integer('clicks').notNull(),
  /** Who sent it: the admin's email, or the system actor's name. */
  createdBy: text('created_by').notNull(),
  createdAt: ms('created_at').notNull(),
}, (t) => [index('cost_updates_campaign_idx').on(t.campaignId, t.day)])
