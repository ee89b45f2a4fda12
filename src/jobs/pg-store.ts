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
import { INTERRUPTED, type JobFilter, type JobRecord, type JobStore, type NewJob } from './store'

/** int8 columns of a jobs row (from the schema): Bun returns them as strings. */
const INT8 = int8Columns(jobsTable)

const INSERT_MANY_GATHERED_SQL =
  'INSERT INTO jobs (kind, payload, status, attempts, max_attempts, section, ref, next_run_at, created_at, updated_at) ' +
  "SELECT kind, payload, 'pending', 0, max_attempts, section, ref, run_at, now, now " +
  'FROM unnest($1::text[], $2::text[], $3::int4[], $4::text[], $5::text[], $6::int8[], $7::int8[]) ' +
  'AS j(kind, payload, max_attempts, section, ref, run_at, now)'
const INSERT_MANY_SQL = INSERT_MANY_GATHERED_SQL + ' RETURNING id'

const toRecords = (rows: Record<string, unknown>[]): JobRecord[] => numCols(rows, ...INT8) as unknown as JobRecord[]

export class PgJobStore implements JobStore {
  private readonly sql: SQL

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
   * it first, with the text SQLite's start-up recovery writes. The records carry the time the job was
   * due (as on SQLite), which outcomes write back in place of the lease.
   */
  async claim(now: number, limit: number, leaseMs: number): Promise<JobRecord[]> {
    await this.sql`
      UPDATE jobs SET status = 'failed', updated_at = ${now},
        last_error = 'attempt ' || attempts || ' of ' || max_attempts || ${` ${INTERRUPTED}; no attempts left`}::text
      WHERE status = 'running' AND next_run_at <= ${now} AND attempts >= max_attempts`
    const rows = await this.sql`
      UPDATE jobs j SET status = 'running', attempts = j.attempts + 1, next_run_at = ${now + leaseMs}, updated_at = ${now},
        last_error = CASE WHEN j.status = 'running' THEN 'attempt ' || j.attempts || ${` ${INTERRUPTED}`}::text ELSE j.last_error END
      FROM (
        SELECT id, next_run_at FROM jobs
        WHERE (status = 'pending' OR (status = 'running' AND attempts < max_attempts)) AND next_run_at <= ${now}
        ORDER BY next_run_at, id LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      ) due
      WHERE j.id = due.id
      RETURNING j.*, due.next_run_at AS due_at`
    const jobs = toRecords(rows) as (JobRecord & { due_at?: unknown })[]
    for (const job of jobs) {
      job.next_run_at = Number(job.due_at)
      delete job.due_at
    }
    // UPDATE … RETURNING has no order of its own; attempts start in due order as on SQLite.
    return jobs.sort((a, b) => a.next_run_at - b.next_run_at || a.id - b.id)
  }

  async succeed(job: JobRecord, result: string | null, now: number): Promise<boolean> {
    const r = await this.sql`
      UPDATE jobs SET status = 'done', result = ${result}, next_run_at = ${job.next_run_at}, updated_at = ${now}
      WHERE id = ${job.id} AND status = 'running' AND attempts = ${job.attempts}`
    return r.count > 0
  }

  async reschedule(job: JobRecord, error: string, nextRunAt: number, now: number): Promise<boolean> {
    const r = await this.sql`
      UPDATE jobs SET status = 'pending', last_error = ${error}, next_run_at = ${nextRunAt}, updated_at = ${now}
      WHERE id = ${job.id} AND status = 'running' AND attempts = ${job.attempts}`
    return r.count > 0
  }

  async fail(job: JobRecord, error: string, now: number): Promise<boolean> {
    const r = await this.sql`
      UPDATE jobs SET status = 'failed', last_error = ${error}, next_run_at = ${job.next_run_at}, updated_at = ${now}
      WHERE id = ${job.id} AND status = 'running' AND attempts = ${job.attempts}`
    return r.count > 0
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
