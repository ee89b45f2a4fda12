// The click export (issue 28): GET /admin/api/clicks/export and the export_clicks MCP tool. Clicks come
// through /c from addresses behind a trusted X-Forwarded-For, looked up in the shipped IP data
// (8.8.8.8 → US, AS15169, hosting; 79.192.0.1 → DE, residential), or are imported with chosen times
// for the range, tie and paging cases. The file is read back with the CSV parser of lib/csv.ts.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { newClick } from '../../src/tracking'
import { parseCsv } from '../../src/lib/csv'
import { get, startServer, type TestServer } from '../helpers/server'
import { call, createToken, withClient } from '../agent/helpers'
import { cookieClickId, SERVER_TIMEOUT_MS } from './seed'

const HEADER =
  'click_id,campaign_id,source_id,offer_id,landing_id,ip,user_agent,referrer,sub1,sub2,sub3,sub4,sub5,sub6,sub7,sub8,sub9,sub10,' +
  'params,bot_reason,excluded,is_unique,cost,device_type,os,browser,referrer_domain,landing_viewed_at,landing_clicked_at,created_at,' +
  'country,asn,as_org,connection,language,os_version,browser_version,region,city,path_id'
const CHROME_ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.122 Mobile Safari/537.36'
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
/** 2024-03-01T00:00:00Z: imported clicks live in March 2024, far from the /c clicks of today. */
const MARCH = Date.UTC(2024, 2, 1)
const HOUR = 3_600_000

let s: TestServer
let geo: { id: number; pathId: number }
let other: number
let imported: number
let importedIds: string[] = []

