// Currencies are never added together (issue 26, spec rule 8): a report whose range holds money in two
// currencies gives revenue, profit, epc and roi per currency (`money`) and null where a sum would mix them;
// the `currency` grouping; the CSV's per-currency columns; sort keys per currency; a single-currency
// installation reads exactly as before; and the rollups equal the raw rows per currency.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { testDb } from '../helpers/db'
import { startServer, type TestServer } from '../helpers/server'
import { addClick, catalog, DAY, iso, postback, report, SERVER_TIMEOUT_MS } from './seed'
import { perCurrency } from '../../src/dashboard/ui/format'

const TYPES = ['sale', 'lead', 'trial', 'install', 'reject', 'chargeback']

async function offer(s: TestServer, name: string, payout: number, currency: string): Promise<number> {
  const now = Date.now()
  const row = await testDb(s).get<{ id: number }>(
    'INSERT INTO offers (name, slug, url, payout, currency, created_at, updated_at) VALUES ($name, $slug, $url, $payout, $cur, $now, $now) RETURNING id',
    { name, slug: `${name.toLowerCase()}-${now}`, url: 'https://adv.example/?c={click_id}', payout, cur: currency, now },
  )
  s.ctx.events.committed('catalog.changed', { entity: 'offer', id: row!.id, action: 'created' })
  return row!.id
}

const csv = async (s: TestServer, q: string) => {
  const res = await s.api('GET', `/admin/api/reports?${q}&format=csv`)
  expect(res.status).toBe(200)
  return res.text.split('\r\n').filter((l) => l !== '').map((l) => l.split(','))
}

