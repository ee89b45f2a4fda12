// Postgres conversion rollups: the rows of rollup.ts's rollupSums(), written in ONE statement through
// the conversions' own transaction handle, last before its COMMIT (a before-commit subscriber), so the
// rollup rows commit or roll back with the conversions and a hot campaign's row is locked only for the
// commit; transactions side by side take different shards of it (ROLLUP_SHARDS). The four upserts are one
// statement (db/pg/one-statement.ts), or four parts of the postback batch's one statement; the plpgsql row
// triggers (drizzle-pg/0001, 0025) keep the daily tables in step at its end, in the same transaction.
import type { SQL } from 'bun'
import type { Tx } from '../db/engine'
import { together } from '../db/pg/one-statement'
import { rollupSums, targetingSums, type RollupConversion } from './rollup'

// Rows bound as one array per column (one prepared statement whatever the count); ORDER BY WITH
// ORDINALITY keeps rollupSums()'s lock order through the insert. $13: the transaction's shard.
const UPSERT_SQL =
  'INSERT INTO conversion_stats_hourly AS s (hour, campaign_id, source_id, offer_id, landing_id, type, currency, shard, conversions, revenue, revenue_abs, cost, cost_abs) ' +
  'SELECT d.hour, d.campaign_id, d.source_id, d.offer_id, d.landing_id, d.type, d.currency, $13::int2, d.conversions, d.revenue, d.revenue_abs, d.cost, d.cost_abs ' +
  'FROM unnest($1::int8[], $2::int4[], $3::int4[], $4::int4[], $5::int4[], $6::text[], $7::text[], $8::int4[], $9::float8[], $10::float8[], $11::float8[], $12::float8[]) ' +
  'WITH ORDINALITY AS d(hour, campaign_id, source_id, offer_id, landing_id, type, currency, conversions, revenue, revenue_abs, cost, cost_abs, n) ORDER BY d.n ' +
  'ON CONFLICT (hour, campaign_id, source_id, offer_id, landing_id, type, currency, shard) DO UPDATE SET ' +
  'conversions = s.conversions + excluded.conversions, revenue = s.revenue + excluded.revenue, revenue_abs = s.revenue_abs + excluded.revenue_abs, ' +
  'cost = s.cost + excluded.cost, cost_abs = s.cost_abs + excluded.cost_abs'

/** The targeting rollup rows of targetingSums(), likewise (after the rows above: one lock order for every transaction). */
const targetingSql = (table: string, column: string, type: string) =>
  `INSERT INTO ${table} AS s (hour, campaign_id, ${column}, type, currency, shard, conversions, revenue, revenue_abs, cost, cost_abs) ` +
  `SELECT d.hour, d.campaign_id, d.${column}, d.type, d.currency, $11::int2, d.conversions, d.revenue, d.revenue_abs, d.cost, d.cost_abs ` +
  `FROM unnest($1::int8[], $2::int4[], $3::${type}[], $4::text[], $5::text[], $6::int4[], $7::float8[], $8::float8[], $9::float8[], $10::float8[]) ` +
  `WITH ORDINALITY AS d(hour, campaign_id, ${column}, type, currency, conversions, revenue, revenue_abs, cost, cost_abs, n) ORDER BY d.n ` +
  `ON CONFLICT (hour, campaign_id, ${column}, type, currency, shard) DO UPDATE SET ` +
  'conversions = s.conversions + excluded.conversions, revenue = s.revenue + excluded.revenue, revenue_abs = s.revenue_abs + excluded.revenue_abs, ' +
  'cost = s.cost + excluded.cost, cost_abs = s.cost_abs + excluded.cost_abs'
const COUNTRY_SQL = targetingSql('conversion_country_hourly', 'country', 'text')
const PATH_SQL = targetingSql('conversion_path_hourly', 'path_id', 'int4')
/** Per day and country over all campaigns, written last (lock order: see db/schema/stats.ts); $2 (campaign, 0) unused. */
const TOTAL_SQL =
  'INSERT INTO conversion_country_total_daily AS s (day, country, type, currency, shard, conversions, revenue, revenue_abs, cost, cost_abs) ' +
  'SELECT d.day, d.country, d.type, d.currency, $11::int2, d.conversions, d.revenue, d.revenue_abs, d.cost, d.cost_abs ' +
  'FROM unnest($1::int8[], $2::int4[], $3::text[], $4::text[], $5::text[], $6::int4[], $7::float8[], $8::float8[], $9::float8[], $10::float8[]) ' +
  'WITH ORDINALITY AS d(day, campaign, country, type, currency, conversions, revenue, revenue_abs, cost, cost_abs, n) ORDER BY d.n ' +
  'ON CONFLICT (day, country, type, currency, shard) DO UPDATE SET ' +
  'conversions = s.conversions + excluded.conversions, revenue = s.revenue + excluded.revenue, revenue_abs = s.revenue_abs + excluded.revenue_abs, ' +
  'cost = s.cost + excluded.cost, cost_abs = s.cost_abs + excluded.cost_abs'

/**
 * Rows per campaign-hour that transactions take in turn (striped counters, schema db/schema/stats.ts):
 * more than the postback batches that run side by side on one instance's pool, so those rarely share a
 * row and none waits for another's COMMIT. Reports sum the shards.
 */
export const ROLLUP_SHARDS = 16

export class PgConversionRollup {
  private next = 0

  /** The before-commit subscriber of conversion.recorded: `(cs, tx)`, awaited by the emitter before it commits. */
  readonly addAll = async (cs: readonly RollupConversion[], tx: Tx): Promise<void> => {
    const rows = rollupSums(cs)
    if (rows.length === 0) return
    // Writing outside the conversions' transaction would count conversions that may yet roll back.
    if (!tx) throw new Error('reports: the Postgres conversion rollup needs the conversions\' transaction (events.unit(tx))')
    const cols: unknown[][] = [[], [], [], [], [], [], [], [], [], [], [], []]
    for (const r of rows) {
      const row = [r.hour, r.campaign, r.source, r.offer, r.landing, r.type, r.currency, r.conversions, r.revenue, r.abs, r.cost, r.costAbs]
      for (let j = 0; j < 12; j++) cols[j]!.push(row[j])
    }
    // One shard per transaction, round-robin: the transactions in flight at once get different ones.
    const shard = this.next
    this.next = (this.next + 1) % ROLLUP_SHARDS
    const targeting = (d: 'country' | 'path' | 'countryTotal') => {
      const t: unknown[][] = [[], [], [], [], [], [], [], [], [], []]
      for (const r of targetingSums(cs, d)) {
        const row = [r.hour, r.campaign, r.key, r.type, r.currency, r.conversions, r.revenue, r.abs, r.cost, r.costAbs]
        for (let j = 0; j < 10; j++) t[j]!.push(row[j])
      }
      return [...t, shard]
    }
    // ONE statement, the four upserts in this order (one-statement.ts), then the hourly tables' daily
    // triggers: every writer of these rows locks them in that order, the postback batch's statement too.
    await together(tx as SQL, [
      [UPSERT_SQL, [...cols, shard]], [COUNTRY_SQL, targeting('country')], [PATH_SQL, targeting('path')], [TOTAL_SQL, targeting('countryTotal')],
    ])
  }
}
