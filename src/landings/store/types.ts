// What the landings feature keeps besides the landing rows themselves (those are the catalog's): leads from
// POST /api/lead, what browsers report (page views, custom events), and the landings' static assets. Every
// query sits behind these interfaces; store/index.ts and store/assets.ts implement them once for both engines.
import type { landingAssets, leads, visitorEvents } from '../../db/schema'
import type { Page } from '../../lib/paging'
import type { Tx } from '../../db/engine'

export type LeadRow = typeof leads.$inferSelect
export type VisitorEventRow = typeof visitorEvents.$inferSelect
/** An asset without its bytes (lists, HEAD). */
export type AssetInfo = Omit<typeof landingAssets.$inferSelect, 'body'>
export type AssetRow = AssetInfo & { body: Uint8Array }

export interface NewLead {
  landingId: number
  campaignId: number | null
  clickId: string | null
  /** Normalised (lib/email-address.ts). */
  email: string
  name: string | null
  /** The custom form fields, as a JSON object of strings. */
  fields: Record<string, string>
  ip: string | null
  userAgent: string | null
  createdAt: number
}

/** Work that must commit with a new lead (the email list enrolment job). tx: Postgres transaction; null on SQLite (synchronous hook). */
export type OnLead = (row: LeadRow, tx: Tx) => void | Promise<void>

export interface LeadFilter {
  landingId?: number
  campaignId?: number
  clickId?: string
  email?: string
  /** created_at >= from, < to (epoch ms). */
  from?: number
  to?: number
}

export interface LeadStore {
  /** Inserts the lead; `onCreated` runs in the same transaction. */
  insert(lead: NewLead, onCreated?: OnLead): Promise<LeadRow>
  /** In id order after page.afterId, limit + 1 rows (the extra row says another page exists). */
  list(filter: LeadFilter, page: Page): Promise<LeadRow[]>
  find(id: number): Promise<LeadRow | undefined>
  /** false when there was no such lead. */
  delete(id: number): Promise<boolean>
  /** The email of the newest lead of this click (postback rule 6), or null. */
  emailOfClick(clickId: string): Promise<string | null>
}

export interface NewVisitorEvent {
  /** 'page_view' for pixel.js views; any other name is a custom event (client.js svc.track). */
  name: string
  clickId: string | null
  campaignId: number | null
  landingId: number | null
  /** JSON object text, or null. */
  props: string | null
  url: string | null
  ip: string | null
  createdAt: number
}

export interface VisitorEventFilter {
  name?: string
  clickId?: string
  campaignId?: number
  landingId?: number
  from?: number
  to?: number
}

export interface VisitorEventCount {
  /** The group's key: an event name, a campaign or landing id, or the UTC day (YYYY-MM-DD). */
  key: string | number | null
  count: number
}

export interface VisitorEventStore {
  insert(e: NewVisitorEvent): Promise<void>
  /** In id order after page.afterId, limit + 1 rows. */
  list(filter: VisitorEventFilter, page: Page): Promise<VisitorEventRow[]>
  /** Deletes up to `limit` events created before `cutoff`, oldest first; resolves with how many went (retention). */
  prune(cutoff: number, limit: number): Promise<number>
  /** Counts per group within the filter. */
  count(filter: VisitorEventFilter, groupBy: 'name' | 'campaign' | 'landing' | 'day'): Promise<VisitorEventCount[]>
}
