// Cost updates (docs/costs.md) through the real surface, on either engine: the spend of a range spread over the
// matching clicks to the cent, replacing their cost; every report (by campaign, day, sub1, country, path) equal to
// a sum over the raw click rows afterwards; idempotent re-sends and CSV uploads; the 400s and 409s.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { randomUUID } from 'node:crypto'
import { testDb } from '../helpers/db'
import { startServer, type TestServer } from '../helpers/server'
import { addClick, catalog, DAY, report, SERVER_TIMEOUT_MS, utcDay } from '../reports/seed'
import { newClick } from '../../src/tracking/store/click'

let s: TestServer
let offer = 0
let campX = 0
let slugX = ''
let campSmall = 0
let campEmpty = 0
const pathA = 901
const date = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const D3 = utcDay(-3)
const D2 = utcDay(-2)
const D1 = utcDay(-1)
const RANGE = `from=${date(D3 - 5 * DAY)}&to=${date(utcDay(1))}`

const cents = (x: number) => Math.round(x * 100)
const db = () => testDb(s)
const rawCost = async (where: string, p: Record<string, unknown> = {}) =>
  Number((await db().get<{ c: number }>(`SELECT coalesce(sum(cost), 0) AS c FROM clicks WHERE excluded = 0 AND ${where}`, p))!.c)
const costs = async (campaign: number) =>
  (await db().all<{ id: number; cost: number }>('SELECT id, cost FROM clicks WHERE campaign_id = $c ORDER BY id', { c: campaign })).map((r) => [Number(r.id), r.cost])

/** A click with a stored link parameter (params JSON), which addClick does not write. */
async function paramClick(campaign: number, at: number, zone: string) {
  await s.server.clicks.import([newClick({
    clickId: randomUUID(), campaignId: campaign, offerId: offer, ip: '203.0.113.9', userAgent: 'test', isUnique: true, cost: 0.01,
    params: JSON.stringify({ zone, utm_source: 'x' }), createdAt: at,
  })])
}

