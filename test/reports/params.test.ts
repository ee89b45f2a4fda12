// Query parameters of GET /admin/api/reports and /admin/api/reports/conversions: every bad value is a 400
// naming the parameter; permissions follow the reports section.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { addUser, cookieFor } from '../admin/helpers'
import { addClick, catalog, report, SERVER_TIMEOUT_MS } from './seed'

let s: TestServer
beforeAll(async () => {
  s = await startServer()
  const c = catalog(s)
  await addClick(s, { campaign: await c.campaign({ offers: [await c.offer()] }) })
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

const get = (path: string, cookie?: string) => s.api('GET', path, undefined, cookie)

describe('report parameters', () => {
  const cases: Array<[query: string, error: string]> = [
    ['group_by=foo', 'group_by: unknown grouping "foo" (one to three of campaign, source, offer, landing, day, hour, currency, device, os, browser, referrer, sub1, sub2, sub3, sub4, sub5, sub6, sub7, sub8, sub9, sub10, country, region, city, asn, connection, language, os_version, browser_version, path, comma-separated)'],
    ['group_by=campaign,offer,landing,source', 'group_by: at most three levels (one to three of campaign, source, offer, landing, day, hour, currency, device, os, browser, referrer, sub1, sub2, sub3, sub4, sub5, sub6, sub7, sub8, sub9, sub10, country, region, city, asn, connection, language, os_version, browser_version, path, comma-separated)'],
    ['group_by=campaign,campaign', 'group_by: the levels must differ'],
    ['group_by=campaign,day,campaign', 'group_by: the levels must differ'],
    ['group_by=sub11', 'group_by: unknown grouping "sub11" (one to three of campaign, source, offer, landing, day, hour, currency, device, os, browser, referrer, sub1, sub2, sub3, sub4, sub5, sub6, sub7, sub8, sub9, sub10, country, region, city, asn, connection, language, os_version, browser_version, path, comma-separated)'],
    ['tz=Mars/Olympus_Mons', 'tz: unknown time zone "Mars/Olympus_Mons"'],
    ['tz=X', 'tz: unknown time zone "X"'],
    ['from=yesterday', 'from: must be YYYY-MM-DD, an ISO 8601 date-time or epoch seconds/milliseconds (years 2000–2099)'],
    ['from=2026-02-30', 'from: must be YYYY-MM-DD, an ISO 8601 date-time or epoch seconds/milliseconds (years 2000–2099)'],
    ['from=1999-12-31', 'from: must be YYYY-MM-DD, an ISO 8601 date-time or epoch seconds/milliseconds (years 2000–2099)'],
    ['from=946684799', 'from: must be YYYY-MM-DD, an ISO 8601 date-time or epoch seconds/milliseconds (years 2000–2099)'],
    ['to=2026-01-01T24:00', 'to: must be YYYY-MM-DD, an ISO 8601 date-time or epoch seconds/milliseconds (years 2000–2099)'],
    ['to=2026-01-01T10:00+15:00', 'to: must be YYYY-MM-DD, an ISO 8601 date-time or epoch seconds/milliseconds (years 2000–2099)'],
    ['from=2026-01-02&to=2026-01-02', 'to: must be after from'],
    ['from=2026-01-03&to=2026-01-02', 'to: must be after from'],
    ['campaign_id=abc', 'campaign_id: must be a whole number (0 = none)'],
    ['source_id=-1', 'source_id: must be a whole number (0 = none)'],
    ['offer_id=1.5', 'offer_id: must be a whole number (0 = none)'],
    ['landing_id=1e3', 'landing_id: must be a whole number (0 = none)'],
    ['sort=name', 'sort: must be key, label, one of clicks, unique_clicks, bot_clicks, landing_views, landing_clicks, landing_ctr, conversions, revenue, cost, profit, roi, cr, epc, or revenue, profit, epc, roi in one currency (revenue.EUR)'],
    ['sort=revenue.ABC', 'sort: must be key, label, one of clicks, unique_clicks, bot_clicks, landing_views, landing_clicks, landing_ctr, conversions, revenue, cost, profit, roi, cr, epc, or revenue, profit, epc, roi in one currency (revenue.EUR)'],
    ['sort=clicks.EUR', 'sort: must be key, label, one of clicks, unique_clicks, bot_clicks, landing_views, landing_clicks, landing_ctr, conversions, revenue, cost, profit, roi, cr, epc, or revenue, profit, epc, roi in one currency (revenue.EUR)'],
    ['order=up', 'order: must be asc or desc'],
    ['limit=0', 'limit: must be a whole number from 1 to 1000'],
    ['limit=1001', 'limit: must be a whole number from 1 to 1000'],
    ['limit=ten', 'limit: must be a whole number from 1 to 1000'],
    ['offset=-5', 'offset: must be a whole number from 0 to 1000000000'],
    ['cursor=abc', 'cursor: must be a whole number from 0 to 1000000000'],
    ['format=xml', 'format: must be json or csv'],
  ]
  for (const [query, error] of cases) {
    test(`?${query} is a 400 naming the parameter`, async () => {
      const res = await get(`/admin/api/reports?${query}`)
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error } })
    })
  }

  test('an unknown time zone answers exactly {"error":"tz: unknown time zone \\"X\\""}', async () => {
    const res = await get('/admin/api/reports?tz=X')
    expect(res.text).toBe('{"error":"tz: unknown time zone \\"X\\""}')
    expect(res.headers.get('content-type')).toStartWith('application/json')
  })

  test('valid values are accepted: spaces around levels, limit 1000, empty values meaning "default", zone names in any case', async () => {
    for (const q of ['group_by=campaign,%20landing', 'from=1767225600&to=1767312000000', 'limit=1000&offset=0', 'group_by=&sort=&order=&tz=', 'tz=europe/berlin', 'tz=UTC&format=json', 'landing_id=0']) {
      const res = await get(`/admin/api/reports?${q}`)
      expect({ q, status: res.status }).toEqual({ q, status: 200 })
    }
    expect((await get('/admin/api/reports?tz=europe/berlin')).body.tz).toBe('Europe/Berlin')
  })

  test('defaults: group_by campaign, UTC, the last 30 days including today, clicks descending, 100 rows', async () => {
    const res = await report(s, '')
    const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate())
    expect(res.body).toMatchObject({
      group_by: ['campaign'], tz: 'UTC', source: 'rollups', limit: 100, offset: 0, next_cursor: null, total_rows: 1,
      from: new Date(today - 29 * 86_400_000).toISOString(), to: new Date(today + 86_400_000).toISOString(),
    })
    expect(res.body.rows[0].clicks).toBe(1)
  })

  test('the default range follows the zone: local midnights of Europe/Berlin', async () => {
    const res = await report(s, 'tz=Europe/Berlin')
    const local = (iso: string) =>
      new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(iso))
    expect(local(res.body.from)).toBe('00:00')
    expect(local(res.body.to)).toBe('00:00')
    const days = Math.round((Date.parse(res.body.to) - Date.parse(res.body.from)) / 86_400_000)
    expect(days).toBe(30)
  })
})

