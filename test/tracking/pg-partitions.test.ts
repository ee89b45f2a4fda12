// Postgres clicks partitioned by UTC day (issue 31; drizzle-pg/0033_clicks_by_day.sql, docs/postgres.md):
// partitions made ahead (a click at 23:59:59.999 and one at 00:00 of the next day land in their days, with no
// request having created anything), the default partition as a safety net that the ahead creation empties,
// retention dropping a whole day while clicks arrive, the upgrade of a table with data in it, and a lookup by
// a click id scanning the one partition of the day it names. Postgres only: skipped on SQLite.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readMigrationFiles } from 'drizzle-orm/migrator'
import { SQL } from 'bun'
import { openPg, type PgDatabase } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import { EventBus } from '../../src/lib/event-bus'
import { newClick, type Click } from '../../src/tracking/store/click'
import { createClickStore } from '../../src/tracking/store/click-store'
import { FIND_DAY_SQL, type PgClickStore } from '../../src/tracking/store/pg-click-store'
import { AHEAD_DAYS, clickDayRange, DAY_MS, dayOf, dropDaysBefore, ensureDays, ensurePartitions, newPgClickId, partitionName } from '../../src/tracking/store/pg-partitions'
import { freshPgUrl, onPostgres, pgCluster } from '../helpers/pg'
import { ReportQueries } from '../../src/reports/queries'
import { amendSql, LOCK_SQL } from '../../src/tracking/store/pg-commit'
import { PREFETCH_SQL } from '../../src/postback/pg-batch-queries'
import { ANALYZE_AFTER_CLICKS } from '../../src/tracking/store/pg-partitions'
import { Zone } from '../../src/reports/tz'
import { Sql } from '../../src/db/sql'
import { storeDb } from '../../src/db/store-db'

const cleanups: Array<() => Promise<void> | void> = []
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
})
if (onPostgres) beforeAll(() => pgCluster().then(() => {}), 120_000)

async function openStore(url?: string): Promise<{ db: PgDatabase; store: PgClickStore }> {
  const db = await openPg(url ?? (await freshPgUrl()))
  await migratePg(db)
  const store = createClickStore(db, new EventBus()) as PgClickStore
  cleanups.push(async () => {
    await store.stop()
    await db.close()
  })
  return { db, store }
}

const click = (createdAt: number, over: Partial<Click> = {}): Click =>
  newClick({ clickId: newPgClickId(createdAt), campaignId: 1, sourceId: 2, offerId: 3, landingId: 4, createdAt, ...over })

/** The partition each click is stored in, by click id. */
async function partitionsOf(db: PgDatabase, ids: string[]): Promise<Record<string, string>> {
  const rows = await db.sql`SELECT click_id, tableoid::regclass::text AS part FROM clicks WHERE click_id IN ${db.sql(ids)}`
  return Object.fromEntries((rows as Array<{ click_id: string; part: string }>).map((r) => [r.click_id, r.part]))
}

const dayParts = async (db: PgDatabase): Promise<string[]> =>
  ((await db.sql`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'public.clicks'::regclass ORDER BY c.relname`) as Array<{ name: string }>).map((r) => r.name)

