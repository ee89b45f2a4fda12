// Postgres: the striped rollup rows of closed hours and days are folded into shard 0 (src/reports/pg-fold-shards.ts)
// without changing any report: the same seed on SQLite (no shards) and on Postgres striped over shards gives the same
// reports before and after the fold; the rows of the current hour stay striped; a row a writer holds is skipped,
// not waited for.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SQL } from 'bun'
import { openDatabase, type Database } from '../../src/db/client'
import { migrate } from '../../src/db/migrate'
import { openPg, type PgDatabase } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import { parseReportRequest, type Query } from '../../src/reports/params'
import { foldShards, stripedTables } from '../../src/reports/pg-fold-shards'
import { ReportQueries } from '../../src/reports/queries'
import { ReportService } from '../../src/reports/service'
import { freshPgUrl, pgAvailable } from '../helpers/pg'
import { HOUR, makeSeed, seedPg, seedSqlite } from './pg-seed'

const avail = pgAvailable()
const NOW = Date.UTC(2025, 10, 20, 12, 30)
const QUERIES: Query[] = [
  { group_by: 'campaign', from: '2025-10-20', to: '2025-11-08', limit: '1000' },
  { group_by: 'day,campaign', tz: 'Europe/Berlin', from: '2025-10-20', to: '2025-11-08', limit: '1000' },
  { group_by: 'hour', from: '2025-10-25T13:37:10', to: '2025-11-02T05:10', limit: '1000' },
  { group_by: 'country', from: '2025-10-20', to: '2025-11-08', limit: '1000' },
  { group_by: 'campaign,path', from: '2025-10-20', to: '2025-11-08', limit: '1000' },
  { group_by: 'currency,offer', tz: 'Asia/Kolkata', from: '2025-10-20', to: '2025-11-08', limit: '1000' },
]

let dir: string
let lite: Database
let pg: PgDatabase
let url: string
let sqliteService: ReportService
let pgService: ReportService

async function reportsMatch(): Promise<void> {
  for (const q of QUERIES) {
    const req = parseReportRequest(q, NOW)
    expect({ q, r: await pgService.run(req) }).toEqual({ q, r: await sqliteService.run(req) })
  }
}

const striped = async (table: string, period: string, before: number) =>
  Number((await pg.sql.unsafe(`SELECT count(*) AS n FROM ${table} WHERE shard <> 0 AND ${period} < $1`, [before]))[0].n)

