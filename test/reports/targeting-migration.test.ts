// The upgrade to targeting rollups (drizzle/0028, drizzle-pg/0025): a database at the previous migration, with
// clicks (country set, path_id set on some) of which some were already pruned (counted in the campaign rollups
// only) and conversions, is migrated. Conversions copy their click's country and path; the targeting rollups
// hold the kept clicks by country and path and the rest as unknown country / default rotation, so their totals
// equal the campaign rollups'; the daily tables equal their hourly rows and their triggers follow.
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

async function seed(db: Engine): Promise<void> {
  await db.run(`INSERT INTO offers (id, name, slug, url, currency, created_at, updated_at) VALUES (1, 'U', 'u', 'https://a.example/', 'USD', ${H}, ${H})`)
  await db.run(`INSERT INTO campaigns (id, name, slug, created_at, updated_at) VALUES (1, 'C', 'c', ${H}, ${H})`)
  // Kept clicks: US on path 7 (twice, one a bot), DE without a path, one without a country, one excluded.
  await db.run(
    'INSERT INTO clicks (id, click_id, campaign_id, offer_id, country, path_id, bot_reason, is_unique, cost, excluded, created_at) VALUES ' +
      `(1, 'k1', 1, 1, 'US', 7, NULL, 1, 0.5, 0, ${H}), (2, 'k2', 1, 1, 'US', 7, 'dc', 0, 0, 0, ${H + 60_000}), ` +
      `(3, 'k3', 1, 1, 'DE', NULL, NULL, 1, 0.5, 0, ${H + DAY}), (4, 'k4', 1, 1, NULL, NULL, NULL, 1, 0.5, 0, ${H}), ` +
      `(5, 'k5', 1, 1, 'US', 7, NULL, 1, 0.5, 1, ${H})`,
  )
  // The campaign rollups as the writer left them: the kept clicks plus 3 clicks at H already pruned.
  await db.run(
    'INSERT INTO click_stats_hourly (hour, campaign_id, source_id, offer_id, landing_id, clicks, unique_clicks, bot_clicks, cost, landing_views, landing_clicks) ' +
      `VALUES (${H}, 1, 0, 1, 0, 6, 5, 1, 2.0, 0, 0), (${H + DAY}, 1, 0, 1, 0, 1, 1, 0, 0.5, 0, 0)`,
  )
  const conv = (id: number, click: number, revenue: number, date: number) =>
    `(${id}, ${click}, 'k${click}', 1, 1, 'sale', ${revenue}, 'USD', ${date}, ${date})`
  await db.run(
    'INSERT INTO conversions (id, click_row_id, click_id, campaign_id, offer_id, type, revenue, currency, date, created_at) VALUES ' +
      [conv(1, 1, 10, H + 1000), conv(2, 3, 4, H + DAY + 1000), conv(3, 99, 2, H + 2000), conv(4, 5, 100, H + 3000)].join(', '),
  )
  await db.run(
    'INSERT INTO conversion_stats_hourly (hour, campaign_id, source_id, offer_id, landing_id, type, currency, conversions, revenue, revenue_abs) ' +
      `VALUES (${H}, 1, 0, 1, 0, 'sale', 'USD', 2, 12, 12), (${H + DAY}, 1, 0, 1, 0, 'sale', 'USD', 1, 4, 4)`,
  )
}

