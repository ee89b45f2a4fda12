// Report test helpers: catalog rows and clicks written with SQL (clicks at any past time, with the traffic
// quality fields set explicitly), postbacks over HTTP, and report reads.
//
// Clicks inserted here are counted in the rollups by the server's own ClickRollup, as the click writer
// does in each commit, and handed to the tracking feature's catch-up so /postback finds them.
import { randomUUID } from 'node:crypto'
import type { TestServer } from '../helpers/server'
import { ClickRollup } from '../../src/tracking/click-rollup'

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
}

let seq = 0

export function catalog(s: TestServer) {
  const raw = s.ctx.database.raw
  const now = Date.now()
  const insert = (sql: string, p: Record<string, unknown>) => Number(raw.prepare(sql).run({ ...p, now }).lastInsertRowid)
  const done = <T>(v: T) => {
    s.ctx.events.committed('catalog.changed', { entity: 'campaign', id: 0, action: 'updated' })
    return v
  }
  return {
    source: (name = `Source ${++seq}`) => done(insert('INSERT INTO sources (name, postback_url, created_at, updated_at) VALUES ($name, NULL, $now, $now)', { name })),
    offer: (name = `Offer ${++seq}`, payout = 0) =>
      done(insert(
        'INSERT INTO offers (name, slug, url, payout, currency, created_at, updated_at) VALUES ($name, $slug, $url, $payout, $cur, $now, $now)',
        { name, slug: `offer-${++seq}-${now}`, url: 'https://adv.example/?c={click_id}', payout, cur: 'USD' },
      )),
    landing: (name = `Landing ${++seq}`) =>
      done(insert('INSERT INTO landings (name, slug, url, created_at, updated_at) VALUES ($name, $slug, $url, $now, $now)', {
        name, slug: `landing-${++seq}-${now}`, url: 'https://lp.example/?c={click_id}',
      })),
    campaign: (c: { name?: string; slug?: string; source?: number | null; offers: number[]; landings?: number[]; costModel?: 'none' | 'cpc' | 'param'; cpc?: number }) => {
      const slug = c.slug ?? `campaign-${++seq}-${now}`
      const id = insert(
        'INSERT INTO campaigns (name, slug, source_id, active, cost_model, cpc, created_at, updated_at) VALUES ($name, $slug, $source, 1, $model, $cpc, $now, $now)',
        { name: c.name ?? slug, slug, source: c.source ?? null, model: c.costModel ?? 'none', cpc: c.cpc ?? 0 },
      )
      for (const o of c.offers) raw.prepare('INSERT INTO campaign_offers (campaign_id, offer_id, weight) VALUES ($c, $o, 100)').run({ c: id, o })
      for (const l of c.landings ?? []) raw.prepare('INSERT INTO campaign_landings (campaign_id, landing_id, weight) VALUES ($c, $l, 100)').run({ c: id, l })
      return done(id)
    },
  }
}

/** Inserts a committed click with explicit fields, rolled up like the click writer's; returns its click_id. */
export function addClick(s: TestServer, c: ClickSeed): string {
  const clickId = randomUUID()
  const raw = s.ctx.database.raw
  const row = {
    campaign_id: c.campaign, source_id: c.source ?? null, offer_id: c.offer ?? null, landing_id: c.landing ?? null,
    bot_reason: c.bot ?? null, excluded: c.excluded ? 1 : 0, is_unique: c.unique === false || c.bot || c.excluded ? 0 : 1,
    cost: c.cost ?? 0, created_at: c.at ?? Date.now(),
  }
  raw.transaction(() => {
    raw
      .prepare(
        'INSERT INTO clicks (click_id, campaign_id, source_id, offer_id, landing_id, ip, user_agent, sub1, bot_reason, excluded, is_unique, cost, ' +
          'device_type, os, browser, referrer_domain, created_at) VALUES ($clickId, $campaign, $source, $offer, $landing, $ip, $ua, $sub1, $bot, ' +
          '$excluded, $unique, $cost, $device, $os, $browser, $ref, $at)',
      )
      .run({
        clickId, campaign: row.campaign_id, source: row.source_id, offer: row.offer_id, landing: row.landing_id, ip: '203.0.113.9', ua: 'test',
        sub1: c.sub1 ?? null, bot: row.bot_reason, excluded: row.excluded, unique: row.is_unique,
        cost: row.cost, device: c.device ?? null, os: c.os ?? null, browser: c.browser ?? null, ref: c.referrerDomain ?? null, at: row.created_at,
      })
    new ClickRollup(raw).apply([row])
  })()
  s.server.catchUpClicks()
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
