// The job table on PostgreSQL, shared by every instance on the database. A running job's next_run_at
// is its LEASE expiry: the claiming instance must record an outcome before then, otherwise (it died, or
// hangs) any instance claims the job again. Outcomes apply only while the job still runs the attempt
// they belong to, so a late outcome of an expired lease cannot overwrite the newer attempt.
// Times are each instance's clock (as every timestamp svc writes): instances' clocks must agree to well
// within the lease margin (30 s by default, see loop.ts), which NTP gives.
import type { SQL } from 'bun'
import type { Tx } from '../db/engine'
import { numCols, type PgDatabase } from '../db/pg/client'
import { withArrayLiterals } from '../db/pg/array-literal'
import { StatementCollector } from '../db/pg/one-statement'
import { jobs as jobsTable } from '../db/schema'
import { int8Columns } from '../db/table'
import { storeDb, type StoreDb } from '../db/store-db'
import { listJobs } from './list'
import { errorFields, log } from '../lib/log'
import { INTERRUPTED, type JobFilter, type JobOutcome, type JobRecord, type JobStore, type NewJob } from './store'

/** int8 columns of a jobs row (from the schema): Bun returns them as strings. */
const INT8 = int8Columns(jobsTable)

const INSERT_MANY_GATHERED_SQL =
  'INSERT INTO jobs (kind, payload, status, attempts, max_attempts, section, ref, next_run_at, created_at, updated_at) ' +
  "SELECT kind, payload, 'pending', 0, max_attempts, section, ref, run_at, now, now " +
  'FROM unnest($1::text[], $2::text[], $3::int4[], $4::text[], $5::text[], $6::int8[], $7::int8[]) ' +
  'AS j(kind, payload, max_attempts, section, ref, run_at, now)'
const INSERT_MANY_SQL = INSERT_MANY_GATHERED_SQL + ' RETURNING id'

/**
 * The claim, one statement. Pending and lease-expired jobs are read by two index scans in due order
 * (jobs_due_idx is (status, next_run_at)), each stopping after $2 rows: with one OR over both, Postgres
 * read and sorted every due job to take the first $2, 9-17 ms a claim behind a backlog of forwards
 * (docs/performance.md, session 23). The expired leases without attempts left fail in the same
 * statement; those rows are disjoint from the ones claimed (attempts >= max_attempts).
 */
export const CLAIM_SQL = `
  WITH spent AS (
    UPDATE jobs SET status = 'failed', updated_at = $1, last_error = 'attempt ' || attempts || ' of ' || max_attempts || $4::text
    WHERE status = 'running' AND next_run_at <= $1 AND attempts >= max_attempts
  ),
  pending AS (
    SELECT id, next_run_at FROM jobs WHERE status = 'pending' AND next_run_at <= $1
    ORDER BY next_run_at LIMIT $2 FOR UPDATE SKIP LOCKED
  ),
  expired AS (
    SELECT id, next_run_at FROM jobs WHERE status = 'running' AND next_run_at <= $1 AND attempts < max_attempts
    ORDER BY next_run_at LIMIT $2 FOR UPDATE SKIP LOCKED
  ),
  due AS (SELECT * FROM pending UNION ALL SELECT * FROM expired ORDER BY next_run_at, id LIMIT $2)
  UPDATE jobs j SET status = 'running', attempts = j.attempts + 1, next_run_at = $3, updated_at = $1,
    last_error = CASE WHEN j.status = 'running' THEN 'attempt ' || j.attempts || $5::text ELSE j.last_error END
  FROM due
  WHERE j.id = due.id
  RETURNING j.*, due.next_run_at AS due_at`

/**
 * Outcomes, one statement: each applies only while its job still runs the attempt it belongs to. A done
 * job keeps its last_error, a failed or retried one its result.
 */