describe('conversions export parameters', () => {
  const cases: Array<[query: string, error: string]> = [
    ['format=json', 'format: must be csv'],
    ['tz=Nowhere/Land', 'tz: unknown time zone "Nowhere/Land"'],
    ['from=2026-13-01', 'from: must be YYYY-MM-DD, an ISO 8601 date-time or epoch seconds/milliseconds (years 2000–2099)'],
    ['from=2026-01-02&to=2026-01-01', 'to: must be after from'],
    ['campaign_id=x', 'campaign_id: must be a whole number (0 = none)'],
  ]
  for (const [query, error] of cases) {
    test(`?${query} is a 400 naming the parameter`, async () => {
      const res = await get(`/admin/api/reports/conversions?${query}`)
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error } })
    })
  }
})

describe('report permissions', () => {
  test('reports:read may read both endpoints; other sections get 403; no session gets 401', async () => {
    const reader = await cookieFor(s, await addUser(s, 'reader@example.com', { reports: { read: true, write: false } }))
    const writerOnly = await cookieFor(s, await addUser(s, 'writer@example.com', { reports: { read: false, write: true } }))
    const other = await cookieFor(s, await addUser(s, 'other@example.com', { campaigns: { read: true, write: true }, conversions: { read: true, write: true } }))
    for (const path of ['/admin/api/reports', '/admin/api/reports?format=csv', '/admin/api/reports/conversions?format=csv']) {
      expect({ path, status: (await get(path, reader)).status }).toEqual({ path, status: 200 })
      for (const cookie of [writerOnly, other]) {
        const res = await get(path, cookie)
        expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 403, body: { error: 'missing permission reports:read' } })
      }
      const anon = await get(path, '')
      expect({ path, status: anon.status, body: anon.body }).toEqual({ path, status: 401, body: { error: 'not authenticated' } })
    }
  })

  test('a 403 is decided before the parameters are read (no 400 that describes them)', async () => {
    const other = await cookieFor(s, await addUser(s, 'other2@example.com', { campaigns: { read: true, write: false } }))
    expect((await get('/admin/api/reports?tz=X', other)).status).toBe(403)
    expect((await get('/admin/api/reports?tz=X', '')).status).toBe(401)
  })
})
