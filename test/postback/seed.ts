// Seeds catalog rows and clicks with SQL (the admin CRUD and tracking are separate features) and signs
// an owner session cookie directly, so these tests depend only on the postback feature and the job loop.
// Works on either engine through testDb (so every helper that touches the database is async).
import { randomUUID } from 'node:crypto'
import type { TestServer } from '../helpers/server'
import type { ConversionRecord } from '../../src/postback/store'
import { newClick } from '../../src/tracking/store/click'
import { OWNER } from '../helpers/server'
import { testDb } from '../helpers/db'

export interface Catalog {
  sourceId: number
  offerId: number
  landingId: number
  campaignId: number
}

let seq = 0

export async function seedCatalog(
  s: TestServer,
  opts: { postbackUrl?: string | null; payout?: number; currency?: string; externalId?: string | null } = {},
): Promise<Catalog> {
  const db = testDb(s)
  const now = Date.now()
  const n = ++seq
  const id = async (sql: string, params: Record<string, unknown>) => Number((await db.get<{ id: number }>(`${sql} RETURNING id`, params))!.id)
  const sourceId = await id('INSERT INTO sources (name, postback_url, created_at, updated_at) VALUES ($name, $url, $now, $now)',
    { name: `source ${n}`, url: opts.postbackUrl ?? null, now })
  const offerId = await id('INSERT INTO offers (name, slug, url, payout, currency, created_at, updated_at) VALUES ($name, $slug, $url, $payout, $currency, $now, $now)',
    { name: `offer ${n}`, slug: `offer-${n}-${now}`, url: 'https://advertiser.example/?c={click_id}', payout: opts.payout ?? 0, currency: opts.currency ?? 'USD', now })
  const landingId = await id('INSERT INTO landings (name, slug, url, created_at, updated_at) VALUES ($name, $slug, $url, $now, $now)',
    { name: `landing ${n}`, slug: `landing-${n}-${now}`, url: 'https://lp.example/', now })
  const campaignId = await id('INSERT INTO campaigns (name, slug, source_id, external_id, active, created_at, updated_at) VALUES ($name, $slug, $sourceId, $ext, 1, $now, $now)',
    { name: `campaign ${n}`, slug: `campaign-${n}-${now}`, sourceId, ext: opts.externalId ?? null, now })
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
export async function ownerCookie(s: TestServer): Promise<string> {
  const u = (await testDb(s).get<{ id: number; session_epoch: number }>('SELECT id, session_epoch FROM users WHERE email = $email', { email: OWNER.email }))!
  return `svc_admin_session=${s.ctx.sessions.sign(u.id, u.session_epoch).value}`
}

export function postback(s: TestServer, query: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${s.base}/postback${query === '' ? '' : '?' + query}`, { headers })
}

/** A conversions row as stored. */
export type ConversionRow = ConversionRecord

export function conversionsOf(s: TestServer, clickId: string): Promise<ConversionRow[]> {
  return testDb(s).all<ConversionRow>('SELECT * FROM conversions WHERE click_id = $clickId ORDER BY id', { clickId })
}

/** Constant SQL per table (no string building into SQL). */
const COUNT_SQL = {
  conversions: 'SELECT count(*) AS n FROM conversions',
  postback_errors: 'SELECT count(*) AS n FROM postback_errors',
  jobs: 'SELECT count(*) AS n FROM jobs',
} as const

export async function countRows(s: TestServer, table: keyof typeof COUNT_SQL): Promise<number> {
  return (await testDb(s).get<{ n: number }>(COUNT_SQL[table]))!.n
}

export function lastError(s: TestServer): Promise<{ reason: string; click_id: string | null; query: string; ip: string | null; conversion_id: number | null } | undefined> {
  return testDb(s).get('SELECT * FROM postback_errors ORDER BY id DESC LIMIT 1')
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

export function jobsOf(s: TestServer): Promise<JobDbRow[]> {
  return testDb(s).all<JobDbRow>('SELECT * FROM jobs ORDER BY id')
}

/** Polls until `check` returns (or resolves to) a value (not undefined/false/null) or fails after timeoutMs. */
export async function eventually<T>(
  check: () => T | undefined | false | null | Promise<T | undefined | false | null>,
  timeoutMs = 8000,
  what = 'condition',
): Promise<T> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const v = await check()
    if (v !== undefined && v !== false && v !== null) return v
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(20)
  }
}