const RECORD_SQL = `
  UPDATE jobs j SET status = o.status, next_run_at = o.next_run_at, updated_at = o.at,
    result = CASE WHEN o.status = 'done' THEN o.result ELSE j.result END,
    last_error = CASE WHEN o.status = 'done' THEN j.last_error ELSE o.error END
  FROM unnest($1::int8[], $2::int4[], $3::text[], $4::text[], $5::text[], $6::int8[], $7::int8[])
    AS o(id, attempts, status, result, error, next_run_at, at)
  WHERE j.id = o.id AND j.status = 'running' AND j.attempts = o.attempts
  RETURNING j.id`

/**
 * Outcomes recorded by this instance at which it ANALYZEs the job table itself. A new database's job table
 * is empty when the loop's statements take their generic plans (a statement's sixth run on a connection),
 * and for a table of a few pages a hash join over a sequential scan is the cheaper guess; that plan is then
 * kept while the table grows, until autovacuum analyzes it: 2.8 ms per outcome write over ~30k jobs in one
 * bench run, against 0.3 ms with index probes (docs/performance.md, session 23). ANALYZE makes every
 * connection plan the statements again at the table's size. A table with a month of history is past this.
 */
const ANALYZE_AT = [1_000, 10_000, 100_000]

const toRecords = (rows: Record<string, unknown>[]): JobRecord[] => numCols(rows, ...INT8) as unknown as JobRecord[]

export class PgJobStore implements JobStore {
  private readonly sql: SQL

  /** Outcomes this instance recorded (for ANALYZE_AT). */
  private recorded = 0

  private readonly db: StoreDb

  constructor(db: PgDatabase) {
    this.sql = db.sql
    this.db = storeDb(db)
  }

  /** Through `tx` when given, so the job commits with the caller's change or not at all. */
  async insert(job: NewJob, tx?: Tx): Promise<number> {
    const q = tx ?? this.sql
    const [row] = await q`
      INSERT INTO jobs (kind, payload, status, attempts, max_attempts, section, ref, next_run_at, created_at, updated_at)
      VALUES (${job.kind}, ${JSON.stringify(job.payload ?? null)}, 'pending', 0, ${job.maxAttempts}, ${job.section}, ${job.ref},
        ${job.runAt}, ${job.now}, ${job.now})
      RETURNING id`
    return Number(row.id)
  }

  /**
   * One INSERT for every job (a postback batch's forwards): one round trip where insert() per job costs one
   * each. Through `tx` when given: a transaction, or the postback batch's StatementCollector, which makes it a
   * part of the batch's one statement: its rows are written with the batch, so there are no ids to return
   * ([]). Otherwise the ids in the order given (RETURNING follows the unnest's order for a plain
   * INSERT … SELECT; sorted anyway, as ids are drawn in that order).
   */
  async insertMany(jobs: readonly NewJob[], tx?: Tx): Promise<number[]> {
    if (jobs.length === 0) return []
    const cols = [
      jobs.map((j) => j.kind), jobs.map((j) => JSON.stringify(j.payload ?? null)), jobs.map((j) => j.maxAttempts),
      jobs.map((j) => j.section), jobs.map((j) => j.ref), jobs.map((j) => j.runAt), jobs.map((j) => j.now),
    ]
    if ((tx as unknown) instanceof StatementCollector) {
      void (tx as unknown as StatementCollector).unsafe(INSERT_MANY_GATHERED_SQL, cols)
      return []
    }
    const rows = await ((tx ?? this.sql) as SQL).unsafe(INSERT_MANY_SQL, withArrayLiterals(cols))
    return (rows as Array<{ id: unknown }>).map((r) => Number(r.id)).sort((a, b) => a - b)
  }

  /** A claimed job is locked by its claim's UPDATE until it commits; only a pending row is cancelled. */
  async cancel(id: number, now: number): Promise<boolean> {
    const r = await this.sql`UPDATE jobs SET status = 'cancelled', updated_at = ${now} WHERE id = ${id} AND status = 'pending'`
    return r.count > 0
  }

