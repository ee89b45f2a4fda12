// Reports by country and by targeting path (issue 28) read the targeting rollups (click_country_*, click_path_*,
// conversion_country_*, conversion_path_*):
// after raw click retention pruned every click, the reports still show them. Each path has its own clicks,
// conversions, revenue, CR and EPC; a path deleted since keeps its clicks under "#<id>", the default rotation is
// "default"; conversions count under the country and path of their click, each currency on its own.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { testDb } from '../helpers/db'
import { startServer, type TestServer } from '../helpers/server'
import { addClick, catalog, DAY, postback, report, settle, SERVER_TIMEOUT_MS } from './seed'

let s: TestServer
let campA = 0
let campB = 0
let offer = 0
let offerEur = 0
/** Paths of campaign A: "Mobile US", "Bots", and one deleted before the reports. */
let p1 = 0
let p2 = 0
let p3 = 0
const RANGE = 'from=2000-01-01&to=2099-01-01'
const count = async (sql: string, p: Record<string, unknown> = {}) => (await testDb(s).get<{ n: number }>(sql, p))!.n

async function eventually(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(20)
  }
}

async function path(campaign: number, name: string, position: number): Promise<number> {
  const row = await testDb(s).get<{ id: number }>(
    "INSERT INTO campaign_paths (campaign_id, position, name, active, conditions, action) VALUES ($c, $p, $n, 1, '[]', 'rotation') RETURNING id",
    { c: campaign, p: position, n: name },
  )
  return row!.id
}