async function make(path: string, body: unknown, method = 'POST'): Promise<any> {
  const res = await s.api(method, path, body)
  if (res.status !== 201 && res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`)
  return res.body
}

/** The export as rows of cells keyed by the header; asserts a 200 CSV file. */
async function exported(query: string, cookie?: string): Promise<{ rows: Array<Record<string, string>>; res: Awaited<ReturnType<TestServer['api']>> }> {
  const res = await s.api('GET', `/admin/api/clicks/export${query}`, undefined, cookie)
  expect({ status: res.status, text: res.status === 200 ? '' : res.text }).toEqual({ status: 200, text: '' })
  expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
  const parsed = parseCsv(res.text)
  if (!('rows' in parsed)) throw new Error(`bad CSV: ${parsed.error} at line ${parsed.line}`)
  const [head, ...rows] = parsed.rows
  expect(head!.join(',')).toBe(HEADER)
  for (const r of rows) expect(r).toHaveLength(head!.length)
  return { rows: rows.map((r) => Object.fromEntries(head!.map((h, i) => [h, r[i]!]))), res }
}

const today = () => new Date().toISOString().slice(0, 10)
const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)

beforeAll(async () => {
  s = await startServer({ SVC_TRUST_PROXY: '1' })
  const offer = (await make('/admin/api/offers', { name: 'o', slug: 'o-export', url: 'https://offer.example/?c={click_id}' })).id
  const dePath = { name: 'Germany', conditions: [{ type: 'country', values: ['DE'] }], action: { type: 'rotation', offers: [{ offer_id: offer }] } }
  const c = await make('/admin/api/campaigns', { name: 'geo', slug: 'geo-export', offers: [{ offer_id: offer }], paths: [dePath] })
  geo = { id: c.id, pathId: c.paths[0].id }
  other = (await make('/admin/api/campaigns', { name: 'other', slug: 'other-export', offers: [{ offer_id: offer }] })).id
  imported = (await make('/admin/api/campaigns', { name: 'imported', slug: 'imported-export', offers: [{ offer_id: offer }] })).id
  // 2 500 clicks over 4 distinct times (700 per millisecond): pages of 1 000 end inside a run of equal
  // created_at, so only a (created_at, id) cursor gets every click exactly once.
  const clicks = Array.from({ length: 2500 }, (_, i) => newClick({
    clickId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, campaignId: imported, createdAt: MARCH + Math.floor(i / 700) * HOUR,
  }))
  // Imported newest first: row order differs from time order, so the export must sort by created_at.
  clicks.reverse()
  await s.server.clicks.import(clicks)
  // Export order: created_at, then row (insertion order) among equal times.
  importedIds = clicks.map((c, row) => ({ c, row })).sort((a, b) => a.c.createdAt - b.c.createdAt || a.row - b.row).map(({ c }) => c.clickId)
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

describe('GET /admin/api/clicks/export', () => {
  test('a /c click: every stored field in column order, the geo and network columns filled, path_id the path that took it', async () => {
    const us = await get(`${s.base}/c/geo-export?sub1=a&utm_source=news`, {
      'user-agent': CHROME_ANDROID, 'x-forwarded-for': '8.8.8.8', 'accept-language': 'de-CH,de;q=0.9', referer: 'https://ref.example/x',
    })
    const de = await get(`${s.base}/c/geo-export`, { 'user-agent': CHROME_ANDROID, 'x-forwarded-for': '79.192.0.1' })
    const { rows, res } = await exported(`?campaign_id=${geo.id}&from=${today()}&to=${tomorrow()}`)
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="clicks-${today()}-${today()}.csv"`)
    expect(rows).toHaveLength(2)
    expect(rows[0]).toEqual({
      click_id: cookieClickId(us)!, campaign_id: String(geo.id), source_id: '', offer_id: expect.stringMatching(/^\d+$/), landing_id: '',
      ip: '8.8.8.8', user_agent: CHROME_ANDROID, referrer: 'https://ref.example/x',
      sub1: 'a', sub2: '', sub3: '', sub4: '', sub5: '', sub6: '', sub7: '', sub8: '', sub9: '', sub10: '',
      params: '{"utm_source":"news"}', bot_reason: '', excluded: 'false', is_unique: 'true', cost: '0',
      device_type: 'mobile', os: 'Android', browser: 'Chrome', referrer_domain: 'ref.example', landing_viewed_at: '', landing_clicked_at: '',
      created_at: expect.stringMatching(ISO),
      country: 'US', asn: '15169', as_org: 'Google LLC', connection: 'hosting', language: 'de', os_version: '14', browser_version: '126',
      region: '', city: '', path_id: '',
    })
    expect(rows[1]).toMatchObject({ click_id: cookieClickId(de)!, country: 'DE', connection: 'residential', path_id: String(geo.pathId) })
    // The same values as the click lookup shows.
    const view = (await s.api('GET', `/admin/api/clicks/${cookieClickId(us)}`)).body
    expect(rows[0]!.created_at).toBe(view.created_at)
    expect(rows[0]!.as_org).toBe(view.as_org)
  })

  test('the default range is the last 30 UTC days: today\'s clicks are in it, March 2024\'s are not', async () => {
    await get(`${s.base}/c/other-export`, { 'user-agent': CHROME_ANDROID, 'x-forwarded-for': '79.192.0.1' })
    const { rows, res } = await exported('')
    const first = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() - 29)).toISOString().slice(0, 10)
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="clicks-${first}-${today()}.csv"`)
    expect(rows.length).toBeGreaterThanOrEqual(3)
    expect(rows.some((r) => r.campaign_id === String(imported))).toBe(false)
    expect(new Set(rows.map((r) => r.campaign_id))).toEqual(new Set([String(geo.id), String(other)]))
  })

  test('campaign_id keeps one campaign', async () => {
    const { rows } = await exported(`?campaign_id=${other}`)
    expect(rows.length).toBeGreaterThanOrEqual(1)
    expect(rows.every((r) => r.campaign_id === String(other))).toBe(true)
  })

  test('2 500 clicks, 700 per millisecond: every one exactly once, oldest first, across pages', async () => {
    const { rows } = await exported(`?campaign_id=${imported}&from=2024-03-01&to=2024-03-02`)
    expect(rows.map((r) => r.click_id)).toEqual(importedIds)
    expect(rows[0]!.created_at).toBe('2024-03-01T00:00:00.000Z')
    expect(rows.at(-1)!.created_at).toBe('2024-03-01T03:00:00.000Z')
    // Without the campaign filter (the other index), the same clicks.
    const all = await exported('?from=2024-03-01T00:00:00Z&to=2024-03-02T00:00:00Z')
    expect(all.rows.map((r) => r.click_id)).toEqual(importedIds)
  })

  test('from is inclusive, to exclusive, as ISO date-times with a zone or epoch milliseconds', async () => {
    // 01:00 to 03:00 UTC: the clicks at 01:00 and 02:00 (the 2nd and 3rd 700).
    const a = await exported(`?campaign_id=${imported}&from=2024-03-01T02:00:00%2B01:00&to=${MARCH + 3 * HOUR}`)
    expect(a.rows.map((r) => r.click_id)).toEqual(importedIds.slice(700, 2100))
    expect(a.res.headers.get('content-disposition')).toBe('attachment; filename="clicks-2024-03-01-2024-03-01.csv"')
  })

  test('limit caps the rows, inside a run of equal times and past a page', async () => {
    for (const limit of [1, 699, 1001]) {
      const { rows } = await exported(`?campaign_id=${imported}&from=2024-03-01&to=2024-03-02&limit=${limit}`)
      expect(rows.map((r) => r.click_id)).toEqual(importedIds.slice(0, limit))
    }
  })

  test('an empty range is the header row alone', async () => {
    const { rows, res } = await exported('?from=2023-01-01&to=2023-01-02')
    expect(rows).toEqual([])
    expect(res.text).toBe(`${HEADER}\r\n`)
  })

  test('text a visitor sent that a spreadsheet would run as a formula is neutralised, as in the conversions export', async () => {
    const evil = { sub1: '=HYPERLINK("https://evil.example","x")', sub2: '+1+1', sub3: '-2', sub4: '@SUM(A1)', sub5: ' =1', sub6: 'ok' }
    const q = new URLSearchParams(evil).toString()
    const res = await get(`${s.base}/c/other-export?${q}`, { 'user-agent': '=cmd|"/c calc"!A1', 'x-forwarded-for': '79.192.0.1' })
    const { rows, res: file } = await exported(`?campaign_id=${other}`)
    const row = rows.find((r) => r.click_id === cookieClickId(res))!
    expect([row.sub1, row.sub2, row.sub3, row.sub4, row.sub5, row.sub6, row.user_agent]).toEqual([
      `'${evil.sub1}`, "'+1+1", "'-2", "'@SUM(A1)", "' =1", 'ok', `'=cmd|"/c calc"!A1`,
    ])
    // On the wire: quoted, the inner quotes doubled.
    expect(file.text).toContain(`"'=HYPERLINK(""https://evil.example"",""x"")"`)
  })

  test('bad input is a 400 naming the field, never a 500', async () => {
    const cases: Array<[string, string]> = [
      ['?from=yesterday', 'from: must be an ISO 8601 date or epoch seconds/milliseconds'],
      ['?to=2024-02-30', 'to: must be an ISO 8601 date or epoch seconds/milliseconds'],
      ['?from=2024-03-02&to=2024-03-01', 'to: must be after from'],
      ['?from=2024-03-01&to=2024-03-01', 'to: must be after from'],
      ['?campaign_id=abc', `campaign_id: must be a whole number from 1 to ${Number.MAX_SAFE_INTEGER}`],
      ['?campaign_id=-1', `campaign_id: must be a whole number from 1 to ${Number.MAX_SAFE_INTEGER}`],
      ['?limit=0', 'limit: must be a whole number from 1 to 100000000'],
      ['?limit=1.5', 'limit: must be a whole number from 1 to 100000000'],
      ['?limit=999999999999', 'limit: must be a whole number from 1 to 100000000'],
    ]
    for (const [query, error] of cases) {
      const res = await s.api('GET', `/admin/api/clicks/export${query}`)
      expect({ query, status: res.status, body: res.body }).toEqual({ query, status: 400, body: { error } })
    }
  })

  test('does not clash with /admin/api/clicks/:click_id', async () => {
    const res = await get(`${s.base}/c/other-export`, { 'user-agent': CHROME_ANDROID })
    expect((await s.api('GET', `/admin/api/clicks/${cookieClickId(res)}`)).status).toBe(200)
    expect((await s.api('GET', '/admin/api/clicks/exports')).body).toEqual({ error: 'click_id: must be a UUID' })
  })

  test('401 without a session; 403 without conversions:read; a conversions reader may export', async () => {
    const anon = await s.api('GET', '/admin/api/clicks/export', undefined, '')
    expect(anon.status).toBe(401)
    await s.ctx.users.create({ email: 'reports-x@example.com', password: 'reports-password-1', permissions: { reports: { read: true, write: true } } })
    const denied = await s.api('GET', '/admin/api/clicks/export', undefined, await s.login('reports-x@example.com', 'reports-password-1'))
    expect(denied.status).toBe(403)
    expect(denied.body).toEqual({ error: expect.stringContaining('conversions') })
    await s.ctx.users.create({ email: 'conv-x@example.com', password: 'conv-password-1', permissions: { conversions: { read: true, write: false } } })
    await exported(`?campaign_id=${other}`, await s.login('conv-x@example.com', 'conv-password-1'))
  })
})

describe('export_clicks (MCP)', () => {
  test('the same CSV as the REST export, with its file name; needs clicks:read', async () => {
    const reader = await createToken(s, { scopes: ['clicks:read'] })
    const out = await withClient(s, reader.token, (client) => call(client, 'export_clicks', { campaign_id: String(imported), from: '2024-03-01', to: '2024-03-02', limit: '3' }))
    expect(out.file_name).toBe('clicks-2024-03-01-2024-03-01.csv')
    const rest = await s.api('GET', `/admin/api/clicks/export?campaign_id=${imported}&from=2024-03-01&to=2024-03-02&limit=3`)
    expect(out.csv).toBe(rest.text)
    expect(out.csv.split('\r\n')[0]).toBe(HEADER)

    const other = await createToken(s, { scopes: ['reports:read'] })
    const denied = await withClient(s, other.token, (client) => client.callTool({ name: 'export_clicks', arguments: {} }))
    expect(JSON.stringify(denied)).toContain('missing scope clicks:read')
  })
})
