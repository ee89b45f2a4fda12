// Postgres only: folds the striped rollup rows of closed periods back into shard 0.
//
// Writers stripe every rollup row over shards (conversions: postback/pg-rollup.ts ROLLUP_SHARDS; clicks:
// tracking/store/pg-commit.ts) so that transactions side by side never wait on one row's lock until the other's
// COMMIT. Reports sum the shards, so a striped day costs them up to one row per shard and key: a 30-day report read
// about 4x the rows (measured, docs/performance.md). Nobody writes a closed hour or day at that rate, so its shards
// are folded here: one statement per table deletes the period's rows of shards other than 0 and adds their sums to
// shard 0. Sums stay exact under concurrent writers: a late upsert to a deleted shard row waits for the fold's
// commit and then inserts a fresh row (ON CONFLICT re-checks), which the next run folds. Deleting and inserting
// hourly rows fires the daily triggers with the same deltas, so each daily key's sum over shards never changes;
// the daily tables are folded after the hourly ones, taking in the shard rows those deltas left.
//
// The fold never makes a writer wait long: it takes the rows with FOR UPDATE SKIP LOCKED (a row a click or
// postback batch holds is left for the next run) and gives up after lock_timeout if a daily row it must update is
// held, so a writer never deadlocks against it (the fold is the one that fails, and runs again at the next
// schedule). It runs at start and hourly on every instance (lib/retention.ts): two instances folding at once
// skip each other's rows.
import { getTableConfig, type PgTableWithColumns } from 'drizzle-orm/pg-core'
import type { SQL } from 'bun'
import * as pgSchema from '../db/pg-schema'

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000

interface Striped {
  name: string
  /** 'hour' or 'day': the period column, first in the key. */
  period: string
  /** The key without the shard, period first. */
  key: string[]
  /** The counters added together. */
  sums: string[]
}

/** Every Postgres table with a shard column, read from the one schema (so a newly striped table is folded too). */
export function stripedTables(): Striped[] {
  const out: Striped[] = []
  for (const t of Object.values(pgSchema) as Array<PgTableWithColumns<any>>) {
    const cfg = getTableConfig(t)
    const names = cfg.columns.map((c) => c.name)
    if (!names.includes('shard')) continue
    const pk = cfg.primaryKeys[0]?.columns.map((c) => c.name) ?? []
    const key = pk.filter((c) => c !== 'shard')
    const period = key.includes('hour') ? 'hour' : 'day'
    out.push({ name: cfg.name, period, key, sums: names.filter((c) => !pk.includes(c)) })
  }
  // Hourly tables first: their triggers move daily sums between shards, which the daily fold then takes in.
  return out.sort((a, b) => (a.period === b.period ? a.name.localeCompare(b.name) : a.period === 'hour' ? -1 : 1))
}

/** One statement: the period's rows of shards other than 0 out, their sums into shard 0. Constant text from the schema. */
export function foldSql(t: Striped): string {
  const key = t.key.join(', ')
  const sums = t.sums.map((c) => `sum(${c}) AS ${c}`).join(', ')
  const add = t.sums.map((c) => `${c} = s.${c} + excluded.${c}`).join(', ')
  return `WITH taken AS (SELECT ctid FROM ${t.name} WHERE ${t.period} < $1 AND shard <> 0 ` +
    `ORDER BY ${key}, shard FOR UPDATE SKIP LOCKED), ` +
    `gone AS (DELETE FROM ${t.name} WHERE ctid IN (SELECT ctid FROM taken) RETURNING ${key}, ${t.sums.join(', ')}) ` +
    `INSERT INTO ${t.name} AS s (${key}, shard, ${t.sums.join(', ')}) ` +
    `SELECT ${key}, 0, ${t.sums.join(', ')} FROM (SELECT ${key}, ${sums} FROM gone GROUP BY ${key} ORDER BY ${key}) g ` +
    `ON CONFLICT (${key}, shard) DO UPDATE SET ${add}`
}

export interface FoldResult {
  /** Shard-0 rows written (inserted or added to) per table. */
  tables: Record<string, number>
  /** Tables skipped this run because a lock was held too long (folded at the next run). */
  skipped: string[]
}

/**
 * Folds every striped table's rows before the current hour minus one (hourly) and before yesterday (daily, UTC),
 * each table in its own short transaction.
 */
export async function foldShards(sql: SQL, now: number, tables = stripedTables()): Promise<FoldResult> {
  const hourCut = now - (now % HOUR_MS) - HOUR_MS
  const dayCut = now - (now % DAY_MS) - DAY_MS
  const result: FoldResult = { tables: {}, skipped: [] }
  for (const t of tables) {
    try {
      const n = await sql.begin(async (tx) => {
        await tx.unsafe("SET LOCAL lock_timeout = '200ms'")
        const r = await tx.unsafe(foldSql(t), [t.period === 'hour' ? hourCut : dayCut])
        return r.count as number
      })
      result.tables[t.name] = n
    } catch (err) {
      // 55P03 lock_not_available (lock_timeout) or 40P01 deadlock: a writer held a row; try again next run.
      const code = (err as { errno?: string; code?: string }).errno ?? (err as { code?: string }).code
      if (code === '55P03' || code === '40P01') result.skipped.push(t.name)
      else throw err
    }
  }
  return result
}
