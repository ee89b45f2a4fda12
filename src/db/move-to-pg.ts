// `svc migrate --to postgres://…`: copies an SQLite installation into an empty PostgreSQL database (issue 8).
// Everything is copied as stored (ids, encrypted settings, password hashes) in one Postgres transaction, so
// a failure leaves the target as it was. SQLite is read in primary-key pages inside one read transaction:
// memory stays bounded by one page whatever the size of clicks, and the copy is one consistent snapshot.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { is } from 'drizzle-orm'
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core'
import type { TransactionSQL } from 'bun'
import { requireDatabase, type Env } from '../config'
import { openDatabase, type Database } from './client'
import { lockDataDir, DataDirBusy, type DataDirLock } from './lock'
import { migrate } from './migrate'
import { openPg, redactUrl, type PgDatabase } from './pg/client'
import { migratePg } from './pg/migrate'
import * as pgSchema from './pg-schema'

/**
 * Columns only the Postgres schema has, left to their defaults by the copy: the click and conversion rollups' shard
 * (db/schema/stats.ts; SQLite's single writer needs none, so every copied row is shard 0).
 */
const PG_ONLY: Record<string, readonly string[]> = {
  conversion_stats_hourly: ['shard'], conversion_stats_daily: ['shard'], conversion_country_hourly: ['shard'],
  conversion_country_daily: ['shard'], conversion_path_hourly: ['shard'], conversion_path_daily: ['shard'],
  conversion_country_total_daily: ['shard'],
  // The click rollups' shard likewise (drizzle-pg/0032).
  click_stats_hourly: ['shard'], click_stats_daily: ['shard'], click_country_hourly: ['shard'], click_country_daily: ['shard'],
  click_path_hourly: ['shard'], click_path_daily: ['shard'], click_country_total_daily: ['shard'],
}

/** A refusal or failure the operator can act on; its message is the whole story (never the URL's password). */
export class MoveError extends Error {}

export interface TablePlan {
  name: string
  columns: string[]
  /** Primary-key columns: the page order on SQLite and the order rows are inserted in. */
  key: string[]
}

/**
 * Tables migratePg seeds (drizzle-pg/0001). A target counts as empty while they hold exactly these rows; the
 * copy replaces them with the SQLite ones (which may have been edited there).
 */
const SEED: Record<string, { key: string; rows: Record<string, unknown>[] }> = {
  conversion_types: {
    key: 'slug',
    rows: [
      ['sale', 'Sale', 1, 1, 1, 0], ['lead', 'Lead', 1, 1, 1, 0], ['trial', 'Trial', 1, 0, 0, 0],
      ['install', 'Install', 1, 1, 1, 0], ['reject', 'Reject', 0, 0, 0, 0], ['chargeback', 'Chargeback', 1, 1, 0, 1],
    ].map(([slug, name, inConv, inRev, send, negative]) => ({
      slug, name, include_in_conversions: inConv, include_in_revenue: inRev, send_postback: send, negative,
      builtin: 1, created_at: 0, updated_at: 0,
    })),
  },
  status_map: {
    key: 'status',
    rows: [['approved', 'sale'], ['pending', 'lead'], ['rejected', 'reject'], ['declined', 'reject'], ['chargeback', 'chargeback'], ['refund', 'chargeback']]
      .map(([status, type_slug]) => ({ status, type_slug })),
  },
}

/**
 * Every table of the Postgres schema (click_index and the migration bookkeeping are not in it), parents
 * before children along the foreign keys, so the copy never inserts a row whose parent is still missing.
 */
export function copyPlan(): TablePlan[] {
  const configs = Object.values(pgSchema).filter((t) => is(t, PgTable)).map((t) => getTableConfig(t as PgTable))
  const byName = new Map(configs.map((c) => [c.name, c]))
  const done = new Set<string>()
  const plan: TablePlan[] = []
  const visit = (name: string, path: string[]) => {
    if (done.has(name)) return
    if (path.includes(name)) throw new Error(`foreign-key cycle in the Postgres schema: ${[...path, name].join(' → ')}`)
    const c = byName.get(name)!
    for (const fk of c.foreignKeys) {
      const parent = getTableConfig(fk.reference().foreignTable).name
      if (parent !== name) visit(parent, [...path, name])
    }
    done.add(name)
    const pgOnly = PG_ONLY[name] ?? []
    const key = (c.primaryKeys[0]?.columns.map((col) => col.name) ?? c.columns.filter((col) => col.primary).map((col) => col.name))
      .filter((col) => !pgOnly.includes(col))
    if (key.length === 0) throw new Error(`table ${name} has no primary key to page by`)
    plan.push({ name, columns: c.columns.map((col) => col.name).filter((col) => !pgOnly.includes(col)), key })
  }
  for (const name of [...byName.keys()].sort()) visit(name, [])
  return plan
}

