// Report metrics over real postbacks: per-type counts, include flags applied at read time, negative types,
// formulas and their nulls, labels, sorting, paging, filters and the raw-click groupings.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { testDb } from '../helpers/db'
import { startServer, type TestServer } from '../helpers/server'
import { addClick, catalog, DAY, HOUR, postback, report, settle, SERVER_TIMEOUT_MS } from './seed'

let s: TestServer
const ids: Record<string, number> = {}

beforeAll(async () => {
  s = await startServer()
  const c = catalog(s)
  ids.s1 = await c.source('Source One')
  ids.o1 = await c.offer('Offer One', 2.5)
  ids.o2 = await c.offer('Offer Two')
  ids.l1 = await c.landing('Landing One')
  ids.alpha = await c.campaign({ name: 'Alpha', source: ids.s1, offers: [ids.o1], landings: [ids.l1] })
  ids.beta = await c.campaign({ name: 'Beta', offers: [ids.o2] })
  ids.gamma = await c.campaign({ name: 'Gamma', offers: [ids.o2] })
  ids.delta = await c.campaign({ name: 'Delta', offers: [ids.o2] })

  const at = Date.now() - HOUR
  const a = { campaign: ids.alpha, source: ids.s1, offer: ids.o1, landing: ids.l1, at }
  const humans = [await addClick(s, { ...a, cost: 0.1 }), await addClick(s, { ...a, cost: 0.1 }), await addClick(s, { ...a, cost: 0.1 })]
  await addClick(s, { ...a, cost: 0.1, unique: false })
  await addClick(s, { ...a, bot: 'bot_user_agent' })
  const own = await addClick(s, { ...a, excluded: true, cost: 0.1 })
  const oldBeta = await addClick(s, { campaign: ids.beta, offer: ids.o2, at: Date.now() - 40 * DAY })
  await addClick(s, { campaign: ids.gamma, offer: ids.o2, at })
  await addClick(s, { campaign: ids.gamma, offer: ids.o2, at })
  // Delta: the raw-click groupings.
  const d = { campaign: ids.delta, offer: ids.o2, at }
  const desktop = await addClick(s, { ...d, device: 'desktop', os: 'Windows', browser: 'Chrome', referrerDomain: 'news.example', sub1: 'zone-1' })
  await addClick(s, { ...d, device: 'desktop', os: 'macOS', browser: 'Safari', referrerDomain: 'news.example', sub1: 'zone-2', cost: 0.5 })
  await addClick(s, { ...d, device: 'mobile', os: 'iOS', browser: 'Safari', sub1: 'zone-1', unique: false })
  await addClick(s, { ...d, bot: 'head' })
  const ownDelta = await addClick(s, { ...d, device: 'tablet', excluded: true })
  await settle(s)

  const [h1, h2, h3] = humans as [string, string, string]
  await postback(s, { subid: h1, payout: 10, status: 'approved' })
  await postback(s, { subid: h1, status: 'approved' }) // no payout: the offer's 2.5
  await postback(s, { subid: h2, payout: 5, status: 'pending' })
  await postback(s, { subid: h2, payout: 3, status: 'trial' })
  await postback(s, { subid: h3, payout: 2, status: 'install' })
  await postback(s, { subid: h3, payout: 7, status: 'rejected' })
  await postback(s, { subid: h1, payout: 4, status: 'chargeback' })
  await postback(s, { subid: h1, payout: -6, status: 'refund' })
  await postback(s, { subid: own, payout: 100, status: 'approved' })
  await postback(s, { subid: oldBeta, payout: 8, status: 'approved' })
  await postback(s, { subid: desktop, payout: 10, status: 'approved' })
  await postback(s, { subid: ownDelta, payout: 50, status: 'approved' })
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

const row = (rows: Array<{ key: unknown }>, key: unknown) => rows.find((r) => r.key === key) as any

describe('metrics of a campaign', () => {
  test('count clicks, uniques and bots, leave excluded clicks and their conversions out, and apply every formula', async () => {
    const res = await report(s, '')
    expect(row(res.body.rows, ids.alpha)).toEqual({
      key: ids.alpha, label: 'Alpha',
      clicks: 5, unique_clicks: 3, bot_clicks: 1, landing_views: 0, landing_clicks: 0, landing_ctr: null,
      // sale 2 + lead 1 + trial 1 + install 1 − chargeback 2 (reject counts nowhere)
      conversions: 3,
      // 10 + 2.5 + 5 + 2 − |4| − |−6| (trial is not in revenue by default)
      revenue: 9.5,
      cost: 0.4, profit: 9.1, roi: 2275, cr: 60, epc: 1.9,
      types: { sale: 2, lead: 1, trial: 1, install: 1, reject: 1, chargeback: 2 },
    })
  })

  test('a conversion whose click lies outside the range still counts in it: clicks 0 makes cr, epc and roi null', async () => {
    const beta = row((await report(s, '')).body.rows, ids.beta)
    expect(beta).toMatchObject({ clicks: 0, conversions: 1, revenue: 8, cost: 0, profit: 8, cr: null, epc: null, roi: null, landing_ctr: null })
  })

  test('type flag edits apply to past conversions at once', async () => {
    expect((await s.api('PATCH', '/admin/api/conversion-types/trial', { include_in_revenue: true })).status).toBe(200)
    expect((await s.api('PATCH', '/admin/api/conversion-types/chargeback', { include_in_conversions: false })).status).toBe(200)
    try {
      expect(row((await report(s, '')).body.rows, ids.alpha)).toMatchObject({ conversions: 5, revenue: 12.5, profit: 12.1, roi: 3025, epc: 2.5 })
    } finally {
      await s.api('PATCH', '/admin/api/conversion-types/trial', { include_in_revenue: false })
      await s.api('PATCH', '/admin/api/conversion-types/chargeback', { include_in_conversions: true })
    }
    expect(row((await report(s, '')).body.rows, ids.alpha)).toMatchObject({ conversions: 3, revenue: 9.5 })
  })

  test('an operator-made type gets its own column in every row and in the total', async () => {
    const created = await s.api('POST', '/admin/api/conversion-types', { slug: 'upsell', name: 'Upsell', include_in_conversions: true, include_in_revenue: true })
    expect(created.status).toBe(201)
    const gammaClick = (await testDb(s).get<{ click_id: string }>('SELECT click_id FROM clicks WHERE campaign_id = $c ORDER BY id LIMIT 1', { c: ids.gamma }))!
    await postback(s, { subid: gammaClick.click_id, payout: 1.25, status: 'upsell' })
    const res = await report(s, '')
    expect(row(res.body.rows, ids.gamma)).toMatchObject({ conversions: 1, revenue: 1.25, types: { sale: 0, lead: 0, trial: 0, install: 0, reject: 0, chargeback: 0, upsell: 1 } })
    expect(Object.keys(row(res.body.rows, ids.alpha).types)).toEqual(['sale', 'lead', 'trial', 'install', 'reject', 'chargeback', 'upsell'])
    expect(res.body.total.types).toEqual({ sale: 4, lead: 1, trial: 1, install: 1, reject: 1, chargeback: 2, upsell: 1 })
  })

  test('the total sums every row, not only the page', async () => {
    const res = await report(s, 'limit=1')
    expect(res.body.rows).toHaveLength(1)
    expect(res.body.total).toMatchObject({ clicks: 5 + 2 + 4, unique_clicks: 3 + 2 + 2, bot_clicks: 2, cost: 0.9, conversions: 3 + 1 + 1 + 1 })
  })
})

describe('labels, sorting and paging', () => {
  test('rows carry the catalog name as label; a deleted record keeps its key with a null label', async () => {
    const gone = await catalog(s).campaign({ name: 'Temporary', offers: [ids.o2] })
    await addClick(s, { campaign: gone, offer: ids.o2 })
    await settle(s)
    await testDb(s).run('DELETE FROM campaigns WHERE id = $id', { id: gone })
    const r = row((await report(s, '')).body.rows, gone)
    expect(r).toMatchObject({ key: gone, label: null, clicks: 1 })
  })

  test('two levels: each row has children with the second key; "no landing" is key null, label null', async () => {
    const res = await report(s, `group_by=campaign,landing&campaign_id=${ids.alpha}`)
    expect(res.body.rows).toHaveLength(1)
    expect(res.body.rows[0].children).toEqual([expect.objectContaining({ key: ids.l1, label: 'Landing One', clicks: 5, conversions: 3 })])
    const beta = await report(s, `group_by=campaign,landing&campaign_id=${ids.beta}`)
    expect(beta.body.rows[0].children).toEqual([expect.objectContaining({ key: null, label: null, conversions: 1 })])
    const bySource = await report(s, 'group_by=source')
    expect(row(bySource.body.rows, ids.s1)).toMatchObject({ label: 'Source One', clicks: 5 })
    expect(row(bySource.body.rows, null)).toMatchObject({ label: null })
  })

  test('sort by a metric or the label, either order, nulls last; ties by key', async () => {
    const keys = async (q: string) => (await report(s, `campaign_id=&${q}`)).body.rows.filter((r: any) => [ids.alpha, ids.beta, ids.gamma].includes(r.key)).map((r: any) => r.key)
    expect(await keys('sort=clicks')).toEqual([ids.alpha, ids.gamma, ids.beta])
    expect(await keys('sort=clicks&order=asc')).toEqual([ids.beta, ids.gamma, ids.alpha])
    expect(await keys('sort=cr&order=desc')).toEqual([ids.alpha, ids.gamma, ids.beta])
    expect(await keys('sort=cr&order=asc')).toEqual([ids.gamma, ids.alpha, ids.beta])
    expect(await keys('sort=label')).toEqual([ids.alpha, ids.beta, ids.gamma])
    expect(await keys('sort=label&order=desc')).toEqual([ids.gamma, ids.beta, ids.alpha])
    expect(await keys('sort=key&order=desc')).toEqual([ids.gamma, ids.beta, ids.alpha])
  })

  test('paging: limit, offset and next_cursor over the top-level rows', async () => {
    const all = (await report(s, 'sort=key')).body
    expect(all.total_rows).toBeGreaterThanOrEqual(4)
    const first = (await report(s, 'sort=key&limit=2')).body
    expect(first.rows.map((r: any) => r.key)).toEqual(all.rows.slice(0, 2).map((r: any) => r.key))
    expect(first.next_cursor).toBe('2')
    const second = (await report(s, `sort=key&limit=2&cursor=${first.next_cursor}`)).body
    expect(second.rows.map((r: any) => r.key)).toEqual(all.rows.slice(2, 4).map((r: any) => r.key))
    const last = (await report(s, `sort=key&limit=2&offset=${all.total_rows - 1}`)).body
    expect(last.rows).toHaveLength(1)
    expect(last.next_cursor).toBeNull()
    expect(last.total).toEqual(all.total)
  })

  test('filters narrow rows and total alike; 0 selects "none"', async () => {
    const alpha = (await report(s, `campaign_id=${ids.alpha}`)).body
    expect(alpha.rows.map((r: any) => r.key)).toEqual([ids.alpha])
    expect(alpha.total.clicks).toBe(5)
    expect((await report(s, `source_id=${ids.s1}&group_by=campaign`)).body.rows.map((r: any) => r.key)).toEqual([ids.alpha])
    expect((await report(s, `offer_id=${ids.o1}`)).body.total.clicks).toBe(5)
    const noLanding = (await report(s, 'landing_id=0')).body.rows.map((r: any) => r.key)
    expect(noLanding).not.toContain(ids.alpha)
    expect(noLanding).toEqual(expect.arrayContaining([ids.beta, ids.gamma, ids.delta]))
    expect((await report(s, 'campaign_id=999999')).body).toMatchObject({ rows: [], total_rows: 0, total: { clicks: 0, conversions: 0, revenue: 0, cr: null } })
  })
})

describe('groupings from raw clicks', () => {
  const delta = () => `campaign_id=${ids.delta}`

  test('device, os, browser and referrer come from the click rows; bots have no device; excluded clicks stay out', async () => {
    const byDevice = (await report(s, `group_by=device&${delta()}`)).body
    expect(byDevice.source).toBe('raw')
    expect(byDevice.rows.map((r: any) => [r.key, r.clicks, r.unique_clicks, r.bot_clicks, r.conversions, r.revenue, r.cost])).toEqual([
      ['desktop', 2, 2, 0, 1, 10, 0.5],
      ['mobile', 1, 0, 0, 0, 0, 0],
      [null, 1, 0, 1, 0, 0, 0],
    ])
    expect(byDevice.total).toMatchObject({ clicks: 4, conversions: 1, revenue: 10 })
    expect((await report(s, `group_by=os&${delta()}&sort=key`)).body.rows.map((r: any) => [r.key, r.clicks])).toEqual([['Windows', 1], ['iOS', 1], ['macOS', 1], [null, 1]])
    expect((await report(s, `group_by=browser&${delta()}&sort=key`)).body.rows.map((r: any) => [r.key, r.clicks])).toEqual([['Chrome', 1], ['Safari', 2], [null, 1]])
    expect((await report(s, `group_by=referrer&${delta()}`)).body.rows.map((r: any) => [r.key, r.clicks])).toEqual([['news.example', 2], [null, 2]])
  })

  test('sub1 and a raw grouping mixed with a rollup one (campaign → sub1) use the raw path', async () => {
    expect((await report(s, `group_by=sub1&${delta()}`)).body.rows.map((r: any) => [r.key, r.clicks, r.conversions])).toEqual([
      ['zone-1', 2, 1], ['zone-2', 1, 0], [null, 1, 0],
    ])
    const two = (await report(s, `group_by=campaign,sub1&${delta()}`)).body
    expect(two.source).toBe('raw')
    expect(two.rows).toHaveLength(1)
    expect(two.rows[0]).toMatchObject({ key: ids.delta, label: 'Delta', clicks: 4 })
    expect(two.rows[0].children.map((c: any) => c.key)).toEqual(['zone-1', 'zone-2', null])
  })

  test('a raw grouping and the rollup grouping agree on totals for the same range', async () => {
    const q = `${delta()}&from=${new Date(Date.now() - 2 * DAY).toISOString().slice(0, 13)}:00Z`
    const raw = (await report(s, `group_by=device&${q}`)).body.total
    const rolled = (await report(s, `group_by=campaign&${q}`)).body.total
    expect(raw).toEqual({ ...rolled, landing_views: 0 })
  })
})
