// The Postgres click pipeline (issue 31): several click batches in flight per instance, each on its own pooled
// connection and its own click rollup shard (drizzle-pg/0032). Through real servers: every 302 has its row, the
// rollups summed over the shards equal the counts from the raw clicks, two instances on one database at once stay
// exact, and a click-through right after its click lands on it. Through the store: a failing batch rejects only its
// own clicks, an amend waits for every batch started before it, and maxPending counts the batches in flight.
// Postgres only (SVC_TEST_ENGINE=postgres).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { readMigrationFiles } from 'drizzle-orm/migrator'
import { migrationsFolder } from '../../src/db/migrate'
import { openPg, type PgDatabase } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import { EventBus } from '../../src/lib/event-bus'
import { newClick, type Click } from '../../src/tracking/store/click'
import { PgClickStore } from '../../src/tracking/store/pg-click-store'
import { commitPg } from '../../src/tracking/store/pg-commit'
import { WriterUnavailable } from '../../src/tracking/store/types'
import { freshPgUrl, onPostgres } from '../helpers/pg'
import { engineEnv, get, startServer, type TestServer } from '../helpers/server'
import { cookieClickId, seeder, SERVER_TIMEOUT_MS } from './seed'

const SUMS = 'sum(clicks)::int8 AS clicks, sum(unique_clicks)::int8 AS unique_clicks, sum(bot_clicks)::int8 AS bot_clicks, ' +
  'sum(landing_views)::int8 AS landing_views, sum(landing_clicks)::int8 AS landing_clicks, round(sum(cost)::numeric, 6)::text AS cost'
/** Each rollup's rows summed over the shards, beside the same sums counted from the raw clicks (excluded left out). */
const FROM_RAW = "sum(1)::int8 AS clicks, sum(CASE WHEN coalesce(bot_reason, '') = '' AND is_unique <> 0 THEN 1 ELSE 0 END)::int8 AS unique_clicks, " +
  "sum(CASE WHEN coalesce(bot_reason, '') <> '' THEN 1 ELSE 0 END)::int8 AS bot_clicks, " +
  'sum(CASE WHEN landing_viewed_at IS NULL THEN 0 ELSE 1 END)::int8 AS landing_views, ' +
  'sum(CASE WHEN landing_clicked_at IS NULL THEN 0 ELSE 1 END)::int8 AS landing_clicks, round(sum(cost)::numeric, 6)::text AS cost'
const CHECKS: Array<[name: string, rollup: string, raw: string]> = [
  ['click_stats_hourly',
    `SELECT hour, campaign_id, source_id, offer_id, landing_id, ${SUMS} FROM click_stats_hourly GROUP BY 1, 2, 3, 4, 5 HAVING sum(clicks) <> 0 ORDER BY 1, 2, 3, 4, 5`,
    `SELECT created_at - created_at % 3600000 AS hour, campaign_id, coalesce(source_id, 0) AS source_id, coalesce(offer_id, 0) AS offer_id, coalesce(landing_id, 0) AS landing_id, ${FROM_RAW} FROM clicks WHERE excluded = 0 GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`],
  ['click_stats_daily',
    `SELECT day, campaign_id, source_id, offer_id, landing_id, ${SUMS} FROM click_stats_daily GROUP BY 1, 2, 3, 4, 5 HAVING sum(clicks) <> 0 ORDER BY 1, 2, 3, 4, 5`,
    `SELECT created_at - created_at % 86400000 AS day, campaign_id, coalesce(source_id, 0) AS source_id, coalesce(offer_id, 0) AS offer_id, coalesce(landing_id, 0) AS landing_id, ${FROM_RAW} FROM clicks WHERE excluded = 0 GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`],
  ['click_country_daily',
    `SELECT day, campaign_id, country, ${SUMS} FROM click_country_daily GROUP BY 1, 2, 3 HAVING sum(clicks) <> 0 ORDER BY 1, 2, 3`,
    `SELECT created_at - created_at % 86400000 AS day, campaign_id, coalesce(country, '') AS country, ${FROM_RAW} FROM clicks WHERE excluded = 0 GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`],
  ['click_path_hourly',
    `SELECT hour, campaign_id, path_id, ${SUMS} FROM click_path_hourly GROUP BY 1, 2, 3 HAVING sum(clicks) <> 0 ORDER BY 1, 2, 3`,
    `SELECT created_at - created_at % 3600000 AS hour, campaign_id, coalesce(path_id, 0) AS path_id, ${FROM_RAW} FROM clicks WHERE excluded = 0 GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`],
  ['click_country_total_daily',
    `SELECT day, country, ${SUMS} FROM click_country_total_daily GROUP BY 1, 2 HAVING sum(clicks) <> 0 ORDER BY 1, 2`,
    `SELECT created_at - created_at % 86400000 AS day, coalesce(country, '') AS country, ${FROM_RAW} FROM clicks WHERE excluded = 0 GROUP BY 1, 2 ORDER BY 1, 2`],
]

