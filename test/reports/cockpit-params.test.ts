// The report parameters of the cockpit (issue 30): group_by up to three levels (rollups of each family and the
// raw scan, checked against numbers computed here from the clicks and conversions written), min_clicks and
// having on top-level rows (before sorting and paging: total_rows, next_cursor, matched_total), the CSV of three
// levels with the filters applied, the errors naming the parameter, the time_zone setting as the default tz,
// and GET /admin/api/me's time_zone.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { addUser, cookieFor } from '../admin/helpers'
import { startServer, type TestServer } from '../helpers/server'
import { addClick, catalog, HOUR, iso, postback, report, SERVER_TIMEOUT_MS, utcDay } from './seed'

const COST = 0.5

/** One click as written, with what the expected numbers need. */
interface Written {
  at: number
  campaign: number
  offer: number
  landing: number | null
  sub1: string
  sub2: string
  device: string
  country: string
  /** The payout of its conversion and when the postback was answered (the conversion's date); null: none. */
  payout: number | null
  convertedAt: number
}

interface Leaf { clicks: number; conversions: number; revenue: number; cost: number }
type Tree = { key: unknown; clicks: number; conversions: number; revenue: number; cost: number; profit: number; children?: Tree[] }

/** A local date (YYYY-MM-DD) of an instant in a zone, from Intl (independent of the report's own tz code). */
const localDay = (t: number, tz: string) => new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(t))

const round = (x: number) => Math.round(x * 1e6) / 1e6
const compareKeys = (a: unknown, b: unknown) => (a === null ? (b === null ? 0 : 1) : b === null ? -1 : String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0)

/**
 * The expected rows of a grouping computed from the written clicks: a click counts under its own keys and
 * time, its conversion under the click's keys and the conversion's date. Levels sorted by key ascending.
 */
function expectedTree(clicks: Written[], keysOf: Array<(c: Written, t: number) => unknown>): Tree[] {
  type Acc = { key: unknown; leaf: Leaf; children: Map<string, Acc> }
  const root = new Map<string, Acc>()
  const add = (c: Written, t: number, f: (l: Leaf) => void) => {
    let level = root
    for (const keyOf of keysOf) {
      const key = keyOf(c, t)
      const id = JSON.stringify(key)
      let node = level.get(id)
      if (!node) level.set(id, (node = { key, leaf: { clicks: 0, conversions: 0, revenue: 0, cost: 0 }, children: new Map() }))
      f(node.leaf)
      level = node.children
    }
  }
  for (const c of clicks) {
    add(c, c.at, (l) => { l.clicks++; l.cost += COST })
    if (c.payout !== null) add(c, c.convertedAt, (l) => { l.conversions++; l.revenue += c.payout! })
  }
  const out = (m: Map<string, Acc>, depth: number): Tree[] =>
    [...m.values()].sort((a, b) => compareKeys(a.key, b.key)).map((n) => ({
      key: n.key, clicks: n.leaf.clicks, conversions: n.leaf.conversions, revenue: round(n.leaf.revenue), cost: round(n.leaf.cost),
      profit: round(n.leaf.revenue - n.leaf.cost), ...(depth < keysOf.length - 1 ? { children: out(n.children, depth + 1) } : {}),
    }))
  return out(root, 0)
}

/** The report's rows projected to what expectedTree computes. */
function projected(rows: any[]): Tree[] {
  return rows.map((r) => ({
    key: r.key, clicks: r.clicks, conversions: r.conversions, revenue: r.revenue, cost: r.cost, profit: r.profit,
    ...(r.children ? { children: projected(r.children) } : {}),
  }))
}

