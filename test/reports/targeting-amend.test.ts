// A stored click that changes after its commit (its landing viewed, a click-through, flagged as a bot, moved to
// another offer) moves between targeting rollup rows exactly as between the campaign rollup rows: reports by
// path and by country keep the same totals as the campaign report, and show the change under the click's own
// country and path.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { testDb } from '../helpers/db'
import { startServer, type TestServer } from '../helpers/server'
import { addClick, catalog, postback, report, SERVER_TIMEOUT_MS } from './seed'

let s: TestServer
let campaign = 0
let offer = 0
let offer2 = 0
let pathId = 0
let moved = ''
const RANGE = 'from=2000-01-01&to=2099-01-01'
const rowOf = async (clickId: string) => (await testDb(s).get<{ id: number }>('SELECT id FROM clicks WHERE click_id = $id', { id: clickId }))!.id

beforeAll(async () => {
  s = await startServer()
  const c = catalog(s)
  offer = await c.offer()
  offer2 = await c.offer()
  campaign = await c.campaign({ offers: [offer, offer2] })
  pathId = (await testDb(s).get<{ id: number }>(
    "INSERT INTO campaign_paths (campaign_id, position, name, active, conditions, action) VALUES ($c, 0, 'FR mobile', 1, '[]', 'rotation') RETURNING id",
    { c: campaign },
  ))!.id
  const viewed = await addClick(s, { campaign, offer, country: 'FR', path: pathId, cost: 1 })
  const flagged = await addClick(s, { campaign, offer, country: 'FR', path: pathId, cost: 1 })
  moved = await addClick(s, { campaign, offer, country: 'BE', cost: 1 })
  const now = Date.now()
  await s.server.clicks.amend({ row: await rowOf(viewed), clickedAt: now })
  await s.server.clicks.amend({ row: await rowOf(flagged), botReason: 'cloak' })
  await s.server.clicks.amend({ row: await rowOf(viewed), offerId: offer2 })
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

const pick = (r: any) => [r.key, r.clicks, r.unique_clicks, r.bot_clicks, r.cost, r.landing_views, r.landing_clicks]

describe('amended clicks in the targeting rollups', () => {
  test('views, click-throughs and bot flags follow the click to its path and country', async () => {
    const byPath = (await report(s, `group_by=path&sort=key&${RANGE}`)).body
    expect(byPath.source).toBe('rollups')
    expect(byPath.rows.map(pick)).toEqual([[pathId, 2, 1, 1, 1, 1, 1], [null, 1, 1, 0, 1, 0, 0]])
    const byCountry = (await report(s, `group_by=country&sort=key&${RANGE}`)).body
    expect(byCountry.rows.map(pick)).toEqual([['BE', 1, 1, 0, 1, 0, 0], ['FR', 2, 1, 1, 1, 1, 1]])
    const byCampaign = (await report(s, RANGE)).body
    expect(byPath.total).toEqual(byCampaign.total)
    expect(byCountry.total).toEqual(byCampaign.total)
  })

  test('a status update (postback_status_updates) moves the conversion within its own country and path', async () => {
    expect((await s.api('PUT', '/admin/api/settings', { postback_status_updates: true })).status).toBe(200)
    await postback(s, { subid: moved, status: 'pending', payout: 5, tid: 'T-1' })
    await postback(s, { subid: moved, status: 'approved', payout: 20, tid: 'T-1' })
    const byCountry = (await report(s, `group_by=country&sort=key&${RANGE}`)).body
    const be = byCountry.rows.find((x: any) => x.key === 'BE')
    expect([be.conversions, be.revenue, be.types]).toEqual([1, 20, expect.objectContaining({ sale: 1, lead: 0 })])
    expect(byCountry.rows.find((x: any) => x.key === 'FR').conversions).toBe(0)
    const byPath = (await report(s, `group_by=path&sort=key&${RANGE}`)).body
    expect(byPath.rows.map((x: any) => [x.key, x.label, x.conversions, x.revenue])).toEqual([[pathId, 'FR mobile', 0, 0], [null, 'default', 1, 20]])
    // Country and path together: a raw scan (the clicks are kept here), the conversion under its click's.
    const both = (await report(s, `group_by=country,path&sort=key&${RANGE}`)).body
    expect(both.source).toBe('raw')
    expect(both.rows.map((x: any) => [x.key, x.children.map((c: any) => [c.key, c.label, c.clicks, c.conversions])]))
      .toEqual([['BE', [[null, 'default', 1, 1]]], ['FR', [[pathId, 'FR mobile', 2, 0]]]])
    for (const table of ['conversion_country_hourly', 'conversion_path_hourly', 'conversion_country_total_daily']) {
      const rows = await testDb(s).all(`SELECT type, sum(conversions) AS n, sum(revenue) AS revenue FROM ${table} GROUP BY type ORDER BY type`)
      expect(rows).toEqual([{ type: 'lead', n: 0, revenue: 0 }, { type: 'sale', n: 1, revenue: 20 }])
    }
  })

  test('the rollup rows hold exactly the stored clicks (no row left over by the moves)', async () => {
    // Summed per key: on Postgres a key has a row per rollup shard that click batches wrote (drizzle-pg/0032).
    const counts = 'sum(clicks) AS clicks, sum(unique_clicks) AS unique_clicks, sum(bot_clicks) AS bot_clicks, sum(cost) AS cost, ' +
      'sum(landing_views) AS landing_views, sum(landing_clicks) AS landing_clicks'
    const live = 'HAVING sum(clicks) <> 0 OR sum(landing_views) <> 0 OR sum(bot_clicks) <> 0'
    expect(await testDb(s).all(`SELECT country, ${counts} FROM click_country_hourly GROUP BY country ${live} ORDER BY country`)).toEqual([
      { country: 'BE', clicks: 1, unique_clicks: 1, bot_clicks: 0, cost: 1, landing_views: 0, landing_clicks: 0 },
      { country: 'FR', clicks: 2, unique_clicks: 1, bot_clicks: 1, cost: 1, landing_views: 1, landing_clicks: 1 },
    ])
    expect(await testDb(s).all(`SELECT country, ${counts} FROM click_country_total_daily GROUP BY country ${live} ORDER BY country`))
      .toEqual(await testDb(s).all(`SELECT country, ${counts} FROM click_country_hourly GROUP BY country ${live} ORDER BY country`))
    expect(await testDb(s).all(`SELECT path_id, ${counts} FROM click_path_hourly GROUP BY path_id ${live} ORDER BY path_id`)).toEqual([
      { path_id: 0, clicks: 1, unique_clicks: 1, bot_clicks: 0, cost: 1, landing_views: 0, landing_clicks: 0 },
      { path_id: pathId, clicks: 2, unique_clicks: 1, bot_clicks: 1, cost: 1, landing_views: 1, landing_clicks: 1 },
    ])
  })
})
