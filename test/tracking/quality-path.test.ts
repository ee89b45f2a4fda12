// Traffic quality on the real click path: every click is classified, flagged clicks still redirect with a
// click_id, and the flags, unique windows, costs and device fields land on the click row.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, get, type TestServer } from '../helpers/server'
import { testDb } from '../helpers/db'
import { seeder, clickCount, clickRow, cookieClickId, SERVER_TIMEOUT_MS } from './seed'

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36'
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1'
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'

let s: TestServer
let n = 0
const ip = () => `198.51.100.${++n}`

async function visit(path: string, headers: Record<string, string> = {}) {
  const res = await get(`${s.base}${path}`, { 'user-agent': CHROME, 'x-forwarded-for': ip(), ...headers })
  const id = cookieClickId(res)
  return { res, location: res.headers.get('location'), row: id ? (await clickRow(s, id))! : undefined }
}

beforeAll(async () => {
  s = await startServer({ SVC_TRUST_PROXY: '1' })
  const seed = seeder(s)
  const offer = await seed.offer('https://offer.example/?c={click_id}')
  await seed.campaign({ slug: 'q', offers: [[offer, 100]] })
  const withBotUrl = await seed.campaign({ slug: 'q-bot', offers: [[offer, 100]] })
  await seed.exec("UPDATE campaigns SET bot_url = 'https://safe.example/page?c={click_id}' WHERE id = $id", { id: withBotUrl })
  const cpc = await seed.campaign({ slug: 'q-cpc', offers: [[offer, 100]] })
  await seed.exec("UPDATE campaigns SET cost_model = 'cpc', cpc = 0.05 WHERE id = $id", { id: cpc })
  const param = await seed.campaign({ slug: 'q-param', offers: [[offer, 100]] })
  await seed.exec("UPDATE campaigns SET cost_model = 'param' WHERE id = $id", { id: param })
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

describe('traffic quality on /c', () => {
  test('a person is recorded with no bot reason, device fields and referrer domain', async () => {
    const { res, row } = await visit('/c/q', { 'user-agent': IPHONE, referer: 'https://www.News.example/story?id=1' })
    expect(res.status).toBe(302)
    expect(row).toMatchObject({ bot_reason: null, excluded: 0, is_unique: 1, device_type: 'mobile', os: 'iOS', browser: 'Safari', referrer_domain: 'news.example' })
  })

  test('a crawler user agent is a bot click that still gets its redirect and click_id', async () => {
    const { res, location, row } = await visit('/c/q', { 'user-agent': GOOGLEBOT })
    expect(res.status).toBe(302)
    expect(location).toBe(`https://offer.example/?c=${row!.click_id}`)
    expect(row).toMatchObject({ bot_reason: 'bot_user_agent', is_unique: 0, cost: 0 })
  })

  test('an empty user agent and a prefetch request are flagged with their own reasons', async () => {
    expect((await visit('/c/q', { 'user-agent': '' })).row!.bot_reason).toBe('empty_user_agent')
    expect((await visit('/c/q', { 'sec-purpose': 'prefetch' })).row!.bot_reason).toBe('prefetch')
  })

  test('a campaign with bot_url sends flagged visitors there, with their click_id', async () => {
    const bot = await visit('/c/q-bot', { 'user-agent': GOOGLEBOT })
    expect(bot.location).toBe(`https://safe.example/page?c=${bot.row!.click_id}`)
    const person = await visit('/c/q-bot')
    expect(person.location).toBe(`https://offer.example/?c=${person.row!.click_id}`)
  })

  test('IP ranges of bot_ip_ranges are flagged blocked_ip; excluded_ips are marked excluded but redirected', async () => {
    expect((await s.api('PUT', '/admin/api/settings', { bot_ip_ranges: ['203.0.113.0/24'], excluded_ips: ['192.0.2.7'] })).status).toBe(200)
    try {
      expect((await visit('/c/q', { 'x-forwarded-for': '203.0.113.50' })).row!.bot_reason).toBe('blocked_ip')
      const own = await visit('/c/q', { 'x-forwarded-for': '192.0.2.7' })
      expect(own.res.status).toBe(302)
      expect(own.row).toMatchObject({ excluded: 1, bot_reason: null, is_unique: 0 })
    } finally {
      await s.api('PUT', '/admin/api/settings', { bot_ip_ranges: [], excluded_ips: [] })
    }
  })

  test('more than bot_clicks_per_minute clicks from one IP are flagged ip_rate', async () => {
    await s.api('PUT', '/admin/api/settings', { bot_clicks_per_minute: 3 })
    try {
      const reasons: Array<string | null> = []
      for (let i = 0; i < 5; i++) reasons.push((await visit('/c/q', { 'x-forwarded-for': '198.18.0.9', 'user-agent': `${CHROME} ${i}` })).row!.bot_reason)
      expect(reasons).toEqual([null, null, null, 'ip_rate', 'ip_rate'])
    } finally {
      await s.api('PUT', '/admin/api/settings', { bot_clicks_per_minute: 120 })
    }
  })

  test('only the first click of an IP + user agent in a campaign within the window is unique', async () => {
    const who = { 'x-forwarded-for': '198.51.77.1', 'user-agent': `${CHROME} unique-test` }
    expect((await visit('/c/q', who)).row!.is_unique).toBe(1)
    expect((await visit('/c/q', who)).row!.is_unique).toBe(0)
    // Another campaign opens its own window; another user agent is another visitor.
    expect((await visit('/c/q-cpc', who)).row!.is_unique).toBe(1)
    expect((await visit('/c/q', { ...who, 'user-agent': IPHONE })).row!.is_unique).toBe(1)
  })

  test('cost follows the campaign cost model: fixed CPC, or the cost parameter; bots cost nothing', async () => {
    expect((await visit('/c/q-cpc')).row!.cost).toBe(0.05)
    expect((await visit('/c/q-cpc', { 'user-agent': GOOGLEBOT })).row!.cost).toBe(0)
    expect((await visit('/c/q-param?cost=0.0125')).row!.cost).toBe(0.0125)
    expect((await visit('/c/q-param?cost=-1')).row!.cost).toBe(0)
    expect((await visit('/c/q-param?cost=abc')).row!.cost).toBe(0)
    expect((await visit('/c/q')).row!.cost).toBe(0)
  })

  test('HEAD requests redirect without recording a click', async () => {
    const before = await clickCount(s)
    const res = await fetch(`${s.base}/c/q`, { method: 'HEAD', redirect: 'manual' })
    expect(res.status).toBe(302)
    const after = await clickCount(s)
    expect(after).toBe(before)
  })
})

describe('click rollups', () => {
  test('after indexing, hourly rollups equal a direct count over the raw clicks', async () => {
    await s.stop() // a graceful stop indexes and rolls up everything committed
    const again = await startServer({ SVC_TRUST_PROXY: '1' }, s.dataDir)
    try {
      const db = testDb(again)
      // Costs are rounded here, not in SQL: Postgres has no round() for double precision.
      const rounded = (rows: Array<Record<string, number>>) => rows.map((r) => ({ ...r, cost: Math.round(r.cost! * 1e6) / 1e6 }))
      const direct = rounded(await db.all(
        'SELECT campaign_id, count(*) AS clicks, sum(CASE WHEN bot_reason IS NULL AND is_unique = 1 THEN 1 ELSE 0 END) AS uniq, ' +
          'sum(CASE WHEN bot_reason IS NOT NULL THEN 1 ELSE 0 END) AS bots, sum(cost) AS cost FROM clicks WHERE excluded = 0 GROUP BY campaign_id ORDER BY campaign_id',
      ))
      const rolled = rounded(await db.all(
        'SELECT campaign_id, sum(clicks) AS clicks, sum(unique_clicks) AS uniq, sum(bot_clicks) AS bots, sum(cost) AS cost FROM click_stats_hourly GROUP BY campaign_id ORDER BY campaign_id',
      ))
      expect(rolled).toEqual(direct)
      expect(direct.length).toBeGreaterThan(2)
    } finally {
      await again.stop()
    }
  }, SERVER_TIMEOUT_MS)
})
