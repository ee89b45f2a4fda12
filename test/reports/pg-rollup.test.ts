// Conversion rollups on Postgres: the in-transaction subscriber of conversion.recorded writes through the
// conversion's transaction (the unit's tx), so its hourly row (and the trigger's daily row) commits or
// rolls back with the conversion; and reportsFeature wires the engine's rollup and queries.
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
import { PgConversionRollup } from '../../src/reports/pg-rollup-store'
import type { RollupConversion } from '../../src/reports/rollup-store'
import { freshPgUrl, pgAvailable } from '../helpers/pg'

const avail = pgAvailable()
if (!avail.ok) console.warn(`skipping PostgreSQL rollup tests: ${avail.why}`)

const HOUR = 3_600_000
const T = Date.UTC(2025, 10, 3, 14, 25)

/** A recorded conversion as the postback feature announces it (only what the rollup reads is real). */
function recorded(c: Partial<RollupConversion> & { type?: string } = {}): DomainEvents['conversion.recorded'] {
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
    events.on('conversion.recorded', 'in-transaction', 'reports.conversion-rollup', new PgConversionRollup().add)
  }, 60_000)
  afterAll(async () => {
    await pg?.close()
  })

  const hourly = async (sql = pg.sql): Promise<Sums[]> =>
    (await sql`SELECT hour::float8 AS hour, conversions, revenue, revenue_abs FROM conversion_stats_hourly ORDER BY hour, type`) as never
  const daily = async (sql = pg.sql): Promise<Sums[]> =>
    (await sql`SELECT day::float8 AS hour, conversions, revenue, revenue_abs FROM conversion_stats_daily ORDER BY day, type`) as never

  /** One conversion's transaction: the emitter awaits unit.emit() before it commits, then runs unit.commit(). */
  async function record(payloads: DomainEvents['conversion.recorded'][], fail = false): Promise<{ inside: Sums[]; insideDaily: Sums[] }> {
    let seen = { inside: [] as Sums[], insideDaily: [] as Sums[] }
    const unit = await pg.sql.begin(async (tx) => {
      const unit = events.unit(tx)
      for (const p of payloads) {
        const r = unit.emit('conversion.recorded', p)
        expect(r).toBeInstanceOf(Promise)
        await r
      }
      seen = { inside: await hourly(tx), insideDaily: await daily(tx) }
      if (fail) throw new Error('conversion insert failed')
      return unit
    }).catch((err: Error) => {
      if (!fail || err.message !== 'conversion insert failed') throw err
      return null
    })
    unit?.commit()
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

  test('without the conversion transaction it refuses to write', async () => {
    const before = await hourly()
    await expect(new PgConversionRollup().add(recorded(), null) as Promise<void>).rejects.toThrow(/conversion transaction/)
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
  const query = { group_by: 'campaign', tz: 'UTC', from: '2025-11-01', to: '2025-11-05' }

  test('Postgres: an async rollup subscriber and reports read from Postgres', async () => {
    const events = new EventBus()
    const feature = reportsFeature({ database: pg, events } as never)
    expect(events.subscribers('conversion.recorded', 'in-transaction')).toEqual(['reports.conversion-rollup'])
    await pg.sql.begin(async (tx) => {
      await events.unit(tx).emit('conversion.recorded', recorded({ revenue: 3 }))
    })
    const out = (await (feature.verbs as never as { run: { run: (a: unknown, q: unknown) => Promise<{ rows: unknown[]; total: { conversions: number; revenue: number } }> } })
      .run.run(actor, query))
    expect(out.total).toMatchObject({ conversions: 1, revenue: 3 })
    expect(out.rows).toHaveLength(1)
  })

  test('SQLite: the synchronous rollup on the shared connection, as before', async () => {
    const events = new EventBus()
    const feature = reportsFeature({ database: lite, events } as never)
    lite.raw.transaction(() => {
      // Synchronous: no Promise to await on SQLite.
      expect(events.unit().emit('conversion.recorded', recorded({ revenue: 3 }))).toBeUndefined()
    })()
    const out = await (feature.verbs as never as { run: { run: (a: unknown, q: unknown) => Promise<{ total: { conversions: number; revenue: number } }> } })
      .run.run(actor, query)
    expect(out.total).toMatchObject({ conversions: 1, revenue: 3 })
  })
})
