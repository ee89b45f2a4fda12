// The upgrade to currency-keyed conversion rollups (drizzle/0025, drizzle-pg/0022): a database built at the
// previous migration, with rollups counted the old way (one row for conversions in two currencies, a row
// fixed up by hand, Postgres shards), is migrated; every rollup row then holds one currency, exactly as the
// raw conversions split it, the totals are unchanged and the daily triggers still follow the hourly table.
import { afterAll, describe, expect, test } from 'bun:test'
import { readMigrationFiles } from 'drizzle-orm/migrator'
import { openDatabase } from '../../src/db/client'
import { migrate, migrationsFolder } from '../../src/db/migrate'
import { openPg, type PgDatabase } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import { freshPgUrl, pgAvailable, pgCluster } from '../helpers/pg'

const HOUR = 3_600_000
const DAY = 86_400_000
const H = Date.UTC(2026, 0, 5, 10)

interface Engine {
  run(sql: string): Promise<void>
  all(sql: string): Promise<Array<Record<string, unknown>>>
  migrateRest(): Promise<number>
}

/** Old-style data: conversions in USD, EUR (lower-case), none, and one of an excluded click; rollups from them. */
async function seed(db: Engine, shards: boolean): Promise<void> {
  await db.run(`INSERT INTO offers (id, name, slug, url, currency, created_at, updated_at) VALUES (1, 'U', 'u', 'https://a.example/', 'USD', ${H}, ${H}), (2, 'E', 'e', 'https://a.example/', 'EUR', ${H}, ${H})`)
  await db.run(`INSERT INTO campaigns (id, name, slug, created_at, updated_at) VALUES (1, 'C', 'c', ${H}, ${H})`)
  await db.run(
    `INSERT INTO clicks (id, click_id, campaign_id, offer_id, excluded, created_at) VALUES (1, 'k1', 1, 1, 0, ${H}), (2, 'k2', 1, 2, 0, ${H}), ` +
      `(3, 'k3', 1, 1, 1, ${H}), (4, 'k4', 1, NULL, 0, ${H})`,
  )
  const conv = (id: number, click: number, offer: number | null, type: string, revenue: number, currency: string | null, date: number) =>
    `(${id}, ${click}, 'k${click}', 1, ${offer ?? 'NULL'}, '${type}', ${revenue}, ${currency === null ? 'NULL' : `'${currency}'`}, ${date}, ${date})`
  await db.run(
    'INSERT INTO conversions (id, click_row_id, click_id, campaign_id, offer_id, type, revenue, currency, date, created_at) VALUES ' +
      [
        conv(1, 1, 1, 'sale', 10, 'USD', H + 1000),
        conv(2, 1, 1, 'sale', 5, 'EUR', H + 2000), // same rollup row as the one above, another currency
        conv(3, 2, 2, 'sale', 84, 'eur', H + 3000),
        conv(4, 4, null, 'sale', 7, null, H + 4000),
        conv(5, 3, 1, 'sale', 100, 'USD', H + 5000), // excluded click: never counted
        conv(6, 1, 1, 'chargeback', -3, 'USD', H + DAY),
      ].join(', '),
  )
  // The rollups as the old writer left them (migration 0002's rebuild), the daily rows by trigger.
  await db.run(
    'INSERT INTO conversion_stats_hourly (hour, campaign_id, source_id, offer_id, landing_id, type, conversions, revenue, revenue_abs) ' +
      `SELECT v.date - v.date % ${HOUR}, v.campaign_id, 0, coalesce(v.offer_id, 0), 0, v.type, count(*), sum(v.revenue), sum(abs(v.revenue)) ` +
      'FROM conversions v JOIN clicks c ON c.id = v.click_row_id WHERE c.excluded = 0 GROUP BY 1, 2, 3, 4, 5, 6',
  )
  // A fix-up by hand (one conversion of 2.50 more): on Postgres in another shard of the same row.
  if (shards) {
    await db.run(`INSERT INTO conversion_stats_hourly (hour, campaign_id, source_id, offer_id, landing_id, type, shard, conversions, revenue, revenue_abs) VALUES (${H}, 1, 0, 1, 0, 'sale', 5, 1, 2.5, 2.5)`)
  } else {
    await db.run(`UPDATE conversion_stats_hourly SET conversions = conversions + 1, revenue = revenue + 2.5, revenue_abs = revenue_abs + 2.5 WHERE hour = ${H} AND offer_id = 1 AND type = 'sale'`)
  }
}

const WANT_HOURLY = [
  { hour: H, offer_id: 0, type: 'sale', currency: '', conversions: 1, revenue: 7, revenue_abs: 7 },
  { hour: H, offer_id: 1, type: 'sale', currency: 'EUR', conversions: 1, revenue: 5, revenue_abs: 5 },
  { hour: H, offer_id: 1, type: 'sale', currency: 'USD', conversions: 2, revenue: 12.5, revenue_abs: 12.5 }, // 10 + the fix-up
  { hour: H, offer_id: 2, type: 'sale', currency: 'EUR', conversions: 1, revenue: 84, revenue_abs: 84 },
  { hour: H + DAY, offer_id: 1, type: 'chargeback', currency: 'USD', conversions: 1, revenue: -3, revenue_abs: 3 },
]

