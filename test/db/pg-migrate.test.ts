// PostgreSQL base (issue 8): migrations, schema parity with SQLite, seed rows, concurrent start-up, and
// the connection error. Needs initdb/pg_ctl on this machine; skipped with the reason otherwise.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { openDatabase, type Database } from '../../src/db/client'
import { migrate } from '../../src/db/migrate'
import { openPg, type PgDatabase } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import { freshPgUrl, pgAvailable, pgCluster } from '../helpers/pg'

const avail = pgAvailable()
if (!avail.ok) console.warn(`skipping PostgreSQL tests: ${avail.why}`)

/** SQLite-only tables (click_index is a SQLite write-path structure; Postgres indexes click_id itself). */
const SQLITE_ONLY = new Set(['click_index', 'click_index_state', '__drizzle_migrations', 'sqlite_sequence'])
/** Columns only the Postgres schema has (src/db/schema/stats.ts: the conversion rollups' shard). */
const PG_ONLY_COLUMNS: Record<string, string[]> = {
  conversion_stats_hourly: ['shard'], conversion_stats_daily: ['shard'], conversion_country_hourly: ['shard'], conversion_country_daily: ['shard'],
  conversion_country_total_daily: ['shard'], conversion_path_hourly: ['shard'], conversion_path_daily: ['shard'],
  click_stats_hourly: ['shard'], click_stats_daily: ['shard'], click_country_hourly: ['shard'], click_country_daily: ['shard'],
  click_country_total_daily: ['shard'], click_path_hourly: ['shard'], click_path_daily: ['shard'],
}

