import { integer, text, real, primaryKey, index } from 'drizzle-orm/sqlite-core'
import { table, id, ms } from '../table'

export const sources = table('sources', {
  id: id(),
  name: text('name').notNull(),
  /** Template with the macros of catalog/sources/postback-macros.ts ({click_id} {payout} {sub1}…); null = never forward. */
  postbackUrl: text('postback_url'),
  /** Query string the source's tracking link carries, in the source's own macro syntax (`zone={zoneid}&ext={clickid}`); null = none. */
  linkParams: text('link_params'),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
})

export const offers = table('offers', {
  id: id(),
  name: text('name').notNull(),
  slug: text('slug').notNull().unique(),
  url: text('url').notNull(),
  /** Default payout, used when a postback carries none. */
  payout: real('payout').notNull().default(0),
  currency: text('currency').notNull().default('USD'),
  /** The offer's cap (catalog/caps/model.ts, JSON), null for none: counted over every campaign that sends to it. */
  cap: text('cap'),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
})

export const landings = table('landings', {
  id: id(),
  name: text('name').notNull(),
  slug: text('slug').notNull().unique(),
  url: text('url'),
  html: text('html'),
  emailListId: integer('email_list_id'),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
})

export const campaigns = table('campaigns', {
  id: id(),
  name: text('name').notNull(),
  slug: text('slug').notNull().unique(),
  sourceId: integer('source_id').references(() => sources.id),
  /** The campaign's id on the traffic source's side ({external_id}). */
  externalId: text('external_id'),
  active: integer('active', { mode: 'boolean' }).notNull().default(true),
  /** Where flagged (bot) visitors go instead of the landing/offer; null = same target as people. */
  botUrl: text('bot_url'),
  /** Where visitors go while the campaign is paused or has no usable offer (no click is recorded); null = the fallback_url setting. */
  fallbackUrl: text('fallback_url'),
  /** 'none' | 'cpc' (every click costs `cpc`) | 'cpm' (cpm / 1000 each) | 'param' (the source passes the cost in the `cost` query parameter). */
  costModel: text('cost_model', { enum: ['none', 'cpc', 'param', 'cpm', 'revshare'] }).notNull().default('none'),
  cpc: real('cpc').notNull().default(0),
  /** Cost per 1,000 clicks for cost_model 'cpm' (each click costs cpm / 1000; bots nothing, as cpc). */
  cpm: real('cpm').notNull().default(0),
  /** For cost_model 'revshare': this percentage of each conversion's revenue is its cost (conversions.cost), in its currency. */
  revsharePercent: real('revshare_percent').notNull().default(0),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
}, (t) => [index('campaigns_source_idx').on(t.sourceId)])

export const campaignOffers = table('campaign_offers', {
  campaignId: integer('campaign_id').notNull().references(() => campaigns.id, { onDelete: 'cascade' }),
  offerId: integer('offer_id').notNull().references(() => offers.id),
  weight: integer('weight').notNull().default(100),
  /** Set by auto-weights (src/optimisation, issue 29) while on: the weight routing uses; null = the manual weight. */
  autoWeight: integer('auto_weight'),
  /** Order of the link within its campaign's rotation, as it was given (0, 1, …). */
  position: integer('position').notNull().default(0),
  /** This rotation entry's own cap (JSON), null for none: counts this campaign's clicks to the offer only. */
  cap: text('cap'),
}, (t) => [primaryKey({ columns: [t.campaignId, t.offerId] }), index('campaign_offers_offer_idx').on(t.offerId)])

export const campaignLandings = table('campaign_landings', {
  campaignId: integer('campaign_id').notNull().references(() => campaigns.id, { onDelete: 'cascade' }),
  landingId: integer('landing_id').notNull().references(() => landings.id),
  weight: integer('weight').notNull().default(100),
  /** Set by auto-weights (src/optimisation, issue 29) while on: the weight routing uses; null = the manual weight. */
  autoWeight: integer('auto_weight'),
  /** Order of the link within its campaign's rotation, as it was given (0, 1, …). */
  position: integer('position').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.campaignId, t.landingId] }), index('campaign_landings_landing_idx').on(t.landingId)])

// Targeting (issue 28, docs/rules.md): a campaign's ordered paths before its default rotation, and the rule
// sets (saved conditions) several paths may share. Conditions are JSON text checked by rules/check.ts.

export const ruleSets = table('rule_sets', {
  id: id(),
  name: text('name').notNull(),
  /** JSON array of conditions (rules/model.ts), all must hold. */
  conditions: text('conditions').notNull().default('[]'),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
})

export const campaignPaths = table('campaign_paths', {
  id: id(),
  campaignId: integer('campaign_id').notNull().references(() => campaigns.id, { onDelete: 'cascade' }),
  /** Order within the campaign: the first path whose conditions hold takes the visitor. */
  position: integer('position').notNull().default(0),
  name: text('name').notNull(),
  active: integer('active', { mode: 'boolean' }).notNull().default(true),
  /** Shared conditions; the path's own `conditions` must hold as well. */
  ruleSetId: integer('rule_set_id').references(() => ruleSets.id),
  conditions: text('conditions').notNull().default('[]'),
  /** 'rotation' (path_offers/path_landings) | 'url' (`url`, a template) | 'bot_url' | 'not_found'. */
  action: text('action', { enum: ['rotation', 'url', 'bot_url', 'not_found'] }).notNull(),
  url: text('url'),
}, (t) => [index('campaign_paths_campaign_idx').on(t.campaignId), index('campaign_paths_rule_set_idx').on(t.ruleSetId)])

export const pathOffers = table('path_offers', {
  pathId: integer('path_id').notNull().references(() => campaignPaths.id, { onDelete: 'cascade' }),
  offerId: integer('offer_id').notNull().references(() => offers.id),
  weight: integer('weight').notNull().default(100),
  /** Set by auto-weights (src/optimisation, issue 29) while on: the weight routing uses; null = the manual weight. */
  autoWeight: integer('auto_weight'),
  position: integer('position').notNull().default(0),
  /** This path entry's own cap (JSON), null for none. */
  cap: text('cap'),
}, (t) => [primaryKey({ columns: [t.pathId, t.offerId] }), index('path_offers_offer_idx').on(t.offerId)])

export const pathLandings = table('path_landings', {
  pathId: integer('path_id').notNull().references(() => campaignPaths.id, { onDelete: 'cascade' }),
  landingId: integer('landing_id').notNull().references(() => landings.id),
  weight: integer('weight').notNull().default(100),
  /** Set by auto-weights (src/optimisation, issue 29) while on: the weight routing uses; null = the manual weight. */
  autoWeight: integer('auto_weight'),
  position: integer('position').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.pathId, t.landingId] }), index('path_landings_landing_idx').on(t.landingId)])
