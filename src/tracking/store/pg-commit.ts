// The SQL side of the Postgres click store's group commit: ONE statement per batch, whatever its size.
//
// Clicks and rollup deltas are bound as one array per column and expanded by unnest(), so a batch is ONE
// INSERT with a fixed parameter count (39 arrays, one prepared statement for every batch size) instead of
// 39 × n parameters that would hit Postgres' 65,535 parameter limit at 1,680 clicks. The insert and the four
// rollup upserts are the data-modifying CTEs of one statement (COMMIT_SQL), sent on its own: Postgres runs a
// lone statement as its own transaction and answers after its commit, so a batch is one round trip. Measured on
// the 2-core machine (docs/performance.md, session 17): BEGIN, five pipelined statements and COMMIT cost Postgres
// 1.5-2.0 ms of CPU for a 1-click batch and 2.9-5.5 ms for 64, the one statement 0.4 and 1.5-2.9 ms. A batch
// with amends runs the lock and the updates first, in a transaction, then the same statement.
//
// Lock order, so that two instances committing at once never deadlock: amended click rows (sorted by
// id, one statement), then, in the one statement, the hourly rollup rows in (day, campaign, source, offer,
// landing, hour) order, the targeting rollup rows (click_country_hourly, then click_path_hourly) in (day, campaign,
// country or path, hour) order, the rows of click_country_total_daily (per day and country, shared by every
// campaign) in (day, country) order, and last the daily rows, which the hourly tables' row triggers
// (drizzle-pg/0001, 0025) update when the statement ends, in the order their hourly rows were written. So no
// transaction holds one of them while it waits for a row another transaction holds. New click rows are never
// contended (fresh ids, UUID click_ids). Every writer of these rows goes through COMMIT_SQL (pg-reprice.ts too).
// Every rollup row a transaction writes is of its one shard (drizzle-pg/0032; the triggers keep the shard), so the
// order above holds within a shard and transactions on different shards share no rollup row at all; two on the
// same shard (two instances, or pg-reprice.ts on shard 0) follow the same order.
import type { SQL } from 'bun'
import { num } from '../../db/pg/client'
import { arrayLiteral, withArrayLiterals } from '../../db/pg/array-literal'
import { CLICK_COLUMNS, CLICK_FIELDS, type Click, type ClickField, type RollupClick } from './click'
import { addRollupDeltas, newTargetingDeltas, sortedTotals, type RollupDelta, type TargetingDelta, type TargetingDeltas } from './click-rollup'
import { amended, type ClickAmend } from './commit'

/** Postgres element type of each non-text click column (schema: src/db/schema/clicks.ts). */
const PG_TYPE: Partial<Record<ClickField, string>> = {
  campaignId: 'int4', sourceId: 'int4', offerId: 'int4', landingId: 'int4',
  excluded: 'int4', isUnique: 'int4', cost: 'float8', landingViewedAt: 'int8', landingClickedAt: 'int8', createdAt: 'int8',
  asn: 'int8', pathId: 'int4',
}

/** Constant text, derived once from CLICK_COLUMNS (never from input). */
const INSERT_SQL =
  `INSERT INTO clicks (${CLICK_COLUMNS.map(([, c]) => c).join(', ')}) ` +
  `SELECT * FROM unnest(${CLICK_FIELDS.map((f, i) => `$${i + 1}::${PG_TYPE[f] ?? 'text'}[]`).join(', ')}) ` +
  'RETURNING id, click_id'

/**
 * The rollup statements of one shard (drizzle-pg/0032): the shard is a constant of the text (a small integer
 * chosen by the code, never input), so each shard's statements are prepared once per connection and the argument
 * lists stay those of the arrays. Every row a transaction writes is of its one shard.
 */
