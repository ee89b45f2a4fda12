// Conversion rollups on Postgres: the before-commit subscriber of conversion.recorded writes through the
// conversions' transaction (the units' tx), so its hourly rows (and the trigger's daily rows) commit or
// roll back with the conversions; the conversions of one transaction are summed into one upsert; and
// reportsFeature wires the engine's rollup and queries.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase, type Database } from '../../src/db/client'
import { migrate } from '../../src/db/migrate'
import { openPg, type PgDatabase } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import type { DomainEvents } from '../../src/events'
import { EventBus } from '../../src/lib/event-bus'
import { reportsFeature } from '../../src/reports'
import { PgConversionRollup } from '../../src/postback/pg-rollup'
import type { RollupConversion } from '../../src/postback/rollup'
import { freshPgUrl, pgAvailable } from '../helpers/pg'

const avail = pgAvailable()
if (!avail.ok) console.warn(`skipping PostgreSQL rollup tests: ${avail.why}`)

const HOUR = 3_600_000
const T = Date.UTC(2025, 10, 3, 14, 25)

/** A recorded conversion as the postback feature announces it (only what the rollup reads is real). */
function recorded(c: Partial<Omit<RollupConversion, 'type'>> & { type?: string } = {}): DomainEvents['conversion.recorded'] {
  return {
    id: 1, campaignId: 4, sourceId: null, offerId: 2, landingId: null, revenue: 10, date: T, excluded: false, ...c,
    type: { slug: c.type ?? 'sale' },
  } as never
}

type Sums = { hour: number; conversions: number; revenue: number; revenue_abs: number }