describe('three levels, min_clicks and having', () => {
  let s: TestServer
  const written: Written[] = []
  let campaignA: number
  let campaignB: number
  let offerA: number
  let offerB: number
  let landing: number

  beforeAll(async () => {
    s = await startServer()
    const c = catalog(s)
    offerA = await c.offer('Offer A')
    offerB = await c.offer('Offer B')
    landing = await c.landing('Landing A')
    campaignA = await c.campaign({ name: 'Camp A', offers: [offerA], landings: [landing] })
    campaignB = await c.campaign({ name: 'Camp B', offers: [offerB] })
    const now = Date.now()
    // 48 clicks a few minutes ago, plus four around the previous UTC midnights (hours that belong to another
    // local day in Berlin: the daily rollup rows' corrections). sub1 z0..z6 hold 1, 3, 5, 7, 9, 11 and 12+4 clicks.
    const times = [...Array.from({ length: 48 }, () => now - 5 * 60_000), utcDay(-1) + 23 * HOUR + 30 * 60_000, utcDay(-1) + 30 * 60_000, utcDay(-2) + 12 * HOUR, utcDay(-2) + 23 * HOUR + 5 * 60_000]
    for (const [i, at] of times.entries()) {
      const inB = i % 3 === 0
      const w: Written = {
        at, campaign: inB ? campaignB : campaignA, offer: inB ? offerB : offerA, landing: !inB && i % 4 < 2 ? landing : null,
        sub1: `z${Math.min(6, Math.floor(Math.sqrt(i)))}`, sub2: `p${i % 3}`, device: i % 2 ? 'mobile' : 'desktop',
        country: (i >> 1) % 2 ? 'DE' : 'US', payout: i % 5 === 0 ? 20 + i : null, convertedAt: 0,
      }
      const clickId = await addClick(s, {
        campaign: w.campaign, offer: w.offer, landing: w.landing, at, cost: COST, sub1: w.sub1, sub2: w.sub2, device: w.device, country: w.country,
      })
      if (w.payout !== null) {
        await postback(s, { subid: clickId, payout: w.payout, status: 'approved' })
        w.convertedAt = Date.now()
      }
      written.push(w)
    }
  }, SERVER_TIMEOUT_MS)
  afterAll(() => s.destroy())

  // The whole data set in any zone: from three days back to two days ahead.
  const RANGE = `from=${iso(utcDay(-3)).slice(0, 10)}&to=${iso(utcDay(2)).slice(0, 10)}`
  const rows = async (q: string) => (await report(s, `${RANGE}&limit=1000&${q}`)).body

  test('raw scan: sub1 → sub2 → device, exact nesting and numbers', async () => {
    const body = await rows('group_by=sub1,sub2,device&sort=key&order=asc&tz=UTC')
    expect(body.source).toBe('raw')
    expect(body.group_by).toEqual(['sub1', 'sub2', 'device'])
    expect(projected(body.rows)).toEqual(expectedTree(written, [(c) => c.sub1, (c) => c.sub2, (c) => c.device]))
    expect(body.rows[0].children[0].children[0].children).toBeUndefined()
    expect(body.total_rows).toBe(7)
    expect(body.total.clicks).toBe(written.length)
  })

  test('children are sorted by the same key as the top (clicks desc, ties by key), at both levels', async () => {
    const body = await rows('group_by=sub1,sub2,device&tz=UTC')
    const sorted = (list: any[]) => {
      for (let i = 1; i < list.length; i++) {
        const [a, b] = [list[i - 1], list[i]]
        expect(a.clicks > b.clicks || (a.clicks === b.clicks && compareKeys(a.key, b.key) < 0)).toBe(true)
      }
    }
    sorted(body.rows)
    for (const r of body.rows) {
      sorted(r.children)
      for (const c of r.children) sorted(c.children)
    }
    const byProfit = await rows('group_by=sub1,sub2,device&tz=UTC&sort=profit&order=asc')
    for (const r of byProfit.rows) {
      const profits = r.children.map((c: any) => c.profit)
      expect(profits).toEqual([...profits].sort((a, b) => a - b))
    }
  })

  test('stats rollups: campaign → offer → landing, labelled at every level', async () => {
    const body = await rows('group_by=campaign,offer,landing&sort=key&order=asc&tz=UTC')
    expect(body.source).toBe('rollups')
    expect(projected(body.rows)).toEqual(expectedTree(written, [(c) => c.campaign, (c) => c.offer, (c) => c.landing]))
    const a = body.rows.find((r: any) => r.key === campaignA)
    expect([a.label, a.children[0].label, a.children[0].children.map((l: any) => l.label)]).toEqual(['Camp A', 'Offer A', ['Landing A', null]])
  })

  test('stats rollups with local days as the third level (Berlin: the hours moved off their UTC day)', async () => {
    const body = await rows('group_by=campaign,offer,day&sort=key&order=asc&tz=Europe/Berlin')
    expect(body.source).toBe('rollups')
    const expected = expectedTree(written, [(c) => c.campaign, (c) => c.offer, (c, t) => localDay(t, 'Europe/Berlin')])
    expect(projected(body.rows)).toEqual(expected)
    // The data has clicks on three Berlin days at least: the correction had something to move.
    expect(new Set(body.rows.flatMap((r: any) => r.children.flatMap((c: any) => c.children.map((d: any) => d.key)))).size).toBeGreaterThanOrEqual(3)
    const first = await rows('group_by=day,campaign,offer&sort=key&order=asc&tz=Europe/Berlin')
    expect(projected(first.rows)).toEqual(expectedTree(written, [(c, t) => localDay(t, 'Europe/Berlin'), (c) => c.campaign, (c) => c.offer]))
  })

  test('country rollups: country → campaign → day; the same with an offer filter scans raw clicks and agrees', async () => {
    const q = 'group_by=country,campaign,day&sort=key&order=asc&tz=America/New_York'
    const body = await rows(q)
    expect(body.source).toBe('rollups')
    expect(projected(body.rows)).toEqual(expectedTree(written, [(c) => c.country, (c) => c.campaign, (c, t) => localDay(t, 'America/New_York')]))
    const rawA = await rows(`${q}&offer_id=${offerA}`)
    expect(rawA.source).toBe('raw')
    const onlyA = written.filter((c) => c.offer === offerA)
    expect(projected(rawA.rows)).toEqual(expectedTree(onlyA, [(c) => c.country, (c) => c.campaign, (c, t) => localDay(t, 'America/New_York')]))
  })

  test('three levels the rollups cannot answer fall to the raw scan: campaign → country → sub1', async () => {
    const body = await rows('group_by=campaign,country,sub1&sort=key&order=asc&tz=UTC')
    expect(body.source).toBe('raw')
    expect(projected(body.rows)).toEqual(expectedTree(written, [(c) => c.campaign, (c) => c.country, (c) => c.sub1]))
  })

  /** The top-level rows by sub1 as computed here, with roi. */
  const bySub1 = () => expectedTree(written, [(c) => c.sub1]).map((r) => ({ ...r, roi: r.cost === 0 ? null : round((r.profit / r.cost) * 100) }))

  test('min_clicks leaves out top rows with fewer clicks; total stays the range\'s, matched_total is the rows kept', async () => {
    const all = await rows('group_by=sub1&tz=UTC')
    expect(all.matched_total).toBeUndefined()
    expect((await rows('group_by=sub1&tz=UTC&min_clicks=0')).matched_total).toBeUndefined()
    const body = await rows('group_by=sub1&tz=UTC&min_clicks=7')
    const kept = bySub1().filter((r) => r.clicks >= 7)
    expect(body.rows.map((r: any) => r.key).sort()).toEqual(kept.map((r) => r.key))
    expect(body.total_rows).toBe(kept.length)
    expect(body.total).toEqual(all.total)
    expect(body.matched_total).toMatchObject({
      clicks: kept.reduce((n, r) => n + r.clicks, 0), conversions: kept.reduce((n, r) => n + r.conversions, 0),
      revenue: round(kept.reduce((n, r) => n + r.revenue, 0)), cost: round(kept.reduce((n, r) => n + r.cost, 0)),
    })
    expect(Object.keys(body.matched_total).sort()).toEqual(Object.keys(body.total).sort())
    // Children stay whole: the filter is on top rows only.
    const nested = await rows('group_by=sub1,sub2&tz=UTC&min_clicks=12')
    expect(nested.rows.map((r: any) => r.key)).toEqual(['z6'])
    expect(nested.rows[0].children.reduce((n: number, c: any) => n + c.clicks, 0)).toBe(nested.rows[0].clicks)
  })

  test('having: each operator, several conditions, money and ratios', async () => {
    const cases: Array<[having: string, keep: (r: ReturnType<typeof bySub1>[number]) => boolean]> = [
      ['clicks<5', (r) => r.clicks < 5],
      ['clicks<=5', (r) => r.clicks <= 5],
      ['clicks>9', (r) => r.clicks > 9],
      ['clicks>=9', (r) => r.clicks >= 9],
      ['clicks=7', (r) => r.clicks === 7],
      ['profit<0', (r) => r.profit < 0],
      ['roi>=100', (r) => r.roi !== null && r.roi >= 100],
      ['conversions=0', (r) => r.conversions === 0],
      ['clicks>=5,profit>0', (r) => r.clicks >= 5 && r.profit > 0],
      ['revenue.USD > 30', (r) => r.revenue > 30],
      ['cost<=-1', () => false],
    ]
    for (const [having, keep] of cases) {
      const body = await rows(`group_by=sub1&tz=UTC&sort=key&having=${encodeURIComponent(having)}`)
      const expected = bySub1().filter(keep).map((r) => r.key)
      expect({ having, keys: body.rows.map((r: any) => r.key), total_rows: body.total_rows }).toEqual({ having, keys: expected, total_rows: expected.length })
      expect(body.matched_total.clicks).toBe(bySub1().filter(keep).reduce((n, r) => n + r.clicks, 0))
    }
    // The cases are not vacuous: each operator keeps some rows and leaves out others.
    for (const h of ['clicks<5', 'clicks>=9', 'clicks=7', 'profit<0']) {
      const n = (await rows(`group_by=sub1&tz=UTC&having=${encodeURIComponent(h)}`)).total_rows
      expect(n > 0 && n < 7).toBe(true)
    }
    // With min_clicks, both apply.
    const both = await rows(`group_by=sub1&tz=UTC&sort=key&min_clicks=9&having=${encodeURIComponent('profit<0')}`)
    expect(both.rows.map((r: any) => r.key)).toEqual(bySub1().filter((r) => r.clicks >= 9 && r.profit < 0).map((r) => r.key))
  })

  test('paging applies to the filtered rows: total_rows, next_cursor', async () => {
    const q = `${RANGE}&group_by=sub1&tz=UTC&min_clicks=3&sort=clicks&order=desc&limit=2`
    const pages: Array<{ keys: string[]; total_rows: number; next_cursor: string | null }> = []
    let cursor = ''
    do {
      const body = (await report(s, `${q}${cursor ? `&cursor=${cursor}` : ''}`)).body
      pages.push({ keys: body.rows.map((r: any) => r.key), total_rows: body.total_rows, next_cursor: body.next_cursor })
      cursor = body.next_cursor ?? ''
    } while (cursor)
    expect(pages).toEqual([
      { keys: ['z6', 'z5'], total_rows: 6, next_cursor: '2' },
      { keys: ['z4', 'z3'], total_rows: 6, next_cursor: '4' },
      { keys: ['z2', 'z1'], total_rows: 6, next_cursor: null },
    ])
  })

  test('sort takes every metric, landing_ctr too', async () => {
    for (const sort of ['clicks', 'unique_clicks', 'bot_clicks', 'landing_views', 'landing_clicks', 'landing_ctr', 'conversions', 'revenue', 'cost', 'profit', 'roi', 'cr', 'epc']) {
      const res = await report(s, `${RANGE}&group_by=sub1&tz=UTC&sort=${sort}`)
      expect({ sort, status: res.status, rows: res.body.rows.length }).toEqual({ sort, status: 200, rows: 7 })
    }
  })

  test('CSV: one line per third-level row with the three keys; the filters apply', async () => {
    const res = await s.api('GET', `/admin/api/reports?${RANGE}&tz=UTC&group_by=sub1,sub2,device&sort=key&order=asc&min_clicks=9&format=csv`)
    expect(res.status).toBe(200)
    const lines = res.text.split('\r\n').filter((l) => l !== '').map((l) => l.split(','))
    expect(lines[0]!.slice(0, 4)).toEqual(['sub1', 'sub2', 'device', 'clicks'])
    const leaves = expectedTree(written, [(c) => c.sub1, (c) => c.sub2, (c) => c.device])
      .filter((r) => r.clicks >= 9)
      .flatMap((a) => a.children!.flatMap((b) => b.children!.map((c) => [String(a.key), String(b.key), String(c.key), String(c.clicks)])))
    expect(lines.slice(1).map((l) => l.slice(0, 4))).toEqual(leaves)
    const labelled = await s.api('GET', `/admin/api/reports?${RANGE}&tz=UTC&group_by=campaign,offer,landing&format=csv`)
    expect(labelled.text.split('\r\n')[0]!.split(',').slice(0, 7)).toEqual(['campaign_id', 'campaign_name', 'offer_id', 'offer_name', 'landing_id', 'landing_name', 'clicks'])
  })

  test('a bad condition or level is a 400 naming the parameter, with the exact body', async () => {
    const metrics = 'clicks, unique_clicks, bot_clicks, landing_views, landing_clicks, landing_ctr, conversions, revenue, cost, profit, roi, cr, epc'
    const hint = `metric op number, comma-separated; op one of < <= > >= =; metric one of ${metrics}, or revenue, profit, epc, roi in one currency (revenue.EUR)`
    const cases: Array<[query: string, error: string]> = [
      ['having=profit<<0', `having: "profit<<0" is not a condition like profit<0 (${hint})`],
      ['having=margin>1', `having: "margin>1" is not a condition like profit<0 (${hint})`],
      ['having=clicks>ten', `having: "clicks>ten" is not a condition like profit<0 (${hint})`],
      ['having=clicks.EUR>1', `having: "clicks.EUR>1" is not a condition like profit<0 (${hint})`],
      ['having=key>1', `having: "key>1" is not a condition like profit<0 (${hint})`],
      ['having=clicks>1,', `having: "" is not a condition like profit<0 (${hint})`],
      ['min_clicks=-1', 'min_clicks: must be a whole number from 0 to 1000000000'],
      ['min_clicks=many', 'min_clicks: must be a whole number from 0 to 1000000000'],
    ]
    for (const [query, error] of cases) {
      const [name, value] = query.split('=') as [string, string]
      const res = await s.api('GET', `/admin/api/reports?group_by=sub1&${name}=${encodeURIComponent(value)}`)
      expect({ query, status: res.status, text: res.text }).toEqual({ query, status: 400, text: JSON.stringify({ error }) })
    }
    const many = Array.from({ length: 21 }, () => 'clicks>0').join(',')
    expect((await s.api('GET', `/admin/api/reports?having=${encodeURIComponent(many)}`)).body).toEqual({ error: 'having: at most 20 conditions' })
  })
})

