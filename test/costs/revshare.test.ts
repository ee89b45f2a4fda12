// The revshare cost model (docs/costs.md) through the real surface, on either engine: each conversion costs the
// campaign's revshare_percent of its revenue, in the conversion's own currency (a EUR sale's cost stays under
// EUR, never added to USD click costs); a chargeback takes its cost back out, a status update moves it; reports
// by campaign, day and country agree with the conversion rows.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { testDb } from '../helpers/db'
import { startServer, type TestServer } from '../helpers/server'
import { addClick, catalog, postback, report, SERVER_TIMEOUT_MS } from '../reports/seed'

let s: TestServer
let camp = 0
let plain = 0
const clicks: string[] = []
let plainClick = ''
const RANGE = 'from=2000-01-01&to=2099-01-01'

beforeAll(async () => {
  s = await startServer()
  const c = catalog(s)
  const offer = await c.offer('O', 10)
  const offerEur = await c.offer('O EUR', 10, 'EUR')
  camp = (await s.api('POST', '/admin/api/campaigns', { name: 'RS', slug: 'rs', offer_id: offer, cost_model: 'revshare', revshare_percent: 30 })).body.id
  plain = await c.campaign({ offers: [offer] })
  const at = Date.now() - 3_600_000
  clicks.push(await addClick(s, { campaign: camp, offer, at, cost: 0.5, country: 'DE' }))
  clicks.push(await addClick(s, { campaign: camp, offer: offerEur, at, country: 'FR' }))
  clicks.push(await addClick(s, { campaign: camp, offer, at, country: 'DE' }))
  plainClick = await addClick(s, { campaign: plain, offer, at })
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

const camp1 = async (q = '') => (await report(s, `campaign_id=${camp}&${RANGE}${q}`)).body
const money = (r: any) => Object.fromEntries((r.money ?? []).map((m: any) => [m.currency, [m.revenue, m.cost]]))

test('revshare_percent is checked and read back', async () => {
  const got = (await s.api('GET', `/admin/api/campaigns/${camp}`)).body
  expect(got).toMatchObject({ cost_model: 'revshare', revshare_percent: 30 })
  const offer = got.offer_id
  expect((await s.api('POST', '/admin/api/campaigns', { name: 'x', slug: 'rs-x', offer_id: offer, cost_model: 'revshare' })).body.error)
    .toBe('revshare_percent: required with cost_model revshare')
  expect((await s.api('PATCH', `/admin/api/campaigns/${camp}`, { revshare_percent: 120 })).status).toBe(400)
  expect((await s.api('PATCH', `/admin/api/campaigns/${camp}`, { revshare_percent: 0 })).status).toBe(400)
})

test('each currency carries its own revshare cost; a chargeback reverses it; reports agree with the rows', async () => {
  await postback(s, { subid: clicks[0]!, payout: '100', status: 'approved', tid: 't1' })
  await postback(s, { subid: clicks[1]!, payout: '50 EUR', status: 'approved', tid: 't2' })
  await postback(s, { subid: plainClick, payout: '100', status: 'approved', tid: 't3' })
  const rows = await testDb(s).all<{ campaign_id: number; revenue: number; currency: string | null; cost: number }>(
    'SELECT campaign_id, revenue, currency, cost FROM conversions ORDER BY id')
  expect(rows.map((r) => [r.campaign_id, r.revenue, r.currency, r.cost])).toEqual([[camp, 100, 'USD', 30], [camp, 50, 'EUR', 15], [plain, 100, 'USD', 0]])

  let r = await camp1()
  expect(r.currency).toBeNull()
  expect(r.total.revenue).toBeNull()
  // USD: the click's 0.50 plus 30 % of 100; EUR: 30 % of 50, never added to the USD cost.
  expect(money(r.total)).toEqual({ EUR: [50, 15], USD: [100, 30.5] })
  expect(r.total.cost).toBe(30.5)

  // A chargeback of the USD sale: its revenue and its cost go back out.
  await postback(s, { subid: clicks[0]!, payout: '100', status: 'chargeback', tid: 't1-cb' })
  r = await camp1()
  expect(money(r.total)).toEqual({ EUR: [50, 15], USD: [0, 0.5] })

  // By day and by country (the targeting rollups) the same money.
  for (const q of ['&group_by=day', '&group_by=country']) {
    const byKey = (await camp1(q)).rows
    const sum = (cur: string) => byKey.reduce((a: number, row: any) => a + (row.money?.find((m: any) => m.currency === cur)?.cost ?? (row.currency === cur ? row.cost : 0)), 0)
    expect([Math.round(sum('USD') * 1e6) / 1e6, Math.round(sum('EUR') * 1e6) / 1e6]).toEqual([0.5, 15])
  }
  // The plain campaign's sale costs nothing.
  expect((await report(s, `campaign_id=${plain}&${RANGE}`)).body.total).toMatchObject({ revenue: 100, cost: 0 })
})

test('a status update moves the cost with the revenue', async () => {
  expect((await s.api('PUT', '/admin/api/settings', { postback_status_updates: true })).status).toBe(200)
  await postback(s, { subid: clicks[2]!, payout: '20', status: 'pending', tid: 't4' })
  const usd = (t: any) => t.money.find((m: any) => m.currency === 'USD')
  expect(usd((await camp1()).total)).toMatchObject({ revenue: 20, cost: 6.5 })
  await postback(s, { subid: clicks[2]!, payout: '40', status: 'approved', tid: 't4' })
  const row = await testDb(s).get<{ revenue: number; cost: number }>("SELECT revenue, cost FROM conversions WHERE transaction_id = 't4'")
  expect(row).toEqual({ revenue: 40, cost: 12 })
  // The old row out, the new one in: 0.50 of clicks, the charged-back sale at 0, this one at 40 → 12.
  expect(usd((await camp1()).total)).toMatchObject({ revenue: 40, cost: 12.5 })
  // The country rollup moved too: DE holds the clicks' 0.50 and this sale's 12.
  const de = (await camp1('&group_by=country')).rows.find((x: any) => x.key === 'DE')
  expect(usd(de)).toMatchObject({ revenue: 40, cost: 12.5 })
})