export interface MoveOptions {
  dataDir: string
  dbPath: string
  url: string
  env: Env
  /** One line of output (progress, the count table, the secret reminder). */
  out: (line: string) => void
  /** Rows per SQLite page (also capped so one INSERT stays under Postgres's 65,535 parameters). */
  pageRows?: number
}

export interface TableCount {
  table: string
  sqlite: number
  postgres: number
}

/**
 * Runs the whole move and resolves to the per-table counts. Throws MoveError for every refusal and failure,
 * including counts that differ after the copy (then the counts are printed first and nothing is written).
 */
export async function moveToPg(opts: MoveOptions): Promise<TableCount[]> {
  requireDatabase({ dataDir: opts.dataDir, dbPath: opts.dbPath })
  checkUrl(opts.url)
  const lock = takeLock(opts.dataDir)
  let sqlite: Database | null = null
  let pg: PgDatabase | null = null
  try {
    sqlite = await openDatabase(opts.dbPath)
    migrate(sqlite) // the copy reads the latest SQLite schema, which the Postgres schema mirrors
    const where = redactUrl(opts.url)
    try {
      pg = await openPg(opts.url, { max: 2 })
      await migratePg(pg)
    } catch (err) {
      // openPg's message already names the host without the password; migratePg's may not.
      throw new MoveError(scrub(err instanceof Error ? err.message : String(err), opts.url))
    }
    opts.out(`copying ${opts.dbPath} to PostgreSQL at ${where}`)
    const plan = copyPlan()
    checkColumns(sqlite, plan)
    await requireEmpty(pg, plan, where)
    const result = await copyAll(sqlite, pg, plan, opts).catch((err) => {
      // e.g. "must be owner of table clicks": the copy disables the tables' triggers, which needs ownership.
      const msg = scrub(err instanceof Error ? err.message : String(err), opts.url).split('\n')[0]
      const hint = /must be owner/.test(msg) ? ' (connect as the role that owns the svc tables)' : ''
      throw new MoveError(`copying into ${where} failed, nothing was written (the transaction was rolled back): ${msg}${hint}`)
    })
    printCounts(result.counts, opts.out)
    if (!result.ok) throw new MoveError('the row counts differ (marked with ! above): nothing was written, the transaction was rolled back')
    opts.out(`done: ${result.counts.reduce((n, c) => n + c.postgres, 0)} rows copied into ${where}`)
    await vacuumAnalyze(pg, opts.out)
    secretReminder(opts)
    return result.counts
  } finally {
    if (pg) await pg.close().catch(() => {})
    sqlite?.close()
    lock.release()
  }
}

/**
 * After a bulk load Postgres has no statistics and no visibility map for the new rows: the planner guesses and
 * autovacuum later reads every table on the database's CPU while the instances serve traffic (measured: report
 * p95s several times their medians). So the move does what the Postgres docs advise after populating a database,
 * at once. The rows are committed already: a failure here is a warning, autovacuum will get there.
 */
