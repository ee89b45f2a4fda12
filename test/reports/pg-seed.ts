// One deterministic data set written into a SQLite and a Postgres database with plain SQL (catalog rows,
// clicks, conversions), click rollups by one INSERT … SELECT per engine, and conversion rollups through
// each engine's ConversionRollup. The clicks span both autumn 2025 DST changes (Europe 26 Oct, US 2 Nov).
import type { Database } from '../../src/db/client'
import type { PgDatabase } from '../../src/db/pg/client'
import { PgConversionRollup } from '../../src/postback/pg-rollup'
import { ConversionRollup, type RollupConversion } from '../../src/postback/rollup'

export const HOUR = 3_600_000
export const DAY = 86_400_000
/** 2025-10-20T00:00Z .. 2025-11-08T00:00Z. */
export const WINDOW = { from: Date.UTC(2025, 9, 20), to: Date.UTC(2025, 10, 8) }

/** mulberry32: a fixed seed keeps the data reproducible. */
function prng(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return { next, pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!, chance: (p: number) => next() < p }
}

export interface SeedClick {
  id: number
  click_id: string
  campaign_id: number
  source_id: number | null
  offer_id: number | null
  landing_id: number | null
  sub1: string | null
  sub2: string | null
  bot_reason: string | null
  excluded: number
  is_unique: number
  cost: number
  device_type: string | null
  os: string | null
  browser: string | null
  referrer_domain: string | null
  created_at: number
}

export interface SeedConversion {
  id: number
  click_row_id: number
  click_created_at: number
  click_id: string
  campaign_id: number
  source_id: number | null
  offer_id: number | null
  landing_id: number | null
  type: string
  status: string | null
  revenue: number
  currency: string | null
  transaction_id: string | null
  date: number
  created_at: number
}

export interface Seed {
  clicks: SeedClick[]
  conversions: SeedConversion[]
}

const CATALOG = {
  sources: [{ id: 1, name: 'Source A' }, { id: 2, name: 'Source B' }],
  offers: [{ id: 1, name: 'Offer 1' }, { id: 2, name: 'Offer 2' }, { id: 3, name: 'Offer 3' }],
  landings: [{ id: 1, name: 'Landing 1' }, { id: 2, name: 'Landing 2' }],
  campaigns: [{ id: 1, name: 'Camp one', source_id: 1 }, { id: 2, name: 'Camp two', source_id: 2 }, { id: 3, name: 'Camp three', source_id: null }],
}
/** Campaign 9 was deleted: its rows keep counting, with no label. */
const CAMPAIGN_IDS = [1, 2, 3, 9]
/** Two operator types besides the built-in ones; 'gone' was deleted after its conversions were recorded. */
const EXTRA_TYPES = [
  { slug: 'upsell', name: 'Upsell', include_in_conversions: 1, include_in_revenue: 1, negative: 0 },
  { slug: 'Refund-x', name: 'Refund', include_in_conversions: 1, include_in_revenue: 1, negative: 1 },
]
const TYPES = ['sale', 'lead', 'trial', 'install', 'reject', 'chargeback', 'upsell', 'Refund-x', 'gone']