describe.skipIf(!onPostgres)('Postgres: clicks partitioned by day', () => {
  test('the migration made yesterday, today and a week ahead; start() keeps them; a click id is a v4 UUID naming its day', async () => {
    const { db, store } = await openStore()
    const parts = await dayParts(db)
    const today = dayOf(Date.now())
    for (let d = -1; d <= AHEAD_DAYS; d++) expect(parts).toContain(partitionName(today + d * DAY_MS))
    expect(parts).toContain('clicks_default')
    store.start()
    expect(await ensurePartitions(db.sql, Date.now())).toBe(0) // nothing missing: start() made nothing twice either
    const at = Date.UTC(2026, 10, 27, 12, 34, 56, 789)
    const id = store.newClickId(at)
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(clickDayRange(id)).toEqual([Date.UTC(2026, 10, 27), Date.UTC(2026, 10, 28)])
    expect(new Set(Array.from({ length: 50 }, () => store.newClickId(at).slice(0, 32))).size).toBe(50)
    expect(clickDayRange('not-an-id')).toBeNull()
  }, 30_000)

  test('days created ahead: clicks at 23:59:59.999 and 00:00:00.000 land in their own days, none in the default partition', async () => {
    const { db, store } = await openStore()
    // A fake "now" three days before a midnight the migration did not cover: the hourly run of that day made it.
    const midnight = Date.UTC(2030, 0, 1)
    expect(await ensurePartitions(db.sql, midnight - 3 * DAY_MS)).toBe(AHEAD_DAYS + 2)
    const before = click(midnight - 1)
    const after = click(midnight)
    await Promise.all([store.append(before), store.append(after)])
    expect(await partitionsOf(db, [before.clickId, after.clickId])).toEqual({
      [before.clickId]: `click_days.${partitionName(midnight - DAY_MS)}`,
      [after.clickId]: 'click_days.d20300101',
    })
    expect(await store.find(before.clickId)).toMatchObject({ clickId: before.clickId, campaignId: 1 })
    expect((await store.record(after.clickId))!.createdAt).toBe(midnight)
    expect(await store.rowOf(after.clickId)).toBeGreaterThan(0)
    const [{ n }] = await db.sql`SELECT count(*)::int AS n FROM click_days.clicks_default`
    expect(n).toBe(0)
  }, 30_000)

  test('a click of a day without its partition commits into the default partition; creating the day moves it there', async () => {
    const { db, store } = await openStore()
    const far = Date.UTC(2031, 5, 15, 10)
    const c = click(far)
    await store.append(c)
    expect(await partitionsOf(db, [c.clickId])).toEqual({ [c.clickId]: 'click_days.clicks_default' })
    const row = await store.rowOf(c.clickId)
    // Two instances creating the days ahead at once: both succeed, each day is made once.
    const other = await openPg(db.url, { max: 2 })
    cleanups.push(() => other.close())
    const made = await Promise.all([ensurePartitions(db.sql, far - DAY_MS), ensurePartitions(other.sql, far - DAY_MS)])
    expect(made[0] + made[1]).toBe(AHEAD_DAYS + 2)
    expect(await partitionsOf(db, [c.clickId])).toEqual({ [c.clickId]: 'click_days.d20310615' })
    expect(await store.rowOf(c.clickId)).toBe(row!)
    expect(await store.record(c.clickId)).toMatchObject({ clickId: c.clickId, createdAt: far })
    // The periodic run also drains a day it would not create ahead (an import of old clicks).
    const old = click(Date.UTC(2020, 1, 29, 23))
    await store.import([old])
    expect(await partitionsOf(db, [old.clickId])).toEqual({ [old.clickId]: 'click_days.clicks_default' })
    await ensurePartitions(db.sql, Date.now())
    expect(await partitionsOf(db, [old.clickId])).toEqual({ [old.clickId]: 'click_days.d20200229' })
  }, 30_000)

  test('a lookup by click id scans the one partition of its day (EXPLAIN); a plain random id falls back to every partition', async () => {
    const { db, store } = await openStore()
    const today = dayOf(Date.now())
    const clicks = Array.from({ length: 9 }, (_, i) => click(today + (i - 1) * DAY_MS + 3_600_000))
    await store.import(clicks)
    const v4 = click(today + 1000, { clickId: crypto.randomUUID() })
    await store.import([v4])
    const target = clicks[4]!
    // A day's worth of clicks around it, analysed: the planner chooses as it would on a real day.
    await store.import(Array.from({ length: 3000 }, (_, i) => click(dayOf(target.createdAt) + i * 1000)))
    await db.sql`ANALYZE clicks`
    const range = clickDayRange(target.clickId)!
    const scanned = (plan: Array<Record<string, string>>) =>
      plan.map((r) => Object.values(r)[0]!).filter((l) => / on (d\d{8}|clicks_default)\b/.test(l)).map((l) => / on (\w+)/.exec(l)![1])
    // As the store sends it (parameters), with a custom plan and with the generic plan a prepared statement gets.
    const custom = await db.sql.unsafe(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${FIND_DAY_SQL}`, [target.clickId, range[0], range[1]])
    expect(scanned(custom)).toEqual([partitionName(range[0])])
    expect(custom.map((r: Record<string, string>) => Object.values(r)[0]).join('\n')).toMatch(/Index Scan using d\d{8}_click_id_idx/)
    const generic = await db.sql.begin(async (tx) => {
      await tx.unsafe('SET LOCAL plan_cache_mode = force_generic_plan')
      return tx.unsafe(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${FIND_DAY_SQL}`, [target.clickId, range[0], range[1]])
    })
    expect(scanned(generic)).toEqual([partitionName(range[0])])
    const all = await db.sql.unsafe(`EXPLAIN (COSTS OFF) SELECT id FROM clicks WHERE click_id = $1`, [v4.clickId])
    expect(scanned(all).length).toBeGreaterThan(AHEAD_DAYS)
    expect(await store.find(target.clickId)).toMatchObject({ clickId: target.clickId })
    expect(await store.find(v4.clickId)).toMatchObject({ clickId: v4.clickId })
    // An id naming another day than its click's (made elsewhere, imported): found by the fallback.
    const stray = click(today + 2 * DAY_MS, { clickId: newPgClickId(today - 5 * DAY_MS) })
    await store.import([stray])
    expect(await store.rowOf(stray.clickId)).toBeGreaterThan(0)
    expect(await store.find(newPgClickId(today))).toBeUndefined()
  }, 30_000)

  test("a raw report joins each conversion to its click in the click's day partition only (EXPLAIN ANALYZE of the statement sent)", async () => {
    const { db, store } = await openStore()
    const today = dayOf(Date.now())
    // Six days of clicks, 2,000 a day; conversions today of clicks made 1 and 3 days ago only.
    const days = [0, 1, 2, 3, 4, 5].map((d) => today - d * DAY_MS)
    await ensureDays(db.sql, days)
    for (const d of days) await store.import(Array.from({ length: 2000 }, (_, i) => click(d + i * 40_000, { os: `os${i % 3}` })))
    const converting = (await db.sql`SELECT id, click_id, created_at FROM clicks WHERE created_at >= ${days[3]!} AND created_at < ${days[0]! + DAY_MS}
      AND (created_at < ${days[2]!} OR created_at >= ${days[1]!}) AND created_at < ${days[0]!} AND id % 97 = 0`) as Array<{ id: string; click_id: string; created_at: string }>
    expect(converting.length).toBeGreaterThan(20)
    for (const [i, c] of converting.entries()) {
      await db.sql`INSERT INTO conversions (click_row_id, click_created_at, click_id, campaign_id, type, revenue, currency, date, created_at)
        VALUES (${c.id}, ${c.created_at}, ${c.click_id}, 1, 'sale', 1, 'USD', ${today + i}, ${today + i})`
    }
    await db.sql`ANALYZE clicks`
    await db.sql`ANALYZE conversions`
    // The statement ReportQueries sends for a report by OS over today's conversions, run under EXPLAIN ANALYZE.
    // It is sent in a read-only transaction of its own, after the two planner settings it runs with.
    let sent: Sql | undefined
    const inSnapshot: string[] = []
    const real = storeDb(db)
    const capture = { all: async (q: Sql) => { sent = q; inSnapshot.push(q.strings.join('$')); return [] } }
    const spy = Object.assign(Object.create(Object.getPrototypeOf(real)), real, { readSnapshot: (body: (q: unknown) => unknown) => body(capture) })
    const grouping = { dims: ['os'] as const, zone: Zone.parse('UTC'), from: today, to: today + DAY_MS }
    await ReportQueries.of(spy as never).rawConversions(grouping as never, {}, today, today + DAY_MS, 100)
    expect(inSnapshot.length).toBe(2)
    expect(inSnapshot[0]).toBe("SELECT set_config('max_parallel_workers_per_gather', '0', true), set_config('plan_cache_mode', 'force_custom_plan', true)")
    expect(inSnapshot[1]).toContain('UNION ALL')
    const explain = new Sql(['EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' + sent!.strings[0], ...sent!.strings.slice(1)], sent!.values)
    const plan = (await storeDb(db).all<Record<string, string>>(explain)).map((r) => Object.values(r)[0]!)
    const probed = (part: string) => plan.filter((l) => l.includes(` on ${part} `) || l.endsWith(` on ${part}`))
    const executed = (part: string) => probed(part).some((l) => !l.includes('never executed'))
    // Whatever the join: the days of the converting clicks are read, none outside their span.
    for (const d of [days[1]!, days[3]!]) expect({ day: partitionName(d), executed: executed(partitionName(d)) }).toEqual({ day: partitionName(d), executed: true })
    for (const d of [days[0]!, days[4]!, days[5]!]) {
      expect({ day: partitionName(d), executed: executed(partitionName(d)) }).toEqual({ day: partitionName(d), executed: false })
    }
    // Each day of the span is its own branch, so no partition outside the span is even planned.
    expect(plan.filter((l) => / on d\d{8}\b/.test(l)).map((l) => / on (d\d{8})/.exec(l)![1]).filter((p) => ![1, 2, 3].some((i) => p === partitionName(days[i]!))))
      .toEqual([])
    // And the report itself counts every conversion (the join finds each click), revenue summed across the days.
    const total = async () => {
      const rows = await ReportQueries.of(db).rawConversions(grouping as never, {}, today, today + DAY_MS, 100)
      return { conversions: rows.reduce((n, r) => n + Number(r.conversions), 0), revenue: rows.reduce((n, r) => n + Number(r.revenue), 0) }
    }
    expect(await total()).toEqual({ conversions: converting.length, revenue: converting.length })
    // A click 40 days older than the rest: more days than the per-day branches take, so one bounded join.
    const old = click(today - 40 * DAY_MS + 5_000)
    await ensureDays(db.sql, [old.createdAt])
    const [oldRow] = await store.import([old])
    await db.sql`INSERT INTO conversions (click_row_id, click_created_at, click_id, campaign_id, type, revenue, currency, date, created_at)
      VALUES (${oldRow!}, ${old.createdAt}, ${old.clickId}, 1, 'sale', 2.5, 'USD', ${today + 999}, ${today + 999})`
    expect(await total()).toEqual({ conversions: converting.length + 1, revenue: converting.length + 2.5 })
    // A conversion from before the upgrade whose click retention had removed (click_created_at 0) joins nothing
    // and does not stretch the span to 1970.
    await db.sql`INSERT INTO conversions (click_row_id, click_created_at, click_id, campaign_id, type, revenue, currency, date, created_at)
      VALUES (987654321, 0, 'gone', 1, 'sale', 7, 'USD', ${today + 1999}, ${today + 1999})`
    expect(await total()).toEqual({ conversions: converting.length + 1, revenue: converting.length + 2.5 })
  }, 60_000)

  test("amends name their clicks' times: one batch amends clicks of two days, locking only the partitions between (generic plan)", async () => {
    const { db, store } = await openStore()
    const today = dayOf(Date.now())
    const days = [0, 1, 2, 3, 4].map((d) => today - d * DAY_MS)
    await ensureDays(db.sql, days)
    const clicks = days.map((d) => click(d + 3_600_000))
    const rows = await store.import(clicks)
    // The tracker passes the click's created_at (track.ts); two amends in one turn go in one batch.
    await Promise.all([
      store.amend({ row: rows[1]!, createdAt: clicks[1]!.createdAt, viewedAt: today + 5 }),
      store.amend({ row: rows[3]!, createdAt: clicks[3]!.createdAt, landingId: 44 }),
    ])
    const after = await db.sql`SELECT id, landing_id, landing_viewed_at FROM clicks ORDER BY created_at DESC`
    expect(after.map((r: Record<string, unknown>) => [Number(r.landing_id), r.landing_viewed_at === null ? null : Number(r.landing_viewed_at)]))
      .toEqual([[4, null], [4, today + 5], [4, null], [44, null], [4, null]])
    const plan = await db.sql.begin(async (tx) => {
      await tx.unsafe('SET LOCAL plan_cache_mode = force_generic_plan')
      return tx.unsafe(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${LOCK_SQL}`, [[rows[1], rows[3]], clicks[3]!.createdAt, clicks[1]!.createdAt])
    })
    const scanned = plan.map((r: Record<string, string>) => Object.values(r)[0]!).filter((l: string) => / on (d\d{8}|clicks_default)\b/.test(l))
      .map((l: string) => / on (\w+)/.exec(l)![1])
    expect(scanned.sort()).toEqual([days[3]!, days[2]!, days[1]!].map(partitionName))
  }, 30_000)

  test("a new day is analyzed by the instance at its 1000th click: the postback prefetch then probes the click_id index, not the day's created_at index", async () => {
    const { db, store } = await openStore()
    // A day ahead: a partition made empty by the migration, as every new day starts at midnight.
    const day = dayOf(Date.now()) + 2 * DAY_MS
    const part = partitionName(day)
    const tuples = async () => Number((await db.sql`SELECT reltuples::int8 AS n FROM pg_class WHERE relname = ${part}`)[0].n)
    const analyzed = async () => Number((await db.sql`SELECT analyze_count::int8 AS n FROM pg_stat_user_tables WHERE relname = ${part}`)[0].n)
    const first = Array.from({ length: ANALYZE_AFTER_CLICKS - 1 }, (_, i) => click(day + i * 10))
    await store.import(first)
    expect(await tuples()).toBe(-1) // never analyzed: no statistics yet
    await store.import([click(day + 20_000)])
    // In the background: wait for it (at most 10 s).
    for (let i = 0; i < 100 && (await tuples()) < ANALYZE_AFTER_CLICKS; i++) await Bun.sleep(100)
    expect(await tuples()).toBe(ANALYZE_AFTER_CLICKS)
    // The day keeps growing past its statistics; a batch of 16 click ids is found by their index.
    const more = Array.from({ length: 6000 }, (_, i) => click(day + 30_000 + i * 10))
    await store.import(more)
    const ids = more.slice(100, 116).map((c) => c.clickId)
    const plan = (await db.sql.unsafe(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${PREFETCH_SQL}`, [ids, day, day + DAY_MS]))
      .map((r: Record<string, string>) => Object.values(r)[0]!).join('\n')
    expect(plan).toMatch(/_click_id_idx/)
    expect(plan).not.toMatch(/d\d{8}_created_at_idx/)
    expect(plan).toMatch(/rows=16/)
    expect(await analyzed()).toBeGreaterThanOrEqual(0) // readable; the count itself lags (statistics are flushed lazily)
  }, 60_000)

  test('in the GENERIC plan Postgres moves prepared statements to, the batch lookups and amends probe their index, never the whole day', async () => {
    const { db, store } = await openStore()
    // A day as it looks a while after midnight: analyzed at its 1000th click, then grown to 21,000.
    const day = dayOf(Date.now()) + 3 * DAY_MS
    const part = partitionName(day)
    await store.import(Array.from({ length: ANALYZE_AFTER_CLICKS }, (_, i) => click(day + i)))
    await db.sql.unsafe(`ANALYZE click_days.${part}`)
    const grown = Array.from({ length: 20_000 }, (_, i) => click(day + 10_000 + i))
    const rows = await store.import(grown)
    // Bun prepares every statement; after five runs Postgres may plan it once for any parameters, guessing a
    // `created_at` range at 0.5 % of the day: with `= ANY($1)` that plan read the day through its created_at index.
    const generic = async (text: string, args: unknown[]) => (await db.sql.begin(async (tx) => {
      await tx.unsafe('SET LOCAL plan_cache_mode = force_generic_plan')
      return tx.unsafe(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${text}`, args)
    })).map((r: Record<string, string>) => Object.values(r)[0]!).join('\n')
    const sample = [100, 2_000, 7_000, 19_000]
    const prefetch = await generic(PREFETCH_SQL, [sample.map((i) => grown[i]!.clickId), day, day + DAY_MS])
    expect(prefetch).toMatch(/_click_id_idx on/)
    expect(prefetch).not.toMatch(/d\d{8}_created_at_idx|Seq Scan on d|Rows Removed by Filter/)
    expect(prefetch).toMatch(/Function Scan on unnest k \(actual rows=4 /)
    const ids = sample.map((i) => rows[i]!)
    const lock = await generic(LOCK_SQL, [ids, grown[100]!.createdAt, grown[19_000]!.createdAt])
    expect(lock).toMatch(/_pkey on/)
    expect(lock).not.toMatch(/d\d{8}_created_at_idx|Seq Scan on d|Rows Removed by Filter/)
    expect(lock).toMatch(/LockRows/)
    const update = amendSql(`click_days.${part}`)
    expect(update.startsWith(`UPDATE click_days.${part} c `)).toBe(true)
    const cols = [ids, ids.map(() => 3), ids.map(() => 9), ids.map(() => null), ids.map(() => 1), ids.map(() => 0.5), ids.map(() => null), ids.map(() => null)]
    let updated = ''
    // EXPLAIN ANALYZE runs the UPDATE: rolled back by throwing out of the transaction.
    await db.sql.begin(async (tx) => {
      await tx.unsafe('SET LOCAL plan_cache_mode = force_generic_plan')
      const plan = await tx.unsafe(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${update}`, cols)
      updated = plan.map((r: Record<string, string>) => Object.values(r)[0]!).join('\n')
      throw new Error('roll back')
    }).catch((e: Error) => {
      if (e.message !== 'roll back') throw e
    })
    expect(updated).toMatch(/_pkey on/)
    expect(updated).not.toMatch(/Seq Scan on d|d\d{8}_created_at_idx/)
    // Anything else is refused as a name: the update goes through the parent, within the amends' span.
    expect(amendSql('clicks; DROP TABLE clicks')).toStartWith('UPDATE clicks c ')
    expect(amendSql('click_days.d2026112')).toStartWith('UPDATE clicks c ')

    // And through the store: one batch amends clicks of this day and of the default partition (a day without
    // a partition), one UPDATE each, every amend applied.
    const far = click(Date.UTC(2031, 5, 1, 12))
    const [farRow] = await store.import([far])
    expect((await partitionsOf(db, [far.clickId]))[far.clickId]).toBe('click_days.clicks_default')
    await Promise.all([
      store.amend({ row: farRow!, createdAt: far.createdAt, landingId: 77 }),
      ...sample.map((i) => store.amend({ row: rows[i]!, createdAt: grown[i]!.createdAt, viewedAt: day + 5 })),
    ])
    const after = await db.sql`SELECT id, landing_id, landing_viewed_at FROM clicks WHERE id IN ${db.sql([...ids, farRow!])} ORDER BY id`
    expect(after.map((r: Record<string, unknown>) => [Number(r.id), Number(r.landing_id), r.landing_viewed_at === null ? null : Number(r.landing_viewed_at)]))
      .toEqual([...ids.map((id) => [id, 4, day + 5]), [farRow!, 77, null]].sort((a, b) => (a[0] as number) - (b[0] as number)))
  }, 120_000)

  test('retention drops a whole day while clicks arrive: every click commits, the day is gone, other days intact', async () => {
    const { db, store } = await openStore()
    const today = dayOf(Date.now())
    const oldDay = today - 20 * DAY_MS
    const keptDay = today - 19 * DAY_MS
    await ensureDays(db.sql, [oldDay, keptDay])
    const old = Array.from({ length: 2000 }, (_, i) => click(oldDay + i * 1000))
    const kept = Array.from({ length: 50 }, (_, i) => click(keptDay + i * 1000))
    await store.import([...old, ...kept])
    await db.sql`ANALYZE clicks`
    // Clicks keep arriving (as /c appends them: one batch per turn) while the retention run drops the day.
    let arriving = true
    const appended: Click[] = []
    const waits: number[] = []
    const traffic = (async () => {
      while (arriving) {
        const batch = Array.from({ length: 20 }, () => click(Date.now()))
        const t = performance.now()
        await Promise.all(batch.map((c) => store.append(c)))
        waits.push(performance.now() - t)
        appended.push(...batch)
      }
    })()
    await Bun.sleep(50)
    // The cutoff falls inside keptDay: only oldDay is wholly before it.
    const pruned = await store.prune(keptDay + 3_600_000, 5000)
    await Bun.sleep(50)
    arriving = false
    await traffic
    expect(pruned).toBe(2000)
    const parts = await dayParts(db)
    expect(parts).not.toContain(partitionName(oldDay))
    expect(parts).toContain(partitionName(keptDay))
    const [{ n: keptRows }] = await db.sql`SELECT count(*)::int AS n FROM clicks WHERE created_at >= ${keptDay} AND created_at < ${keptDay + DAY_MS}`
    expect(keptRows).toBe(50)
    expect(await store.find(old[0]!.clickId)).toBeUndefined()
    expect(await store.find(kept[49]!.clickId)).toBeDefined()
    expect(appended.length).toBeGreaterThan(0)
    const [{ n: arrived }] = await db.sql`SELECT count(*)::int AS n FROM clicks WHERE created_at >= ${today - DAY_MS}`
    expect(arrived).toBe(appended.length)
    console.log(`retention drop during appends: ${waits.length} batches of 20, slowest ${Math.max(...waits).toFixed(1)} ms, median ${waits.sort((a, b) => a - b)[waits.length >> 1]!.toFixed(1)} ms`)
  }, 30_000)

  test('a drop that cannot get its lock (a long reader holds clicks) gives up at once-ish; clicks keep committing; the next run drops it', async () => {
    const { db, store } = await openStore()
    const oldDay = dayOf(Date.now()) - 30 * DAY_MS
    await ensureDays(db.sql, [oldDay])
    await store.import([click(oldDay + 5)])
    await db.sql`ANALYZE clicks`
    const reader = new SQL(db.url, { max: 1 })
    cleanups.push(() => reader.close())
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    let holding!: () => void
    const started = new Promise<void>((r) => (holding = r))
    const tx = reader.begin(async (t) => {
      await t`SELECT count(*) FROM clicks`
      holding()
      await held
    })
    await started
    const t0 = performance.now()
    const dropping = dropDaysBefore(db.sql, oldDay + DAY_MS)
    await Bun.sleep(100)
    // Queued behind the waiting drop, a click commits once the drop gives up (lock_timeout), not after the reader.
    const c = click(Date.now())
    await store.append(c)
    const waited = performance.now() - t0
    expect(await dropping).toEqual({ rows: 0, blocked: true })
    expect(waited).toBeLessThan(3000)
    expect(await dayParts(db)).toContain(partitionName(oldDay))
    release()
    await tx
    expect(await dropDaysBefore(db.sql, oldDay + DAY_MS)).toEqual({ rows: 1, blocked: false })
    expect(await dayParts(db)).not.toContain(partitionName(oldDay))
    expect(await store.rowOf(c.clickId)).toBeGreaterThan(0)
  }, 30_000)

  test('upgrade from the unpartitioned table (0032) with data: same rows, ids and click ids, each in its day; lookups work (a hash index per day); new ids go above', async () => {
    // A database migrated up to 0032 only: the journal and files without 0033, bookkept as migratePg does.
    const dir = mkdtempSync(join(tmpdir(), 'svc-mig-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    cpSync(join(import.meta.dir, '../../drizzle-pg'), dir, { recursive: true })
    const journal = JSON.parse(readFileSync(join(dir, 'meta/_journal.json'), 'utf8'))
    journal.entries = journal.entries.filter((e: { tag: string }) => e.tag < '0033')
    writeFileSync(join(dir, 'meta/_journal.json'), JSON.stringify(journal))
    const url = await freshPgUrl()
    const pre = new SQL(url, { max: 1 })
    cleanups.push(() => pre.close())
    await pre.begin(async (tx) => {
      await tx.unsafe('CREATE SCHEMA "drizzle"')
      await tx.unsafe('CREATE TABLE "drizzle"."__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)')
      for (const m of readMigrationFiles({ migrationsFolder: dir })) {
        for (const stmt of m.sql) if (stmt.trim()) await tx.unsafe(stmt)
        await tx`INSERT INTO "drizzle"."__drizzle_migrations" (hash, created_at) VALUES (${m.hash}, ${m.folderMillis})`
      }
    })
    const [{ kind }] = await pre`SELECT relkind AS kind FROM pg_class WHERE oid = 'public.clicks'::regclass`
    expect(kind).toBe('r')
    // Clicks the old way (the store's INSERT of today), on days far apart, v4 ids; a rolled back batch burns ids.
    const today = dayOf(Date.now())
    const days = [Date.UTC(2024, 1, 29), today - 40 * DAY_MS, today - DAY_MS, today]
    const oldClicks = days.flatMap((d, j) => Array.from({ length: 25 }, (_, i) =>
      click(d + i * 3_600_000 % DAY_MS + i, { clickId: crypto.randomUUID(), sub1: `s${j}-${i}`, cost: 0.5 })))
    const oldDb = await openPg(url)
    const oldStore = createClickStore(oldDb, new EventBus())
    await oldStore.import(oldClicks)
    await oldStore.stop()
    await pre`SELECT nextval('clicks_id_seq') FROM generate_series(1, 7)`
    const snapshot = async (sql: SQL) => (await sql`SELECT row_to_json(c)::text AS j FROM clicks c ORDER BY id`).map((r: { j: string }) => JSON.parse(r.j))
    const before = await snapshot(oldDb.sql)
    const rollups = await oldDb.sql`SELECT * FROM click_stats_daily ORDER BY day, campaign_id`
    await oldDb.close()
    expect(before).toHaveLength(100)

    const { db, store } = await openStore(url)
    const [{ kind: now }] = await db.sql`SELECT relkind AS kind FROM pg_class WHERE oid = 'public.clicks'::regclass`
    expect(now).toBe('p')
    expect(await snapshot(db.sql)).toEqual(before)
    expect(await db.sql`SELECT * FROM click_stats_daily ORDER BY day, campaign_id`).toEqual(rollups)
    const where = await partitionsOf(db, oldClicks.map((c) => c.clickId))
    for (const c of oldClicks) expect({ id: c.clickId, part: where[c.clickId] }).toEqual({ id: c.clickId, part: `click_days.${partitionName(dayOf(c.createdAt))}` })
    const [{ n }] = await db.sql`SELECT count(*)::int AS n FROM click_days.clicks_default`
    expect(n).toBe(0)
    for (const c of [oldClicks[0]!, oldClicks[60]!, oldClicks[99]!]) {
      const rec = await store.record(c.clickId)
      expect(rec).toMatchObject({ clickId: c.clickId, sub1: c.sub1, createdAt: c.createdAt })
      expect(await store.rowOf(c.clickId)).toBe(rec!.row)
    }
    const maxOld = Math.max(...before.map((r: { id: number }) => r.id))
    const fresh = click(Date.now())
    await store.append(fresh)
    expect(await store.rowOf(fresh.clickId)).toBe(maxOld + 7 + 1)
    // Nothing left of the old table, and the schema's keys are the partitioned ones.
    expect((await db.sql`SELECT to_regclass('public.clicks_v0') AS t`)[0].t).toBeNull()
    const keys = await db.sql`SELECT conname FROM pg_constraint WHERE conrelid = 'public.clicks'::regclass AND contype = 'p'`
    expect(keys.map((k: { conname: string }) => k.conname)).toEqual(['clicks_id_created_at_pk'])
    // 0034: the click-id index of the parent and of every partition (the upgraded days, those made ahead, the
    // default one) is a hash index on click_id alone.
    const methods = await db.sql`
      SELECT i.relname AS name, am.amname AS method, pg_get_indexdef(i.oid) AS def FROM pg_index x
      JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_am am ON am.oid = i.relam JOIN pg_class t ON t.oid = x.indrelid
      WHERE (t.oid = 'public.clicks'::regclass OR t.relnamespace = 'click_days'::regnamespace) AND i.relname LIKE '%click_id%'`
    expect(methods.length).toBe(1 + (await db.sql`SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = 'public.clicks'::regclass`)[0].n)
    for (const m of methods as Array<{ name: string; method: string; def: string }>) {
      expect({ name: m.name, method: m.method }).toEqual({ name: m.name, method: 'hash' })
      expect(m.def).toMatch(/USING hash \(click_id\)$/)
    }
  }, 60_000)
})
