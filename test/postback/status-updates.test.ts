// Issue 26, "A status update counts twice": the opt-in `postback_status_updates` mode. A postback for a click
// and tid that already has a conversion moves that conversion (lead → sale, sale → reject) with a status
// history, its rollups moved exactly, and a forward only when the new type forwards and the type changed; a
// move to a negative type (chargeback) is recorded as its own negative conversion linked in the original's
// history. Through the real surface: /postback, the admin API, the reports API, a real local listener.
// Runs on both engines (SVC_TEST_ENGINE=postgres).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { startListener, type Listener } from '../helpers/listener'
import { testDb } from '../helpers/db'
import { onPostgres } from '../helpers/pg'
import { addClick, conversionsOf, eventually, jobsOf, lastError, postback, seedCatalog, type Catalog } from './seed'

const HOUR = 3_600_000
const DAY = 86_400_000
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

let s: TestServer
let l: Listener

beforeAll(async () => {
  s = await startServer({ SVC_OUTBOUND_ALLOW_PRIVATE: '1', SVC_JOBS_MAX_ATTEMPTS: '1' })
  l = startListener()
})
afterAll(async () => {
  await s.destroy()
  l.stop()
})

/** A campaign whose source forwards to the listener (offer payout 3 USD), and one click of it. */
async function setup(): Promise<{ c: Catalog; clickId: string }> {
  const c = await seedCatalog(s, { postbackUrl: `${l.base}/pb?cid={click_id}&type={type}&p={payout}&tid={tid}`, payout: 3, currency: 'USD' })
  return { c, clickId: await addClick(s, c) }
}

async function send(query: string): Promise<void> {
  const res = await postback(s, query)
  expect(res.status).toBe(200)
  expect(await res.text()).toBe('OK')
}

/** The forwards the listener received for a click, as `type p` strings, once every forward job of it settled. */
async function forwardsOf(clickId: string): Promise<string[]> {
  const ids = new Set((await conversionsOf(s, clickId)).map((r) => r.id))
  await eventually(async () => (await jobsOf(s)).filter((j) => j.kind === 'source_postback' && ids.has(JSON.parse(j.payload).conversion_id))
    .every((j) => j.status === 'done' || j.status === 'failed') || undefined, 10_000, 'the forward jobs settled')
  return l.received.filter((r) => r.url.searchParams.get('cid') === clickId).map((r) => `${r.url.searchParams.get('type')} ${r.url.searchParams.get('p')}`)
}

/** The report totals of one campaign (rollups), over a range that holds every conversion of the tests. */
async function totals(campaignId: number) {
  const res = await s.api('GET', `/admin/api/reports?campaign_id=${campaignId}&from=${Date.now() - 5 * DAY}&to=${Date.now() + DAY}`)
  expect(res.status).toBe(200)
  expect(res.body.source).toBe('rollups')
  const t = res.body.total
  return { conversions: t.conversions, revenue: t.revenue, types: Object.fromEntries(Object.entries(t.types as Record<string, number>).filter(([, n]) => n !== 0)) }
}

const setMode = async (on: boolean) => expect((await s.api('PUT', '/admin/api/settings', { postback_status_updates: on })).status).toBe(200)

describe('off (the default): every postback is a conversion of its own (spec §4 rule 7)', () => {
  test('the setting exists and is off', async () => {
    const res = await s.api('GET', '/admin/api/settings')
    expect(res.status).toBe(200)
    expect(res.body.postback_status_updates).toBe(false)
  })

  test('pending then approved with the same tid → two conversions, both forwarded', async () => {
    const { clickId } = await setup()
    await send(`subid=${clickId}&status=pending&payout=5&tid=T-1`)
    await send(`subid=${clickId}&status=approved&payout=20&tid=T-1`)
    const rows = await conversionsOf(s, clickId)
    expect(rows.map((r) => [r.type, r.status, r.revenue, r.transaction_id])).toEqual([['lead', 'pending', 5, 'T-1'], ['sale', 'approved', 20, 'T-1']])
    expect(await forwardsOf(clickId)).toEqual(['lead 5', 'sale 20'])
  })
})

