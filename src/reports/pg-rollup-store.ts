// Postgres conversion rollups: the same upsert as rollup-store.ts, written through the conversion's own
// transaction handle (the unit's `tx`), so the rollup row commits or rolls back with the conversion. The
// plpgsql trigger of drizzle-pg/0001 keeps conversion_stats_daily in step, in the same transaction.
import type { Tx } from '../db/engine'
import { rollupDelta, type RollupConversion } from './rollup-store'

export class PgConversionRollup {
  /** The in-transaction subscriber of conversion.recorded: `(c, tx)`, awaited by the emitter before it commits. */
  readonly add = async (c: RollupConversion, tx: Tx): Promise<void> => {
    const d = rollupDelta(c)
    if (!d) return
    // Writing outside the conversion's transaction would count a conversion that may yet roll back.
    if (!tx) throw new Error('reports: the Postgres conversion rollup needs the conversion transaction (events.unit(tx))')
    // Casts: Bun types a JS number parameter by its value (integer, bigint or double); the columns decide here.
    await tx`
      INSERT INTO conversion_stats_hourly AS s (hour, campaign_id, source_id, offer_id, landing_id, type, conversions, revenue, revenue_abs)
      VALUES (${d.hour}::bigint, ${d.campaign}::int, ${d.source}::int, ${d.offer}::int, ${d.landing}::int, ${d.type}, 1,
              ${d.revenue}::float8, ${d.abs}::float8)
      ON CONFLICT (hour, campaign_id, source_id, offer_id, landing_id, type) DO UPDATE SET
        conversions = s.conversions + 1, revenue = s.revenue + excluded.revenue, revenue_abs = s.revenue_abs + excluded.revenue_abs`
  }
}
