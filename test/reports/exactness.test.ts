// Rollups stay exact: after random clicks through /c (bots, excluded IPs, costs, continued click ids),
// random postbacks (every type, both payout signs, back-dated), a type-flag change and a repoint, every
// report number equals a direct SQL count over the raw clicks and conversions, computed here.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { testDb } from '../helpers/db'
import { onPostgres } from '../helpers/pg'
import { startServer, get, type TestServer } from '../helpers/server'
import { cookieClickId } from '../tracking/seed'
import { addClick, catalog, DAY, HOUR, iso, postback, report, settle, utcDay, SERVER_TIMEOUT_MS } from './seed'

const OWN_IP = '198.51.100.250'
const HUMAN_UAS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
]
const BOT_UA = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'
const STATUSES = ['approved', 'pending', 'trial', 'install', 'rejected', 'chargeback', 'refund']

/** mulberry32: a fixed seed keeps the scenario reproducible. */
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

interface CampaignInfo { id: number; slug: string; source: number | null; offers: number[]; landings: number[] }

let s: TestServer
const rnd = prng(20261121)
const campaigns: CampaignInfo[] = []
/** click_id → campaign, for continuations and postbacks. */
const clicks: Array<{ clickId: string; campaign: CampaignInfo }> = []
const FROM = utcDay(-7)
const TO = utcDay(1)

