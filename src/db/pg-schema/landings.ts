import { pgTable, integer, bigint, text, index, uniqueIndex, customType } from 'drizzle-orm/pg-core'
import { landings } from './campaigns'

// Postgres twin of ../schema/landings.ts.
const ms = (name: string) => bigint(name, { mode: 'number' })
const bytea = customType<{ data: Uint8Array }>({ dataType: () => 'bytea' })

export const leads = pgTable('leads', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  landingId: integer('landing_id').notNull(),
  campaignId: integer('campaign_id'),
  clickId: text('click_id'),
  email: text('email').notNull(),
  name: text('name'),
  fields: text('fields').notNull().default('{}'),
  ip: text('ip'),
  userAgent: text('user_agent'),
  createdAt: ms('created_at').notNull(),
}, (t) => [
  index('leads_click_idx').on(t.clickId),
  index('leads_landing_created_idx').on(t.landingId, t.createdAt),
  index('leads_created_idx').on(t.createdAt),
  index('leads_email_idx').on(t.email),
])

export const visitorEvents = pgTable('visitor_events', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  name: text('name').notNull(),
  clickId: text('click_id'),
  campaignId: integer('campaign_id'),
  landingId: integer('landing_id'),
  props: text('props'),
  url: text('url'),
  ip: text('ip'),
  createdAt: ms('created_at').notNull(),
}, (t) => [
  index('visitor_events_created_idx').on(t.createdAt),
  index('visitor_events_click_idx').on(t.clickId),
  index('visitor_events_landing_created_idx').on(t.landingId, t.createdAt),
  index('visitor_events_campaign_created_idx').on(t.campaignId, t.createdAt),
])

export const landingAssets = pgTable('landing_assets', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  landingId: integer('landing_id').notNull().references(() => landings.id, { onDelete: 'cascade' }),
  path: text('path').notNull(),
  contentType: text('content_type').notNull(),
  size: integer('size').notNull(),
  etag: text('etag').notNull(),
  body: bytea('body').notNull(),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
}, (t) => [uniqueIndex('landing_assets_path_idx').on(t.landingId, t.path)])
