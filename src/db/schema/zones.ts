// Blocked zones and saved views (issue 30, docs/zones.md). A blocked zone is a sub value (a zone, site or
// widget id) the operator blocked at a traffic source: the dated list per source, exportable, that svc keeps
// because the source's own blacklist is a text box. A saved view is a dashboard screen's state (a query
// string) under a name, one list per user.
import { integer, text, uniqueIndex, index } from 'drizzle-orm/sqlite-core'
import { sql } from 'drizzle-orm'
import { table, id, ms } from '../table'
import { sources, campaigns } from './campaigns'
import { users } from './users'

export const blockedZones = table('blocked_zones', {
  id: id(),
  /** Deleting the source deletes its list: the list is what was blocked at that source. */
  sourceId: integer('source_id').notNull().references(() => sources.id, { onDelete: 'cascade' }),
  /** null: blocked for every campaign of the source; else only for this campaign (deleted with it). */
  campaignId: integer('campaign_id').references(() => campaigns.id, { onDelete: 'cascade' }),
  /** Which click field holds the value: sub1..sub10. */
  dimension: text('dimension').notNull(),
  value: text('value').notNull(),
  reason: text('reason'),
  blockedAt: ms('blocked_at').notNull(),
  /** The admin who blocked it; null once that user is deleted (or a system actor). */
  blockedBy: integer('blocked_by').references(() => users.id, { onDelete: 'set null' }),
}, (t) => [
  // One row per (source, dimension, value, campaign or none): two partial indexes, since NULLs never collide
  // in a unique index and an expression (coalesce) is not mapped to the Postgres twin (db/table.ts).
  uniqueIndex('blocked_zones_source_value_idx').on(t.sourceId, t.dimension, t.value).where(sql`${t.campaignId} IS NULL`),
  uniqueIndex('blocked_zones_campaign_value_idx').on(t.sourceId, t.dimension, t.value, t.campaignId).where(sql`${t.campaignId} IS NOT NULL`),
  // The dated list of a source, newest first (ids grow with blocked_at).
  index('blocked_zones_source_idx').on(t.sourceId, t.id),
])

export const savedViews = table('saved_views', {
  id: id(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  /** The dashboard screen (reports, campaigns…). */
  screen: text('screen').notNull(),
  name: text('name').notNull(),
  /** The screen's URL query string. */
  state: text('state').notNull(),
  createdAt: ms('created_at').notNull(),
}, (t) => [uniqueIndex('saved_views_user_screen_name_idx').on(t.userId, t.screen, t.name)])