describe.skipIf(!avail.ok)('Postgres conversion rollup', () => {
  let pg: PgDatabase
  const events = new EventBus()

  beforeAll(async () => {
    pg = await openPg(await freshPgUrl())
    await migratePg(pg)
    events.on('conversion.recorded', 'before-commit', 'reports.conversion-rollup', new PgConversionRollup().addAll)
  }, 60_000)
  afterAll(async () => {
    await pg?.close()
  })

  // Summed over the shards (striped rows of one campaign-hour, see ROLLUP_SHARDS), as reports read them.
  const hourly = async (sql = pg.sql): Promise<Sums[]> =>
    (await sql`SELECT hour::float8 AS hour, sum(conversions)::int AS conversions, sum(revenue) AS revenue, sum(revenue_abs) AS revenue_abs
      FROM conversion_stats_hourly GROUP BY hour, type ORDER BY hour, type`) as never
  const daily = async (sql = pg.sql): Promise<Sums[]> =>
    (await sql`SELECT day::float8 AS hour, sum(conversions)::int AS conversions, sum(revenue) AS revenue, sum(revenue_abs) AS revenue_abs
      FROM conversion_stats_daily GROUP BY day, type ORDER BY day, type`) as never

  /**
   * One transaction of conversions, as the postback batch runs it: a unit per conversion, then the
   * before-commit phase for the units it keeps (`dropped`: indexes of units rolled back to their savepoint),
   * then COMMIT and each unit's commit().
   */
  async function record(payloads: DomainEvents['conversion.recorded'][], fail = false, dropped: number[] = []): Promise<{ inside: Sums[]; insideDaily: Sums[] }> {
    let seen = { inside: [] as Sums[], insideDaily: [] as Sums[] }
    const units = await pg.sql.begin(async (tx) => {
      const units = payloads.map((p) => {
        const unit = events.unit(tx)
        // The rollup is not an in-transaction subscriber: nothing to await at emit().
        expect(unit.emit('conversion.recorded', p)).toBeUndefined()
        return unit
      })
      const keptUnits = units.filter((_, i) => !dropped.includes(i))
      const r = events.beforeCommit(keptUnits, tx)
      expect(r).toBeInstanceOf(Promise)
      await r
      seen = { inside: await hourly(tx), insideDaily: await daily(tx) }
      if (fail) throw new Error('conversion insert failed')
      return keptUnits
    }).catch((err: Error) => {
      if (!fail || err.message !== 'conversion insert failed') throw err
      return []
    })
    for (const u of units) u.commit()
    return seen
  }

  test('a rolled-back conversion leaves no rollup row; the row was there inside the transaction', async () => {
    const seen = await record([recorded({ revenue: 12.5 })], true)
    expect(seen.inside).toEqual([{ hour: T - (T % HOUR), conversions: 1, revenue: 12.5, revenue_abs: 12.5 }])
    expect(seen.insideDaily).toEqual([{ hour: Date.UTC(2025, 10, 3), conversions: 1, revenue: 12.5, revenue_abs: 12.5 }])
    expect(await hourly()).toEqual([])
    expect(await daily()).toEqual([])
  })

  test('committed conversions add up in the hourly row (upsert) and the daily row (trigger); excluded ones do not count', async () => {
    await record([recorded({ revenue: 10 }), recorded({ revenue: -4, date: T + 20 * 60_000 }), recorded({ revenue: 99, excluded: true })])
    await record([recorded({ revenue: 1.25, date: T + 2 * HOUR })])
    const h = T - (T % HOUR)
    expect(await hourly()).toEqual([
      { hour: h, conversions: 2, revenue: 6, revenue_abs: 14 },
      { hour: h + 2 * HOUR, conversions: 1, revenue: 1.25, revenue_abs: 1.25 },
    ])
    expect(await daily()).toEqual([{ hour: Date.UTC(2025, 10, 3), conversions: 3, revenue: 7.25, revenue_abs: 15.25 }])
    // "None" is 0 in the key, as on SQLite.
    const [key] = await pg.sql`SELECT campaign_id, source_id, offer_id, landing_id, type FROM conversion_stats_hourly ORDER BY hour LIMIT 1`
    expect(key).toEqual({ campaign_id: 4, source_id: 0, offer_id: 2, landing_id: 0, type: 'sale' })
  })

  test('transactions take turns over the shards of a campaign-hour: their own rows, each mirrored by its daily row', async () => {
    await pg.sql`DELETE FROM conversion_stats_hourly`
    await pg.sql`DELETE FROM conversion_stats_daily`
    for (let i = 0; i < 3; i++) await record([recorded({ revenue: 10 })])
    const h = T - (T % HOUR)
    const shards = await pg.sql`SELECT shard, conversions, revenue FROM conversion_stats_hourly WHERE hour = ${h} ORDER BY shard`
    expect(shards.length).toBe(3)
    expect(new Set(shards.map((r: { shard: number }) => r.shard)).size).toBe(3)
    for (const r of shards) expect({ conversions: r.conversions, revenue: r.revenue }).toEqual({ conversions: 1, revenue: 10 })
    const days = await pg.sql`SELECT shard, conversions FROM conversion_stats_daily ORDER BY shard`
    expect(days.map((r: { shard: number }) => r.shard)).toEqual(shards.map((r: { shard: number }) => r.shard))
    expect(await hourly()).toEqual([{ hour: h, conversions: 3, revenue: 30, revenue_abs: 30 }])
    expect(await daily()).toEqual([{ hour: Date.UTC(2025, 10, 3), conversions: 3, revenue: 30, revenue_abs: 30 }])
  })

  test('the conversions of one transaction are summed per row; a unit rolled back to its savepoint is not counted', async () => {
    await pg.sql`DELETE FROM conversion_stats_hourly`
    await pg.sql`DELETE FROM conversion_stats_daily`
    const hot = Array.from({ length: 8 }, (_, i) => recorded({ revenue: i + 1, date: T + i * 60_000 }))
    // The 4th (revenue 4) was rolled back to its savepoint; another campaign and a negative type ride along.
    await record([...hot, recorded({ campaignId: 9, revenue: 3 }), recorded({ type: 'refund', revenue: -2 })], false, [3])
    const h = T - (T % HOUR)
    const rows = await pg.sql`SELECT campaign_id, type, conversions, revenue, revenue_abs FROM conversion_stats_hourly WHERE hour = ${h} ORDER BY campaign_id, type`
    expect([...rows]).toEqual([
      { campaign_id: 4, type: 'refund', conversions: 1, revenue: -2, revenue_abs: 2 },
      { campaign_id: 4, type: 'sale', conversions: 7, revenue: 36 - 4, revenue_abs: 32 },
      { campaign_id: 9, type: 'sale', conversions: 1, revenue: 3, revenue_abs: 3 },
    ])
    // The daily rows (trigger) say the same: all of it fell on one day.
    const days = await pg.sql`SELECT day::float8 AS day, campaign_id, type, conversions, revenue FROM conversion_stats_daily ORDER BY campaign_id, type`
    expect([...days]).toEqual([
      { day: Date.UTC(2025, 10, 3), campaign_id: 4, type: 'refund', conversions: 1, revenue: -2 },
      { day: Date.UTC(2025, 10, 3), campaign_id: 4, type: 'sale', conversions: 7, revenue: 32 },
      { day: Date.UTC(2025, 10, 3), campaign_id: 9, type: 'sale', conversions: 1, revenue: 3 },
    ])
  })

  test('transactions of two pools adding to the same rows at once neither deadlock nor lose a count', async () => {
    await pg.sql`DELETE FROM conversion_stats_hourly`
    await pg.sql`DELETE FROM conversion_stats_daily`
    const other = await openPg(pg.url)
    try {
      // Each transaction touches the same two days and two campaigns, listed in a different order each time.
      const day2 = T + 24 * HOUR
      const batch = (i: number) => {
        const xs = [recorded({ date: T }), recorded({ date: day2, campaignId: 9 }), recorded({ date: T + HOUR, campaignId: 9 }), recorded({ date: day2 })]
        return i % 2 ? xs.reverse() : xs
      }
      const run = (db: PgDatabase, i: number) => db.sql.begin(async (tx) => {
        const units = batch(i).map((p) => {
          const u = events.unit(tx)
          u.emit('conversion.recorded', p)
          return u
        })
        await events.beforeCommit(units, tx)
        await Bun.sleep(1) // hold the locks a moment, so the transactions overlap
      })
      await Promise.all(Array.from({ length: 40 }, (_, i) => run(i % 2 ? other : pg, i)))
      // Four campaign-hours, each striped over the shards the transactions took.
      const [sum] = await pg.sql`SELECT sum(conversions)::int AS n, count(DISTINCT (hour, campaign_id, source_id, offer_id, landing_id, type))::int AS rows
        FROM conversion_stats_hourly`
      expect(sum).toEqual({ n: 160, rows: 4 })
      const [daySum] = await pg.sql`SELECT sum(conversions)::int AS n FROM conversion_stats_daily`
      expect(daySum.n).toBe(160)
    } finally {
      await other.close()
    }
  })

  test('without the conversion transaction it refuses to write', async () => {
    const before = await hourly()
    await expect(new PgConversionRollup().addAll([recorded()], null)).rejects.toThrow(/conversions' transaction/)
    expect(await hourly()).toEqual(before)
  })
})

describe.skipIf(!avail.ok)('reportsFeature picks the engine', () => {
  let pg: PgDatabase
  let lite: Database
  let dir: string

  beforeAll(async () => {
    pg = await openPg(await freshPgUrl())
    await migratePg(pg)
    dir = mkdtempSync(join(tmpdir(), 'svc-reports-factory-'))
    lite = await openDatabase(join(dir, 'svc.db'))
    migrate(lite)
  }, 60_000)
  afterAll(async () => {
    await pg?.close()
    lite?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const actor = { kind: 'admin', user: { id: 1, role: 'owner' } } as never
  /** The one setting reports read (the cost currency). */
  const settings = { get: (key: string) => (key === 'cost_currency' ? 'USD' : null) }
  const query = { group_by: 'campaign', tz: 'UTC', from: '2025-11-01', to: '2025-11-05' }

  test('Postgres: an async rollup subscriber and reports read from Postgres', async () => {
    const events = new EventBus()
    const feature = reportsFeature({ database: pg, events, settings } as never)
    expect(events.subscribers('conversion.recorded', 'before-commit')).toEqual(['reports.conversion-rollup'])
    await pg.sql.begin(async (tx) => {
      const unit = events.unit(tx)
      unit.emit('conversion.recorded', recorded({ revenue: 3 }))
      await events.beforeCommit([unit], tx)
    })
    const out = (await (feature.verbs as never as { run: { run: (a: unknown, q: unknown) => Promise<{ rows: unknown[]; total: { conversions: number; revenue: number } }> } })
      .run.run(actor, query))
    expect(out.total).toMatchObject({ conversions: 1, revenue: 3 })
    expect(out.rows).toHaveLength(1)
  })

  test('SQLite: the synchronous rollup on the shared connection, as before', async () => {
    const events = new EventBus()
    const feature = reportsFeature({ database: lite, events, settings } as never)
    expect(events.subscribers('conversion.recorded', 'before-commit')).toEqual(['reports.conversion-rollup'])
    lite.raw.transaction(() => {
      const unit = events.unit()
      unit.emit('conversion.recorded', recorded({ revenue: 3 }))
      // Synchronous: no Promise to await on SQLite.
      expect(events.beforeCommit([unit], null)).toBeUndefined()
    })()
    const out = await (feature.verbs as never as { run: { run: (a: unknown, q: unknown) => Promise<{ total: { conversions: number; revenue: number } }> } })
      .run.run(actor, query)
    expect(out.total).toMatchObject({ conversions: 1, revenue: 3 })
  })
})
