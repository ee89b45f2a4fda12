// Raw click retention (setting raw_click_retention_days): old click rows and their click_index entries are
// deleted, while reports keep their totals (clicks are counted when they commit) and conversions keep
// their attribution. A postback for a pruned click finds no click. (click_index exists on SQLite only.)
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { testDb } from '../helpers/db'
import { onPostgres } from '../helpers/pg'
import { startServer, type TestServer } from '../helpers/server'
import { addClick, catalog, DAY, postback, report, settle, SERVER_TIMEOUT_MS } from './seed'

let s: TestServer
let campaign = 0
let offer = 0
let landing = 0
const old: string[] = []
const recent: string[] = []
const count = async (sql: string, p: Record<string, unknown> = {}) => (await testDb(s).get<{ n: number }>(sql, p))!.n

/** Polls `check` until it holds; fails naming `what` after `timeoutMs`. */
async function eventually(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(20)
  }
}
const RANGE = 'from=2000-01-01&to=2099-01-01'

beforeAll(async () => {
  s = await startServer()
  const c = catalog(s)
  offer = await c.offer()
  landing = await c.landing()
  campaign = await c.campaign({ offers: [offer], landings: [landing] })
  const at = (daysAgo: number) => Date.now() - daysAgo * DAY
  for (let i = 0; i < 12; i++) old.push(await addClick(s, { campaign, offer, landing, at: at(10 + i), device: 'desktop', cost: 0.25 }))
  for (let i = 0; i < 5; i++) recent.push(await addClick(s, { campaign, offer, landing, at: at(i), device: 'mobile', cost: 0.25 }))
  await settle(s)
  await postback(s, { subid: old[0]!, payout: 10, date: new Date(at(10)).toISOString() })
  await postback(s, { subid: recent[0]!, payout: 5 })
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

describe('raw click retention', () => {
  test('is off by default: nothing is deleted', async () => {
    expect((await s.api('GET', '/admin/api/settings')).body.raw_click_retention_days).toBe(0)
    await Bun.sleep(100)
    expect(await count('SELECT count(*) AS n FROM clicks')).toBe(17)
  })

  test('deletes clicks older than N days with their index rows, keeps report totals and conversions', async () => {
    const before = {
      byCampaign: (await report(s, RANGE)).body,
      byDay: (await report(s, `group_by=day&${RANGE}`)).body.rows,
      byLanding: (await report(s, `group_by=campaign,landing&${RANGE}`)).body.rows,
    }
    expect(before.byCampaign.total).toMatchObject({ clicks: 17, conversions: 2, revenue: 15, cost: 4.25 })
    // A click in an indexed bucket goes with its click_index entry (SQLite; Postgres has no click_index).
    const indexed = await addClick(s, { campaign, offer, landing, at: Date.now() - 30 * DAY, cost: 0.25 })
    if (!onPostgres) {
      const indexedRow = await count('SELECT id AS n FROM clicks WHERE click_id = $id', { id: indexed })
      await testDb(s).run('INSERT INTO click_index (bucket, key, click_row) VALUES ($b, $k, $r)', { b: 0, k: parseInt(indexed.slice(0, 8), 16), r: indexedRow })
    }
    const withLate = (await report(s, RANGE)).body
    expect(withLate.total.clicks).toBe(18)

    expect((await s.api('PUT', '/admin/api/settings', { raw_click_retention_days: 7 })).status).toBe(200)
    await eventually(async () => (await count('SELECT count(*) AS n FROM clicks WHERE created_at < $t', { t: Date.now() - 7 * DAY })) === 0, 8000, 'old clicks pruned')
    expect(await count('SELECT count(*) AS n FROM clicks')).toBe(5)
    if (!onPostgres) expect(await count('SELECT count(*) AS n FROM click_index')).toBe(0)
    expect(await count('SELECT count(*) AS n FROM conversions')).toBe(2)
    const kept = await testDb(s).get('SELECT campaign_id, offer_id, landing_id, revenue FROM conversions WHERE click_id = $id', { id: old[0] })
    expect(kept).toEqual({ campaign_id: campaign, offer_id: offer, landing_id: landing, revenue: 10 })

    // Report totals are unchanged by the pruning.
    const after = (await report(s, RANGE)).body
    expect(after.total).toEqual(withLate.total)
    expect(after.total).toEqual({ ...before.byCampaign.total, clicks: 18, unique_clicks: 18, cost: 4.5, cr: 11.111111, epc: 0.833333, profit: 10.5, roi: 233.333333 })
    const byDay = (await report(s, `group_by=day&${RANGE}`)).body.rows
    expect(byDay.filter((r: any) => r.clicks !== 1 || r.key !== new Date(Date.now() - 30 * DAY).toISOString().slice(0, 10))).toEqual(before.byDay)
    expect((await report(s, `group_by=campaign,landing&${RANGE}`)).body.rows[0].children[0].clicks).toBe(18)
  })

  test('raw-click groupings only cover what is still kept', async () => {
    const byDevice = (await report(s, `group_by=device&${RANGE}`)).body.rows.map((r: any) => [r.key, r.clicks, r.conversions])
    expect(byDevice).toEqual([['mobile', 5, 1]])
  })

  test('a postback for a pruned click records nothing and is listed as unknown_click', async () => {
    await postback(s, { subid: old[1]!, payout: 3 })
    expect(await count('SELECT count(*) AS n FROM conversions')).toBe(2)
    const err = await testDb(s).get('SELECT reason, click_id FROM postback_errors ORDER BY id DESC LIMIT 1')
    expect(err).toEqual({ reason: 'unknown_click', click_id: old[1]! })
    // A kept click still converts.
    await postback(s, { subid: recent[1]!, payout: 1 })
    expect(await count('SELECT count(*) AS n FROM conversions')).toBe(3)
  })

  test('survives a restart and prunes at start', async () => {
    await s.stop()
    const dir = s.dataDir
    // A click that became old while the server was down (on SQLite already indexed, as the index watermark is above it).
    const aged = { at: Date.now() - 20 * DAY, id: recent[4]! }
    if (onPostgres) {
      await testDb(s).run('UPDATE clicks SET created_at = $at WHERE click_id = $id', aged) // the test's own client: the server's is closed
    } else {
      const db = new (await import('bun:sqlite')).Database(`${dir}/svc.db`)
      db.run('UPDATE clicks SET created_at = ? WHERE click_id = ?', [aged.at, aged.id])
      db.close()
    }
    s = await startServer({}, dir)
    await eventually(async () => (await count('SELECT count(*) AS n FROM clicks WHERE click_id = $id', { id: recent[4] })) === 0, 8000, 'pruned at start')
    expect(await count('SELECT count(*) AS n FROM clicks')).toBe(4)
  }, SERVER_TIMEOUT_MS)
})