function shardSql(shard: number): { rollup: string; country: string; path: string; total: string } {
  if (!Number.isInteger(shard) || shard < 0 || shard >= CLICK_ROLLUP_SHARDS) throw new Error(`click rollup shard out of range: ${shard}`)
  const s = `${shard}::int2`
  /** The targeting rollups (db/schema/stats.ts): as the rollup, keyed by campaign and country, or campaign and path. */
  const targeting = (table: string, column: string, type: string) =>
    `INSERT INTO ${table} AS h (hour, campaign_id, ${column}, shard, clicks, unique_clicks, bot_clicks, cost, landing_views, landing_clicks) ` +
    `SELECT d.hour, d.campaign_id, d.${column}, ${s}, d.clicks, d.unique_clicks, d.bot_clicks, d.cost, d.landing_views, d.landing_clicks ` +
    `FROM unnest($1::int8[], $2::int4[], $3::${type}[], $4::int4[], $5::int4[], $6::int4[], $7::float8[], $8::int4[], $9::int4[]) ` +
    `AS d(hour, campaign_id, ${column}, clicks, unique_clicks, bot_clicks, cost, landing_views, landing_clicks) ` +
    `ORDER BY d.hour - d.hour % 86400000, d.campaign_id, d.${column}${type === 'text' ? ' COLLATE "C"' : ''}, d.hour ` +
    `ON CONFLICT (hour, campaign_id, ${column}, shard) DO UPDATE SET ${ADD}`
  return {
    rollup:
      'INSERT INTO click_stats_hourly AS h (hour, campaign_id, source_id, offer_id, landing_id, shard, clicks, unique_clicks, bot_clicks, cost, landing_views, landing_clicks) ' +
      `SELECT d.hour, d.campaign_id, d.source_id, d.offer_id, d.landing_id, ${s}, d.clicks, d.unique_clicks, d.bot_clicks, d.cost, d.landing_views, d.landing_clicks ` +
      'FROM unnest($1::int8[], $2::int4[], $3::int4[], $4::int4[], $5::int4[], $6::int4[], $7::int4[], $8::int4[], $9::float8[], $10::int4[], $11::int4[]) ' +
      'AS d(hour, campaign_id, source_id, offer_id, landing_id, clicks, unique_clicks, bot_clicks, cost, landing_views, landing_clicks) ' +
      // Day first: the daily rows the triggers touch come out sorted too (see the lock order above).
      'ORDER BY d.hour - d.hour % 86400000, d.campaign_id, d.source_id, d.offer_id, d.landing_id, d.hour ' +
      `ON CONFLICT (hour, campaign_id, source_id, offer_id, landing_id, shard) DO UPDATE SET ${ADD}`,
    country: targeting('click_country_hourly', 'country', 'text'),
    path: targeting('click_path_hourly', 'path_id', 'int4'),
    // Per day and country over all campaigns; rows bound in lock order (sortedTotals), kept by WITH ORDINALITY.
    total:
      'INSERT INTO click_country_total_daily AS h (day, country, shard, clicks, unique_clicks, bot_clicks, cost, landing_views, landing_clicks) ' +
      `SELECT d.day, d.country, ${s}, d.clicks, d.unique_clicks, d.bot_clicks, d.cost, d.landing_views, d.landing_clicks ` +
      'FROM unnest($1::int8[], $2::int4[], $3::text[], $4::int4[], $5::int4[], $6::int4[], $7::float8[], $8::int4[], $9::int4[]) ' +
      'WITH ORDINALITY AS d(day, campaign, country, clicks, unique_clicks, bot_clicks, cost, landing_views, landing_clicks, n) ORDER BY d.n ' +
      `ON CONFLICT (day, country, shard) DO UPDATE SET ${ADD}`,
  }
}

/**
 * Stripes of each click rollup row (Postgres only). Every batch in flight at once takes its own (see
 * pg-click-store.ts: 2 per instance by default, from an offset of its own, so two instances mostly miss each other).
 * Small on purpose: a report reads every shard's daily rows, and only shards that batches actually used exist
 * (an idle campaign-day has one row, a busy one up to 8).
 */
export const CLICK_ROLLUP_SHARDS = 8

const ADD =
  'clicks = h.clicks + excluded.clicks, unique_clicks = h.unique_clicks + excluded.unique_clicks, ' +
  'bot_clicks = h.bot_clicks + excluded.bot_clicks, cost = h.cost + excluded.cost, ' +
  'landing_views = h.landing_views + excluded.landing_views, landing_clicks = h.landing_clicks + excluded.landing_clicks'

const SHARD_SQL = Array.from({ length: CLICK_ROLLUP_SHARDS }, (_, i) => shardSql(i))

/**
 * A shard's whole batch in one statement: $1-$39 the click columns, then the hourly rollup (11 arrays), the country
 * and path rollups and the country totals (9 each). Postgres runs a WITH's data-modifying CTEs that the main query
 * does not read after it, LAST-LISTED FIRST (ExecPostprocessPlan; test/tracking/pg-commit-order.test.ts pins it), so
 * they are listed in reverse of the lock order above: the main query reads `ins` (the clicks) first, then the hourly
 * rows, country, path and totals are written in that order.
 */
