// Reports by what a click knows of its visitor (issue 28): country, network, connection, language and versions,
// read from the raw clicks the real redirect stored (addresses through a trusted X-Forwarded-For).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { get, startServer, type TestServer } from '../helpers/server'
import { seeder, cookieClickId } from '../tracking/seed'
import { postback, report, SERVER_TIMEOUT_MS } from './seed'

const CHROME_WIN = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36'
let s: TestServer

async function click(ip: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await get(`${s.base}/c/geo-report`, { 'user-agent': CHROME_WIN, 'x-forwarded-for': ip, ...headers })
  expect(res.status).toBe(302)
  return cookieClickId(res)!
}

beforeAll(async () => {
  s = await startServer({ SVC_TRUST_PROXY: '1' })
  const sd = seeder(s)
  await sd.campaign({ slug: 'geo-report', offers: [[await sd.offer('https://offer.example/'), 1]] })
  await click('8.8.8.8', { 'accept-language': 'en-US,en;q=0.9' })
  await click('8.8.4.4', { 'accept-language': 'en-GB' })
  const ru = await click('77.88.8.8', { 'accept-language': 'ru-RU,ru;q=0.9' })
  await click('10.0.0.1')
  await postback(s, { subid: ru, payout: 5, status: 'approved' })
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

const rows = async (q: string) => (await report(s, q)).body

describe('group_by a visitor dimension', () => {
  test('country: clicks and conversions per ISO code (targeting rollups); a private address has none (null)', async () => {
    const r = await rows('group_by=country&sort=key')
    expect(r.source).toBe('rollups')
    expect(r.rows.map((x: any) => [x.key, x.clicks, x.conversions, x.revenue])).toEqual([['RU', 1, 1, 5], ['US', 2, 0, 0], [null, 1, 0, 0]])
    expect(r.total).toMatchObject({ clicks: 4, conversions: 1, revenue: 5 })
  })

  test('asn keys are numbers; connection, language and browser_version group as stored', async () => {
    expect((await rows('group_by=asn&sort=key')).rows.map((x: any) => [x.key, x.clicks])).toEqual([[13238, 1], [15169, 2], [null, 1]])
    expect((await rows('group_by=connection&sort=key')).rows.map((x: any) => [x.key, x.clicks])).toEqual([['hosting', 3], ['unknown', 1]])
    expect((await rows('group_by=language&sort=key')).rows.map((x: any) => [x.key, x.clicks])).toEqual([['en', 2], ['ru', 1], [null, 1]])
    expect((await rows('group_by=browser_version')).rows.map((x: any) => [x.key, x.clicks])).toEqual([['126', 4]])
  })

  test('two levels (country → language) and the CSV name the dimension', async () => {
    const r = await rows('group_by=country,language&sort=key')
    expect(r.rows.find((x: any) => x.key === 'US').children.map((c: any) => [c.key, c.clicks])).toEqual([['en', 2]])
    const csv = await s.api('GET', '/admin/api/reports?group_by=country&sort=key&format=csv')
    expect(csv.status).toBe(200)
    expect(csv.text.split('\n')[0]!.split(',')[0]).toBe('country')
  })

  test('an unknown dimension is still a 400 naming the parameter', async () => {
    const res = await s.api('GET', '/admin/api/reports?group_by=continent')
    expect(res.status).toBe(400)
    expect(res.body.error).toStartWith('group_by:')
  })
})
