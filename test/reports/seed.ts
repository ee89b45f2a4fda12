// Report test helpers (engine-neutral, async): catalog rows and clicks written with SQL (clicks at any past time, with the traffic
// quality fields set explicitly), postbacks over HTTP, and report reads.
//
// Clicks come in through the click store's import(), which counts them in the rollups and makes them
// findable, as it does for every committed click.
import { randomUUID } from 'node:crypto'
import { testDb } from '../helpers/db'
import type { TestServer } from '../helpers/server'
import { newClick } from '../../src/tracking/store/click'

export { SERVER_TIMEOUT_MS } from '../tracking/seed'

export const HOUR = 3_600_000
export const DAY = 86_400_000

export interface ClickSeed {
  campaign: number
  source?: number | null
  offer?: number | null
  landing?: number | null
  at?: number
  bot?: string | null
  excluded?: boolean
  unique?: boolean
  cost?: number
  device?: string | null
  os?: string | null
  browser?: string | null
  referrerDomain?: string | null
  sub1?: string | null
  sub2?: string | null
  sub3?: string | null
  /** ISO alpha-2 and the targeting path (clicks.path_id; null = default rotation). */
  country?: string | null
  path?: number | null
}

let seq = 0

export function catalog(s: TestServer) {
  const db = testDb(s)
  const now = Date.now()
  const insert = async (sql: string, p: Record<string, unknown>) => (await db.get<{ id: number }>(`${sql} RETURNING id`, { ...p, now }))!.id
  const done = <T>(v: T) => {
    s.ctx.events.committed('catalog.changed', { entity: 'campaign', id: 0, action: 'updated' })
    return v
  }
  return {
    source: async (name = `Source ${++seq}`) => done(await insert('INSERT INTO sources (name, postback_url, created_at, updated_at) VALUES ($name, NULL, $now, $now)', { name })),
    offer: async (name = `Offer ${++seq}`, payout = 0, currency = 'USD') =>
      done(await insert(
        'INSERT INTO offers (name, slug, url, payout, currency, created_at, updated_at) VALUES ($name, $slug, $url, $payout, $cur, $now, $now)',
        { name, slug: `offer-${++seq}-${now}`, url: 'https://adv.example/?c={click_id}', payout, cur: currency },
      )),
    landing: async (name = `Landing ${++seq}`) =>
      done(await insert('INSERT INTO landings (name, slug, url, created_at, updated_at) VALUES ($name, $slug, $url, $now, $now)', {
        name, slug: `landing-${++seq}-${now}`, url: 'https://lp.example/?c={click_id}',
      })),
    campaign: async (c: { name?: string; slug?: string; source?: number | null; offers: number[]; landings?: number[]; costModel?: 'none' | 'cpc' | 'param'; cpc?: number }) => {
      const slug = c.slug ?? `campaign-${++seq}-${now}`
      const id = await insert(
        'INSERT INTO campaigns (name, slug, source_id, active, cost_model, cpc, created_at, updated_at) VALUES ($name, $slug, $source, 1, $model, $cpc, $now, $now)',
        { name: c.name ?? slug, slug, source: c.source ?? null, model: c.costModel ?? 'none', cpc: c.cpc ?? 0 },
      )
      for (const [p, o] of c.offers.entries()) {
        await db.run('INSERT INTO campaign_offers (campaign_id, offer_id, weight, position) VALUES ($c, $o, 100, $p)', { c: id, o, p })
      }
      for (const [p, l] of (c.landings ?? []).entries()) {
        await db.run('INSERT INTO campaign_landings (campaign_id, landing_id, weight, position) VALUES ($c, $l, 100, $p)', { c: id, l, p })
      }
      return done(id)
    },
  }
}

/** Imports a committed click with explicit fields (rolled up like every click); returns its click_id. */
export async function addClick(s: TestServer, c: ClickSeed): Promise<string> {
  const clickId = randomUUID()
  await s.server.clicks.import([
    newClick({
      clickId, campaignId: c.campaign, sourceId: c.source ?? null, offerId: c.offer ?? null, landingId: c.landing ?? null,
      ip: '203.0.113.9', userAgent: 'test', sub1: c.sub1 ?? null, sub2: c.sub2 ?? null, sub3: c.sub3 ?? null, botReason: c.bot ?? null, excluded: c.excluded ?? false,
      isUnique: !(c.unique === false || c.bot || c.excluded), cost: c.cost ?? 0, deviceType: c.device ?? null, os: c.os ?? null,
      browser: c.browser ?? null, referrerDomain: c.referrerDomain ?? null, createdAt: c.at ?? Date.now(),
      country: c.country ?? null, pathId: c.path ?? null,
    }),
  ])
  return clickId
}

/** A report read as the owner. */
export async function report(s: TestServer, query: string, cookie?: string) {
  const res = await s.api('GET', `/admin/api/reports${query ? '?' + query : ''}`, undefined, cookie)
  if (res.status !== 200 && cookie === undefined) throw new Error(`report ${query}: ${res.status} ${res.text}`)
  return res
}

/** Lets clicks of the redirect path commit (they are counted and findable from their commit on). */
export async function settle(s: TestServer): Promise<void> {
  await Bun.sleep(0)
}

/** GET /postback; the body is OK whether or not a conversion was recorded. */
export async function postback(s: TestServer, params: Record<string, string | number>): Promise<void> {
  const res = await fetch(`${s.base}/postback?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`)
  if (res.status !== 200) throw new Error(`postback: ${res.status} ${await res.text()}`)
  await res.arrayBuffer()
}

export const iso = (ms: number) => new Date(ms).toISOString()
/** UTC midnight of a day offset from today. */
export const utcDay = (offsetDays = 0) => Math.floor(Date.now() / DAY) * DAY + offsetDays * DAY