describe.skipIf(!avail.ok)('PostgreSQL migrations', () => {
  let pg: PgDatabase
  let lite: Database
  let migrationCount = 0

  beforeAll(async () => {
    await pgCluster()
    pg = await openPg(await freshPgUrl())
    lite = await openDatabase(':memory:')
    migrate(lite)
    migrationCount = (await import('drizzle-orm/migrator')).readMigrationFiles({
      migrationsFolder: (await import('../../src/db/migrate')).migrationsFolder('drizzle-pg'),
    }).length
  })
  afterAll(async () => {
    await pg?.close()
    lite?.close()
  })

  test('applies every migration once; a second run applies none', async () => {
    expect(migrationCount).toBeGreaterThan(0)
    expect(await migratePg(pg)).toBe(migrationCount)
    expect(await migratePg(pg)).toBe(0)
  })

  test('same tables and columns as SQLite, minus the SQLite-only click index, plus the Postgres rollup shards', async () => {
    const liteTables = (lite.raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[])
      .map((r) => r.name).filter((n) => !SQLITE_ONLY.has(n)).sort()
    const pgTables = (await pg.sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`)
      .map((r: { table_name: string }) => r.table_name).sort()
    expect(pgTables).toEqual(liteTables)
    for (const table of liteTables) {
      const liteCols = (lite.raw.prepare(`SELECT name FROM pragma_table_info('${table}')`).all() as { name: string }[]).map((r) => r.name).sort()
      const pgCols = (await pg.sql`SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ${table}`)
        .map((r: { column_name: string }) => r.column_name).sort()
      // The conversion rollups' shard exists on Postgres only (striped rows; one writer on SQLite needs none).
      const pgOnly = PG_ONLY_COLUMNS[table] ?? []
      expect({ table, cols: pgCols.filter((c: string) => !pgOnly.includes(c)) }).toEqual({ table, cols: liteCols })
      for (const c of pgOnly) expect({ table, has: pgCols.includes(c) }).toEqual({ table, has: true })
    }
  })

  // Unique with created_at: clicks is partitioned by day (drizzle-pg/0033), and a key of a partitioned table holds the
  // partition key. A click id names its day (tracking/store/pg-partitions.ts), so one id has one created_at.
  test('clicks.click_id has a hash index (0034), and a duplicate is not refused by it', async () => {
    const [{ def }] = await pg.sql`SELECT indexdef AS def FROM pg_indexes WHERE schemaname = 'public' AND indexname = 'clicks_click_id_idx'`
    expect(def).toBe('CREATE INDEX clicks_click_id_idx ON ONLY public.clicks USING hash (click_id)')
    // Click ids are UUID v4 from the CSPRNG: nothing depends on the database catching a repeated one.
    const at = Date.now()
    const insert = () => pg.sql`INSERT INTO clicks (click_id, campaign_id, created_at) VALUES ('dup-click', 1, ${at})`
    await insert()
    await insert()
    const [{ n }] = await pg.sql`SELECT count(*)::int AS n FROM clicks WHERE click_id = 'dup-click'`
    expect(n).toBe(2)
  })

  test('same seed rows as a fresh SQLite database', async () => {
    const tables = (lite.raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[])
      .map((r) => r.name).filter((n) => !SQLITE_ONLY.has(n))
    let seeded = 0
    for (const table of tables) {
      const liteRows = lite.raw.prepare(`SELECT * FROM "${table}"`).all() as Record<string, unknown>[]
      if (table === 'clicks') continue // holds the rows of the click_id test above
      const pgRows = (await pg.sql.unsafe(`SELECT * FROM "${table}"`)) as Record<string, unknown>[]
      // int8 columns come back as strings from Bun SQL: compare as numbers where SQLite has a number.
      const norm = (rows: Record<string, unknown>[], like: Record<string, unknown>[]) =>
        rows.map((r) => JSON.stringify(Object.fromEntries(Object.keys(r).sort().map((k) =>
          [k, typeof like[0]?.[k] === 'number' && typeof r[k] === 'string' ? Number(r[k]) : r[k]])))).sort()
      expect({ table, rows: norm(pgRows, liteRows) }).toEqual({ table, rows: norm(liteRows, liteRows) })
      if (liteRows.length) seeded++
    }
    expect(seeded).toBeGreaterThanOrEqual(2) // conversion_types and status_map
  })

  test('daily rollups follow the hourly rows (triggers)', async () => {
    const hour = 3 * 86_400_000 + 5 * 3_600_000
    await pg.sql`INSERT INTO click_stats_hourly (hour, campaign_id, source_id, offer_id, landing_id, clicks, cost) VALUES (${hour}, 7, 0, 0, 0, 3, 1.5)`
    await pg.sql`INSERT INTO click_stats_hourly (hour, campaign_id, source_id, offer_id, landing_id, clicks, cost) VALUES (${hour + 3_600_000}, 7, 0, 0, 0, 2, 1)`
    await pg.sql`UPDATE click_stats_hourly SET clicks = clicks + 10 WHERE hour = ${hour} AND campaign_id = 7`
    const [day] = await pg.sql`SELECT day, clicks, cost FROM click_stats_daily WHERE campaign_id = 7`
    expect([Number(day.day), day.clicks, day.cost]).toEqual([3 * 86_400_000, 15, 2.5])
  })

  test('two instances migrating a fresh database at once apply the migrations once', async () => {
    const url = await freshPgUrl()
    const [a, b] = await Promise.all([openPg(url), openPg(url)])
    try {
      const ran = await Promise.all([migratePg(a), migratePg(b)])
      expect(ran.sort((x, y) => x - y)).toEqual([0, migrationCount])
      const [{ n }] = await a.sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`
      expect(n).toBe(migrationCount)
    } finally {
      await a.close()
      await b.close()
    }
  })
})

test('openPg on a closed port fails with one line that names the host, not the password', async () => {
  // Port 1 on loopback: nothing listens there, so the connection is refused at once.
  const err = await openPg('postgres://svc:Sup3rSecretPw@127.0.0.1:1/svc').then(() => null, (e: unknown) => e)
  expect(err).toBeInstanceOf(Error)
  const msg = (err as Error).message
  expect(msg).toContain('127.0.0.1')
  expect(msg).not.toContain('Sup3rSecretPw')
  expect(msg).not.toContain('\n')
})