export function makeSeed(nClicks = 400, nConversions = 180): Seed {
  const rnd = prng(8_2025)
  const clicks: SeedClick[] = []
  for (let i = 1; i <= nClicks; i++) {
    const campaign = rnd.pick(CAMPAIGN_IDS)
    const bot = rnd.chance(0.15)
    // Some clicks exactly on an hour or around the DST changes (01:00Z on 26 Oct, 06:00Z on 2 Nov).
    const at = rnd.chance(0.1)
      ? rnd.pick([Date.UTC(2025, 9, 26, 1), Date.UTC(2025, 10, 2, 6)]) + (Math.floor(rnd.next() * 6) - 3) * 1_800_000
      : rnd.chance(0.1)
        ? WINDOW.from + Math.floor(rnd.next() * 400) * HOUR
        : WINDOW.from + Math.floor(rnd.next() * (WINDOW.to - WINDOW.from))
    clicks.push({
      id: i, click_id: `c-${i}`, campaign_id: campaign,
      source_id: campaign === 3 ? null : campaign === 9 ? 2 : campaign,
      offer_id: rnd.chance(0.1) ? null : rnd.pick([1, 2, 3]),
      landing_id: rnd.chance(0.4) ? null : rnd.pick([1, 2]),
      sub1: rnd.chance(0.2) ? null : rnd.pick(['alpha', 'beta', '=cmd|x', 'gamma, "q"']),
      sub2: rnd.chance(0.5) ? null : rnd.pick(['x', 'y']),
      bot_reason: bot ? 'bot_user_agent' : null, excluded: !bot && rnd.chance(0.1) ? 1 : 0, is_unique: rnd.chance(0.6) ? 1 : 0,
      cost: bot ? 0 : Math.round(rnd.next() * 500) / 10000,
      device_type: rnd.chance(0.1) ? null : rnd.pick(['desktop', 'mobile', 'tablet']),
      os: rnd.pick(['Windows', 'iOS', 'Android', null]), browser: rnd.pick(['Chrome', 'Safari', null]),
      referrer_domain: rnd.pick(['news.example', 'Search.example', null]),
      created_at: at,
    })
  }
  const conversions: SeedConversion[] = []
  for (let i = 1; i <= nConversions; i++) {
    const c = rnd.pick(clicks)
    const date = c.created_at + Math.floor(rnd.next() * 2 * DAY)
    conversions.push({
      id: i, click_row_id: c.id, click_created_at: c.created_at, click_id: c.click_id, campaign_id: c.campaign_id, source_id: c.source_id,
      // A conversion keeps its own attribution (a later repoint of the click does not move it).
      offer_id: rnd.chance(0.1) ? rnd.pick([1, 2, 3]) : c.offer_id, landing_id: c.landing_id,
      type: rnd.pick(TYPES), status: rnd.pick(['approved', 'pending', null]),
      revenue: Math.round((rnd.next() * 40 - (rnd.chance(0.2) ? 20 : 0)) * 100) / 100,
      currency: rnd.pick(['USD', null]), transaction_id: rnd.chance(0.5) ? `t-${i}` : null,
      // Every tenth conversion shares its date with the one before (keyset paging ties on date).
      date: i % 10 === 0 && conversions.length ? conversions[conversions.length - 1]!.date : date, created_at: date,
    })
  }
  return { clicks, conversions }
}

/** The conversion as the rollup sees it (excluded when its click is). */
function rollupOf(v: SeedConversion, clicks: Map<number, SeedClick>): RollupConversion {
  return {
    campaignId: v.campaign_id, sourceId: v.source_id, offerId: v.offer_id, landingId: v.landing_id, revenue: v.revenue, date: v.date,
    excluded: clicks.get(v.click_row_id)!.excluded === 1, type: { slug: v.type },
  }
}

/** Click rollups from the raw clicks (same rules as ClickRollup); landing views made up from the landing. */
const CLICK_ROLLUP_SQL =
  'INSERT INTO click_stats_hourly (hour, campaign_id, source_id, offer_id, landing_id, clicks, unique_clicks, bot_clicks, cost, landing_views) ' +
  'SELECT created_at - created_at % 3600000, campaign_id, coalesce(source_id, 0), coalesce(offer_id, 0), coalesce(landing_id, 0), count(*), ' +
  "sum(CASE WHEN coalesce(bot_reason, '') = '' AND is_unique <> 0 THEN 1 ELSE 0 END), " +
  "sum(CASE WHEN coalesce(bot_reason, '') <> '' THEN 1 ELSE 0 END), sum(cost), sum(CASE WHEN landing_id IS NULL THEN 0 ELSE 2 END) " +
  'FROM clicks WHERE excluded = 0 GROUP BY 1, 2, 3, 4, 5'

