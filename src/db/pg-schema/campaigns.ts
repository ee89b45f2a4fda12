import { pgTable, integer, bigint, text, doublePrecision, primaryKey, index } from 'drizzle-orm/pg-core'

// Postgres twin of ../schema/campaigns.ts. Identity is BY DEFAULT (not ALWAYS) because `svc migrate --to`
// copies rows with their ids; it must then move each sequence past the highest id it inserted.
const ms = (name: string) => bigint(name, { mode: 'number' })

export const sources = pgTable('sources', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  name: text('name').notNull(),
  postbackUrl: text('postback_url'),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
})

export const offers = pgTable('offers', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  name: text('name').notNull(),
  slug: text('slug').notNull().unique(),
  url: text('url').notNull(),
  payout: doublePrecision('payout').notNull().default(0),
  currency: text('currency').notNull().default('USD'),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
})

export const landings = pgTable('landings', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  name: text('name').notNull(),
  slug: text('slug').notNull().unique(),
  url: text('url'),
  html: text('html'),
  emailListId: integer('email_list_id'),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
})

export const campaigns = pgTable('campaigns', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  name: text('name').notNull(),
  slug: text('slug').notNull().unique(),
  sourceId: integer('source_id').references(() => sources.id),
  externalId: text('external_id'),
  active: integer('active').notNull().default(1),
  botUrl: text('bot_url'),
  fallbackUrl: text('fallback_url'),
  costModel: text('cost_model', { enum: ['none', 'cpc', 'param'] }).notNull().default('none'),
  cpc: doublePrecision('cpc').notNull().default(0),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
}, (t) => [index('campaigns_source_idx').on(t.sourceId)])

export const campaignOffers = pgTable('campaign_offers', {
  campaignId: integer('campaign_id').notNull().references(() => campaigns.id, { onDelete: 'cascade' }),
  offerId: integer('offer_id').notNull().references(() => offers.id),
  weight: integer('weight').notNull().default(100),
  /** Order of the link within its campaign's rotation, as it was given (0, 1, …). */
  position: integer('position').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.campaignId, t.offerId] }), index('campaign_offers_offer_idx').on(t.offerId)])

export const campaignLandings = pgTable('campaign_landings', {
  campaignId: integer('campaign_id').notNull().references(() => campaigns.id, { onDelete: 'cascade' }),
  landingId: integer('landing_id').notNull().references(() => landings.id),
  weight: integer('weight').notNull().default(100),
  /** Order of the link within its campaign's rotation, as it was given (0, 1, …). */
  position: integer('position').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.campaignId, t.landingId] }), index('campaign_landings_landing_idx').on(t.landingId)])