beforeAll(async () => {
  s = await startServer({ SVC_TRUST_PROXY: '1' })
  expect((await s.api('PUT', '/admin/api/settings', { excluded_ips: [OWN_IP] })).status).toBe(200)
  const c = catalog(s)
  const [s1, s2] = [await c.source(), await c.source()]
  const [o1, o2, o3, o4] = [await c.offer('o1', 3), await c.offer('o2', 7.5), await c.offer('o3', 0), await c.offer('o4', 12)]
  const [l1, l2, l3] = [await c.landing(), await c.landing(), await c.landing()]
  const add = async (slug: string, source: number | null, offers: number[], landings: number[], costModel: 'none' | 'cpc' | 'param', cpc = 0) => {
    campaigns.push({ id: await c.campaign({ slug, source, offers, landings, costModel, cpc }), slug, source, offers, landings })
  }
  await add('ex-a', s1, [o1!, o2!], [l1!, l2!], 'cpc', 0.02)
  await add('ex-b', s2, [o3!], [], 'param')
  await add('ex-c', null, [o3!, o4!], [l3!], 'none')
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

/** Clicks of the last days, written with SQL (so the days differ); rolled up by the next report's catch-up. */
async function pastClicks(n: number) {
  for (let i = 0; i < n; i++) {
    const c = rnd.pick(campaigns)
    const bot = rnd.chance(0.15)
    const clickId = await addClick(s, {
      campaign: c.id, source: c.source, offer: rnd.pick(c.offers), landing: c.landings.length ? rnd.pick(c.landings) : null,
      at: Date.now() - Math.floor(rnd.next() * 6 * DAY), bot: bot ? 'bot_user_agent' : null, excluded: !bot && rnd.chance(0.1),
      unique: rnd.chance(0.6), cost: bot ? 0 : Math.round(rnd.next() * 500) / 10000,
    })
    clicks.push({ clickId, campaign: c })
  }
}

async function liveClicks(n: number) {
  for (let i = 0; i < n; i++) {
    const c = rnd.pick(campaigns)
    const own = rnd.chance(0.1)
    const params = new URLSearchParams()
    const earlier = clicks.filter((k) => k.campaign === c)
    if (earlier.length && rnd.chance(0.1)) params.set('click_id', rnd.pick(earlier).clickId)
    if (c.slug === 'ex-b' && rnd.chance(0.8)) params.set('cost', (Math.round(rnd.next() * 100000) / 1e6).toFixed(6))
    const res = await get(`${s.base}/c/${c.slug}?${params}`, {
      'user-agent': rnd.chance(0.15) ? BOT_UA : rnd.pick(HUMAN_UAS),
      'x-forwarded-for': own ? OWN_IP : `203.0.113.${1 + Math.floor(rnd.next() * 12)}`,
    })
    expect(res.status).toBe(302)
    const id = cookieClickId(res) ?? new URL(res.headers.get('location')!).searchParams.get('c')
    if (id && !clicks.some((k) => k.clickId === id)) clicks.push({ clickId: id, campaign: c })
  }
}

async function postbacks(n: number) {
  for (let i = 0; i < n; i++) {
    const p: Record<string, string | number> = { subid: rnd.pick(clicks).clickId, status: rnd.pick(STATUSES) }
    if (rnd.chance(0.8)) p.payout = (Math.round((rnd.next() * 70 - 20) * 100) / 100).toFixed(2)
    if (rnd.chance(0.5)) p.date = iso(Date.now() - Math.floor(rnd.next() * 6 * DAY))
    await postback(s, p)
  }
}

interface Expected {
  clicks: number
  unique_clicks: number
  bot_clicks: number
  cost: number
  conversions: number
  revenue: number
  types: Record<string, number>
}

/** The UTC date (YYYY-MM-DD) of an epoch-ms column, in either engine's SQL. */
const utcDate = (col: string) =>
  onPostgres ? `to_char(to_timestamp(${col} / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')` : `date(${col} / 1000, 'unixepoch')`

/**
 * The report numbers straight from the raw rows: clicks in range without excluded ones; conversions dated
 * in range whose click is not excluded, with the type flags applied in SQL.
 */
async function expected(clickKeys: string, convKeys: string): Promise<Map<string, Expected>> {
  const db = testDb(s)
  const out = new Map<string, Expected>()
  const at = (k: unknown[]) => {
    const key = JSON.stringify(k)
    let e = out.get(key)
    if (!e) out.set(key, (e = { clicks: 0, unique_clicks: 0, bot_clicks: 0, cost: 0, conversions: 0, revenue: 0, types: {} }))
    return e
  }
  const range = { from: FROM, to: TO }
  // Plain SQL both engines run: CASE instead of summed booleans, sum() over a group (never empty) for total().
  for (const r of await db.all(
    `SELECT ${clickKeys}, count(*) AS clicks, sum(CASE WHEN bot_reason IS NULL AND is_unique = 1 THEN 1 ELSE 0 END) AS u, ` +
      'sum(CASE WHEN bot_reason IS NOT NULL THEN 1 ELSE 0 END) AS b, sum(cost) AS cost ' +
      'FROM clicks WHERE excluded = 0 AND created_at >= $from AND created_at < $to GROUP BY k1, k2',
    range,
  )) {
    Object.assign(at([r.k1, r.k2]), { clicks: r.clicks, unique_clicks: r.u, bot_clicks: r.b, cost: r.cost })
  }
  for (const r of await db.all(
    `SELECT ${convKeys}, v.type AS type, count(*) AS n, ` +
      'sum(CASE WHEN t.include_in_conversions = 1 THEN (CASE WHEN t.negative = 1 THEN -1 ELSE 1 END) ELSE 0 END) AS conv, ' +
      'sum(CASE WHEN t.include_in_revenue = 1 THEN (CASE WHEN t.negative = 1 THEN -abs(v.revenue) ELSE v.revenue END) ELSE 0 END) AS rev ' +
      'FROM conversions v JOIN clicks c ON c.id = v.click_row_id JOIN conversion_types t ON t.slug = v.type ' +
      'WHERE c.excluded = 0 AND v.date >= $from AND v.date < $to GROUP BY k1, k2, v.type',
    range,
  )) {
    const e = at([r.k1, r.k2])
    e.conversions += r.conv
    e.revenue += r.rev
    e.types[r.type] = r.n
  }
  return out
}

const r6 = (x: number) => Math.round(x * 1e6) / 1e6 || 0
const ratio = (n: number, d: number, k: number) => (d === 0 ? null : r6((n / d) * k))

/** A report row as the expected shape (all type columns that are 0 dropped, money rounded like the API). */
function fromReport(r: any) {
  const types = Object.fromEntries(Object.entries(r.types as Record<string, number>).filter(([, n]) => n !== 0))
  return { clicks: r.clicks, unique_clicks: r.unique_clicks, bot_clicks: r.bot_clicks, cost: r.cost, conversions: r.conversions, revenue: r.revenue, profit: r.profit, roi: r.roi, cr: r.cr, epc: r.epc, types }
}
function fromExpected(e: Expected) {
  const profit = e.revenue - e.cost
  return {
    clicks: e.clicks, unique_clicks: e.unique_clicks, bot_clicks: e.bot_clicks, cost: r6(e.cost), conversions: e.conversions, revenue: r6(e.revenue),
    profit: r6(profit), roi: ratio(profit, e.cost, 100), cr: ratio(e.conversions, e.clicks, 100), epc: ratio(e.revenue, e.clicks, 1), types: e.types,
  }
}

/**
 * The API rounds money and ratios to 6 decimals. SQLite and this test add the same amounts in different
 * orders, so a value that lands on a rounding half (71.79 / 96 = 0.7478125) may round either way: a
 * reported number within one unit of the 6th decimal of the expected one is taken as the expected one.
 */
function snapRounding(got: unknown, want: unknown): unknown {
  if (typeof got === 'number' && typeof want === 'number') return Math.abs(got - want) <= 1.000001e-6 ? want : got
  if (got && want && typeof got === 'object' && typeof want === 'object') {
    return Object.fromEntries(Object.entries(got).map(([k, v]) => [k, snapRounding(v, (want as Record<string, unknown>)[k])]))
  }
  return got
}

async function compare(groupBy: string, clickKeys: string, convKeys: string, keyOf: (k: unknown) => unknown = (k) => k ?? 0) {
  const body = (await report(s, `group_by=${groupBy}&from=${iso(FROM)}&to=${iso(TO)}&limit=1000`)).body
  expect(body.source).toBe('rollups')
  const got = new Map<string, unknown>()
  for (const r of body.rows) {
    if (r.children) for (const c of r.children) got.set(JSON.stringify([keyOf(r.key), keyOf(c.key)]), fromReport(c))
    else got.set(JSON.stringify([keyOf(r.key), null]), fromReport(r))
  }
  const want = new Map([...(await expected(clickKeys, convKeys))].map(([k, e]) => [k, fromExpected(e)]))
  expect(snapRounding(Object.fromEntries([...got].sort()), Object.fromEntries([...want].sort()))).toEqual(Object.fromEntries([...want].sort()))
  expect(want.size).toBeGreaterThan(2)
  return body
}

async function compareAll() {
  const byCampaign = await compare('campaign', 'campaign_id AS k1, NULL AS k2', 'v.campaign_id AS k1, NULL AS k2')
  await compare('campaign,offer', 'campaign_id AS k1, coalesce(offer_id, 0) AS k2', 'v.campaign_id AS k1, coalesce(v.offer_id, 0) AS k2')
  await compare(
    'day', `${utcDate('created_at')} AS k1, NULL AS k2`, `${utcDate('v.date')} AS k1, NULL AS k2`, (k) => k,
  )
  return byCampaign
}

describe('rollups against raw rows', () => {
  test('after random clicks and postbacks, by campaign, campaign → offer and day', async () => {
    await pastClicks(40)
    await settle(s)
    await liveClicks(120)
    await postbacks(70)
    const body = await compareAll()
    // The scenario really contains what it claims to test.
    const t = body.total
    expect(t.bot_clicks).toBeGreaterThan(0)
    expect(t.cost).toBeGreaterThan(0)
    expect(t.types.chargeback).toBeGreaterThan(0)
    expect(t.types.trial).toBeGreaterThan(0)
    const excluded = await testDb(s).get<{ n: number }>('SELECT count(*) AS n FROM clicks WHERE excluded = 1')
    expect(excluded!.n).toBeGreaterThan(0)
  }, SERVER_TIMEOUT_MS)

  test('after a conversion type flag change (trial counts in revenue)', async () => {
    const before = (await report(s, `from=${iso(FROM)}&to=${iso(TO)}`)).body.total.revenue
    expect((await s.api('PATCH', '/admin/api/conversion-types/trial', { include_in_revenue: true })).status).toBe(200)
    const after = (await compareAll()).total.revenue
    expect(after).not.toBe(before)
  }, SERVER_TIMEOUT_MS)

  test('after a repoint: an offer leaves the rotation and one of its clicks is continued', async () => {
    const a = campaigns[0]!
    const db = testDb(s)
    const victim = (await db.get<{ click_id: string }>(
      'SELECT click_id FROM clicks WHERE campaign_id = $c AND offer_id = $o AND excluded = 0 AND created_at >= $from ORDER BY id LIMIT 1',
      { c: a.id, o: a.offers[1], from: FROM },
    ))!
    expect(victim).toBeDefined()
    await settle(s) // the click is rolled up under its old offer before it moves
    await db.run('DELETE FROM campaign_offers WHERE campaign_id = $c AND offer_id = $o', { c: a.id, o: a.offers[1] })
    s.ctx.events.committed('catalog.changed', { entity: 'campaign', id: 0, action: 'updated' })
    a.offers = [a.offers[0]!]
    const res = await get(`${s.base}/c/${a.slug}?click_id=${victim.click_id}`, { 'user-agent': HUMAN_UAS[0]!, 'x-forwarded-for': '203.0.113.77' })
    expect(res.status).toBe(302)
    expect((await db.get<{ offer_id: number }>('SELECT offer_id FROM clicks WHERE click_id = $id', { id: victim.click_id }))!.offer_id).toBe(a.offers[0]!)
    await postback(s, { subid: victim.click_id, payout: 9.99, status: 'approved' })
    await liveClicks(30)
    await postbacks(20)
    await compareAll()
  }, SERVER_TIMEOUT_MS)

  test('hourly and daily rollups agree: every UTC day equals the sum of its hours', async () => {
    const db = testDb(s)
    // Sums of money are rounded here (9 decimals), not in SQL: Postgres has no round() for double precision.
    const r9 = (rows: Array<Record<string, number>>, money: string[]) =>
      rows.map((r) => ({ ...r, ...Object.fromEntries(money.map((k) => [k, Math.round(r[k]! * 1e9) / 1e9])) }))
    for (const [daily, hourly, cols] of [
      ['click_stats_daily', 'click_stats_hourly', 'campaign_id, source_id, offer_id, landing_id'],
      ['conversion_stats_daily', 'conversion_stats_hourly', 'campaign_id, source_id, offer_id, landing_id, type'],
    ] as const) {
      const clicks = daily.startsWith('click')
      const sums = clicks ? 'sum(clicks) AS a, sum(unique_clicks) AS b, sum(bot_clicks) AS c, sum(cost) AS d' : 'sum(conversions) AS a, sum(revenue) AS b, sum(revenue_abs) AS c'
      const first = clicks ? 'sum(clicks)' : 'sum(conversions)'
      const money = clicks ? ['d'] : ['b', 'c']
      const fromHours = r9(await db.all(`SELECT hour - hour % ${DAY} AS day, ${cols}, ${sums} FROM ${hourly} GROUP BY 1, ${cols} HAVING ${first} <> 0 ORDER BY 1, ${cols}`), money)
      const days = r9(await db.all(`SELECT day, ${cols}, ${sums} FROM ${daily} GROUP BY day, ${cols} HAVING ${first} <> 0 ORDER BY day, ${cols}`), money)
      expect(days).toEqual(fromHours)
      expect(days.length).toBeGreaterThan(0)
    }
    // Every hourly row sits on a whole UTC hour (what the day sums above rely on).
    for (const hourly of ['click_stats_hourly', 'conversion_stats_hourly']) {
      expect(await db.get(`SELECT count(*) AS n FROM ${hourly} WHERE hour % ${HOUR} <> 0`)).toEqual({ n: 0 })
    }
  })
})