beforeAll(async () => {
  s = await startServer()
  const c = catalog(s)
  offer = await c.offer('O', 1)
  slugX = `cx-${Date.now()}`
  campX = await c.campaign({ slug: slugX, offers: [offer], costModel: 'cpc', cpc: 0.05 })
  campSmall = await c.campaign({ offers: [offer] })
  campEmpty = await c.campaign({ offers: [offer] })
  // Campaign X: three days of clicks over two sub1 zones, countries and paths, bots and own-IP clicks.
  let i = 0
  for (const day of [D3, D2, D1]) {
    for (let k = 0; k < 7; k++) {
      i++
      await addClick(s, {
        campaign: campX, offer, at: day + 3_600_000 * (k + 1) + i, sub1: k % 3 === 0 ? 'z1' : 'z2', country: k % 2 ? 'DE' : k % 5 ? 'FR' : null,
        path: k % 4 === 0 ? pathA : null, bot: k === 5 ? 'bot_user_agent' : null, excluded: k === 6, cost: k === 5 ? 0 : 0.05,
      })
    }
  }
  // Folded into the targeting rollups (a report settles) before the update…
  await report(s, `group_by=country&${RANGE}`)
  // …and these after it is sent, not yet folded (SQLite): the update must leave both exact.
  await addClick(s, { campaign: campX, offer, at: D2 + 20 * 3_600_000, sub1: 'z1', country: 'DE', cost: 0.05 })
  await addClick(s, { campaign: campX, offer, at: D1 + 21 * 3_600_000, sub1: 'z2', country: 'FR', path: pathA, cost: 0.05 })
  // Three clicks (plus one own-IP) for the remainder case.
  for (let k = 0; k < 3; k++) await addClick(s, { campaign: campSmall, offer, at: D2 + k * 60_000 })
  await addClick(s, { campaign: campSmall, offer, at: D2 + 10 * 60_000, excluded: true, cost: 0.5 })
  await paramClick(campSmall, D1 + 1000, '77')
  await paramClick(campSmall, D1 + 2000, '77')
  await paramClick(campSmall, D1 + 3000, '88')
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

const update = (body: Record<string, unknown>) => s.api('POST', '/admin/api/cost-updates', body)

/** Every report dimension equals the raw rows: key → [clicks, cents of cost]. */
async function expectExact(campaign: number) {
  const dims: Array<[string, string]> = [
    ['campaign', 'campaign_id'],
    ['day', "substr(CAST(created_at AS TEXT), 1, 0) || 'd'"],
    ['sub1', "coalesce(sub1, '')"],
    ['country', "coalesce(country, '')"],
    ['path', 'coalesce(path_id, 0)'],
  ]
  for (const [dim] of dims) {
    const r = (await report(s, `group_by=${dim}&campaign_id=${campaign}&${RANGE}&limit=1000`)).body
    const raw = await db().all<{ clicks: number; cost: number }>(
      'SELECT count(*) AS clicks, sum(cost) AS cost FROM clicks WHERE excluded = 0 AND campaign_id = $c ' +
        `GROUP BY ${dim === 'day' ? `created_at - created_at % ${DAY}` : dim === 'campaign' ? 'campaign_id' : dim === 'sub1' ? 'sub1' : dim === 'country' ? 'country' : 'path_id'}`,
      { c: campaign },
    )
    const fromReport = r.rows.map((x: any) => [x.clicks, cents(x.cost)]).sort()
    const fromRaw = raw.map((x) => [Number(x.clicks), cents(Number(x.cost))]).sort()
    expect({ dim, rows: fromReport }).toEqual({ dim, rows: fromRaw })
    expect(cents(r.total.cost)).toBe(cents(await rawCost('campaign_id = $c', { c: campaign })))
  }
}

describe('cost updates', () => {
  test('10.00 over 3 clicks: 3.34 + 3.33 + 3.33, own-IP clicks untouched', async () => {
    const res = await update({ campaign_id: campSmall, from: date(D2), to: date(D2), amount: '10' })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ campaign_id: campSmall, from: date(D2), to: date(D2), time_zone: 'UTC', sub: null, amount: 10, currency: 'USD', clicks: 3 })
    expect(res.body.days).toEqual([{ day: date(D2), clicks: 3, amount: 10 }])
    const rows = await db().all<{ cost: number; excluded: number }>(
      'SELECT cost, excluded FROM clicks WHERE campaign_id = $c AND created_at >= $a AND created_at < $b ORDER BY created_at, id', { c: campSmall, a: D2, b: D2 + DAY })
    expect(rows.map((r) => [r.cost, Number(r.excluded)])).toEqual([[3.34, 0], [3.33, 0], [3.33, 0], [0.5, 1]])
    await expectExact(campSmall)
  })

  test('over a range, without and with a sub value: reports by campaign, day, sub1, country and path equal the raw rows', async () => {
    const res = await update({ campaign_id: campX, from: date(D3), to: date(D1), amount: 123.45 })
    expect(res.status).toBe(200)
    // 6 priced clicks a day (bots included, own-IP left out) plus the two late ones.
    expect(res.body.clicks).toBe(20)
    expect(res.body.days.map((d: any) => d.clicks)).toEqual([6, 7, 7])
    expect(cents(res.body.days.reduce((a: number, d: any) => a + d.amount, 0))).toBe(12345)
    expect(cents(await rawCost('campaign_id = $c', { c: campX }))).toBe(12345)
    // The bot click carries its share: the source billed it.
    expect(await db().get('SELECT count(*) AS n FROM clicks WHERE campaign_id = $c AND bot_reason IS NOT NULL AND cost > 0', { c: campX })).toEqual({ n: 3 })
    await expectExact(campX)

    const z1 = await update({ campaign_id: campX, from: date(D2), to: date(D2), sub: { name: 'sub1', value: 'z1' }, amount: '7.77' })
    expect(z1.status).toBe(200)
    expect(z1.body.clicks).toBe(3)
    expect(cents(await rawCost("campaign_id = $c AND sub1 = 'z1' AND created_at >= $a AND created_at < $b", { c: campX, a: D2, b: D2 + DAY }))).toBe(777)
    await expectExact(campX)
  })

  test('a link parameter as the sub: only the clicks whose params carry the value', async () => {
    const res = await update({ campaign_id: campSmall, from: date(D1), to: date(D1), sub: { name: 'zone', value: '77' }, amount: 1 })
    expect(res.status).toBe(200)
    expect(res.body.clicks).toBe(2)
    expect((await db().all<{ cost: number }>('SELECT cost FROM clicks WHERE campaign_id = $c AND created_at >= $a ORDER BY id', { c: campSmall, a: D1 })).map((r) => r.cost))
      .toEqual([0.5, 0.5, 0.01])
    await expectExact(campSmall)
  })

  test('idempotent: the same update twice leaves the same costs; a second update of a day replaces the first', async () => {
    const body = { campaign_id: campX, from: date(D3), to: date(D1), amount: '50.01' }
    expect((await update(body)).status).toBe(200)
    const once = await costs(campX)
    expect((await update(body)).status).toBe(200)
    expect(await costs(campX)).toEqual(once)
    expect(cents(await rawCost('campaign_id = $c', { c: campX }))).toBe(5001)
    const dayCost = (d: number) => rawCost('campaign_id = $c AND created_at >= $a AND created_at < $b', { c: campX, a: d, b: d + DAY })
    const others = [cents(await dayCost(D3)), cents(await dayCost(D1))]
    expect(cents(await dayCost(D2))).not.toBe(100)
    expect((await update({ ...body, from: date(D2), to: date(D2), amount: 1 })).status).toBe(200)
    expect((await update({ ...body, from: date(D2), to: date(D2), amount: 1 })).status).toBe(200)
    expect(cents(await dayCost(D2))).toBe(100)
    expect([cents(await dayCost(D3)), cents(await dayCost(D1))]).toEqual(others)
    await expectExact(campX)
  })

  test('CSV upload: rows by id or slug, the sub from the query; checked first, applied, idempotent', async () => {
    const csv = `date,campaign,sub_value,amount\r\n${date(D3)},${slugX},z1,2.00\r\n${date(D3)},${campX},z2,3.01\r\n${date(D1)},${campSmall},,0.99\r\n`
    const up = () => fetch(`${s.base}/admin/api/cost-updates/import?sub=sub1`, {
      method: 'POST', headers: { 'content-type': 'text/csv', cookie: cookie!, origin: s.base }, body: csv,
    })
    const cookie = await s.login()
    const first = await up()
    expect(first.status).toBe(200)
    const body = await first.json() as any
    expect(body.rows.map((r: any) => [r.row, r.campaign_id, r.sub?.value ?? null, r.amount, r.clicks])).toEqual([
      [2, campX, 'z1', 2, 2], [3, campX, 'z2', 3.01, 4], [4, campSmall, null, 0.99, 3],
    ])
    const after = [await costs(campX), await costs(campSmall)]
    expect((await up()).status).toBe(200)
    expect([await costs(campX), await costs(campSmall)]).toEqual(after)
    expect(cents(await rawCost("campaign_id = $c AND sub1 = 'z1' AND created_at >= $a AND created_at < $b", { c: campX, a: D3, b: D3 + DAY }))).toBe(200)
    expect(cents(await rawCost('campaign_id = $c AND created_at >= $a AND created_at < $b', { c: campSmall, a: D1, b: D1 + DAY }))).toBe(99)
    await expectExact(campX)
    await expectExact(campSmall)

    const bad = async (text: string, query = '') => {
      const res = await fetch(`${s.base}/admin/api/cost-updates/import${query}`, { method: 'POST', headers: { 'content-type': 'text/csv', cookie, origin: s.base }, body: text })
      return { status: res.status, error: ((await res.json()) as any).error as string }
    }
    const before = await costs(campX)
    expect(await bad(`${date(D3)},${campX},,1\n${date(D2)},${campX},,-1\n`)).toEqual({ status: 400, error: 'row 2, amount: must be 0 or more' })
    expect(await bad(`${date(D3)},${campX},,1\n2026-02-30,${campX},,1\n`)).toEqual({ status: 400, error: 'row 2, date: 2026-02-30 is not a calendar date' })
    expect(await bad(`${date(D3)},${campX},z1,1\n`)).toMatchObject({ status: 400, error: expect.stringContaining('row 1, sub:') })
    expect(await bad(`${date(D3)},no-such-campaign,,1\n`)).toEqual({ status: 400, error: 'row 1, campaign: no campaign "no-such-campaign"' })
    expect(await bad(`${date(D3)},${campX},,abc\n`)).toMatchObject({ status: 400, error: expect.stringContaining('row 1, amount:') })
    expect(await bad(`${date(D3)},${campX},,1\n${date(D3)},${campEmpty},,5\n`)).toMatchObject({ status: 409, error: expect.stringContaining('row 2: no clicks') })
    // Nothing of a refused file was applied.
    expect(await costs(campX)).toEqual(before)
  })

  test('400s, 404 and 409s', async () => {
    const ok = { campaign_id: campX, from: date(D3), to: date(D1), amount: 1 }
    const err = async (body: Record<string, unknown>) => {
      const r = await update(body)
      return [r.status, r.body.error]
    }
    expect(await err({ ...ok, from: '2026-13-01' })).toEqual([400, 'from: 2026-13-01 is not a calendar date'])
    expect(await err({ ...ok, from: 'yesterday' })).toEqual([400, 'from: must be a date YYYY-MM-DD'])
    expect(await err({ ...ok, from: date(D1), to: date(D3) })).toEqual([400, 'to: must not be before from'])
    expect(await err({ ...ok, amount: -5 })).toEqual([400, 'amount: must be 0 or more'])
    expect(await err({ ...ok, amount: 'ten' })).toEqual([400, 'amount: must be a decimal amount such as 12.50'])
    expect(await err({ ...ok, amount: '1.005' })).toEqual([400, 'amount: at most 2 decimals (whole cents)'])
    expect(await err({ ...ok, time_zone: 'Mars/Base' })).toEqual([400, 'time_zone: unknown time zone "Mars/Base"'])
    expect(await err({ ...ok, sub: { name: 'x"y', value: '1' } })).toMatchObject([400, expect.stringContaining('sub.name:')])
    expect((await update({ ...ok, campaign_id: 999999 })).status).toBe(404)
    const none = await err({ ...ok, campaign_id: campEmpty })
    expect(none[0]).toBe(409)
    expect(none[1]).toContain('no clicks of campaign')
    expect((await err({ ...ok, sub: { name: 'sub1', value: 'nobody' } }))[0]).toBe(409)
    // Retention: days older than raw_click_retention_days are refused by name.
    expect((await s.api('PUT', '/admin/api/settings', { raw_click_retention_days: 2 })).status).toBe(200)
    try {
      const gone = await err(ok)
      expect(gone[0]).toBe(409)
      expect(gone[1]).toContain(`the raw clicks of ${date(D3)}, ${date(D2)} are deleted by raw_click_retention_days (2)`)
    } finally {
      expect((await s.api('PUT', '/admin/api/settings', { raw_click_retention_days: 0 })).status).toBe(200)
    }
  })

  test('the history lists each day of each update', async () => {
    const res = await s.api('GET', `/admin/api/cost-updates?campaign_id=${campSmall}&limit=100`)
    expect(res.status).toBe(200)
    expect(res.body.items.length).toBeGreaterThanOrEqual(3)
    expect(res.body.items[0]).toMatchObject({ campaign_id: campSmall, day: date(D2), time_zone: 'UTC', sub: null, amount: 10, currency: 'USD', clicks: 3, created_by: 'owner@example.com' })
    expect(res.body.items.some((r: any) => r.sub?.name === 'zone' && r.sub.value === '77' && r.clicks === 2)).toBe(true)
  })
})