describe('having with several currencies', () => {
  let s: TestServer
  beforeAll(async () => {
    s = await startServer()
    const c = catalog(s)
    const usd = await c.offer('Usd', 0, 'USD')
    const eur = await c.offer('Eur', 0, 'EUR')
    const campaign = await c.campaign({ offers: [usd, eur] })
    const at = Date.now() - 60_000
    const u = await addClick(s, { campaign, offer: usd, at, sub1: 'u' })
    const e = await addClick(s, { campaign, offer: eur, at, sub1: 'e' })
    await addClick(s, { campaign, offer: eur, at, sub1: 'none' })
    await postback(s, { subid: u, payout: 7, status: 'approved' })
    await postback(s, { subid: e, payout: 9, status: 'approved' })
  }, SERVER_TIMEOUT_MS)
  afterAll(() => s.destroy())

  test('a money metric must name its currency; revenue.EUR filters by that currency', async () => {
    const res = await s.api('GET', `/admin/api/reports?group_by=sub1&having=${encodeURIComponent('revenue>0')}`)
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: 'having: revenue is per currency in this report (EUR, USD); name one, e.g. revenue.EUR' } })
    const eur = (await report(s, `group_by=sub1&having=${encodeURIComponent('revenue.EUR>0')}`)).body
    expect(eur.rows.map((r: any) => r.key)).toEqual(['e'])
    expect(eur.matched_total.money).toEqual([
      { currency: 'EUR', revenue: 9, cost: 0, profit: 9, epc: 9, roi: null },
      { currency: 'USD', revenue: 0, cost: 0, profit: 0, epc: 0, roi: null },
    ])
    // Counts need no currency.
    expect((await report(s, `group_by=sub1&sort=key&having=${encodeURIComponent('conversions=0')}`)).body.rows.map((r: any) => r.key)).toEqual(['none'])
  })
})