describe('on', () => {
  beforeAll(() => setMode(true))

  test('lead then sale → one conversion moved to sale, history [lead, sale], counted once, each forwarded once', async () => {
    const { c, clickId } = await setup()
    await send(`subid=${clickId}&status=pending&payout=5&tid=A-1`)
    expect(await forwardsOf(clickId)).toEqual(['lead 5'])
    await send(`subid=${clickId}&status=approved&payout=20&tid=A-1`)

    const rows = await conversionsOf(s, clickId)
    expect(rows.map((r) => [r.type, r.status, r.revenue, r.transaction_id, r.currency])).toEqual([['sale', 'approved', 20, 'A-1', 'USD']])
    const got = await s.api('GET', `/admin/api/conversions/${rows[0]!.id}`)
    expect(got.status).toBe(200)
    expect(got.body).toMatchObject({ id: rows[0]!.id, type: 'sale', status: 'approved', revenue: 20 })
    const history = got.body.status_history
    expect(history).toEqual([
      { type: 'lead', status: 'pending', revenue: 5, at: got.body.created_at, reversal_id: null },
      { type: 'sale', status: 'approved', revenue: 20, at: expect.stringMatching(ISO), reversal_id: null },
    ])
    expect(Date.parse(history[1].at)).toBeGreaterThanOrEqual(Date.parse(history[0].at))
    // The list leaves the history out.
    const listed = (await s.api('GET', `/admin/api/conversions?click_id=${clickId}`)).body.items
    expect(listed).toHaveLength(1)
    expect(listed[0].status_history).toBeUndefined()

    expect(await totals(c.campaignId)).toEqual({ conversions: 1, revenue: 20, types: { sale: 1 } })
    expect(await forwardsOf(clickId)).toEqual(['lead 5', 'sale 20'])

    // approved again, without a payout: the sale keeps its 20 (not the offer's 3), nothing changes.
    await send(`subid=${clickId}&status=approved&tid=A-1`)
    expect(await lastError(s)).toMatchObject({ reason: 'duplicate', click_id: clickId, conversion_id: null })
    expect((await conversionsOf(s, clickId)).map((r) => [r.type, r.status, r.revenue])).toEqual([['sale', 'approved', 20]])
    await Bun.sleep(150)
    expect(await forwardsOf(clickId)).toEqual(['lead 5', 'sale 20'])
    expect((await s.api('GET', `/admin/api/conversions/${rows[0]!.id}`)).body.status_history).toHaveLength(2)
    expect(await totals(c.campaignId)).toEqual({ conversions: 1, revenue: 20, types: { sale: 1 } })
  })

  test('a pending sale that becomes approved moves in place and does not forward a second sale; a payout-less update keeps the revenue', async () => {
    const { c, clickId } = await setup()
    await send(`subid=${clickId}&status=sale&payout=12.5&tid=B-1`)
    await send(`subid=${clickId}&status=approved&tid=B-1`)
    const rows = await conversionsOf(s, clickId)
    expect(rows.map((r) => [r.type, r.status, r.revenue])).toEqual([['sale', 'approved', 12.5]])
    expect((await s.api('GET', `/admin/api/conversions/${rows[0]!.id}`)).body.status_history.map((h: { type: string; status: string }) => `${h.type}/${h.status}`))
      .toEqual(['sale/sale', 'sale/approved'])
    await Bun.sleep(150)
    expect(await forwardsOf(clickId)).toEqual(['sale 12.5'])
    expect(await totals(c.campaignId)).toEqual({ conversions: 1, revenue: 12.5, types: { sale: 1 } })
  })

  test('sale then chargeback → a negative conversion of its own linked in the sale\'s history; net 0; a second chargeback and a later approval are duplicates', async () => {
    const { c, clickId } = await setup()
    await send(`subid=${clickId}&status=approved&payout=30&tid=C-1`)
    await send(`subid=${clickId}&status=chargeback&tid=C-1`)
    let rows = await conversionsOf(s, clickId)
    expect(rows.map((r) => [r.type, r.status, r.revenue, r.transaction_id, r.currency])).toEqual([
      ['sale', 'approved', 30, 'C-1', 'USD'],
      ['chargeback', 'chargeback', 30, 'C-1', 'USD'],
    ])
    const [sale, reversal] = rows as [typeof rows[0], typeof rows[0]]
    const got = (await s.api('GET', `/admin/api/conversions/${sale.id}`)).body
    expect(got.status_history).toEqual([
      { type: 'sale', status: 'approved', revenue: 30, at: got.created_at, reversal_id: null },
      { type: 'sale', status: 'approved', revenue: 30, at: expect.stringMatching(ISO), reversal_id: reversal.id },
    ])
    const rev = (await s.api('GET', `/admin/api/conversions/${reversal.id}`)).body
    expect(rev.status_history).toEqual([{ type: 'chargeback', status: 'chargeback', revenue: 30, at: rev.created_at, reversal_id: null }])
    expect(await totals(c.campaignId)).toEqual({ conversions: 0, revenue: 0, types: { sale: 1, chargeback: 1 } })

    // A chargeback is final.
    await send(`subid=${clickId}&status=refund&payout=30&tid=C-1`)
    expect(await lastError(s)).toMatchObject({ reason: 'duplicate', click_id: clickId, conversion_id: null })
    await send(`subid=${clickId}&status=approved&payout=40&tid=C-1`)
    expect(await lastError(s)).toMatchObject({ reason: 'duplicate', click_id: clickId })
    rows = await conversionsOf(s, clickId)
    expect(rows).toHaveLength(2)
    expect(rows[0]!.type).toBe('sale')
    expect(await totals(c.campaignId)).toEqual({ conversions: 0, revenue: 0, types: { sale: 1, chargeback: 1 } })
    // The sale was forwarded once; negative types never forward.
    expect(await forwardsOf(clickId)).toEqual(['sale 30'])
  })

  test('a chargeback that sends its amount reverses that amount', async () => {
    const { c, clickId } = await setup()
    await send(`subid=${clickId}&status=approved&payout=30&tid=C-2`)
    await send(`subid=${clickId}&status=chargeback&payout=10&tid=C-2`)
    expect((await conversionsOf(s, clickId)).map((r) => [r.type, r.revenue])).toEqual([['sale', 30], ['chargeback', 10]])
    expect(await totals(c.campaignId)).toEqual({ conversions: 0, revenue: 20, types: { sale: 1, chargeback: 1 } })
  })

  test('sale then reject → the row is a reject; revenue 0 in the report', async () => {
    const { c, clickId } = await setup()
    await send(`subid=${clickId}&status=approved&payout=30&tid=D-1`)
    await send(`subid=${clickId}&status=rejected&tid=D-1`)
    const rows = await conversionsOf(s, clickId)
    expect(rows.map((r) => [r.type, r.status, r.revenue])).toEqual([['reject', 'rejected', 30]])
    expect((await s.api('GET', `/admin/api/conversions/${rows[0]!.id}`)).body.status_history.map((h: { type: string }) => h.type)).toEqual(['sale', 'reject'])
    expect(await totals(c.campaignId)).toEqual({ conversions: 0, revenue: 0, types: { reject: 1 } })
    // A reject never forwards.
    await Bun.sleep(150)
    expect(await forwardsOf(clickId)).toEqual(['sale 30'])
  })

  test('no tid → never an update (two conversions)', async () => {
    const { c, clickId } = await setup()
    await send(`subid=${clickId}&status=pending&payout=5`)
    await send(`subid=${clickId}&status=approved&payout=20`)
    expect((await conversionsOf(s, clickId)).map((r) => [r.type, r.revenue])).toEqual([['lead', 5], ['sale', 20]])
    expect(await totals(c.campaignId)).toEqual({ conversions: 2, revenue: 25, types: { sale: 1, lead: 1 } })
  })

  test('another tid on the same click is another conversion; the same tid on another click too', async () => {
    const { c, clickId } = await setup()
    const other = await addClick(s, c)
    await send(`subid=${clickId}&status=pending&payout=5&tid=E-1`)
    await send(`subid=${clickId}&status=approved&payout=20&tid=E-2`)
    await send(`subid=${other}&status=approved&payout=7&tid=E-1`)
    expect((await conversionsOf(s, clickId)).map((r) => [r.type, r.transaction_id])).toEqual([['lead', 'E-1'], ['sale', 'E-2']])
    expect((await conversionsOf(s, other)).map((r) => [r.type, r.transaction_id])).toEqual([['sale', 'E-1']])
  })

  test('a back-dated conversion keeps its date (and hour) when it moves', async () => {
    const { clickId } = await setup()
    const date = new Date(Date.now() - 2 * DAY - 3 * HOUR)
    await send(`subid=${clickId}&status=pending&payout=5&tid=F-1&date=${encodeURIComponent(date.toISOString())}`)
    await send(`subid=${clickId}&status=approved&payout=9&tid=F-1`)
    const rows = await conversionsOf(s, clickId)
    expect(rows.map((r) => [r.type, r.revenue, Number(r.date)])).toEqual([['sale', 9, date.getTime()]])
  })

  test('exactness: after a mix of updates, reversals and repeats, the rollup report equals the raw rows', async () => {
    const c = await seedCatalog(s, { payout: 4, currency: 'USD' })
    const clicks = [await addClick(s, c), await addClick(s, c), await addClick(s, c), await addClick(s, c)]
    // mulberry32: a fixed seed keeps the scenario reproducible.
    let a = 20261126
    const next = () => {
      a = (a + 0x6d2b79f5) >>> 0
      let t = a
      t = Math.imul(t ^ (t >>> 15), t | 1)
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296
    }
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!
    const statuses = ['pending', 'approved', 'sale', 'lead', 'trial', 'rejected', 'chargeback', 'refund', 'install']
    // Several postbacks of one turn share a transaction (group commit): some are sent at once.
    for (let i = 0; i < 60; i++) {
      const q = new URLSearchParams({ subid: pick(clicks), status: pick(statuses) })
      if (next() < 0.85) q.set('tid', pick(['X1', 'X2', 'X3']))
      if (next() < 0.7) q.set('payout', (Math.round(next() * 5000) / 100).toFixed(2))
      if (next() < 0.4) q.set('date', new Date(Date.now() - Math.floor(next() * 3 * DAY)).toISOString())
      if (next() < 0.3) await Promise.all([send(q.toString()), send(q.toString().replace('approved', 'pending'))])
      else await send(q.toString())
    }
    const db = testDb(s)
    // Some conversions moved and some were reversed: the scenario does exercise the mode.
    expect((await db.get<{ n: number }>('SELECT count(*) AS n FROM conversion_status_history h JOIN conversions v ON v.id = h.conversion_id WHERE v.campaign_id = $c AND h.reversal_id IS NULL', { c: c.campaignId }))!.n).toBeGreaterThan(3)
    expect((await db.get<{ n: number }>('SELECT count(*) AS n FROM conversion_status_history h JOIN conversions v ON v.id = h.conversion_id WHERE v.campaign_id = $c AND h.reversal_id IS NOT NULL', { c: c.campaignId }))!.n).toBeGreaterThan(0)

    const utcDate = (col: string) =>
      onPostgres ? `to_char(to_timestamp(${col} / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')` : `date(${col} / 1000, 'unixepoch')`
    const raw = await db.all<{ day: string; type: string; n: number; conv: number; rev: number }>(
      `SELECT ${utcDate('v.date')} AS day, v.type AS type, count(*) AS n, ` +
        'sum(CASE WHEN t.include_in_conversions = 1 THEN (CASE WHEN t.negative = 1 THEN -1 ELSE 1 END) ELSE 0 END) AS conv, ' +
        'sum(CASE WHEN t.include_in_revenue = 1 THEN (CASE WHEN t.negative = 1 THEN -abs(v.revenue) ELSE v.revenue END) ELSE 0 END) AS rev ' +
        'FROM conversions v JOIN conversion_types t ON t.slug = v.type WHERE v.campaign_id = $c GROUP BY 1, 2',
      { c: c.campaignId },
    )
    const r6 = (x: number) => Math.round(x * 1e6) / 1e6 || 0
    const want = new Map<string, { conversions: number; revenue: number; types: Record<string, number> }>()
    for (const r of raw) {
      const e = want.get(r.day) ?? { conversions: 0, revenue: 0, types: {} }
      e.conversions += Number(r.conv)
      e.revenue += Number(r.rev)
      e.types[r.type] = Number(r.n)
      want.set(r.day, e)
    }
    const res = await s.api('GET', `/admin/api/reports?group_by=day&campaign_id=${c.campaignId}&from=${Date.now() - 5 * DAY}&to=${Date.now() + DAY}&limit=100`)
    expect(res.status).toBe(200)
    expect(res.body.source).toBe('rollups')
    const got = Object.fromEntries(res.body.rows.map((r: { key: string; conversions: number; revenue: number; types: Record<string, number> }) =>
      [r.key, { conversions: r.conversions, revenue: r.revenue, types: Object.fromEntries(Object.entries(r.types).filter(([, n]) => n !== 0)) }]))
    const expected = Object.fromEntries([...want].map(([day, e]) => [day, { ...e, revenue: r6(e.revenue) }]))
    // Within one unit of the 6th decimal: the API and this sum add the same amounts in another order.
    for (const day of Object.keys(expected)) if (got[day] && Math.abs(got[day].revenue - expected[day]!.revenue) <= 1.000001e-6) got[day].revenue = expected[day]!.revenue
    expect(got).toEqual(expected)
    expect(Object.keys(expected).length).toBeGreaterThan(1)

    // And the hourly rollup rows themselves: per hour and type, exactly the raw rows (no row left at a stale count).
    const rawHours = await db.all<{ hour: number; type: string; n: number; rev: number }>(
      `SELECT (v.date - v.date % 3600000) AS hour, v.type AS type, count(*) AS n, sum(v.revenue) AS rev FROM conversions v WHERE v.campaign_id = $c GROUP BY 1, 2 ORDER BY 1, 2`,
      { c: c.campaignId },
    )
    const rolled = await db.all<{ hour: number; type: string; n: number; rev: number }>(
      'SELECT hour, type, sum(conversions) AS n, sum(revenue) AS rev FROM conversion_stats_hourly WHERE campaign_id = $c GROUP BY 1, 2 HAVING sum(conversions) <> 0 ORDER BY 1, 2',
      { c: c.campaignId },
    )
    const norm = (rs: { hour: number; type: string; n: number; rev: number }[]) => rs.map((r) => [Number(r.hour), r.type, Number(r.n), r6(Number(r.rev))])
    expect(norm(rolled)).toEqual(norm(rawHours))
  })
})