async function vacuumAnalyze(pg: PgDatabase, out: (line: string) => void): Promise<void> {
  const started = performance.now()
  try {
    await pg.sql.unsafe('VACUUM (ANALYZE)')
    out(`vacuumed and analyzed in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  } catch (err) {
    out(`warning: VACUUM (ANALYZE) failed (${err instanceof Error ? err.message.split('\n')[0] : String(err)}): autovacuum will do it later`)
  }
}

function checkUrl(url: string): void {
  let scheme = ''
  try {
    scheme = new URL(url).protocol
  } catch {
    throw new MoveError('--to is not a URL (expected postgres://user:password@host:5432/database)')
  }
  if (scheme !== 'postgres:' && scheme !== 'postgresql:') {
    throw new MoveError(`--to must be a postgres:// URL (got ${scheme}//)`)
  }
}

/** A running server keeps writing clicks the copy would miss: the lock must be free (it is held to the end). */
function takeLock(dataDir: string): DataDirLock {
  try {
    return lockDataDir(dataDir)
  } catch (err) {
    if (!(err instanceof DataDirBusy)) throw err
    const who = err.pid ? `a running svc server (pid ${err.pid})` : 'a running svc server'
    throw new MoveError(`data directory ${dataDir} is in use by ${who}: stop the server first, then run svc migrate --to again`)
  }
}

function scrub(message: string, url: string): string {
  let password = ''
  try { password = decodeURIComponent(new URL(url).password) } catch {}
  return password ? message.split(password).join('***') : message
}

/** Both schemas are kept in step by their migrations; a column missing on SQLite means they drifted. */
function checkColumns(sqlite: Database, plan: TablePlan[]): void {
  for (const t of plan) {
    // PRAGMA takes no bound parameters; the name comes from the schema module, never from input.
    const have = new Set((sqlite.raw.prepare(`PRAGMA table_info("${t.name}")`).all() as { name: string }[]).map((r) => r.name))
    const missing = t.columns.filter((c) => !have.has(c))
    if (have.size === 0) throw new MoveError(`the SQLite database has no table ${t.name}: the two schemas differ (a bug in this svc version)`)
    if (missing.length) throw new MoveError(`the SQLite table ${t.name} lacks ${missing.join(', ')}: the two schemas differ (a bug in this svc version)`)
  }
}

/** Refuses a target that holds anything beyond migratePg's seed rows, naming the first such table. */
async function requireEmpty(pg: PgDatabase, plan: TablePlan[], where: string): Promise<void> {
  for (const t of plan) {
    const seed = SEED[t.name]
    const rows = await pg.sql`SELECT * FROM ${pg.sql(t.name)} ${seed ? pg.sql`` : pg.sql`LIMIT 1`}`
    if (seed ? sameRows(rows, seed.rows, seed.key) : rows.length === 0) continue
    const [{ n }] = await pg.sql`SELECT count(*)::int AS n FROM ${pg.sql(t.name)}`
    const what = seed ? `${n} rows that are not the defaults svc seeds` : `${n} row${n === 1 ? '' : 's'}`
    throw new MoveError(
      `the PostgreSQL database ${where} is not empty: table ${t.name} has ${what}. ` +
        'svc migrate --to copies into an empty database only: create a new one (CREATE DATABASE) and point --to at it',
    )
  }
}

function sameRows(actual: Record<string, unknown>[], expected: Record<string, unknown>[], key: string): boolean {
  if (actual.length !== expected.length) return false
  const want = new Map(expected.map((r) => [r[key], r]))
  return actual.every((row) => {
    const w = want.get(row[key])
    // int8 columns (created_at) arrive as strings: compare as numbers where the seed has a number.
    return w !== undefined && Object.keys(w).every((c) => (typeof w[c] === 'number' ? Number(row[c]) === w[c] : row[c] === w[c]))
  })
}

/** Postgres's limit is 65,535 bind parameters per statement: clicks (30 columns) fit ~2,000 rows per INSERT. */
const MAX_PARAMS = 60_000

async function copyAll(sqlite: Database, pg: PgDatabase, plan: TablePlan[], opts: MoveOptions) {
  const raw = sqlite.raw
  // SQLite counts clicks into the targeting rollups a moment after their commit (tracking/store/targeting-fold.ts);
  // a server stopped by a crash leaves the last ones for its next start. Postgres would never count them.
  const mark = raw.prepare(`SELECT row_id AS row FROM rollup_marks WHERE name = 'click_targeting'`).get() as { row: number } | undefined
  const top = (raw.prepare('SELECT COALESCE(MAX(id), 0) AS top FROM clicks').get() as { top: number }).top
  if (mark && Number(mark.row) < Number(top)) {
    throw new Error('the last clicks are not counted in the country and path reports yet (svc stopped without a clean shutdown): start svc on this data directory once, stop it, then move')
  }
  // One read transaction: every page sees the same snapshot, even if `svc user passwd` writes meanwhile.
  raw.exec('BEGIN')
  try {
    const sqliteCounts = new Map(plan.map((t) => [t.name, (raw.prepare(`SELECT count(*) AS n FROM "${t.name}"`).get() as { n: number }).n]))
    const counts: TableCount[] = []
    const mismatch = new Error('row counts differ')
    try {
      await pg.sql.begin(async (tx) => {
        for (const t of plan) await copyTable(raw, tx, t, sqliteCounts.get(t.name)!, opts)
        await resetSequences(tx, plan)
        for (const t of plan) {
          const [{ n }] = await tx`SELECT count(*)::int AS n FROM ${tx(t.name)}`
          counts.push({ table: t.name, sqlite: sqliteCounts.get(t.name)!, postgres: n })
        }
        if (counts.some((c) => c.sqlite !== c.postgres)) throw mismatch
      })
    } catch (err) {
      if (err === mismatch) return { ok: false, counts }
      throw err
    }
    return { ok: true, counts }
  } finally {
    raw.exec('COMMIT')
  }
}

async function copyTable(raw: Database['raw'], tx: TransactionSQL, t: TablePlan, total: number, opts: MoveOptions) {
  const quote = (names: string[]) => names.map((c) => `"${c}"`).join(', ')
  const pageRows = Math.max(1, Math.min(opts.pageRows ?? 5000, Math.floor(MAX_PARAMS / t.columns.length)))
  // Keyset pages in primary-key order (row values compare column by column, using the key's index):
  // each page starts after the last key read, so no page costs more than its own rows.
  const head = `SELECT ${quote(t.columns)} FROM "${t.name}"`
  const order = `ORDER BY ${quote(t.key)} LIMIT ${pageRows}`
  const first = raw.prepare(`${head} ${order}`)
  const next = raw.prepare(`${head} WHERE (${quote(t.key)}) > (${t.key.map((_, i) => `$k${i}`).join(', ')}) ${order}`)

  // The rows are copied as they are: no trigger may derive rows from them (the daily rollups would double).
  await tx`ALTER TABLE ${tx(t.name)} DISABLE TRIGGER USER`
  if (t.name === 'clicks') await clickPartitions(raw, tx)
  if (SEED[t.name]) await tx`DELETE FROM ${tx(t.name)}`
  opts.out(`copying ${t.name}: ${total} rows`)
  let copied = 0
  let lastReport = Date.now()
  let rows = first.all() as Record<string, unknown>[]
  while (rows.length > 0) {
    // The INSERT runs on the server while the next page is read here: at most two pages are in memory.
    const insert = tx`INSERT INTO ${tx(t.name)} ${tx(rows, ...t.columns)}`.execute()
    const last = rows[rows.length - 1]!
    const page = rows.length < pageRows ? [] : (next.all(Object.fromEntries(t.key.map((c, i) => [`k${i}`, last[c]]))) as Record<string, unknown>[])
    await insert
    copied += rows.length
    if (Date.now() - lastReport > 5000 && copied < total) {
      opts.out(`copying ${t.name}: ${copied} / ${total}`)
      lastReport = Date.now()
    }
    rows = page
  }
  await tx`ALTER TABLE ${tx(t.name)} ENABLE TRIGGER USER`
}

/**
 * Postgres clicks are partitioned by UTC day (drizzle-pg/0033): every day the copy brings gets its partition
 * first, so the rows go to their days rather than all into the default partition.
 */
async function clickPartitions(raw: Database['raw'], tx: TransactionSQL) {
  const days = (raw.prepare('SELECT DISTINCT created_at - created_at % 86400000 AS day FROM clicks').all() as { day: number }[]).map((r) => r.day)
  if (days.length > 0) await tx.unsafe('SELECT click_days.ensure($1::int8[])', [days])
}

/**
 * Identity sequences (and clicks.id's sequence default: a partitioned table has no identity before Postgres 17)
 * continue after the copied ids: the next row inserted without an id gets max + 1.
 */
async function resetSequences(tx: TransactionSQL, plan: TablePlan[]) {
  const identity = await tx`
    SELECT table_name, column_name FROM information_schema.columns
    WHERE table_schema = current_schema() AND (is_identity = 'YES' OR column_default LIKE 'nextval(%')
      AND table_name IN ${tx(plan.map((t) => t.name))}`
  for (const { table_name, column_name } of identity as { table_name: string; column_name: string }[]) {
    await tx`
      SELECT setval(pg_get_serial_sequence(${`"${table_name}"`}, ${column_name}), m)
      FROM (SELECT max(${tx(column_name)}) AS m FROM ${tx(table_name)}) AS t WHERE m IS NOT NULL`
  }
}

function printCounts(counts: TableCount[], out: (line: string) => void) {
  const w = Math.max(5, ...counts.map((c) => c.table.length))
  out(`${'table'.padEnd(w)}  ${'sqlite'.padStart(10)}  ${'postgres'.padStart(10)}`)
  for (const c of counts) {
    out(`${c.table.padEnd(w)}  ${String(c.sqlite).padStart(10)}  ${String(c.postgres).padStart(10)}${c.sqlite === c.postgres ? '' : '  !'}`)
  }
}

/** Encrypted settings stay encrypted with this install's master secret: the Postgres instances need it. */
function secretReminder(opts: MoveOptions) {
  const keyFile = join(opts.dataDir, 'secret.key')
  const fromEnv = (opts.env.SVC_SECRET ?? '').trim() !== ''
  opts.out('Stored secrets (encrypted settings) and password hashes were copied as they are, still encrypted with this installation\'s master secret:')
  if (!fromEnv && existsSync(keyFile)) {
    opts.out(`this installation's secret is the content of ${keyFile}: run every PostgreSQL instance with SVC_SECRET set to it`)
  } else {
    opts.out('run every PostgreSQL instance with the same SVC_SECRET as this installation')
  }
}
