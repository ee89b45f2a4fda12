import { integer, text, real, primaryKey, index } from 'drizzle-orm/sqlite-core'
import { table, id, ms } from '../table'
import { campaigns } from './campaigns'

// Split tests and auto-weights (issue 29, docs/optimisation.md). The auto weights themselves sit beside the
// manual ones in the four link tables (`auto_weight`, campaigns.ts); these tables hold what drives them.

/**
 * One row per rotation that has (or had) auto-weights: a campaign's default rotation (path_id 0: a key
 * column cannot be NULL) or a targeting path's, of offers or landings. `version` changes on every PUT: a
 * job of an older version ends without acting, so a re-configured rotation has one chain of jobs.
 */
export const autoWeightConfigs = table('auto_weight_configs', {
  campaignId: integer('campaign_id').notNull().references(() => campaigns.id, { onDelete: 'cascade' }),
  pathId: integer('path_id').notNull().default(0),
  kind: text('kind', { enum: ['offers', 'landings'] }).notNull(),
  enabled: integer('enabled', { mode: 'boolean' }).notNull().default(false),
  metric: text('metric', { enum: ['cr', 'epc'] }).notNull().default('cr'),
  floorPct: real('floor_pct').notNull().default(5),
  minClicks: integer('min_clicks').notNull().default(100),
  windowHours: integer('window_hours').notNull().default(168),
  refreshMinutes: integer('refresh_minutes').notNull().default(60),
  version: integer('version').notNull().default(1),
  /** Who last switched or changed it (a user's email or "token:<id>"): the actor of the switch's weight change. */
  updatedBy: text('updated_by').notNull(),
  updatedAt: ms('updated_at').notNull(),
}, (t) => [primaryKey({ columns: [t.campaignId, t.pathId, t.kind] })])

/** Every change of a rotation's effective weights: by the auto-weights job or by switching auto off. */
export const weightChanges = table('weight_changes', {
  id: id(),
  campaignId: integer('campaign_id').notNull().references(() => campaigns.id, { onDelete: 'cascade' }),
  /** null: the campaign's default rotation (no FK: a deleted path keeps its history). */
  pathId: integer('path_id'),
  kind: text('kind', { enum: ['offers', 'landings'] }).notNull(),
  at: ms('at').notNull(),
  /** 'auto', or who switched auto-weights off (their email, or "token:<id>"). */
  actor: text('actor').notNull(),
  /** JSON {"<entry id>": effective weight in % of the rotation} before and after. */
  before: text('before').notNull(),
  after: text('after').notNull(),
  reason: text('reason').notNull(),
}, (t) => [index('weight_changes_campaign_at_idx').on(t.campaignId, t.at)])
