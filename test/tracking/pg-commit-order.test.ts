// The Postgres click batch is ONE statement (pg-commit.ts: COMMIT_SQL, data-modifying CTEs) whose rows must be
// locked in the documented order (hourly rollup, country, path, country totals, then the daily rows by the
// triggers at the statement's end), or two writers on one shard could deadlock. Postgres runs such CTEs last-listed
// first: this pins that, by holding the country-totals row in another transaction and asking, while the batch
// waits on it, which rows the batch already holds. Postgres only.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { openPg, type PgDatabase } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import { newClick } from '../../src/tracking/store/click'
import { COMMIT_SQL, commitPg } from '../../src/tracking/store/pg-commit'
import { newPgClickId } from '../../src/tracking/store/pg-partitions'
import { freshPgUrl, onPostgres, pgCluster } from '../helpers/pg'

let db: PgDatabase
beforeAll(async () => {
  if (!onPostgres) return
  await pgCluster()
  db = await openPg(await freshPgUrl())
  await migratePg(db)
}, 120_000)
afterAll(async () => { await db?.close() })

const SHARD = 3
const click = () => {
  const at = Date.now()
  return newClick({ clickId: newPgClickId(at), campaignId: 1, sourceId: 2, offerId: 3, createdAt: at, country: 'DE', pathId: 7 })
}

describe.skipIf(!onPostgres)('Postgres click batch: one statement, rows locked in the documented order', () => {
  test('one statement per batch; blocked on the country totals, it already holds the hourly, country and path rows, not yet the daily ones', async () => {
    expect(COMMIT_SQL[SHARD]!.startsWith('WITH total AS (')).toBe(true)
    await commitPg(db.sql, [click()], [], SHARD) // the rows exist now: the next batch updates them
    const holder = await db.sql.reserve()
    const probe = await db.sql.reserve()
    try {
      await holder.unsafe('BEGIN')
      await holder.unsafe('SELECT 1 FROM click_country_total_daily WHERE shard = $1 FOR UPDATE', [SHARD])
      const second = click()
      const batch = commitPg(db.sql, [second], [], SHARD)
      batch.catch(() => {})
      // Until the batch waits on the row the holder has.
      let waiting = false
      for (let i = 0; i < 100 && !waiting; i++) {
        const [r] = await probe.unsafe(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'WITH total AS (%'")
        waiting = (r as { n: number }).n === 1
        if (!waiting) await Bun.sleep(50)
      }
      expect(waiting).toBe(true)
      /** Whether the batch holds the shard's row of `table` (NOWAIT fails with 55P03 then). */
      const held = async (table: string) => {
        await probe.unsafe('BEGIN')
        try {
          await probe.unsafe(`SELECT 1 FROM ${table} WHERE shard = $1 FOR UPDATE NOWAIT`, [SHARD])
          return false
        } catch (e) {
          if ((e as { errno?: string }).errno !== '55P03') throw e
          return true
        } finally {
          await probe.unsafe('ROLLBACK')
        }
      }
      expect({
        hourly: await held('click_stats_hourly'), country: await held('click_country_hourly'), path: await held('click_path_hourly'),
        dailyStats: await held('click_stats_daily'), dailyCountry: await held('click_country_daily'), dailyPath: await held('click_path_daily'),
      }).toEqual({ hourly: true, country: true, path: true, dailyStats: false, dailyCountry: false, dailyPath: false })
      await holder.unsafe('COMMIT')
      const rows = await batch
      expect(rows).toHaveLength(1)
      const [c] = await db.sql`SELECT count(*)::int AS n FROM clicks WHERE click_id = ${second.clickId}`
      expect(c.n).toBe(1)
      const [s] = await db.sql`SELECT sum(clicks)::int AS n FROM click_stats_daily WHERE shard = ${SHARD}`
      expect(s.n).toBe(2)
    } finally {
      await holder.unsafe('ROLLBACK').catch(() => {})
      holder.release()
      probe.release()
    }
  }, 60_000)
})