async function check(db: Engine): Promise<void> {
  const totals = 'SELECT sum(conversions) AS n, sum(revenue) AS r, sum(revenue_abs) AS a FROM conversion_stats_hourly'
  const before = (await db.all(totals))[0]
  // This migration and any later one.
  expect(await db.migrateRest()).toBeGreaterThanOrEqual(1)
  expect((await db.all(totals))[0]).toEqual(before)
  const cols = 'offer_id, type, currency, sum(conversions) AS conversions, sum(revenue) AS revenue, sum(revenue_abs) AS revenue_abs'
  const hourly = await db.all(`SELECT hour, ${cols} FROM conversion_stats_hourly GROUP BY hour, offer_id, type, currency ORDER BY hour, offer_id, type, currency`)
  expect(hourly).toEqual(WANT_HOURLY)
  const daily = await db.all(`SELECT day, ${cols} FROM conversion_stats_daily GROUP BY day, offer_id, type, currency ORDER BY day, offer_id, type, currency`)
  expect(daily).toEqual(WANT_HOURLY.map(({ hour, ...r }) => ({ day: hour - (hour % DAY), ...r })))
  // The daily trigger follows the hourly table, currency in the key.
  await db.run(`INSERT INTO conversion_stats_hourly (hour, campaign_id, source_id, offer_id, landing_id, type, currency, conversions, revenue, revenue_abs) VALUES (${H + HOUR}, 1, 0, 2, 0, 'sale', 'GBP', 1, 9, 9)`)
  expect(await db.all(`SELECT currency, conversions, revenue FROM conversion_stats_daily WHERE currency = 'GBP'`)).toEqual([{ currency: 'GBP', conversions: 1, revenue: 9 }])
}

describe('conversion rollups gain a currency (upgrade)', () => {
  test('SQLite: drizzle/0025 splits existing rows by their raw conversions\' currencies', async () => {
    const lite = await openDatabase(':memory:')
    try {
      const all = readMigrationFiles({ migrationsFolder: migrationsFolder() })
      const last = all.findIndex((m) => m.sql.join('\n').includes('conversion_stats_hourly_cur'))
      expect(last).toBeGreaterThan(0)
      const dialect = lite.db as unknown as { dialect: { migrate: Function }; session: unknown }
      dialect.dialect.migrate(all.slice(0, last), dialect.session, {})
      const engine: Engine = {
        run: async (sql) => void lite.raw.prepare(sql).run(),
        all: async (sql) => lite.raw.prepare(sql).all() as Array<Record<string, unknown>>,
        migrateRest: async () => migrate(lite),
      }
      await seed(engine, false)
      await check(engine)
    } finally {
      lite.close()
    }
  })

  const avail = pgAvailable()
  let pg: PgDatabase | undefined
  afterAll(async () => pg?.close())

  test.skipIf(!avail.ok)('Postgres: drizzle-pg/0022 does the same and folds the shards', async () => {
    await pgCluster()
    pg = await openPg(await freshPgUrl())
    const all = readMigrationFiles({ migrationsFolder: migrationsFolder('drizzle-pg') })
    const last = all.findIndex((m) => m.sql.join('\n').includes('conversion_stats_before'))
    expect(last).toBeGreaterThan(0)
    // What migratePg does, up to the previous migration (same bookkeeping, so migratePg then runs the last one).
    await pg.sql.begin(async (tx) => {
      await tx.unsafe('CREATE SCHEMA IF NOT EXISTS "drizzle"')
      await tx.unsafe('CREATE TABLE IF NOT EXISTS "drizzle"."__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)')
      for (const m of all.slice(0, last)) {
        for (const stmt of m.sql) if (stmt.trim()) await tx.unsafe(stmt)
        await tx`INSERT INTO "drizzle"."__drizzle_migrations" (hash, created_at) VALUES (${m.hash}, ${m.folderMillis})`
      }
    })
    const db = pg
    // int8/numeric sums come back as strings: numbers, as SQLite gives them.
    const numbers = (rows: Array<Record<string, unknown>>) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) =>
      [k, typeof v === 'string' && k !== 'type' && k !== 'currency' ? Number(v) : typeof v === 'bigint' ? Number(v) : v])))
    const engine: Engine = {
      run: async (sql) => void (await db.sql.unsafe(sql)),
      all: async (sql) => numbers([...(await db.sql.unsafe(sql))] as Array<Record<string, unknown>>),
      migrateRest: () => migratePg(db),
    }
    await seed(engine, true)
    await check(engine)
    // Every row landed in shard 0.
    expect(await engine.all('SELECT DISTINCT shard FROM conversion_stats_hourly WHERE hour <= ' + (H + DAY))).toEqual([{ shard: 0 }])
  }, 60_000)
})
