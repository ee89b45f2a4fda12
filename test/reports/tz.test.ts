// Time zones: local days and hours from UTC rollup hours (DST-correct), from/to read in the report's zone,
// and the documented approximation for zones with half-hour offsets.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { testDb } from '../helpers/db'
import { startServer, type TestServer } from '../helpers/server'
import { Zone } from '../../src/reports/tz'
import { addClick, catalog, postback, report, settle, SERVER_TIMEOUT_MS } from './seed'

let s: TestServer
let campaign = 0
let offer = 0
const utc = (y: number, mo: number, d: number, h = 0, mi = 0) => Date.UTC(y, mo - 1, d, h, mi)
const click = (at: number, extra: Record<string, unknown> = {}) => addClick(s, { campaign, offer, at, ...extra })
const days = async (q: string) => (await report(s, `group_by=day&${q}`)).body.rows.map((r: any) => [r.key, r.clicks])

beforeAll(async () => {
  s = await startServer()
  const c = catalog(s)
  offer = await c.offer()
  campaign = await c.campaign({ offers: [offer] })
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

describe('days and hours in a time zone', () => {
  test('a click at 23:30 UTC is on the next day in Europe/Berlin, and in its 00:00 hour', async () => {
    await click(utc(2026, 1, 15, 23, 30))
    await click(utc(2026, 1, 15, 12, 0))
    const range = 'from=2026-01-14&to=2026-01-18'
    expect(await days(`${range}`)).toEqual([['2026-01-15', 2]])
    expect(await days(`${range}&tz=Europe/Berlin`)).toEqual([['2026-01-15', 1], ['2026-01-16', 1]])
    const hours = await report(s, `group_by=hour&${range}&tz=Europe/Berlin`)
    expect(hours.body.rows.map((r: any) => [r.key, r.clicks])).toEqual([['2026-01-15T13:00', 1], ['2026-01-16T00:00', 1]])
    expect((await report(s, `group_by=hour&${range}`)).body.rows.map((r: any) => r.key)).toEqual(['2026-01-15T12:00', '2026-01-15T23:00'])
  })

  test('from/to are local dates of the zone: Berlin\'s 16 January starts at 23:00 UTC on the 15th', async () => {
    const res = await report(s, 'from=2026-01-16&to=2026-01-17&tz=Europe/Berlin')
    expect(res.body).toMatchObject({ from: '2026-01-15T23:00:00.000Z', to: '2026-01-16T23:00:00.000Z', total: { clicks: 1 } })
    expect((await report(s, 'from=2026-01-16&to=2026-01-17')).body.total.clicks).toBe(0)
    // With an explicit offset the time is absolute, whatever tz says.
    expect((await report(s, 'from=2026-01-15T23:00:00Z&to=2026-01-16T00:00:00%2B00:00&tz=Asia/Tokyo')).body.total.clicks).toBe(1)
    // A local date-time without offset is read in the zone.
    expect((await report(s, 'from=2026-01-16T00:00&to=2026-01-16T01:00&tz=Europe/Berlin')).body.total.clicks).toBe(1)
  })

  test('DST: the spring-forward day ends at 22:00 UTC, the fall-back day at 23:00 UTC and has 25 hours', async () => {
    // 2026-03-29 Berlin: 00:30 UTC = 01:30 CET (29th); 22:30 UTC = 00:30 CEST on the 30th.
    await click(utc(2026, 3, 29, 0, 30))
    await click(utc(2026, 3, 29, 22, 30))
    expect(await days('from=2026-03-28&to=2026-04-01&tz=Europe/Berlin')).toEqual([['2026-03-29', 1], ['2026-03-30', 1]])
    // 2026-10-25 Berlin: 22:30 UTC on the 24th = 00:30 CEST (25th); 22:30 UTC on the 25th = 23:30 CET (25th).
    await click(utc(2026, 10, 24, 22, 30))
    await click(utc(2026, 10, 25, 22, 30))
    expect(await days('from=2026-10-24&to=2026-10-27&tz=Europe/Berlin')).toEqual([['2026-10-25', 2]])
    const res = await report(s, 'from=2026-10-25&to=2026-10-26&tz=Europe/Berlin')
    expect(Date.parse(res.body.to) - Date.parse(res.body.from)).toBe(25 * 3_600_000)
  })

  test('the hour repeated at fall-back (02:00 twice) is one local hour row', async () => {
    await click(utc(2026, 10, 25, 0, 30)) // 02:30 CEST
    await click(utc(2026, 10, 25, 1, 30)) // 02:30 CET
    const rows = (await report(s, 'group_by=hour&from=2026-10-25T02:00&to=2026-10-25T03:00&tz=Europe/Berlin')).body.rows
    expect(rows.map((r: any) => [r.key, r.clicks])).toEqual([['2026-10-25T02:00', 2]])
  })

  test('conversions fall on the local day of their own date', async () => {
    const id = await click(utc(2026, 2, 10, 12, 0))
    await settle(s)
    await postback(s, { subid: id, payout: 5, date: '2026-02-10T23:30:00Z' })
    const utcRows = (await report(s, 'group_by=day&from=2026-02-10&to=2026-02-12')).body.rows
    expect(utcRows.map((r: any) => [r.key, r.clicks, r.conversions])).toEqual([['2026-02-10', 1, 1]])
    const berlin = (await report(s, 'group_by=day&from=2026-02-10&to=2026-02-12&tz=Europe/Berlin')).body.rows
    expect(berlin.map((r: any) => [r.key, r.clicks, r.conversions])).toEqual([['2026-02-10', 1, 0], ['2026-02-11', 0, 1]])
  })

  test('half-hour zones: rollup reports place each UTC hour on the local day its start falls in; raw groupings are exact', async () => {
    // Asia/Kolkata is UTC+5:30. 18:10 UTC = 23:40 IST (20th); 18:40 UTC = 00:10 IST (21st). Both are in the
    // 18:00 UTC hour, which starts at 23:30 IST on the 20th.
    await click(utc(2026, 4, 20, 18, 10), { device: 'mobile' })
    await click(utc(2026, 4, 20, 18, 40), { device: 'mobile' })
    const q = 'from=2026-04-19&to=2026-04-23&tz=Asia/Kolkata'
    expect(await days(q)).toEqual([['2026-04-20', 2]])
    const exact = (await report(s, `group_by=day,device&${q}`)).body
    expect(exact.source).toBe('raw')
    expect(exact.rows.map((r: any) => [r.key, r.clicks])).toEqual([['2026-04-20', 1], ['2026-04-21', 1]])
  })

  test('rollup reports cover whole hours: from/to inside an hour are moved up to the next hour start', async () => {
    await click(utc(2026, 5, 5, 10, 20))
    await click(utc(2026, 5, 5, 11, 20))
    const res = await report(s, 'from=2026-05-05T10:15Z&to=2026-05-05T11:15Z')
    expect(res.body).toMatchObject({ from: '2026-05-05T11:00:00.000Z', to: '2026-05-05T12:00:00.000Z', total: { clicks: 1 } })
    expect((await report(s, 'group_by=device&from=2026-05-05T10:15Z&to=2026-05-05T11:15Z')).body).toMatchObject({
      from: '2026-05-05T10:15:00.000Z', total: { clicks: 1 },
    })
  })

  test('a range spanning daily and hourly rollups adds up (UTC days inside, hours at the edges)', async () => {
    for (const at of [utc(2026, 6, 1, 22), utc(2026, 6, 2, 5), utc(2026, 6, 3, 1), utc(2026, 6, 3, 23)]) await click(at)
    expect((await report(s, 'from=2026-06-01T22:00Z&to=2026-06-03T02:00Z')).body.total.clicks).toBe(3)
    expect((await report(s, 'from=2026-06-01T23:00Z&to=2026-06-04')).body.total.clicks).toBe(3)
    expect((await report(s, 'from=2026-06-01&to=2026-06-04&tz=America/New_York')).body.total.clicks).toBe(4)
  })
})

describe('local days from daily rollups', () => {
  test('equal grouping every UTC hour by the local day of its start, in zones with DST, half and three-quarter hours', async () => {
    const own = await catalog(s).campaign({ offers: [offer] })
    const base = utc(2026, 9, 17)
    const clickIds: string[] = []
    for (let i = 0; i < 400; i++) clickIds.push(await addClick(s, { campaign: own, offer, at: base + ((i * 7_919_993) % (26 * 86_400_000)) }))
    await settle(s)
    const convDates: number[] = []
    for (let i = 0; i < 40; i++) {
      const date = base + ((i * 55_555_577) % (26 * 86_400_000))
      convDates.push(date)
      await postback(s, { subid: clickIds[i]!, payout: 1, date: new Date(date).toISOString() })
    }
    const clickTimes = (await testDb(s).all<{ created_at: number }>('SELECT created_at FROM clicks WHERE campaign_id = $c', { c: own })).map((r) => r.created_at)
    // Chatham (+12:45 → +13:45) and Lord Howe (+10:30 → +11, a half-hour DST) change inside the range.
    for (const tz of ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Pacific/Chatham', 'Pacific/Kiritimati', 'America/St_Johns', 'Pacific/Pago_Pago']) {
      const res = (await report(s, `group_by=day&campaign_id=${own}&from=2026-09-20&to=2026-10-10&tz=${tz}`)).body
      const from = Date.parse(res.from)
      const to = Date.parse(res.to)
      const localDay = new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' })
      const want = new Map<string, [number, number]>()
      const count = (at: number, i: 0 | 1) => {
        const hour = at - (at % 3_600_000)
        if (hour < from || hour >= to) return
        const day = localDay.format(hour)
        const e = want.get(day) ?? [0, 0]
        e[i]++
        want.set(day, e)
      }
      for (const at of clickTimes) count(at, 0)
      for (const at of convDates) count(at, 1)
      const got = res.rows.map((r: any) => [r.key, r.clicks, r.conversions])
      expect({ tz, rows: got }).toEqual({ tz, rows: [...want].sort().map(([k, [c, v]]) => [k, c, v]) })
      expect(got.length).toBeGreaterThan(15)
    }
  }, SERVER_TIMEOUT_MS)
})

describe('Zone', () => {
  test('finds DST changes to the second and reads local wall times, skipping gaps forward', () => {
    const z = Zone.parse('America/New_York')
    const { first, changes } = z.changes(utc(2026, 1, 1), utc(2027, 1, 1))
    expect(first).toBe(-5 * 3_600_000)
    expect(changes).toEqual([[utc(2026, 3, 8, 7), -4 * 3_600_000], [utc(2026, 11, 1, 6), -5 * 3_600_000]])
    expect(z.instantOf(2026, 3, 8, 2, 30)).toBe(utc(2026, 3, 8, 7, 30)) // 02:30 does not exist → 03:30 EDT
    expect(z.instantOf(2026, 11, 1, 1, 30)).toBe(utc(2026, 11, 1, 5, 30)) // first 01:30 (EDT)
    expect(Zone.parse('Asia/Kolkata').changes(utc(2026, 1, 1), utc(2027, 1, 1))).toEqual({ first: 5.5 * 3_600_000, changes: [] })
  })
})
