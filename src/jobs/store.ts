// The durable job table behind one interface (JobStore), two engines: SqliteJobStore here (statements
// prepared once; enqueue synchronous on the shared connection, inside the transaction that creates the
// reason for the job) and PgJobStore (pg-store.ts: leases, several instances on one database).
import type { RawDb, RawStatement } from '../db/client'
import type { AnyDatabase, Tx } from '../db/engine'
import { storeDb, type StoreDb } from '../db/store-db'
import { listJobs } from './list'
import { iso } from '../lib/time'
import { PgJobStore } from './pg-store'
import type { JobRow, JobStatus } from './types'

export interface JobRecord {
  id: number
  kind: string
  payload: string
  status: JobStatus
  attempts: number
  max_attempts: number
  section: string
  ref: string | null
  last_error: string | null
  result: string | null
  next_run_at: number
  created_at: number
  updated_at: number
}

/** A job as a producer creates it. */
export interface NewJob {
  kind: string
  payload: unknown
  maxAttempts: number
  section: string
  ref: string | null
  /** Due time (epoch ms): now, or later for a delayed job. */
  runAt: number
  now: number
}

function parsePayload(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

export function toJobRow(r: JobRecord): JobRow {
  return {
    id: r.id,
    kind: r.kind,
    payload: parsePayload(r.payload),
    status: r.status,
    attempts: r.attempts,
    max_attempts: r.max_attempts,
    section: r.section,
    ref: r.ref,
    last_error: r.last_error,
    result: r.result,
    next_run_at: iso(r.next_run_at),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  }
}

export interface JobFilter {
  status?: string
  kind?: string
  /** Only jobs of these sections (the ones the reader may see); all when left out. */
  sections?: readonly string[]
  /** Cursor: ids below this one. */
  before?: number
  /** Only the forwarded postbacks of this conversion (payload.conversion_id; forwards carry no ref, see schema). */
  conversionId?: number
  limit: number
}

/**
 * What an attempt ended in, for the claimed record it belongs to (its id and attempt), at `at`: done with
 * its result, pending again at `nextRunAt` (a retry), or failed for good.
 */
export type JobOutcome =
  | { job: JobRecord; at: number; status: 'done'; result: string | null }
  | { job: JobRecord; at: number; status: 'pending'; error: string; nextRunAt: number }
  | { job: JobRecord; at: number; status: 'failed'; error: string }

/**
 * What the loop and the admin verbs need of the job table. Outcomes take the claimed record and answer
 * whether they applied: on Postgres only while the job is still running the same attempt (a late outcome
 * after the lease expired and another instance claimed it is ignored).
 */
export interface JobStore {
  /**
   * SQLite: synchronous insert on the shared connection (an open transaction there includes it), `tx`
   * unused. Postgres: a Promise; through `tx` (the caller's transaction) when given, else on its own.
   */
  insert(job: NewJob, tx?: Tx): number | Promise<number>
  /** Several jobs at once, ids in order. Same engine rules as insert(); on Postgres one statement. */
  insertMany(jobs: readonly NewJob[], tx?: Tx): number[] | Promise<number[]>
  /** Pending → cancelled; false when the job is not pending (or unknown). */
  cancel(id: number, now: number): Promise<boolean>
  /** Every pending job with this ref → cancelled; how many. Same engine rules as insert(). */
  cancelRef(ref: string, now: number, tx?: Tx): number | Promise<number>
  /**
   * Due jobs become running with the attempt counted. `leaseMs`: how long a claimed job stays running
   * before another instance may claim it again (Postgres; SQLite has one instance and ignores it).
   */
  claim(now: number, limit: number, leaseMs: number): Promise<JobRecord[]>
  /**
   * Several attempts' outcomes in one write (the loop gathers those of one event-loop turn, and those that
   * end while a write is in flight):
   * the ids of the jobs whose outcome applied. A done or failed job's next_run_at goes back to when the
   * attempt became due (on Postgres it held the lease while running).
   */
  record(outcomes: readonly JobOutcome[]): Promise<Set<number>>
  /** At start: what a stopped or crashed server left running (SQLite; a no-op on Postgres, see there). */
  recoverInterrupted(now: number): Promise<void>
  /** Done and cancelled jobs last updated before `before`. */
  pruneDone(before: number): Promise<void>
  get(id: number): Promise<JobRecord | null>
  /** Failed → pending, due now, with `budget` more attempts; false when the job is not failed (or unknown). */
  retry(id: number, budget: number, now: number): Promise<boolean>
  /** Newest first, cursor = the last id seen. */
  list(filter: JobFilter): Promise<JobRecord[]>
}

/** Text of the last_error of an attempt that never reported back (both engines say the same). */
export const INTERRUPTED = 'was interrupted (server stopped or crashed during it)'

export function createJobStore(db: AnyDatabase): JobStore {
  return db.engine === 'postgres' ? new PgJobStore(db) : new SqliteJobStore(db.raw, storeDb(db))
}

/** One process per data directory: no leases, and outcomes apply unconditionally (as before issue 8). */
export class SqliteJobStore implements JobStore {
  private readonly insertJob: RawStatement
  /** One statement, so claiming is atomic: due pending rows become running with the attempt counted. */
  private readonly claimDue: RawStatement
  private readonly succeedJob: RawStatement
  private readonly rescheduleJob: RawStatement
  private readonly failJob: RawStatement
  private readonly byId: RawStatement
  private readonly retryFailed: RawStatement
  private readonly recoverRetryable: RawStatement
  private readonly recoverExhausted: RawStatement
  private readonly pruneDoneJobs: RawStatement
  private readonly cancelJob: RawStatement
  private readonly cancelByRef: RawStatement

  constructor(private readonly raw: RawDb, private readonly db: StoreDb) {
    this.insertJob = raw.prepare(
      'INSERT INTO jobs (kind, payload, status, attempts, max_attempts, section, ref, next_run_at, created_at, updated_at) ' +
        "VALUES ($kind, $payload, 'pending', 0, $maxAttempts, $section, $ref, $runAt, $now, $now)",
    )
    this.claimDue = raw.prepare(
      "UPDATE jobs SET status = 'running', attempts = attempts + 1, updated_at = $now WHERE id IN (" +
        "SELECT id FROM jobs WHERE status = 'pending' AND next_run_at <= $now ORDER BY next_run_at, id LIMIT $limit" +
        ') RETURNING *',
    )
    this.succeedJob = raw.prepare("UPDATE jobs SET status = 'done', result = $result, updated_at = $now WHERE id = $id")
    this.rescheduleJob = raw.prepare(
      "UPDATE jobs SET status = 'pending', last_error = $error, next_run_at = $nextRunAt, updated_at = $now WHERE id = $id",
    )
    this.failJob = raw.prepare("UPDATE jobs SET status = 'failed', last_error = $error, updated_at = $now WHERE id = $id")
    this.byId = raw.prepare('SELECT * FROM jobs WHERE id = $id')
    this.retryFailed = raw.prepare(
      "UPDATE jobs SET status = 'pending', max_attempts = attempts + $budget, next_run_at = $now, updated_at = $now " +
        "WHERE id = $id AND status = 'failed'",
    )
    // A job left running was interrupted mid-attempt; that attempt was counted when it was claimed.
    this.recoverRetryable = raw.prepare(
      "UPDATE jobs SET status = 'pending', next_run_at = $now, updated_at = $now, " +
        `last_error = 'attempt ' || attempts || ' ${INTERRUPTED}' ` +
        "WHERE status = 'running' AND attempts < max_attempts",
    )
    this.recoverExhausted = raw.prepare(
      "UPDATE jobs SET status = 'failed', updated_at = $now, " +
        `last_error = 'attempt ' || attempts || ' of ' || max_attempts || ' ${INTERRUPTED}; no attempts left' ` +
        "WHERE status = 'running' AND attempts >= max_attempts",
    )
    this.pruneDoneJobs = raw.prepare("DELETE FROM jobs WHERE status IN ('done', 'cancelled') AND updated_at < $before")
    this.cancelJob = raw.prepare("UPDATE jobs SET status = 'cancelled', updated_at = $now WHERE id = $id AND status = 'pending'")
    this.cancelByRef = raw.prepare("UPDATE jobs SET status = 'cancelled', updated_at = $now WHERE ref = $ref AND status = 'pending'")
  }

  /** Synchronous, on the shared connection: an open transaction there includes the insert. */
  insert(job: NewJob): number {
    const { kind, maxAttempts, section, ref, runAt, now } = job
    return Number(this.insertJob.run({ kind, payload: JSON.stringify(job.payload ?? null), maxAttempts, section, ref, runAt, now }).lastInsertRowid)
  }

  /** Synchronous, like insert() (SQLite runs each insert in microseconds; there is no round trip to save). */
  insertMany(jobs: readonly NewJob[]): number[] {
    return jobs.map((job) => this.insert(job))
  }

  async cancel(id: number, now: number): Promise<boolean> {
    return this.cancelJob.run({ id, now }).changes > 0
  }

  /** Synchronous, like insert(). */
  cancelRef(ref: string, now: number): number {
    return this.cancelByRef.run({ ref, now }).changes
  }

  async claim(now: number, limit: number, _leaseMs: number): Promise<JobRecord[]> {
    return this.claimDue.all({ now, limit }) as JobRecord[]
  }

  /** One transaction for all of them (one commit). SQLite has one instance: every outcome applies. */
  async record(outcomes: readonly JobOutcome[]): Promise<Set<number>> {
    this.raw.atomic(() => {
      for (const o of outcomes) {
        const { id } = o.job
        if (o.status === 'done') this.succeedJob.run({ id, result: o.result, now: o.at })
        else if (o.status === 'pending') this.rescheduleJob.run({ id, error: o.error, nextRunAt: o.nextRunAt, now: o.at })
        else this.failJob.run({ id, error: o.error, now: o.at })
      }
    })
    return new Set(outcomes.map((o) => o.job.id))
  }

  /** Jobs a stopped or crashed server left running go back to pending (or fail when spent). */
  async recoverInterrupted(now: number): Promise<void> {
    this.recoverExhausted.run({ now })
    this.recoverRetryable.run({ now })
  }

  async pruneDone(before: number): Promise<void> {
    this.pruneDoneJobs.run({ before })
  }

  async get(id: number): Promise<JobRecord | null> {
    return (this.byId.get({ id }) as JobRecord | undefined) ?? null
  }

  async retry(id: number, budget: number, now: number): Promise<boolean> {
    return this.retryFailed.run({ id, budget, now }).changes > 0
  }

  list(filter: JobFilter): Promise<JobRecord[]> {
    return listJobs(this.db, filter)
  }
}