describe('two currencies in one campaign', () => {
  let s: TestServer
  let campaign: number
  let usd: number
  let eur: number

  beforeAll(async () => {
    s = await startServer()
    usd = await offer(s, 'Usd', 139.3, 'USD')
    eur = await offer(s, 'Eur', 84, 'EUR')
    campaign = await catalog(s).campaign({ name: 'Both', offers: [usd, eur], costModel: 'cpc', cpc: 0.5 })
    const at = Date.now() - 60_000
    const u1 = await addClick(s, { campaign, offer: usd, cost: 0.5, at })
    await addClick(s, { campaign, offer: usd, cost: 0.5, at })
    const e1 = await addClick(s, { campaign, offer: eur, cost: 0.5, at })
    await addClick(s, { campaign, offer: eur, cost: 0.5, at })
    await postback(s, { subid: u1, payout: '139.30', status: 'approved' })
    await postback(s, { subid: e1, payout: 84, status: 'approved' })
  }, SERVER_TIMEOUT_MS)
  afterAll(() => s.destroy())

  const MONEY = [
    { currency: 'EUR', revenue: 84, cost: 0, profit: 84, epc: 21, roi: null },
    { currency: 'USD', revenue: 139.3, cost: 2, profit: 137.3, epc: 34.825, roi: 6865 },
  ]

  test('the total: revenue, profit, epc and roi are null, money gives them per currency', async () => {
    const body = (await report(s, '')).body
    expect(body.currency).toBeNull()
    expect(body.currencies).toEqual(['EUR', 'USD'])
    const { types, ...total } = body.total
    expect(total).toEqual({
      clicks: 4, unique_clicks: 4, bot_clicks: 0, landing_views: 0, landing_clicks: 0, landing_ctr: null, conversions: 2,
      revenue: null, cost: 2, profit: null, roi: null, cr: 50, epc: null, money: MONEY,
    })
    expect(types.sale).toBe(2)
  })

  test('by campaign: the row splits the same way', async () => {
    const body = (await report(s, 'group_by=campaign')).body
    expect(body.rows).toHaveLength(1)
    expect(body.rows[0]).toMatchObject({ key: campaign, label: 'Both', revenue: null, profit: null, epc: null, roi: null, cost: 2, money: MONEY })
  })

  test('group_by=currency: one row per currency; clicks and cost of a row are those of its offers\' clicks', async () => {
    const body = (await report(s, 'group_by=currency')).body
    expect(body.source).toBe('rollups')
    expect(body.rows.map((r: any) => ({ key: r.key, clicks: r.clicks, conversions: r.conversions, cost: r.cost, money: r.money }))).toEqual([
      {
        key: 'EUR', clicks: 2, conversions: 1, cost: 1,
        money: [{ currency: 'EUR', revenue: 84, cost: 0, profit: 84, epc: 42, roi: null }, { currency: 'USD', revenue: 0, cost: 1, profit: -1, epc: 0, roi: -100 }],
      },
      {
        key: 'USD', clicks: 2, conversions: 1, cost: 1,
        money: [{ currency: 'EUR', revenue: 0, cost: 0, profit: 0, epc: 0, roi: null }, { currency: 'USD', revenue: 139.3, cost: 1, profit: 138.3, epc: 69.65, roi: 13830 }],
      },
    ])
    // Combined with another grouping, and answered from raw clicks (device) the same way.
    const raw = (await report(s, 'group_by=currency,device')).body
    expect(raw.source).toBe('raw')
    expect(raw.total).toEqual(body.total)
    expect(raw.rows.map((r: any) => [r.key, r.money])).toEqual(body.rows.map((r: any) => [r.key, r.money]))
    const two = (await report(s, 'group_by=campaign,currency')).body
    expect(two.rows[0].children.map((c: any) => [c.key, c.money])).toEqual(body.rows.map((r: any) => [r.key, r.money]))
  })

  test('sort=revenue.EUR sorts by one currency; plain revenue by the cost currency (USD)', async () => {
    const keys = async (q: string) => (await report(s, `group_by=currency&${q}`)).body.rows.map((r: any) => r.key)
    expect(await keys('sort=revenue.EUR')).toEqual(['EUR', 'USD'])
    expect(await keys('sort=revenue.usd')).toEqual(['USD', 'EUR'])
    expect(await keys('sort=revenue')).toEqual(['USD', 'EUR'])
    expect(await keys('sort=revenue&order=asc')).toEqual(['EUR', 'USD'])
    expect(await keys('sort=profit.USD&order=asc')).toEqual(['EUR', 'USD'])
  })

  test('CSV: revenue, profit, roi and epc per currency, cost headed with its currency, no revenue column', async () => {
    const lines = await csv(s, 'group_by=campaign')
    expect(lines[0]!.join(',')).toBe(
      'campaign_id,campaign_name,clicks,unique_clicks,bot_clicks,landing_views,landing_clicks,landing_ctr,conversions,' +
        'revenue_EUR,revenue_USD,cost_USD,profit_EUR,profit_USD,roi_EUR,roi_USD,cr,epc_EUR,epc_USD,' + TYPES.map((t) => `type_${t}`).join(','),
    )
    expect(lines[0]).not.toContain('revenue')
    expect(lines[1]!.slice(0, 19).join(',')).toBe(`${campaign},Both,4,4,0,0,0,,2,84,139.3,2,84,137.3,,6865,50,21,34.825`)
    expect((await csv(s, 'group_by=currency')).slice(1).map((l) => l.slice(0, 3).join(','))).toEqual(['EUR,2,2', 'USD,2,2'])
  })

  test('a cost_currency nobody pays in: the money entries follow the setting', async () => {
    expect((await s.api('PUT', '/admin/api/settings', { cost_currency: 'EUR' })).status).toBe(200)
    try {
      const body = (await report(s, '')).body
      expect(body.total.money).toEqual([
        { currency: 'EUR', revenue: 84, cost: 2, profit: 82, epc: 21, roi: 4100 },
        { currency: 'USD', revenue: 139.3, cost: 0, profit: 139.3, epc: 34.825, roi: null },
      ])
      expect((await csv(s, 'group_by=campaign'))[0]).toContain('cost_EUR')
    } finally {
      expect((await s.api('PUT', '/admin/api/settings', { cost_currency: 'USD' })).status).toBe(200)
    }
  })
})

