import { integer, text, blob, index, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { table, bigId, id, ms } from '../table'
import { landings } from './campaigns'

/**
 * Leads from POST /api/lead. No foreign key to landings or clicks: a lead is a historical fact that
 * outlives edits (a deleted landing keeps its leads; retention prunes clicks, not leads).
 * fields: the custom form fields as a JSON object of strings.
 */
export const leads = table('leads', {
  id: bigId(),
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

/**
 * What browsers report through pixel.js and client.js: page views (name 'page_view') and custom events,
 * tied to the click when it is known. props: a JSON object, or null.
 */
export const visitorEvents = table('visitor_events', {
  id: bigId(),
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

/** Static files of a hosted landing (images, CSS, fonts), served at /lp/:slug/<path>; they go with their landing. */
export const landingAssets = table('landing_assets', {
  id: id(),
  landingId: integer('landing_id').notNull().references(() => landings.id, { onDelete: 'cascade' }),
  path: text('path').notNull(),
  contentType: text('content_type').notNull(),
  size: integer('size').notNull(),
  etag: text('etag').notNull(),
  body: blob('body', { mode: 'buffer' }).notNull(),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
}, (t) => [uniqueIndex('landing_assets_path_idx').on(t.landingId, t.path)])
