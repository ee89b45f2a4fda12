// Seeds catalog rows and clicks with SQL (the admin CRUD and tracking are separate features) and signs
// an owner session cookie directly, so these tests depend only on the postback feature and the job loop.
import { randomUUID } from 'node:crypto'
import type { TestServer } from '../helpers/server'
import type { ConversionRecord } from '../../src/postback/store'
import { newClick } from '../../src/tracking/store/click'
import { OWNER } from '../helpers/server'

export interface Catalog {
  sourceId: number
  offerId: number
  landingId: number
  campaignId: number
}

let seq = 0

export function seedCatalog(
  s: TestServer,
  opts: { postbackUrl?: string | null; payout?: number; currency?: string; externalId?: string | null } = {},
): Catalog {
  const raw = s.ctx.database.raw
  const now = Date.now()
  const n = ++seq
  const sourceId = Number(
    raw.prepare('INSERT INTO sources (name, postback_url, created_at, updated_at) VALUES ($name, $url, $now, $now)')
      .run({ name: `source ${n}`, url: opts.postbackUrl ?? null, now }).lastInsertRowid,
  )
  const offerId = Number(
    raw.prepare('INSERT INTO offers (name, slug, url, payout, currency, created_at, updated_at) VALUES ($name, $slug, $url, $payout, $currency, $now, $now)')
      .run({ name: `offer ${n}`, slug: `offer-${n}-${now}`, url: 'https://advertiser.example/?c={click_id}', payout: opts.payout ?? 0, currency: opts.currency ?? 'USD', now }).lastInsertRowid,
  )
  const landingId = Number(
    raw.prepare('INSERT INTO landings (name, slug, url, created_at, updated_at) VALUES ($name, $slug, $url, $now, $now)')
      .run({ name: `landing ${n}`, slug: `landing-${n}-${now}`, url: 'https://lp.example/', now }).lastInsertRowid,
  )
  const campaignId = Number(
    raw.prepare('INSERT INTO campaigns (name, slug, source_id, external_id, active, created_at, updated_at) VALUES ($name, $slug, $sourceId, $ext, 1, $now, $now)')
      .run({ name: `campaign ${n}`, slug: `campaign-${n}-${now}`, sourceId, ext: opts.externalId ?? null, now }).lastInsertRowid,
  )
  s.ctx.events.committed('catalog.changed', { entity: 'campaign', id: 0, action: 'updated' })
  return { sourceId, offerId, landingId, campaignId }
}

/** A committed click of the catalog's campaign; returns its click_id (lower-case UUID). */
export async function addClick(s: TestServer, c: Catalog, over: { offerId?: number | null } = {}): Promise<string> {
  const clickId = randomUUID()
  await s.server.clicks.import([
    newClick({
      clickId, campaignId: c.campaignId, sourceId: c.sourceId, offerId: over.offerId === undefined ? c.offerId : over.offerId,
      landingId: c.landingId, ip: '203.0.113.7', createdAt: Date.now(),
    }),
  ])
  return clickId
}

/** Cookie header value of a valid owner session, signed the way the login route signs it. */
export function ownerCookie(s: TestServer): string {
  const u = s.ctx.database.raw.prepare('SELECT id, session_epoch FROM users WHERE email = $email').get({ email: OWNER.email }) as { id: number; session_epoch: number }
  return `svc_admin_session=${s.ctx.sessions.sign(u.id, u.session_epoch).value}`
}

export function postback(s: TestServer, query: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${s.base}/postback${query === '' ? '' : '?' + query}`, { headers })
}

/** A conversions row as stored. */
export type ConversionRow = ConversionRecord

export function conversionsOf(s: TestServer, clickId: string): ConversionRow[] {
  return s.ctx.database.raw.prepare('SELECT * FROM conversions WHERE click_id = $clickId ORDER BY id').all({ clickId }) as ConversionRow[]
}

export function countRows(s: TestServer, table: 'conversions' | 'postback_errors' | 'jobs'): number {
  return (s.ctx.database.raw.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n
}

export function lastError(s: TestServer): { reason: string; click_id: string | null; query: string; ip: string | null; conversion_id: number | null } | undefined {
  return s.ctx.database.raw.prepare('SELECT * FROM postback_errors ORDER BY id DESC LIMIT 1').get() as never
}

export interface JobDbRow {
  id: number
  kind: string
  payload: string
  status: string
  attempts: number
  max_attempts: number
  last_error: string | null
  result: string | null
}

export function jobsOf(s: TestServer): JobDbRow[] {
  return s.ctx.database.raw.prepare('SELECT * FROM jobs ORDER BY id').all() as JobDbRow[]
}

/** Polls until `check` returns a value (not undefined/false) or fails after timeoutMs. */
export async function eventually<T>(check: () => T | undefined | false | null, timeoutMs = 8000, what = 'condition'): Promise<T> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const v = check()
    if (v !== undefined && v !== false && v !== null) return v
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(20)
  }
}
