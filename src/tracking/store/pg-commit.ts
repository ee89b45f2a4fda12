// The SQL side of the Postgres click store's group commit: one transaction per batch, whatever its size.
//
// Clicks and rollup deltas are bound as one array per column and expanded by unnest(), so a batch is ONE
// INSERT with a fixed parameter count (28 arrays, one prepared statement for every batch size) instead of
// 28 × n parameters that would hit Postgres' 65,535 parameter limit at 2,340 clicks.
//
// Lock order, so that two instances committing at once never deadlock: repointed click rows (sorted by
// id), then the hourly rollup rows in (day, campaign, source, offer, landing, hour) order in one
// statement, whose row triggers (drizzle-pg/0001) then update the daily rows at the end of that
// statement, in the same, day-first, order. New click rows are never contended (fresh ids, UUID click_ids).
import type { SQL } from 'bun'
import { num } from '../../db/pg/client'
import { CLICK_COLUMNS, CLICK_FIELDS, type Click, type ClickField, type RollupClick } from './click'
import { addRollupDeltas, type RollupDelta } from './click-rollup'
import type { Repoint } from './commit'

/** Postgres element type of each non-text click column (schema: src/db/pg-schema/clicks.ts). */
const PG_TYPE: Partial<Record<ClickField, string>> = {
  campaignId: 'int4', sourceId: 'int4', offerId: 'int4', landingId: 'int4',
  excluded: 'int4', isUnique: 'int4', cost: 'float8', createdAt: 'int8',
}

/** Constant text, derived once from CLICK_COLUMNS (never from input). */
const INSERT_SQL =
  `INSERT INTO clicks (${CLICK_COLUMNS.map(([, c]) => c).join(', ')}) ` +
  `SELECT * FROM unnest(${CLICK_FIELDS.map((f, i) => `$${i + 1}::${PG_TYPE[f] ?? 'text'}[]`).join(', ')}) ` +
  'RETURNING id, click_id'

const ROLLUP_SQL =
  'INSERT INTO click_stats_hourly AS h (hour, campaign_id, source_id, offer_id, landing_id, clicks, unique_clicks, bot_clicks, cost) ' +
  'SELECT * FROM unnest($1::int8[], $2::int4[], $3::int4[], $4::int4[], $5::int4[], $6::int4[], $7::int4[], $8::int4[], $9::float8[]) ' +
  'AS d(hour, campaign_id, source_id, offer_id, landing_id, clicks, unique_clicks, bot_clicks, cost) ' +
  // Day first: the daily rows the triggers touch come out sorted too (see the lock order above).
  'ORDER BY d.hour - d.hour % 86400000, d.campaign_id, d.source_id, d.offer_id, d.landing_id, d.hour ' +
  'ON CONFLICT (hour, campaign_id, source_id, offer_id, landing_id) DO UPDATE SET ' +
  'clicks = h.clicks + excluded.clicks, unique_clicks = h.unique_clicks + excluded.unique_clicks, ' +
  'bot_clicks = h.bot_clicks + excluded.bot_clicks, cost = h.cost + excluded.cost'

/** One array per column, flags as 0/1. (Visitor values arrive without NULs: see lib/nul.ts.) */
function columnArrays(clicks: readonly Click[]): unknown[][] {
  return CLICK_FIELDS.map((f) => {
    const flag = f === 'excluded' || f === 'isUnique'
    const out = new Array<unknown>(clicks.length)
    for (let i = 0; i < clicks.length; i++) {
      const v = clicks[i]![f]
      out[i] = flag ? (v ? 1 : 0) : v
    }
    return out
  })
}

function rollupArrays(deltas: Iterable<RollupDelta>): unknown[][] {
  const cols: unknown[][] = [[], [], [], [], [], [], [], [], []]
  // A delta that nets out (a click repointed through a row within one batch) is still written, as a zero
  // row, exactly as SQLite's statement-per-step leaves it.
  for (const d of deltas) {
    const row = [d.hour, d.campaign, d.source, d.offer, d.landing, d.clicks, d.unique, d.bots, d.cost]
    for (let j = 0; j < 9; j++) cols[j]!.push(row[j])
  }
  return cols
}

/**
 * Inserts `clicks` and applies `repoints` in one transaction, rollups included; resolves with the clicks'
 * row ids, in order, once committed. Rejects (and stores nothing) when any part fails.
 */
export function commitPg(sql: SQL, clicks: readonly Click[], repoints: readonly Repoint[]): Promise<number[]> {
  return sql.begin(async (tx) => {
    const deltas = new Map<string, RollupDelta>()
    addRollupDeltas(deltas, clicks, 1)
    // Stable sort: two repoints of one click keep their order, the second sees the first.
    const sorted = repoints.length > 1 ? [...repoints].sort((a, b) => a[0] - b[0]) : repoints
    for (const [row, offer, landing] of sorted) {
      // The subquery locks the row and hands back its values before the update: the old rollup row.
      const [old] = await tx`
        UPDATE clicks c SET offer_id = ${offer}, landing_id = ${landing}
        FROM (SELECT id, offer_id, landing_id FROM clicks WHERE id = ${row} FOR UPDATE) old
        WHERE c.id = old.id
        RETURNING c.created_at AS "createdAt", c.campaign_id AS "campaignId", c.source_id AS "sourceId",
          old.offer_id AS "offerId", old.landing_id AS "landingId", c.bot_reason AS "botReason",
          c.excluded, c.is_unique AS "isUnique", c.cost`
      if (!old) continue
      const before = { ...(old as RollupClick), createdAt: num(old.createdAt) }
      addRollupDeltas(deltas, [before], -1)
      addRollupDeltas(deltas, [{ ...before, offerId: offer, landingId: landing }], 1)
    }
    const rollup = rollupArrays(deltas.values())
    // Both statements are sent at once (pipelined on the transaction's connection), awaited together.
    const [inserted] = await Promise.all([
      clicks.length > 0 ? tx.unsafe(INSERT_SQL, columnArrays(clicks)) : Promise.resolve([]),
      rollup[0]!.length > 0 ? tx.unsafe(ROLLUP_SQL, rollup) : Promise.resolve([]),
    ])
    return rowIds(clicks, inserted as Array<{ id: unknown; click_id: string }>)
  })
}

/** Row ids in the clicks' order, matched by click_id (unique) rather than trusting RETURNING's order. */
function rowIds(clicks: readonly Click[], inserted: Array<{ id: unknown; click_id: string }>): number[] {
  if (inserted.length !== clicks.length) throw new Error(`click insert returned ${inserted.length} rows for ${clicks.length} clicks`)
  const byClickId = new Map<string, number>()
  for (const r of inserted) byClickId.set(r.click_id, num(r.id))
  return clicks.map((c) => byClickId.get(c.clickId)!)
}