describe.skipIf(!avail.ok)('Postgres: folding rollup shards of closed periods', () => {
  beforeAll(async () => {
    const seed = makeSeed()
    dir = mkdtempSync(join(tmpdir(), 'svc-pg-fold-'))
    lite = await openDatabase(join(dir, 'svc.db'))
    migrate(lite)
    seedSqlite(lite, seed)
    url = await freshPgUrl()
    pg = await openPg(url)
    await migratePg(pg)
    await seedPg(pg, seed)
    sqliteService = new ReportService(ReportQueries.of(lite))
    pgService = new ReportService(ReportQueries.of(pg))
    // Stripe every hourly row over five shards by its hour, as writers side by side leave them: the daily
    // triggers move each hour's share of its day to the same shard, so a daily key spans several shards.
    for (const t of stripedTables().filter((t) => t.period === 'hour')) {
      await pg.sql.unsafe(`UPDATE ${t.name} SET shard = (hour / ${HOUR}) % 5`)
    }
    // The per-day totals have no hourly table (written directly): striped by day.
    for (const t of stripedTables().filter((t) => t.name.endsWith('_total_daily'))) {
      await pg.sql.unsafe(`UPDATE ${t.name} SET shard = (day / 86400000) % 5`)
    }
    // And every such row split in two shards (halves: exact for integers and floats alike), so a key has several rows.
    for (const t of stripedTables().filter((t) => t.period === 'hour' || t.name.endsWith('_total_daily'))) {
      const cols = [...t.key, ...t.sums].join(', ')
      const halves = [...t.key, ...t.sums.map((c) => `${c} / 2`)].join(', ')
      await pg.sql.unsafe(`INSERT INTO ${t.name} (${cols}, shard) SELECT ${halves}, shard + 5 FROM ${t.name}`)
      await pg.sql.unsafe(`UPDATE ${t.name} SET ${t.sums.map((c) => `${c} = ${c} - ${c} / 2`).join(', ')} WHERE shard < 5`)
    }
  }, 120_000)
  afterAll(async () => {
    await pg?.close()
    lite?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  test('every striped table is found, hourly ones first, with its key and counters from the schema', () => {
    const tables = stripedTables()
    const names = tables.map((t) => t.name)
    expect(names).toContain('conversion_stats_hourly')
    expect(names).toContain('conversion_stats_daily')
    expect(tables.findIndex((t) => t.period === 'day')).toBeGreaterThan(tables.findLastIndex((t) => t.period === 'hour'))
    const conv = tables.find((t) => t.name === 'conversion_stats_hourly')!
    expect(conv.key).toEqual(['hour', 'campaign_id', 'source_id', 'offer_id', 'landing_id', 'type', 'currency'])
    expect(conv.sums).toEqual(expect.arrayContaining(['conversions', 'revenue', 'revenue_abs', 'cost', 'cost_abs']))
  })

  test('the fold leaves every report as it was and no closed row outside shard 0; the current hour stays striped', async () => {
    const tables = stripedTables()
    const hourly = tables.find((t) => t.name === 'conversion_stats_hourly')!
    // A row of the current hour in shard 3: still being written, so not folded.
    await pg.sql.unsafe(
      `INSERT INTO conversion_stats_hourly (hour, campaign_id, source_id, offer_id, landing_id, type, currency, shard, conversions, revenue, revenue_abs)
       VALUES ($1, 1, 0, 1, 0, 'sale', 'USD', 3, 1, 2.5, 2.5)`, [NOW - (NOW % HOUR)])
    // Every table the seed filled starts striped.
    let filled = 0
    for (const t of tables) {
      if (Number((await pg.sql.unsafe(`SELECT count(*) AS n FROM ${t.name}`))[0].n) === 0) continue
      filled++
      expect({ t: t.name, n: await striped(t.name, t.period, NOW - (NOW % HOUR)) }).not.toEqual({ t: t.name, n: 0 })
    }
    expect(filled).toBeGreaterThanOrEqual(6)
    await reportsMatch()

    const r = await foldShards(pg.sql, NOW)
    expect(r.skipped).toEqual([])
    expect(r.tables[hourly.name]).toBeGreaterThan(0)
    const hourCut = NOW - (NOW % HOUR) - HOUR
    const dayCut = NOW - (NOW % 86_400_000) - 86_400_000
    for (const t of tables) expect({ t: t.name, n: await striped(t.name, t.period, t.period === 'hour' ? hourCut : dayCut) }).toEqual({ t: t.name, n: 0 })
    const [current] = await pg.sql.unsafe('SELECT shard, conversions FROM conversion_stats_hourly WHERE hour = $1', [NOW - (NOW % HOUR)])
    expect({ shard: current.shard, conversions: current.conversions }).toEqual({ shard: 3, conversions: 1 })
    await pg.sql.unsafe('DELETE FROM conversion_stats_hourly WHERE hour = $1', [NOW - (NOW % HOUR)])
    await reportsMatch()
    // A second run finds nothing to fold.
    const again = await foldShards(pg.sql, NOW)
    expect(Object.values(again.tables).every((n) => n === 0)).toBe(true)
  }, 60_000)

  test('a row a writer holds is skipped, not waited for, and folded by the next run', async () => {
    const hourly = stripedTables().filter((t) => t.name === 'conversion_stats_hourly')
    const old = Date.UTC(2025, 9, 21, 5)
    await pg.sql.unsafe(
      `INSERT INTO conversion_stats_hourly (hour, campaign_id, source_id, offer_id, landing_id, type, currency, shard, conversions, revenue, revenue_abs)
       VALUES ($1, 1, 0, 1, 0, 'sale', 'USD', 4, 1, 7, 7), ($1, 1, 0, 1, 0, 'sale', 'USD', 6, 1, 3, 3)`, [old])
    const writer = new SQL(url, { max: 1 })
    try {
      let release!: () => void
      const held = new Promise<void>((r) => (release = r))
      let locked!: () => void
      const isLocked = new Promise<void>((r) => (locked = r))
      const tx = writer.begin(async (t) => {
        await t.unsafe('SELECT 1 FROM conversion_stats_hourly WHERE hour = $1 AND shard = 4 FOR UPDATE', [old])
        locked()
        await held
      })
      await isLocked
      const started = performance.now()
      const r = await foldShards(pg.sql, NOW, hourly)
      expect(performance.now() - started).toBeLessThan(5_000)
      expect(r.skipped).toEqual([])
      const rows = await pg.sql.unsafe('SELECT shard, revenue FROM conversion_stats_hourly WHERE hour = $1 AND campaign_id = 1 AND offer_id = 1 AND type = $2 ORDER BY shard', [old, 'sale'])
      expect(rows.map((x: { shard: number }) => x.shard)).toContain(4)
      expect(rows.map((x: { shard: number }) => x.shard)).not.toContain(6)
      release()
      await tx
      await foldShards(pg.sql, NOW, hourly)
      const after = await pg.sql.unsafe('SELECT shard FROM conversion_stats_hourly WHERE hour = $1 AND shard <> 0', [old])
      expect(after.length).toBe(0)
    } finally {
      await writer.close()
    }
  }, 60_000)
})