function commitSql(q: ReturnType<typeof shardSql>): string {
  let offset = 0
  const part = (text: string, params: number) => {
    const out = text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`)
    offset += params
    return out
  }
  const ins = part(INSERT_SQL, CLICK_FIELDS.length)
  const hourly = part(q.rollup, 11)
  const country = part(q.country, 9)
  const path = part(q.path, 9)
  const total = part(q.total, 9)
  return `WITH total AS (${total}), path AS (${path}), country AS (${country}), hourly AS (${hourly}), ins AS (${ins}) ` +
    'SELECT id, click_id FROM ins'
}
/** Per shard. Exported for the lock-order test. */
export const COMMIT_SQL = SHARD_SQL.map(commitSql)

/** The arguments of COMMIT_SQL: the clicks' columns, then the rollup deltas' (arrays may be empty). */
function commitArgs(clicks: readonly Click[], deltas: Map<string, RollupDelta>, targeting: TargetingDeltas): unknown[] {
  return withArrayLiterals([
    ...columnArrays(clicks), ...rollupArrays(deltas.values()), ...targetingArrays(targeting.country.values()),
    ...targetingArrays(targeting.path.values()), ...targetingArrays(sortedTotals(targeting)),
  ])
}

/** Writes rollup deltas (no clicks) through the batch statement of shard 0, in its lock order (pg-reprice.ts). */
export function writeRollups(tx: SQL, deltas: Map<string, RollupDelta>, targeting: TargetingDeltas): Promise<unknown> {
  return tx.unsafe(COMMIT_SQL[0]!, commitArgs([], deltas, targeting))
}

/**
 * The amended clicks' rollup fields and their partition, locked in id order (see the lock order above): $1 the ids
 * in ascending order, one LATERAL probe of the primary key each, in that order. Not `id = ANY($1)`: in the generic
 * plan Postgres moves a prepared statement to, `created_at >= $2 AND created_at <= $3` is guessed at 0.5 % of a
 * day and that plan read the whole span through the created_at index (see PREFETCH_SQL in postback/pg-batch-queries.ts).
 */
export const LOCK_SQL =
  'SELECT c.id, c.created_at AS "createdAt", c.campaign_id AS "campaignId", c.source_id AS "sourceId", c.offer_id AS "offerId", ' +
  'c.landing_id AS "landingId", c.bot_reason AS "botReason", c.excluded, c.is_unique AS "isUnique", c.cost, ' +
  'c.landing_viewed_at AS "landingViewedAt", c.landing_clicked_at AS "landingClickedAt", c.country, c.path_id AS "pathId", c.part ' +
  'FROM unnest($1::int8[]) AS k(id) CROSS JOIN LATERAL (SELECT *, tableoid::regclass::text AS part FROM clicks ' +
  'WHERE id = k.id AND created_at >= $2 AND created_at <= $3 LIMIT 1 FOR UPDATE) c'

const AMEND_SET =
  'SET offer_id = u.offer_id, landing_id = u.landing_id, bot_reason = u.bot_reason, is_unique = u.is_unique, ' +
  'cost = u.cost, landing_viewed_at = u.viewed, landing_clicked_at = u.clicked ' +
  'FROM unnest($1::int8[], $2::int4[], $3::int4[], $4::text[], $5::int4[], $6::float8[], $7::int8[], $8::int8[]) ' +
  'AS u(id, offer_id, landing_id, bot_reason, is_unique, cost, viewed, clicked) WHERE c.id = u.id'
/** A day partition's name as `tableoid::regclass` prints it (pg-partitions.ts names them). */
const PARTITION = /^click_days\.(?:d\d{8}|clicks_default)$/
/**
 * The amends of one partition (named by LOCK_SQL, checked against PARTITION): by primary key, with no time range
 * for a generic plan to misjudge. Through the parent (any other name) within the amends' span.
 */
export const amendSql = (part: string) => PARTITION.test(part)
  ? `UPDATE ${part} c ${AMEND_SET}`
  : `UPDATE clicks c ${AMEND_SET} AND c.created_at >= $9 AND c.created_at <= $10`

/**
 * One Postgres array literal per column (db/pg/array-literal.ts: svc's one-pass encoding instead of the driver's
 * per-element one); flags go as 1/0 into their int4 columns.
 */
function columnArrays(clicks: readonly Click[]): unknown[] {
  return CLICK_FIELDS.map((f) => arrayLiteral(clicks, (c) => c[f]) ?? clicks.map((c) => c[f]))
}

export function rollupArrays(deltas: Iterable<RollupDelta>): unknown[][] {
  const cols: unknown[][] = [[], [], [], [], [], [], [], [], [], [], []]
  // A delta that nets out (a click repointed through a row within one batch) is still written, as a zero
  // row, exactly as SQLite's statement-per-step leaves it.
  for (const d of deltas) {
    const row = [d.hour, d.campaign, d.source, d.offer, d.landing, d.clicks, d.unique, d.bots, d.cost, d.views, d.throughs]
    for (let j = 0; j < 11; j++) cols[j]!.push(row[j])
  }
  return cols
}

export function targetingArrays(deltas: Iterable<TargetingDelta>): unknown[][] {
  const cols: unknown[][] = [[], [], [], [], [], [], [], [], []]
  for (const d of deltas) {
    const row = [d.hour, d.campaign, d.key, d.clicks, d.unique, d.bots, d.cost, d.views, d.throughs]
    for (let j = 0; j < 9; j++) cols[j]!.push(row[j])
  }
  return cols
}

/** Locks the amended clicks, applies the amends in order (each sees the one before), writes the changed rows. */
async function applyAmends(
  tx: SQL, amends: readonly ClickAmend[], deltas: Map<string, RollupDelta>, targeting: TargetingDeltas,
): Promise<void> {
  const ids = [...new Set(amends.map((a) => a.row))].sort((a, b) => a - b)
  const [from, to] = createdSpan(amends)
  const locked = await tx.unsafe(LOCK_SQL, [ids, from, to])
  const before = new Map<number, RollupClick>()
  const partOf = new Map<number, string>()
  for (const r of locked as Array<Record<string, unknown>>) {
    const { part, ...click } = r
    partOf.set(num(r.id), String(part))
    before.set(num(r.id), {
      ...(click as unknown as RollupClick), createdAt: num(r.createdAt),
      landingViewedAt: r.landingViewedAt === null ? null : num(r.landingViewedAt),
      landingClickedAt: r.landingClickedAt === null ? null : num(r.landingClickedAt),
      pathId: r.pathId === null ? null : num(r.pathId),
    })
  }
  const after = new Map(before)
  for (const a of amends) {
    const c = after.get(a.row)
    if (!c) continue
    const next = amended(c, a)
    if (next === c) continue
    // Step by step, as SQLite applies them: a row passed through is written too (as a zero row).
    addRollupDeltas(deltas, [c], -1, targeting)
    addRollupDeltas(deltas, [next], 1, targeting)
    after.set(a.row, next)
  }
  // The changed rows, one UPDATE per partition (a batch's amends are mostly of today), in id order.
  const byPart = new Map<string, unknown[][]>()
  for (const [id, next] of after) {
    if (next === before.get(id)) continue
    const part = partOf.get(id)!
    let cols = byPart.get(part)
    if (!cols) byPart.set(part, (cols = [[], [], [], [], [], [], [], []]))
    const row = [id, next.offerId, next.landingId, next.botReason, next.isUnique ? 1 : 0, next.cost, next.landingViewedAt, next.landingClickedAt]
    for (let j = 0; j < 8; j++) cols[j]!.push(row[j])
  }
  for (const [part, cols] of byPart) await tx.unsafe(amendSql(part), PARTITION.test(part) ? cols : [...cols, from, to])
}

/** Widest created_at span: every partition (an amend whose caller did not know its click's time). */
const ANY_TIME: [number, number] = [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]

/**
 * The amended clicks' created_at span, so that locking and updating them by row id probe only the day partitions
 * they are in (Postgres prunes a range on the partition key at executor start, even in a generic plan).
 */
function createdSpan(amends: readonly ClickAmend[]): [number, number] {
  let from = Infinity
  let to = -Infinity
  for (const a of amends) {
    if (a.createdAt === undefined) return ANY_TIME
    from = Math.min(from, a.createdAt)
    to = Math.max(to, a.createdAt)
  }
  return [from, to]
}

/**
 * Inserts `clicks` and applies `amends` in one transaction, rollups included (on rollup shard `shard`); resolves
 * with the clicks' row ids, in order, once committed. Rejects (and stores nothing) when any part fails.
 */
export async function commitPg(sql: SQL, clicks: readonly Click[], amends: readonly ClickAmend[], shard = 0): Promise<number[]> {
  const text = COMMIT_SQL[shard]
  if (!text) throw new Error(`click rollup shard out of range: ${shard}`)
  const deltas = new Map<string, RollupDelta>()
  const targeting = newTargetingDeltas()
  addRollupDeltas(deltas, clicks, 1, targeting)
  // Without amends: the one statement alone, its own transaction (answered once committed).
  if (amends.length === 0) return rowIds(clicks, await sql.unsafe(text, commitArgs(clicks, deltas, targeting)))
  return sql.begin(async (tx) => {
    await applyAmends(tx as unknown as SQL, amends, deltas, targeting)
    return rowIds(clicks, await tx.unsafe(text, commitArgs(clicks, deltas, targeting)))
  })
}

/** Row ids in the clicks' order, matched by click_id (unique) rather than trusting RETURNING's order. */
function rowIds(clicks: readonly Click[], inserted: Array<{ id: unknown; click_id: string }>): number[] {
  if (inserted.length !== clicks.length) throw new Error(`click insert returned ${inserted.length} rows for ${clicks.length} clicks`)
  const byClickId = new Map<string, number>()
  for (const r of inserted) byClickId.set(r.click_id, num(r.id))
  return clicks.map((c) => byClickId.get(c.clickId)!)
}