describe('a single-currency installation reads exactly as before', () => {
  let s: TestServer
  let campaign: number

  beforeAll(async () => {
    s = await startServer()
    const o = await offer(s, 'Only', 10, 'USD')
    campaign = await catalog(s).campaign({ name: 'One', offers: [o], costModel: 'cpc', cpc: 0.5 })
    const c1 = await addClick(s, { campaign, offer: o, cost: 0.5 })
    await addClick(s, { campaign, offer: o, cost: 0.5 })
    await postback(s, { subid: c1, payout: 10, status: 'approved' })
  }, SERVER_TIMEOUT_MS)
  afterAll(() => s.destroy())

  test('JSON: the same fields, plus the one currency', async () => {
    const body = (await report(s, '')).body
    expect(Object.keys(body)).toEqual(['group_by', 'tz', 'from', 'to', 'source', 'currency', 'rows', 'total', 'total_rows', 'limit', 'offset', 'next_cursor'])
    expect(body.currency).toBe('USD')
    const types = Object.fromEntries(TYPES.map((t) => [t, t === 'sale' ? 1 : 0]))
    const metrics = {
      clicks: 2, unique_clicks: 2, bot_clicks: 0, landing_views: 0, landing_clicks: 0, landing_ctr: null, conversions: 1,
      revenue: 10, cost: 1, profit: 9, roi: 900, cr: 50, epc: 5, types,
    }
    expect(body.total).toEqual(metrics)
    expect(body.rows).toEqual([{ key: campaign, label: 'One', ...metrics }])
  })

  test('CSV: the same columns', async () => {
    const lines = await csv(s, 'group_by=campaign')
    expect(lines.map((l) => l.join(','))).toEqual([
      'campaign_id,campaign_name,clicks,unique_clicks,bot_clicks,landing_views,landing_clicks,landing_ctr,conversions,revenue,cost,profit,roi,cr,epc,' +
        TYPES.map((t) => `type_${t}`).join(','),
      `${campaign},One,2,2,0,0,0,,1,10,1,9,900,50,5,1,0,0,0,0,0`,
    ])
  })

  test('cost_currency decides: cost in EUR beside USD revenue is two currencies; an empty range names the cost currency', async () => {
    expect((await s.api('PUT', '/admin/api/settings', { cost_currency: 'EUR' })).status).toBe(200)
    try {
      expect((await report(s, '')).body.currencies).toEqual(['EUR', 'USD'])
      const none = (await report(s, `from=${iso(Date.now() - 3 * DAY)}&to=${iso(Date.now() - 2 * DAY)}`)).body
      expect({ currency: none.currency, currencies: none.currencies }).toEqual({ currency: 'EUR', currencies: undefined })
    } finally {
      expect((await s.api('PUT', '/admin/api/settings', { cost_currency: 'USD' })).status).toBe(200)
    }
  })
})