describe('on: email triggers (postback rule 6)', () => {
  beforeAll(() => setMode(true))

  test('a move to a type that fires (reject → sale) enrols the buyer; one that already fired (lead → sale) does not enrol twice', async () => {
    const { c, clickId } = await setup()
    const list = (await s.api('POST', '/admin/api/email-lists', { name: 'Status update buyers' })).body.id
    expect((await s.api('POST', '/admin/api/email-triggers', { offer_id: c.offerId, target_list_id: list })).status).toBe(201)
    await Bun.sleep(100) // the trigger table reloads after the write commits
    const enrolJobs = async () => (await jobsOf(s)).filter((j) => j.kind === 'email_enroll' && JSON.parse(j.payload).click_id === clickId)
      .map((j) => JSON.parse(j.payload) as { list_id: number; email: string; conversion_id: number })

    await send(`subid=${clickId}&status=rejected&email=buyer@example.com&tid=M-1`)
    expect(await enrolJobs()).toEqual([])
    await send(`subid=${clickId}&status=approved&tid=M-1`)
    const [row] = await conversionsOf(s, clickId)
    expect(row).toMatchObject({ type: 'sale', email: 'buyer@example.com' })
    expect(await enrolJobs()).toEqual([{ list_id: list, email: 'buyer@example.com', click_id: clickId, conversion_id: row!.id } as never])

    await send(`subid=${clickId}&status=pending&email=lead@example.com&tid=M-2`)
    await send(`subid=${clickId}&status=approved&tid=M-2`)
    expect((await enrolJobs()).map((j) => j.email)).toEqual(['buyer@example.com', 'lead@example.com'])
  })
})