beforeAll(async () => {
  s = await startServer()
  const c = catalog(s)
  offer = await c.offer('Offer USD', 0)
  offerEur = await c.offer('Offer EUR', 0, 'EUR')
  campA = await c.campaign({ name: 'A', offers: [offer] })
  campB = await c.campaign({ name: 'B', offers: [offer] })
  p1 = await path(campA, 'Mobile US', 0)
  p2 = await path(campA, 'Bots', 1)
  p3 = await path(campA, 'Gone', 2)
  const at = Date.now() - 10 * DAY
  const usP1: string[] = []
  for (let i = 0; i < 3; i++) usP1.push(await addClick(s, { campaign: campA, offer, country: 'US', path: p1, at: at + i * 1000, cost: 0.5 }))
  await addClick(s, { campaign: campA, offer, country: 'DE', path: p1, at, cost: 0.5 })
  await addClick(s, { campaign: campA, offer, country: 'US', path: p2, at, bot: 'datacenter' })
  const deP3 = await addClick(s, { campaign: campA, offer: offerEur, country: 'DE', path: p3, at })
  for (let i = 0; i < 2; i++) await addClick(s, { campaign: campA, offer, country: 'US', at })
  await addClick(s, { campaign: campA, offer, at })
  const usB: string[] = []
  for (let i = 0; i < 2; i++) usB.push(await addClick(s, { campaign: campB, offer, country: 'US', at }))
  // The operator's own click: counted nowhere.
  await addClick(s, { campaign: campA, offer, country: 'US', path: p1, at, excluded: true })
  await settle(s)
  await postback(s, { subid: usP1[0]!, payout: 10 })
  await postback(s, { subid: deP3, payout: 4 })
  await postback(s, { subid: usB[0]!, payout: 3 })
  await testDb(s).run('DELETE FROM campaign_paths WHERE id = $id', { id: p3 })
  // Retention prunes every raw click: what the reports below show comes from the rollups.
  expect((await s.api('PUT', '/admin/api/settings', { raw_click_retention_days: 7 })).status).toBe(200)
  await eventually(async () => (await count('SELECT count(*) AS n FROM clicks')) === 0, 8000, 'clicks pruned')
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

const body = async (q: string) => (await report(s, `${q}&${RANGE}`)).body
const brief = (r: any) => [r.key, r.label, r.clicks, r.bot_clicks, r.conversions, r.revenue, r.cr, r.epc]

describe('group_by=path', () => {
  test('reads the rollups after the raw clicks are gone: clicks, conversions, revenue, CR, EPC per path', async () => {
    expect(await count('SELECT count(*) AS n FROM clicks')).toBe(0)
    expect((await body('group_by=device')).rows).toEqual([])
    const r = await body('group_by=path&sort=key&campaign_id=' + campA)
    expect(r.source).toBe('rollups')
    // One currency in campaign A's USD rows, one in EUR (p3's offer): money is per currency.
    expect(r.currencies).toEqual(['EUR', 'USD'])
    expect(r.rows.map((x: any) => [x.key, x.label, x.clicks, x.bot_clicks, x.conversions, x.cr])).toEqual([
      [p1, 'Mobile US', 4, 0, 1, 25],
      [p2, 'Bots', 1, 1, 0, 0],
      [p3, `#${p3}`, 1, 0, 1, 100],
      [null, 'default', 3, 0, 0, 0],
    ])
    const money = (k: number | null) => r.rows.find((x: any) => x.key === k).money.map((m: any) => [m.currency, m.revenue, m.epc])
    expect(money(p1)).toEqual([['EUR', 0, 0], ['USD', 10, 2.5]])
    expect(money(p3)).toEqual([['EUR', 4, 4], ['USD', 0, 0]])
  })

  test('one currency: revenue, CR and EPC per path as plain numbers; totals equal the campaign report', async () => {
    const r = await body('group_by=path&sort=key')
    const usd = await body(`group_by=path&sort=key&campaign_id=${campB}`)
    expect(usd.currency).toBe('USD')
    expect(usd.rows.map(brief)).toEqual([[null, 'default', 2, 0, 1, 3, 50, 1.5]])
    const byCampaign = await body('group_by=campaign')
    expect(r.total).toEqual(byCampaign.total)
    expect(r.total).toMatchObject({ clicks: 11, bot_clicks: 1, conversions: 3, cost: 2 })
  })

  test('with another dimension: campaign → path, path → campaign, path → day', async () => {
    const r = await body('group_by=path,campaign&sort=key')
    expect(r.source).toBe('rollups')
    const children = (k: number | null) => r.rows.find((x: any) => x.key === k).children.map((c: any) => [c.key, c.label, c.clicks, c.conversions])
    expect(children(p1)).toEqual([[campA, 'A', 4, 1]])
    expect(children(null)).toEqual([[campA, 'A', 3, 0], [campB, 'B', 2, 1]])
    const byCampaign = await body('group_by=campaign,path&sort=key')
    expect(byCampaign.rows.map((x: any) => [x.key, x.label, x.children.map((c: any) => [c.key, c.label, c.clicks])])).toEqual([
      [campA, 'A', [[p1, 'Mobile US', 4], [p2, 'Bots', 1], [p3, `#${p3}`, 1], [null, 'default', 3]]],
      [campB, 'B', [[null, 'default', 2]]],
    ])
    // A time zone whose local days are not UTC days: the daily rows' corrections keep the totals.
    const recent = `from=${new Date(Date.now() - 20 * DAY).toISOString().slice(0, 10)}&to=${new Date(Date.now() + DAY).toISOString().slice(0, 10)}`
    const byDay = await body(`group_by=path,day&tz=America/New_York&${recent}`)
    expect(byDay.source).toBe('rollups')
    expect(byDay.total.clicks).toBe(11)
    expect(byDay.rows.find((x: any) => x.key === p1).children.reduce((n: number, c: any) => n + c.clicks, 0)).toBe(4)
  })

  test('a filter the targeting rollups do not carry (offer), or country and path together, scan raw clicks instead', async () => {
    const r = await body(`group_by=path&offer_id=${offer}`)
    expect(r.source).toBe('raw')
    expect(r.rows).toEqual([])
    const both = await body('group_by=country,path')
    expect(both.source).toBe('raw')
    expect(both.rows).toEqual([])
  })

  test('CSV: path_id and path_name columns, "default" and "#<id>" labels', async () => {
    const res = await s.api('GET', `/admin/api/reports?group_by=path&sort=key&campaign_id=${campB}&format=csv&${RANGE}`)
    expect(res.status).toBe(200)
    const lines = res.text.trim().split('\n')
    expect(lines[0]!.split(',').slice(0, 4)).toEqual(['path_id', 'path_name', 'clicks', 'unique_clicks'])
    expect(lines[1]!.split(',').slice(0, 3)).toEqual(['', 'default', '2'])
    const all = (await s.api('GET', `/admin/api/reports?group_by=campaign,path&sort=key&format=csv&${RANGE}`)).text.trim().split('\n')
    expect(all[0]!.split(',').slice(0, 5)).toEqual(['campaign_id', 'campaign_name', 'path_id', 'path_name', 'clicks'])
    expect(all.slice(1).map((l) => l.split(',').slice(0, 5))).toEqual([
      [String(campA), 'A', String(p1), 'Mobile US', '4'], [String(campA), 'A', String(p2), 'Bots', '1'],
      [String(campA), 'A', String(p3), `#${p3}`, '1'], [String(campA), 'A', '', 'default', '3'],
      [String(campB), 'B', '', 'default', '2'],
    ])
  })
})

describe('group_by=country', () => {
  test('reads the rollups: clicks and conversions per country, unknown as null', async () => {
    const r = await body('group_by=country&sort=key')
    expect(r.source).toBe('rollups')
    expect(r.rows.map((x: any) => [x.key, x.clicks, x.conversions])).toEqual([['DE', 2, 1], ['US', 8, 2], [null, 1, 0]])
    const us = r.rows.find((x: any) => x.key === 'US')
    expect(us.money.map((m: any) => [m.currency, m.revenue])).toEqual([['EUR', 0], ['USD', 13]])
    expect((await body('group_by=country,campaign&sort=key')).rows.find((x: any) => x.key === 'US').children.map((c: any) => [c.key, c.label, c.clicks]))
      .toEqual([[campA, 'A', 6], [campB, 'B', 2]])
    // Over all campaigns the daily totals answer; a campaign filter reads the per-campaign rows: the same counts.
    const a = await body(`group_by=country&sort=key&campaign_id=${campA}`)
    expect(a.rows.map((x: any) => [x.key, x.clicks, x.conversions])).toEqual([['DE', 2, 1], ['US', 6, 1], [null, 1, 0]])
    // Local days that are not UTC days: daily totals corrected by the hourly rows.
    const recent = `from=${new Date(Date.now() - 20 * DAY).toISOString().slice(0, 10)}&to=${new Date(Date.now() + DAY).toISOString().slice(0, 10)}`
    const byDay = await body(`group_by=country,day&tz=America/New_York&${recent}`)
    expect(byDay.source).toBe('rollups')
    expect(byDay.rows.map((x: any) => [x.key, x.clicks])).toEqual([['US', 8], ['DE', 2], [null, 1]])
    expect(byDay.total.clicks).toBe(11)
  })

  test('a conversion copies its click\'s country and path, and counts under them', async () => {
    const rows = await testDb(s).all('SELECT country, path_id, revenue FROM conversions ORDER BY revenue')
    expect(rows).toEqual([
      { country: 'US', path_id: null, revenue: 3 },
      { country: 'DE', path_id: p3, revenue: 4 },
      { country: 'US', path_id: p1, revenue: 10 },
    ])
    const eur = (r: any) => [r.key, r.clicks, r.conversions, r.money.find((m: any) => m.currency === 'EUR').revenue]
    expect((await body('group_by=country&sort=key')).rows.map(eur)).toEqual([['DE', 2, 1, 4], ['US', 8, 2, 0], [null, 1, 0, 0]])
    expect((await body('group_by=path&sort=key')).rows.map(eur)).toEqual([[p1, 4, 1, 0], [p2, 1, 0, 0], [p3, 1, 1, 4], [null, 5, 1, 0]])
  })
})
