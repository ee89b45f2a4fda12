// The cpm cost model (docs/costs.md) through the real surface, on either engine: a campaign saved with
// cost_model cpm charges cpm / 1000 per click, bots nothing (as cpc), and reports add it up.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { testDb } from '../helpers/db'
import { get, startServer, type TestServer } from '../helpers/server'
import { report, SERVER_TIMEOUT_MS } from '../reports/seed'

const HUMAN = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36'
const BOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'
let s: TestServer

beforeAll(async () => {
  s = await startServer()
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

test('cpm: each click costs cpm / 1000, bots nothing; the campaign reads back cost_model and cpm', async () => {
  const offer = (await s.api('POST', '/admin/api/offers', { name: 'O', slug: 'cpm-o', url: 'https://adv.example/?c={click_id}' })).body
  const created = await s.api('POST', '/admin/api/campaigns', { name: 'CPM', slug: 'cpm-c', offer_id: offer.id, cost_model: 'cpm', cpm: 2.5 })
  expect(created.status).toBe(201)
  expect(created.body).toMatchObject({ cost_model: 'cpm', cpm: 2.5, cpc: 0 })
  expect((await s.api('POST', '/admin/api/campaigns', { name: 'x', slug: 'cpm-bad', offer_id: offer.id, cost_model: 'cpm', cpm: -1 })).status).toBe(400)
  for (let i = 0; i < 4; i++) expect((await get(`${s.base}/c/cpm-c`, { 'user-agent': HUMAN })).status).toBe(302)
  expect((await get(`${s.base}/c/cpm-c`, { 'user-agent': BOT })).status).toBe(302)
  const rows = await testDb(s).all<{ cost: number; bot: string | null }>('SELECT cost, bot_reason AS bot FROM clicks WHERE campaign_id = $c ORDER BY id', { c: created.body.id })
  expect(rows.map((r) => [r.cost, r.bot !== null])).toEqual([[0.0025, false], [0.0025, false], [0.0025, false], [0.0025, false], [0, true]])
  const r = (await report(s, `campaign_id=${created.body.id}&from=2000-01-01&to=2099-01-01`)).body
  expect(r.total.clicks).toBe(5)
  expect(r.total.cost).toBeCloseTo(0.01, 9)
  // Switched to cpc, the next clicks cost the cpc (the cpm stays stored).
  expect((await s.api('PATCH', `/admin/api/campaigns/${created.body.id}`, { cost_model: 'cpc', cpc: 0.1 })).body).toMatchObject({ cost_model: 'cpc', cpc: 0.1, cpm: 2.5 })
  expect((await get(`${s.base}/c/cpm-c`, { 'user-agent': HUMAN })).status).toBe(302)
  expect((await testDb(s).get<{ cost: number }>('SELECT cost FROM clicks WHERE campaign_id = $c ORDER BY id DESC LIMIT 1', { c: created.body.id }))!.cost).toBe(0.1)
})