/** Every rollup (summed over its shards) equals the same sums from the raw clicks. */
async function expectExactRollups(sql: SQL): Promise<void> {
  for (const [name, rollup, raw] of CHECKS) {
    const [a, b] = [await sql.unsafe(rollup), await sql.unsafe(raw)]
    expect({ name, rows: [...a] }).toEqual({ name, rows: [...b] })
  }
}

/** n concurrent GET /c/slug; the click ids of the 302s (a non-302 fails the test). */
async function burst(base: string, slug: string, n: number): Promise<string[]> {
  const res = await Promise.all(Array.from({ length: n }, (_, i) => get(`${base}/c/${slug}?sub1=s${i % 5}`)))
  expect(res.map((r) => r.status).filter((st) => st !== 302)).toEqual([])
  return res.map((r) => cookieClickId(r)!)
}

describe.skipIf(!onPostgres)('Postgres click pipeline through the server', () => {
  let a: TestServer
  let b: TestServer | undefined
  let sql: SQL
  let withLanding = ''

  beforeAll(async () => {
    a = await startServer()
    const seed = seeder(a)
    const offer = await seed.offer('https://offer.example/?c={click_id}')
    await seed.campaign({ slug: 'pipe', offers: [[offer, 1]] })
    const landing = await seed.landing({ url: 'https://lp.example/?c={click_id}' })
    await seed.campaign({ slug: 'pipe-lp', offers: [[offer, 1]], landings: [[landing, 1]] })
    withLanding = 'pipe-lp'
    sql = new SQL((await engineEnv(a.dataDir)).SVC_DATABASE_URL!, { max: 2 })
  }, SERVER_TIMEOUT_MS)
  afterAll(async () => {
    await b?.destroy()
    await a?.destroy()
    await sql?.close()
  })

  test('many concurrent clicks: every 302 has its row, one batch at a time on one shard of the instance, rollups exact', async () => {
    const ids = await burst(a.base, 'pipe', 600)
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM clicks WHERE click_id = ANY(${ids}::text[])`
    expect(n).toBe(600)
    // One batch in flight by default (docs/performance.md, issue 31): the instance writes its one shard.
    const [{ shards }] = await sql`SELECT count(DISTINCT shard)::int AS shards FROM click_stats_hourly`
    expect(shards).toBe(1)
    await expectExactRollups(sql)
  }, 60_000)

  test('two instances on one database at once: every 302 has its row, rollups stay exact', async () => {
    b = await startServer({}, a.dataDir)
    const [x, y] = await Promise.all([burst(a.base, 'pipe', 400), burst(b.base, 'pipe', 400)])
    const ids = [...x, ...y]
    expect(new Set(ids).size).toBe(800)
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM clicks WHERE click_id = ANY(${ids}::text[])`
    expect(n).toBe(800)
    await expectExactRollups(sql)
  }, SERVER_TIMEOUT_MS)

  test('a click-through right after its click lands on it (the amend commits after the insert), under load', async () => {
    const load = burst(a.base, 'pipe', 300)
    const pairs = await Promise.all(Array.from({ length: 60 }, async () => {
      const first = await get(`${a.base}/c/${withLanding}`)
      expect(first.status).toBe(302)
      const id = cookieClickId(first)!
      // At once, on the other instance half of the time: the amend must find the committed click.
      const next = await get(`${(Math.random() < 0.5 ? a : b!).base}/r/${withLanding}?click_id=${id}`)
      expect(next.status).toBe(302)
      return id
    }))
    await load
    const rows = await sql`SELECT click_id, landing_clicked_at FROM clicks WHERE click_id = ANY(${pairs}::text[])`
    expect(rows.length).toBe(60)
    expect(rows.filter((r: { landing_clicked_at: unknown }) => r.landing_clicked_at === null).map((r: { click_id: string }) => r.click_id)).toEqual([])
    await expectExactRollups(sql)
  }, 60_000)
})