async function check(db: Engine): Promise<void> {
  expect(await db.migrateRest()).toBeGreaterThanOrEqual(1)
  expect(await db.all('SELECT id, country, path_id FROM conversions ORDER BY id')).toEqual([
    { id: 1, country: 'US', path_id: 7 }, { id: 2, country: 'DE', path_id: null }, { id: 3, country: null, path_id: null }, { id: 4, country: 'US', path_id: 7 },
  ])
  // Later upgrades (drizzle/0035, drizzle-pg/0033) copy the click's created_at into its conversions; 0: click gone.
  expect(await db.all('SELECT id, click_created_at AS t FROM conversions ORDER BY id')).toEqual([
    { id: 1, t: H }, { id: 2, t: H + DAY }, { id: 3, t: 0 }, { id: 4, t: H },
  ])
  const clickCols = 'sum(clicks) AS clicks, sum(unique_clicks) AS uniq, sum(bot_clicks) AS bots, sum(cost) AS cost'
  const hourly = (d: 'country' | 'path', k: string) =>
    db.all(`SELECT hour, ${k} AS k, ${clickCols} FROM click_${d}_hourly GROUP BY hour, ${k} ORDER BY hour, ${k}`)
  expect(await hourly('country', 'country')).toEqual([
    // k4 (no country) and the 3 pruned clicks.
    { hour: H, k: '', clicks: 4, uniq: 4, bots: 0, cost: 1.5 },
    { hour: H, k: 'US', clicks: 2, uniq: 1, bots: 1, cost: 0.5 },
    { hour: H + DAY, k: 'DE', clicks: 1, uniq: 1, bots: 0, cost: 0.5 },
  ])
  expect(await hourly('path', 'path_id')).toEqual([
    { hour: H, k: 0, clicks: 4, uniq: 4, bots: 0, cost: 1.5 },
    { hour: H, k: 7, clicks: 2, uniq: 1, bots: 1, cost: 0.5 },
    { hour: H + DAY, k: 0, clicks: 1, uniq: 1, bots: 0, cost: 0.5 },
  ])
  const convCols = 'sum(conversions) AS n, sum(revenue) AS revenue'
  const conv = (d: 'country' | 'path', k: string) =>
    db.all(`SELECT hour, ${k} AS k, currency, ${convCols} FROM conversion_${d}_hourly GROUP BY hour, ${k}, currency ORDER BY hour, ${k}`)
  expect(await conv('country', 'country')).toEqual([
    { hour: H, k: '', currency: 'USD', n: 1, revenue: 2 },
    { hour: H, k: 'US', currency: 'USD', n: 1, revenue: 10 },
    { hour: H + DAY, k: 'DE', currency: 'USD', n: 1, revenue: 4 },
  ])
  expect(await conv('path', 'path_id')).toEqual([
    { hour: H, k: 0, currency: 'USD', n: 1, revenue: 2 },
    { hour: H, k: 7, currency: 'USD', n: 1, revenue: 10 },
    { hour: H + DAY, k: 0, currency: 'USD', n: 1, revenue: 4 },
  ])
  expect(await db.all(`SELECT day, country, ${clickCols} FROM click_country_total_daily GROUP BY day, country ORDER BY day, country`)).toEqual([
    { day: H - (H % DAY), country: '', clicks: 4, uniq: 4, bots: 0, cost: 1.5 },
    { day: H - (H % DAY), country: 'US', clicks: 2, uniq: 1, bots: 1, cost: 0.5 },
    { day: H - (H % DAY) + DAY, country: 'DE', clicks: 1, uniq: 1, bots: 0, cost: 0.5 },
  ])
  expect(await db.all(`SELECT ${convCols} FROM conversion_country_total_daily`)).toEqual(await db.all(`SELECT ${convCols} FROM conversion_stats_daily`))
  for (const d of ['country', 'path']) {
    expect(await db.all(`SELECT ${clickCols} FROM click_${d}_daily`)).toEqual(await db.all(`SELECT ${clickCols} FROM click_stats_daily`))
    expect(await db.all(`SELECT ${convCols} FROM conversion_${d}_daily`)).toEqual(await db.all(`SELECT ${convCols} FROM conversion_stats_daily`))
  }
  // The daily triggers follow the hourly tables.
  for (const [d, k, v] of [['country', 'country', "'US'"], ['path', 'path_id', '7']]) {
    await db.run(`INSERT INTO click_${d}_hourly (hour, campaign_id, ${k}, clicks) VALUES (${H + HOUR}, 1, ${v}, 5)`)
    await db.run(`UPDATE click_${d}_hourly SET clicks = clicks - 1 WHERE hour = ${H} AND ${k} = ${v}`)
    expect(await db.all(`SELECT day, sum(clicks) AS clicks FROM click_${d}_daily WHERE ${k} = ${v} GROUP BY day`)).toEqual([{ day: H - (H % DAY), clicks: 6 }])
    await db.run(`INSERT INTO conversion_${d}_hourly (hour, campaign_id, ${k}, type, currency, conversions, revenue, revenue_abs) VALUES (${H + HOUR}, 1, ${v}, 'sale', 'GBP', 1, 9, 9)`)
    await db.run(`DELETE FROM conversion_${d}_hourly WHERE hour = ${H} AND ${k} = ${v}`)
    expect(await db.all(`SELECT currency, ${convCols} FROM conversion_${d}_daily WHERE ${k} = ${v} GROUP BY currency ORDER BY currency`))
      .toEqual([{ currency: 'GBP', n: 1, revenue: 9 }, { currency: 'USD', n: 0, revenue: 0 }])
  }
}

const numbers = (rows: Array<Record<string, unknown>>) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) =>
  [k, typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : typeof v === 'bigint' ? Number(v) : v])))

describe('targeting rollups (upgrade)', () => {
  test('SQLite: drizzle/0028 backfills conversions and the targeting rollups', async () => {
    const lite = await openDatabase(':memory:')
    try {
      const all = readMigrationFiles({ migrationsFolder: migrationsFolder() })
      const last = all.findIndex((m) => m.sql.join('\n').includes('CREATE TABLE `click_country_hourly`'))
      expect(last).toBeGreaterThan(0)
      const dialect = lite.db as unknown as { dialect: { migrate: Function }; session: unknown }
      dialect.dialect.migrate(all.slice(0, last), dialect.session, {})
      const engine: Engine = {
        run: async (sql) => void lite.raw.prepare(sql).run(),
        all: async (sql) => lite.raw.prepare(sql).all() as Array<Record<string, unknown>>,
        migrateRest: async () => migrate(lite),
      }
      await seed(engine)
      await check(engine)
    } finally {
      lite.close()
    }
  })

  const avail = pgAvailable()
  let pg: PgDatabase | undefined
  afterAll(async () => pg?.close())

  test.skipIf(!avail.ok)('Postgres: drizzle-pg/0025 does the same', async () => {
    await pgCluster()
    pg = await openPg(await freshPgUrl())
    const all = readMigrationFiles({ migrationsFolder: migrationsFolder('drizzle-pg') })
    const last = all.findIndex((m) => m.sql.join('\n').includes('CREATE TABLE "click_country_hourly"'))
    expect(last).toBeGreaterThan(0)
    await pg.sql.begin(async (tx) => {
      await tx.unsafe('CREATE SCHEMA IF NOT EXISTS "drizzle"')
      await tx.unsafe('CREATE TABLE IF NOT EXISTS "drizzle"."__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)')
      for (const m of all.slice(0, last)) {
        for (const stmt of m.sql) if (stmt.trim()) await tx.unsafe(stmt)
        await tx`INSERT INTO "drizzle"."__drizzle_migrations" (hash, created_at) VALUES (${m.hash}, ${m.folderMillis})`
      }
    })
    const db = pg
    const engine: Engine = {
      run: async (sql) => void (await db.sql.unsafe(sql)),
      all: async (sql) => numbers([...(await db.sql.unsafe(sql))] as Array<Record<string, unknown>>),
      migrateRest: () => migratePg(db),
    }
    await seed(engine)
    await check(engine)
  }, 60_000)
})