describe('rollups equal the raw rows per currency', () => {
  let s: TestServer

  beforeAll(async () => {
    s = await startServer()
    const offers = [await offer(s, 'A', 3, 'USD'), await offer(s, 'B', 7.5, 'EUR'), await offer(s, 'C', 2, 'GBP'), await offer(s, 'D', 4, 'EUR')]
    const c = catalog(s)
    const campaigns = [
      await c.campaign({ name: 'x', offers: [offers[0]!, offers[1]!], costModel: 'cpc', cpc: 0.02 }),
      await c.campaign({ name: 'y', offers: [offers[2]!, offers[3]!] }),
    ]
    let seed = 7
    const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647
    const ids: string[] = []
    for (let i = 0; i < 60; i++) {
      const k = Math.floor(next() * 2)
      // Some clicks have no offer: their conversions carry no currency (the cost currency).
      const o = next() < 0.15 ? null : offers[k * 2 + Math.floor(next() * 2)]!
      ids.push(await addClick(s, { campaign: campaigns[k]!, offer: o, cost: k === 0 ? 0.02 : 0, at: Date.now() - Math.floor(next() * 3 * DAY), excluded: next() < 0.05 }))
    }
    for (let i = 0; i < 50; i++) {
      const p: Record<string, string | number> = { subid: ids[Math.floor(next() * ids.length)]!, status: ['approved', 'pending', 'chargeback', 'refund'][Math.floor(next() * 4)]! }
      if (next() < 0.8) p.payout = (Math.round((next() * 60 - 10) * 100) / 100).toFixed(2)
      if (next() < 0.5) p.date = iso(Date.now() - Math.floor(next() * 3 * DAY))
      await postback(s, p)
    }
  }, SERVER_TIMEOUT_MS)
  afterAll(() => s.destroy())

  test('campaign → currency: conversions, revenue and clicks per currency equal SQL over the raw rows', async () => {
    const from = Math.floor((Date.now() - 5 * DAY) / DAY) * DAY
    const to = from + 7 * DAY
    const body = (await report(s, `group_by=campaign,currency&from=${iso(from)}&to=${iso(to)}&limit=1000`)).body
    expect(body.source).toBe('rollups')
    expect(body.currencies.length).toBeGreaterThan(2)
    const got: Record<string, { conversions: number; revenue: number; clicks: number }> = {}
    for (const r of body.rows) {
      for (const ch of r.children) {
        got[`${r.key}|${ch.key}`] = { conversions: ch.conversions, revenue: ch.money.find((m: any) => m.currency === ch.key).revenue, clicks: ch.clicks }
      }
    }
    const db = testDb(s)
    const want: Record<string, { conversions: number; revenue: number; clicks: number }> = {}
    const at = (k: string) => (want[k] ??= { conversions: 0, revenue: 0, clicks: 0 })
    for (const r of await db.all(
      "SELECT v.campaign_id AS k1, coalesce(upper(v.currency), 'USD') AS k2, " +
        'sum(CASE WHEN t.include_in_conversions = 1 THEN (CASE WHEN t.negative = 1 THEN -1 ELSE 1 END) ELSE 0 END) AS conv, ' +
        'sum(CASE WHEN t.include_in_revenue = 1 THEN (CASE WHEN t.negative = 1 THEN -abs(v.revenue) ELSE v.revenue END) ELSE 0 END) AS rev ' +
        'FROM conversions v JOIN clicks c ON c.id = v.click_row_id JOIN conversion_types t ON t.slug = v.type ' +
        'WHERE c.excluded = 0 AND v.date >= $from AND v.date < $to GROUP BY 1, 2',
      { from, to },
    )) {
      Object.assign(at(`${r.k1}|${r.k2}`), { conversions: r.conv, revenue: Math.round(r.rev * 1e6) / 1e6 })
    }
    for (const r of await db.all(
      "SELECT c.campaign_id AS k1, coalesce(upper(o.currency), 'USD') AS k2, count(*) AS n FROM clicks c LEFT JOIN offers o ON o.id = c.offer_id " +
        'WHERE c.excluded = 0 AND c.created_at >= $from AND c.created_at < $to GROUP BY 1, 2',
      { from, to },
    )) {
      at(`${r.k1}|${r.k2}`).clicks = r.n
    }
    expect(got).toEqual(want)
    // Rollups answer what a raw scan answers (device forces one).
    const raw = (await report(s, `group_by=currency,device&from=${iso(from)}&to=${iso(to)}&limit=1000`)).body
    const rolled = (await report(s, `group_by=currency&from=${iso(from)}&to=${iso(to)}&limit=1000`)).body
    expect(raw.source).toBe('raw')
    expect(raw.total).toEqual(rolled.total)
    expect(raw.rows.map((r: any) => [r.key, r.conversions, r.money])).toEqual(rolled.rows.map((r: any) => [r.key, r.conversions, r.money]))
  })

  test('hourly and daily rollups agree per currency', async () => {
    const db = testDb(s)
    const cols = 'campaign_id, source_id, offer_id, landing_id, type, currency'
    const r9 = (rows: any[]) => rows.map((r) => ({ ...r, b: Math.round(r.b * 1e9) / 1e9 }))
    const fromHours = r9(await db.all(`SELECT hour - hour % ${DAY} AS day, ${cols}, sum(conversions) AS a, sum(revenue) AS b FROM conversion_stats_hourly GROUP BY 1, ${cols} ORDER BY 1, ${cols}`))
    const days = r9(await db.all(`SELECT day, ${cols}, sum(conversions) AS a, sum(revenue) AS b FROM conversion_stats_daily GROUP BY day, ${cols} ORDER BY day, ${cols}`))
    expect(days).toEqual(fromHours)
    expect(new Set(days.map((d: any) => d.currency)).size).toBeGreaterThan(2)
  })
})

test('the dashboard shows a money field of several currencies side by side, never added', () => {
  const money = [
    { currency: 'EUR', revenue: 84, cost: 0, profit: 84, epc: 21, roi: null },
    { currency: 'USD', revenue: 139.3, cost: 2, profit: -2.5, epc: 34.825, roi: 6865 },
  ]
  expect(perCurrency(money, 'revenue')).toBe('84.00 EUR · 139.30 USD')
  expect(perCurrency(money, 'profit')).toBe('84.00 EUR · -2.50 USD')
  expect(perCurrency(money, 'roi')).toBe('6865.00 USD')
  expect(perCurrency([{ currency: 'EUR', roi: null }], 'roi')).toBe('—')
})