describe.skipIf(!onPostgres)('Postgres click pipeline: the store', () => {
  let db: PgDatabase
  let other: PgDatabase

  beforeAll(async () => {
    const url = await freshPgUrl()
    db = await openPg(url)
    await migratePg(db)
    other = await openPg(url)
  }, SERVER_TIMEOUT_MS)
  afterAll(async () => {
    await db?.close()
    await other?.close()
  })

  const T0 = Date.UTC(2026, 10, 20)
  const click = (over: Partial<Click> = {}) => newClick({ clickId: crypto.randomUUID(), campaignId: 1, offerId: 1, createdAt: T0, ...over })
  const turn = () => new Promise<void>((r) => setImmediate(r))

  test('a failing batch rejects only its own clicks; the batches beside it commit', async () => {
    const sizes: number[] = []
    const store = new PgClickStore(db, new EventBus(), { inFlight: 3, onBatch: (s) => sizes.push(s.clicks) })
    const warm = click() // a batch of its own first (sizes.slice(1) below)
    await store.append(warm)
    // Three batches, one per turn, in flight together; the middle one holds a click without a campaign (clicks and
    // the rollups have campaign_id NOT NULL: the server refuses its one statement).
    const first = Array.from({ length: 30 }, () => click())
    const bad = [click({ campaignId: null as unknown as number }), ...Array.from({ length: 9 }, () => click())]
    const last = Array.from({ length: 30 }, () => click())
    const p1 = first.map((c) => store.append(c))
    await turn()
    const p2 = bad.map((c) => store.append(c))
    await turn()
    const p3 = last.map((c) => store.append(c))
    const [r1, r2, r3] = await Promise.all([p1, p2, p3].map((p) => Promise.allSettled(p)))
    expect(r1!.every((r) => r.status === 'fulfilled')).toBe(true)
    expect(r2!.every((r) => r.status === 'rejected')).toBe(true)
    expect(r3!.every((r) => r.status === 'fulfilled')).toBe(true)
    const ids = [...first, ...bad.slice(1), ...last].map((c) => c.clickId)
    const [{ n }] = await other.sql`SELECT count(*)::int AS n FROM clicks WHERE click_id = ANY(${ids}::text[])`
    expect(n).toBe(60)
    expect(sizes.slice(1).sort()).toEqual([30, 30])
    await store.stop()
  })

  test('an amend waits until every batch started before it has committed', async () => {
    const order: string[] = []
    const store = new PgClickStore(db, new EventBus(), { inFlight: 2, onBatch: (s) => order.push(s.repoints > 0 ? 'amend' : `clicks ${s.clicks}`) })
    const [row] = await store.import([click()])
    // Another session holds the rollup table: the click batches stay in flight.
    const blocker = await other.sql.reserve()
    await blocker`BEGIN`
    await blocker`LOCK TABLE click_stats_hourly IN EXCLUSIVE MODE`
    const clicks = [store.append(click())]
    await turn()
    clicks.push(store.append(click()), store.append(click()))
    await turn()
    const amend = store.repoint(row!, 2, null)
    await Bun.sleep(100)
    // The amend's batch has not started: nothing holds its click's row (it would lock it first).
    const free = await other.sql`SELECT id FROM clicks WHERE id = ${row} FOR UPDATE NOWAIT`
    expect(free.length).toBe(1)
    await blocker`COMMIT`
    blocker.release()
    await Promise.all([...clicks, amend])
    expect(order.slice(-1)).toEqual(['amend'])
    expect(order.sort()).toEqual(['amend', 'clicks 1', 'clicks 2'])
    const [r] = await other.sql`SELECT offer_id FROM clicks WHERE id = ${row}`
    expect(r.offer_id).toBe(2)
    await store.stop()
  })

  test('visitor text goes through the array literals as sent: quotes, backslashes, braces, commas, NULL, empty, unicode', async () => {
    const store = new PgClickStore(db, new EventBus())
    const odd = ['"', '\\', '\\"', '{a,b}', 'NULL', '', ' spaced ', 'a"b\\c', 'Zürich 東京 🎉', "it's", '\t\n']
    const clicks = odd.map((v, i) => click({ sub1: v, userAgent: v, params: JSON.stringify({ v }), cost: i / 3, sourceId: i === 0 ? null : i }))
    await Promise.all(clicks.map((c) => store.append(c)))
    for (const [i, c] of clicks.entries()) {
      const r = await store.record(c.clickId)
      expect(r).toMatchObject({ sub1: odd[i], userAgent: odd[i], params: JSON.stringify({ v: odd[i] }), cost: i / 3, sourceId: i === 0 ? null : i })
    }
    await store.stop()
  })

  test('upgrade (drizzle-pg/0032): existing rollup rows become shard 0, the daily triggers then keep each shard', async () => {
    const up = await openPg(await freshPgUrl())
    try {
      const all = readMigrationFiles({ migrationsFolder: migrationsFolder('drizzle-pg') })
      const last = all.findIndex((m) => m.sql.join('\n').includes('ADD COLUMN "shard" smallint DEFAULT 0 NOT NULL;') && m.sql.join('\n').includes('"click_stats_hourly"'))
      expect(last).toBeGreaterThan(0)
      // What migratePg does, up to the migration before (same bookkeeping, so migratePg then runs the rest).
      await up.sql.begin(async (tx) => {
        await tx.unsafe('CREATE SCHEMA IF NOT EXISTS "drizzle"')
        await tx.unsafe('CREATE TABLE IF NOT EXISTS "drizzle"."__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)')
        for (const m of all.slice(0, last)) {
          for (const stmt of m.sql) if (stmt.trim()) await tx.unsafe(stmt)
          await tx`INSERT INTO "drizzle"."__drizzle_migrations" (hash, created_at) VALUES (${m.hash}, ${m.folderMillis})`
        }
      })
      // Today's rows, as the old writer leaves them (the daily ones by the old triggers).
      const before = [click({ campaignId: 5, country: 'DE', pathId: 3 }), click({ campaignId: 5, country: 'DE', pathId: 3, createdAt: T0 + 3_600_000 })]
      await up.sql.unsafe(
        'INSERT INTO click_stats_hourly (hour, campaign_id, source_id, offer_id, landing_id, clicks, unique_clicks, cost) VALUES ($1, 5, 0, 1, 0, 2, 1, 0.5), ($2, 5, 0, 1, 0, 3, 0, 0.25)',
        [T0, T0 + 3_600_000])
      await up.sql.unsafe("INSERT INTO click_country_hourly (hour, campaign_id, country, clicks) VALUES ($1, 5, 'DE', 5)", [T0])
      await up.sql.unsafe('INSERT INTO click_path_hourly (hour, campaign_id, path_id, clicks) VALUES ($1, 5, 3, 5)', [T0])
      await up.sql.unsafe("INSERT INTO click_country_total_daily (day, country, clicks) VALUES ($1, 'DE', 5)", [T0])
      await migratePg(up)
      const rows = async (table: string) => [...(await up.sql.unsafe(`SELECT shard, sum(clicks)::int AS n FROM ${table} GROUP BY shard ORDER BY shard`))]
      for (const t of ['click_stats_hourly', 'click_stats_daily', 'click_country_hourly', 'click_country_daily', 'click_path_hourly', 'click_path_daily', 'click_country_total_daily']) {
        expect({ t, rows: await rows(t) }).toEqual({ t, rows: [{ shard: 0, n: 5 }] })
      }
      // New clicks on another shard: each shard's daily row is the sum of its own hourly rows.
      await commitPg(up.sql, before, [], 3)
      for (const [hourly, daily, key] of [['click_stats_hourly', 'click_stats_daily', 'campaign_id, source_id, offer_id, landing_id'],
        ['click_country_hourly', 'click_country_daily', 'campaign_id, country'], ['click_path_hourly', 'click_path_daily', 'campaign_id, path_id']]) {
        const fromHours = [...(await up.sql.unsafe(`SELECT hour - hour % 86400000 AS day, ${key}, shard, sum(clicks)::int AS n FROM ${hourly} GROUP BY 1, ${key}, shard ORDER BY 1, ${key}, shard`))]
        const days = [...(await up.sql.unsafe(`SELECT day, ${key}, shard, clicks AS n FROM ${daily} ORDER BY day, ${key}, shard`))]
        expect({ daily, days }).toEqual({ daily, days: fromHours })
      }
      const [{ n }] = await up.sql`SELECT sum(clicks)::int AS n FROM click_stats_daily`
      expect(n).toBe(7)
    } finally {
      await up.close()
    }
  }, SERVER_TIMEOUT_MS)

  test('maxPending counts the clicks of the batches in flight too; stop() commits everything pending', async () => {
    const store = new PgClickStore(db, new EventBus(), { maxPending: 10 })
    const blocker = await other.sql.reserve()
    await blocker`BEGIN`
    await blocker`LOCK TABLE click_stats_hourly IN EXCLUSIVE MODE`
    const held = Array.from({ length: 6 }, () => store.append(click()))
    await turn() // in flight now
    const more = Array.from({ length: 4 }, () => store.append(click()))
    await expect(store.append(click())).rejects.toThrow(WriterUnavailable)
    const stopped = store.stop()
    await Bun.sleep(50)
    await blocker`COMMIT`
    blocker.release()
    await stopped
    const settled = await Promise.allSettled([...held, ...more])
    expect(settled.every((r) => r.status === 'fulfilled')).toBe(true)
    await expect(store.append(click())).rejects.toThrow(WriterUnavailable)
  })
})