  /** Through `tx` when given (e.g. the unsubscribe's transaction). */
  async cancelRef(ref: string, now: number, tx?: Tx): Promise<number> {
    const r = await (tx ?? this.sql)`UPDATE jobs SET status = 'cancelled', updated_at = ${now} WHERE ref = ${ref} AND status = 'pending'`
    return r.count
  }

  /**
   * Due pending jobs, and running jobs whose lease expired, become running under a new lease with the
   * attempt counted (as on SQLite: attempts counts claims). SKIP LOCKED: concurrent instances claim
   * disjoint rows without waiting on each other. An expired lease on a job with no attempts left fails
   * it, with the text SQLite's start-up recovery writes. The records carry the time the job was due (as
   * on SQLite), which outcomes write back in place of the lease. One statement (CLAIM_SQL).
   */
  async claim(now: number, limit: number, leaseMs: number): Promise<JobRecord[]> {
    const rows = await this.sql.unsafe(CLAIM_SQL, [now, limit, now + leaseMs, ` ${INTERRUPTED}; no attempts left`, ` ${INTERRUPTED}`])
    const jobs = toRecords(rows) as (JobRecord & { due_at?: unknown })[]
    for (const job of jobs) {
      job.next_run_at = Number(job.due_at)
      delete job.due_at
    }
    // UPDATE … RETURNING has no order of its own; attempts start in due order as on SQLite.
    return jobs.sort((a, b) => a.next_run_at - b.next_run_at || a.id - b.id)
  }

  /** One statement for all of them; only rows still running the outcome's attempt change. */
  async record(outcomes: readonly JobOutcome[]): Promise<Set<number>> {
    if (outcomes.length === 0) return new Set()
    const applied = await this.write(outcomes)
    const before = this.recorded
    this.recorded += outcomes.length
    if (ANALYZE_AT.some((n) => before < n && this.recorded >= n)) {
      await this.sql`ANALYZE jobs`.catch((err) => log.warn('jobs: analyzing the job table failed (autovacuum will)', errorFields(err)))
    }
    return applied
  }

  private async write(outcomes: readonly JobOutcome[]): Promise<Set<number>> {
    // In id order, so that two writers that ever share rows (a re-claimed job) lock them in one order.
    const os = [...outcomes].sort((a, b) => a.job.id - b.job.id)
    const rows = await this.sql.unsafe(RECORD_SQL, withArrayLiterals([
      os.map((o) => o.job.id), os.map((o) => o.job.attempts), os.map((o) => o.status),
      os.map((o) => (o.status === 'done' ? o.result : null)), os.map((o) => (o.status === 'done' ? null : o.error)),
      os.map((o) => (o.status === 'pending' ? o.nextRunAt : o.job.next_run_at)), os.map((o) => o.at),
    ]))
    return new Set((rows as Array<{ id: unknown }>).map((r) => Number(r.id)))
  }

  /**
   * Nothing: other instances' running jobs are alive as far as this one knows. A job this instance left
   * running when it stopped or crashed is claimed again once its lease expires (see claim()).
   */
  async recoverInterrupted(_now: number): Promise<void> {}

  async pruneDone(before: number): Promise<void> {
    await this.sql`DELETE FROM jobs WHERE status IN ('done', 'cancelled') AND updated_at < ${before}`
  }

  async get(id: number): Promise<JobRecord | null> {
    const rows = await this.sql`SELECT * FROM jobs WHERE id = ${id}`
    return toRecords(rows)[0] ?? null
  }

  async retry(id: number, budget: number, now: number): Promise<boolean> {
    const r = await this.sql`
      UPDATE jobs SET status = 'pending', max_attempts = attempts + ${budget}, next_run_at = ${now}, updated_at = ${now}
      WHERE id = ${id} AND status = 'failed'`
    return r.count > 0
  }

  list(filter: JobFilter): Promise<JobRecord[]> {
    return listJobs(this.db, filter)
  }
}
