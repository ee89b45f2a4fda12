import { integer, text, real, index, primaryKey } from 'drizzle-orm/sqlite-core'
import { index as pgIndex } from 'drizzle-orm/pg-core'
import { table, bigId, int8, ms } from '../table'

/**
 * One row per tracked visit, appended by the tracking feature's group-commit writer.
 * Deliberately no index on click_id here: a random UUID key dirties one random B-tree page per click,
 * which costs 3-4x the rest of the insert. Lookups go through click_index, filled in sorted bulk later.
 * No foreign keys to campaigns/offers/landings on purpose: a click is a historical fact that must be
 * insertable at full speed and must survive edits of the records it points at.
 * Postgres has no click_index: it gets a hash index on click_id instead (per day partition, drizzle-pg/0034): a
 * 4-byte hash code per click and one bucket page per insert, where a B-tree on the 36-character id compared keys
 * on every level into a random leaf. Click ids are UUID v4 from the CSPRNG, so no uniqueness is enforced.
 */
export const clicks = table('clicks', {
  id: bigId(),
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
  /** Why traffic quality flagged the click as a bot (head, prefetch, bot_user_agent…); null for a person. */
  botReason: text('bot_reason'),
  /** 1 when the IP is in the operator's own-IP exclusion list: redirected, but left out of reports. */
  excluded: integer('excluded').notNull().default(0),
  /** 1 for the visitor's (IP + user agent) first click in the campaign within unique_window_hours. */
  isUnique: integer('is_unique').notNull().default(0),
  /** What the click cost, from the campaign's cost model; bot clicks cost nothing. */
  cost: real('cost').notNull().default(0),
  deviceType: text('device_type'),
  os: text('os'),
  browser: text('browser'),
  referrerDomain: text('referrer_domain'),
  // Enrichment (issue 28; docs/geoip.md): what the visitor's IP and headers tell, read once at the click.
  /** ISO 3166-1 alpha-2 (CF-IPCountry when SVC_TRUST_PROXY is on), null when unknown. */
  country: text('country'),
  /** int8 on Postgres: 32-bit AS numbers go past int4. */
  asn: int8('asn'),
  asOrg: text('as_org'),
  /** hosting | residential | unknown (src/lib/geoip/hosting.ts). */
  connection: text('connection'),
  /** Primary tag of Accept-Language's preferred entry, lower-case ('de'). */
  language: text('language'),
  /** Major versions as text ('17', '126'; Windows 'XP', 'Vista'). */
  osVersion: text('os_version'),
  browserVersion: text('browser_version'),
  /** From the city database (SVC_GEOIP_CITY) only. */
  region: text('region'),
  city: text('city'),
  /** The campaign path that took the click (campaign_paths.id, not a foreign key: reports keep a deleted path's id); null = the default rotation. */
  pathId: integer('path_id'),
  /** First page view of the click's landing (pixel.js); null until then. */
  landingViewedAt: ms('landing_viewed_at'),
  /** First click-through from the landing to the offer (/r); null until then. */
  landingClickedAt: ms('landing_clicked_at'),
  createdAt: ms('created_at').notNull(),
}, (t) => [
  index('clicks_campaign_created_idx').on(t.campaignId, t.createdAt),
  index('clicks_created_idx').on(t.createdAt),
], {
  // Postgres: partitioned by UTC day on created_at (drizzle-pg/0033_clicks_by_day.sql; drizzle cannot say so),
  // whose unique keys must hold created_at; id takes its default from a sequence there.
  pg: { primaryKey: ['id', 'createdAt'], indexes: (t) => [pgIndex('clicks_click_id_idx').using('hash', t.clickId!)] },
})

/**
 * click_id → clicks.id, written once per full bucket of 65 536 click rows, in key order, so the index is
 * only appended to (tracking/store/click-index.ts). key = the click_id's first 32 bits; a probe compares the
 * whole click_id through the click row. WITHOUT ROWID (hand-written in drizzle/0003): one B-tree.
 * SQLite only, like click_index_state: Postgres indexes clicks.click_id itself (above).
 */
export const clickIndex = table('click_index', {
  bucket: integer('bucket').notNull(),
  key: integer('key').notNull(),
  clickRow: integer('click_row').notNull(),
}, (t) => [primaryKey({ columns: [t.bucket, t.key, t.clickRow] })], { sqliteOnly: true })

/** One row (id = 1): every click row up to indexed_through is in click_index. */
export const clickIndexState = table('click_index_state', {
  id: integer('id').primaryKey(),
  indexedThrough: integer('indexed_through').notNull(),
}, undefined, { sqliteOnly: true })
