// Postgres clicks are partitioned by UTC day on created_at (drizzle-pg/0033_clicks_by_day.sql, docs/postgres.md).
// This file keeps the partitions: days are created ahead (at start and hourly, by every instance: the SQL
// function click_days.ensure() serialises them), whole days are dropped by raw click retention, and a click id
// says which day to probe.
//
// Click ids stay UUID v4 (the HTTP contract says so), but on Postgres the last 16 of their random bits are the
// click's UTC day (days since 1970, good until 2149; 106 random bits remain): newPgClickId. A lookup by click id
// thus names its day: `click_id = $1 AND created_at >= day AND < day + 1` probes the click_id hash
// index of ONE partition. An id made otherwise (clicks made before the upgrade, moved from SQLite, whose click
// index keys on the first 32 random bits and keeps plain random ids, or imported) names a random day: that probe
// finds nothing (usually no partition at all, only the default one) and the lookup falls back to
// `click_id = $1` on every partition.
import type { SQL } from 'bun'
import { errorFields, log } from '../../lib/log'

export const DAY_MS = 86_400_000
/** Days created ahead of today (and yesterday, for a clock a little behind the database's). */
export const AHEAD_DAYS = 7
/** Days found in the default partition moved out per run (each is one small transaction's worth of DDL). */
const DRAIN_DAYS = 64
/** 'clkd': the advisory lock click_days.ensure() takes; dropping takes it too, so the two never interleave. */
const PARTITION_LOCK = 1668049764
/**
 * How long a drop waits for its locks (ACCESS EXCLUSIVE on the partition and on clicks, which every click insert
 * and read also locks, shared): past it the drop gives up until the next run instead of queueing every click
 * behind it while a long report holds clicks.
 */
export const DROP_LOCK_TIMEOUT_MS = 500
/** Between two drops: the clicks that queued behind one drop's lock commit before the next drop takes it. */
const DROP_PAUSE_MS = 100

/** Start of the UTC day of `ms`. */
export const dayOf = (ms: number) => ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS)

/** A new click id (UUID v4) for a click created at `createdAt`: its last 4 hex digits are that UTC day's number. */
export const newPgClickId = (createdAt: number): string =>
  crypto.randomUUID().slice(0, 32) + (Math.floor(createdAt / DAY_MS) & 0xffff).toString(16).padStart(4, '0')

/** [start, end) of the UTC day a click id names (newPgClickId); any UUID names one, maybe not its click's. */
export function clickDayRange(clickId: string): [number, number] | null {
  if (clickId.length !== 36) return null
  const n = parseInt(clickId.slice(32), 16)
  if (!Number.isInteger(n)) return null
  return [n * DAY_MS, (n + 1) * DAY_MS]
}

/**
 * Clicks of a day this instance commits before it ANALYZEs the day's partition itself. A new day starts with no
 * statistics, and until autovacuum analyzes it (up to a minute later, longer on a busy server) the planner
 * reads "created_at in this day" as a handful of rows and scans the day's created_at index for every lookup
 * by click id instead of probing the click_id index once (measured: 10.6 ms instead of 0.3 ms for a batch
 * of 16 ids over 19k clicks). Statistics taken from the first thousand rows put the whole day in range: enough.
 */
export const ANALYZE_AFTER_CLICKS = 1000

/** Statistics for a young day partition (see ANALYZE_AFTER_CLICKS); a day without a partition is skipped. */
export async function analyzeDay(sql: SQL, day: number): Promise<void> {
  const name = partitionName(dayOf(day))
  const [r] = await sql.unsafe('SELECT to_regclass($1) IS NOT NULL AS found', [`click_days.${name}`])
  if (r.found) await sql.unsafe(`ANALYZE click_days."${name}"`) // the name is ours: dYYYYMMDD
}

/** Partition name of a UTC day: d20261127. */
export const partitionName = (day: number) => `d${new Date(day).toISOString().slice(0, 10).replace(/-/g, '')}`

/**
 * Creates yesterday, today and AHEAD_DAYS days ahead of `now`, and with `drain` the day of every click waiting
 * in the default partition (moving them in); resolves with how many partitions it created. Safe from several
 * instances at once. A move races with lookups of the moved clicks: a statement that listed the partitions
 * just before it may miss them once (Postgres' partition descriptors are not MVCC). Only clicks that went to
 * the safety net are ever moved.
 */
export async function ensurePartitions(sql: SQL, now: number, drain = true): Promise<number> {
  const days: number[] = []
  for (let d = -1; d <= AHEAD_DAYS; d++) days.push(dayOf(now) + d * DAY_MS)
  const [r] = await sql.unsafe(`SELECT click_days.ensure($1::int8[], ${drain ? DRAIN_DAYS : 0}) AS made`, [days])
  return Number(r.made)
}

/** Creates the partitions of the given days (any time of the day, epoch ms) before rows of them are copied in. */
export async function ensureDays(sql: SQL, days: readonly number[]): Promise<number> {
  const [r] = await sql.unsafe('SELECT click_days.ensure($1::int8[]) AS made', [[...new Set(days.map(dayOf))]])
  return Number(r.made)
}

/**
 * Drops, oldest first, every day partition whose whole day ends at or before `cutoff`: the rows of the day
 * that holds the cutoff stay until their day is due as a whole (retention keeps up to a day more than it says;
 * docs/postgres.md). Each drop is its own short transaction. Resolves with the rows dropped, as Postgres last
 * counted them (pg_class.reltuples: no scan of a day about to go; a day never analysed is counted), and whether a drop gave up on its lock.
 */
export async function dropDaysBefore(sql: SQL, cutoff: number): Promise<{ rows: number; blocked: boolean }> {
  const parts = await sql`
    SELECT c.relname AS name, c.reltuples::int8 AS rows FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE i.inhparent = 'public.clicks'::regclass AND n.nspname = 'click_days' AND c.relname ~ '^d[0-9]{8}$'
    ORDER BY c.relname`
  let rows = 0
  let dropped = 0
  for (const p of parts as Array<{ name: string; rows: unknown }>) {
    const day = Date.UTC(Number(p.name.slice(1, 5)), Number(p.name.slice(5, 7)) - 1, Number(p.name.slice(7, 9)))
    if (day + DAY_MS > cutoff) break
    if (dropped++ > 0) await Bun.sleep(DROP_PAUSE_MS)
    // Never analysed (-1): a day small or new enough that counting it costs little.
    const count = Number(p.rows) >= 0 ? Number(p.rows)
      : Number((await sql.unsafe(`SELECT count(*)::int8 AS n FROM click_days."${p.name}"`))[0].n)
    try {
      await sql.begin(async (tx) => {
        await tx.unsafe(`SET LOCAL lock_timeout = ${DROP_LOCK_TIMEOUT_MS}`)
        await tx.unsafe(`SELECT pg_advisory_xact_lock(${PARTITION_LOCK})`)
        // The name is ours (matched above), quoted anyway.
        await tx.unsafe(`DROP TABLE IF EXISTS click_days."${p.name}"`)
      })
    } catch (err) {
      // 55P03 lock_not_available: something held clicks for longer; the next run (hourly) tries again.
      if ((err as { errno?: string }).errno !== '55P03') throw err
      log.warn('tracking: a click partition was not dropped (its lock was busy); retrying at the next retention run', { partition: p.name, ...errorFields(err) })
      return { rows, blocked: true }
    }
    rows += count
  }
  return { rows, blocked: false }
}