describe('the time_zone setting', () => {
  let s: TestServer
  const at = [utcDay(-1) + 2 * HOUR, utcDay(-1) + 12 * HOUR]
  beforeAll(async () => {
    s = await startServer()
    const c = catalog(s)
    const campaign = await c.campaign({ offers: [await c.offer()] })
    for (const t of at) await addClick(s, { campaign, at: t })
  }, SERVER_TIMEOUT_MS)
  afterAll(() => s.destroy())

  const put = (body: unknown) => s.api('PUT', '/admin/api/settings', body)
  const range = `from=${iso(utcDay(-3)).slice(0, 10)}&to=${iso(utcDay(1)).slice(0, 10)}`

  test('defaults to UTC, shown by /me to every signed-in user', async () => {
    expect((await s.api('GET', '/admin/api/settings')).body.time_zone).toBe('UTC')
    expect((await s.api('GET', '/admin/api/me')).body.time_zone).toBe('UTC')
    const body = (await report(s, `group_by=day&${range}`)).body
    expect(body.tz).toBe('UTC')
    expect(body.rows.map((r: any) => [r.key, r.clicks])).toEqual([[iso(utcDay(-1)).slice(0, 10), 2]])
  })

  test('set to a zone: stored canonical, /me shows it, a report without tz reads days and dates in it', async () => {
    expect((await put({ time_zone: 'america/new_york' })).status).toBe(200)
    expect((await s.api('GET', '/admin/api/settings')).body.time_zone).toBe('America/New_York')
    const id = await addUser(s, 'no-rights@example.com')
    expect((await s.api('GET', '/admin/api/me', undefined, await cookieFor(s, id))).body.time_zone).toBe('America/New_York')

    const body = (await report(s, `group_by=day&${range}`)).body
    expect(body.tz).toBe('America/New_York')
    // from=YYYY-MM-DD is New York's midnight.
    expect(body.from).toBe(iso(utcDay(-3) + offsetOf(utcDay(-3))))
    expect(body.rows.map((r: any) => [r.key, r.clicks])).toEqual(
      [...new Set(at.map((t) => localDay(t, 'America/New_York')))].sort().map((d) => [d, at.filter((t) => localDay(t, 'America/New_York') === d).length]),
    )
    expect(body.rows).toHaveLength(2)
    // An explicit tz still wins.
    expect((await report(s, `group_by=day&${range}&tz=UTC`)).body.rows.map((r: any) => r.key)).toEqual([iso(utcDay(-1)).slice(0, 10)])
    // The CSV takes it too.
    const csv = await s.api('GET', `/admin/api/reports?group_by=day&${range}&format=csv`)
    expect(csv.text.split('\r\n').slice(1, 3).map((l) => l.split(',')[0])).toEqual(body.rows.map((r: any) => r.key))
  })

  test('a bad zone is a 400 naming the setting; empty resets to UTC', async () => {
    for (const bad of ['Mars/Olympus_Mons', '+01:00', 'X', 42, ' ']) {
      const res = await put({ time_zone: bad })
      expect({ bad, status: res.status, body: res.body }).toEqual({ bad, status: 400, body: { error: 'time_zone: must be an IANA time zone name like Europe/Berlin or UTC' } })
    }
    expect((await put({ time_zone: null })).status).toBe(200)
    expect((await s.api('GET', '/admin/api/me')).body.time_zone).toBe('UTC')
  })
})

/** New York's UTC offset (ms) at an instant, negated: midnight there is this much after UTC midnight. */
function offsetOf(t: number): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: 'numeric', hourCycle: 'h23' }).format(new Date(t))
  return ((24 - Number(parts)) % 24) * HOUR
}