export function seedSqlite(db: Database, seed: Seed): void {
  const raw = db.raw
  const now = 1_760_000_000_000
  const rollup = new ConversionRollup(raw)
  const clicksById = new Map(seed.clicks.map((c) => [c.id, c]))
  raw.transaction(() => {
    for (const s of CATALOG.sources) raw.prepare('INSERT INTO sources (id, name, created_at, updated_at) VALUES ($id, $name, $now, $now)').run({ ...s, now })
    for (const o of CATALOG.offers) {
      raw.prepare("INSERT INTO offers (id, name, slug, url, created_at, updated_at) VALUES ($id, $name, $slug, 'https://a.example/', $now, $now)")
        .run({ ...o, slug: `o${o.id}`, now })
    }
    for (const l of CATALOG.landings) {
      raw.prepare("INSERT INTO landings (id, name, slug, url, created_at, updated_at) VALUES ($id, $name, $slug, 'https://l.example/', $now, $now)")
        .run({ ...l, slug: `l${l.id}`, now })
    }
    for (const c of CATALOG.campaigns) {
      raw.prepare('INSERT INTO campaigns (id, name, slug, source_id, created_at, updated_at) VALUES ($id, $name, $slug, $source_id, $now, $now)')
        .run({ ...c, slug: `c${c.id}`, now })
    }
    for (const t of EXTRA_TYPES) {
      raw.prepare(
        'INSERT INTO conversion_types (slug, name, include_in_conversions, include_in_revenue, send_postback, negative, builtin, created_at, updated_at) ' +
          'VALUES ($slug, $name, $include_in_conversions, $include_in_revenue, 0, $negative, 0, $now, $now)',
      ).run({ ...t, now })
    }
    const click = raw.prepare(
      'INSERT INTO clicks (id, click_id, campaign_id, source_id, offer_id, landing_id, sub1, sub2, bot_reason, excluded, is_unique, cost, ' +
        'device_type, os, browser, referrer_domain, created_at) VALUES ($id, $click_id, $campaign_id, $source_id, $offer_id, $landing_id, ' +
        '$sub1, $sub2, $bot_reason, $excluded, $is_unique, $cost, $device_type, $os, $browser, $referrer_domain, $created_at)',
    )
    for (const c of seed.clicks) click.run({ ...c })
    const conv = raw.prepare(
      'INSERT INTO conversions (id, click_row_id, click_created_at, click_id, campaign_id, source_id, offer_id, landing_id, type, status, ' +
        'revenue, currency, transaction_id, date, created_at) VALUES ($id, $click_row_id, $click_created_at, $click_id, $campaign_id, $source_id, $offer_id, $landing_id, $type, ' +
        '$status, $revenue, $currency, $transaction_id, $date, $created_at)',
    )
    for (const v of seed.conversions) conv.run({ ...v })
    rollup.addAll(seed.conversions.map((v) => rollupOf(v, clicksById)))
    raw.prepare(CLICK_ROLLUP_SQL).run()
  })()
}

export async function seedPg(db: PgDatabase, seed: Seed): Promise<void> {
  const sql = db.sql
  const now = 1_760_000_000_000
  const rollup = new PgConversionRollup()
  const clicksById = new Map(seed.clicks.map((c) => [c.id, c]))
  await sql.begin(async (tx) => {
    await tx`INSERT INTO sources ${sql(CATALOG.sources.map((s) => ({ ...s, created_at: now, updated_at: now })))}`
    await tx`INSERT INTO offers ${sql(CATALOG.offers.map((o) => ({ ...o, slug: `o${o.id}`, url: 'https://a.example/', created_at: now, updated_at: now })))}`
    await tx`INSERT INTO landings ${sql(CATALOG.landings.map((l) => ({ ...l, slug: `l${l.id}`, url: 'https://l.example/', created_at: now, updated_at: now })))}`
    await tx`INSERT INTO campaigns ${sql(CATALOG.campaigns.map((c) => ({ ...c, slug: `c${c.id}`, created_at: now, updated_at: now })))}`
    await tx`INSERT INTO conversion_types ${sql(EXTRA_TYPES.map((t) => ({ ...t, send_postback: 0, builtin: 0, created_at: now, updated_at: now })))}`
    for (let i = 0; i < seed.clicks.length; i += 200) await tx`INSERT INTO clicks ${sql(seed.clicks.slice(i, i + 200))}`
    await tx`INSERT INTO conversions ${sql(seed.conversions)}`
    await rollup.addAll(seed.conversions.map((v) => rollupOf(v, clicksById)), tx)
    await tx.unsafe(CLICK_ROLLUP_SQL)
  })
}
