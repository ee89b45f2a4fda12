// SQL of the durable job table, prepared once per store. The loop's own statements (enqueue, claim,
// outcomes) stay synchronous: enqueue runs inside the transaction that creates the reason for the job.
// The admin reads are async so a network database can stand behind them later.
import type { RawDb, RawStatement } from '../db/client'
import { where } from '../db/where'
import { iso } from '../lib/time'
import type { JobRow, JobStatus } from './types'

export interface JobRecord {
  id: number
  kind: string
  payload: string
  status: JobStatus
  attempts: number
  max_attempts: number
  last_error: string | null
  result: string | null
  next_run_at: number
  created_at: number
  updated_at: number
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
  /** Cursor: ids below this one. */
  before?: number
  limit: number
}

export class JobStore {
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

  constructor(private readonly raw: RawDb) {
    this.insertJob = raw.prepare(
      'INSERT INTO jobs (kind, payload, status, attempts, max_attempts, next_run_at, created_at, updated_at) ' +
        "VALUES ($kind, $payload, 'pending', 0, $maxAttempts, $now, $now, $now)",
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
        "last_error = 'attempt ' || attempts || ' was interrupted (server stopped or crashed during it)' " +
        "WHERE status = 'running' AND attempts < max_attempts",
    )
    this.recoverExhausted = raw.prepare(
      "UPDATE jobs SET status = 'failed', updated_at = $now, " +
        "last_error = 'attempt ' || attempts || ' of ' || max_attempts || ' was interrupted (server stopped or crashed during it); no attempts left' " +
        "WHERE status = 'running' AND attempts >= max_attempts",
    )
    this.pruneDoneJobs = raw.prepare("DELETE FROM jobs WHERE status = 'done' AND updated_at < $before")
  }

  /** Synchronous, on the shared connection: an open transaction there includes the insert. */
  insert(kind: string, payload: unknown, maxAttempts: number, now: number): number {
    return Number(this.insertJob.run({ kind, payload: JSON.stringify(payload ?? null), maxAttempts, now }).lastInsertRowid)
  }

  claim(now: number, limit: number): JobRecord[] {
    return this.claimDue.all({ now, limit }) as JobRecord[]
  }

  succeed(id: number, result: string | null, now: number): void {
    this.succeedJob.run({ id, result, now })
  }

  reschedule(id: number, error: string, nextRunAt: number, now: number): void {
    this.rescheduleJob.run({ id, error, nextRunAt, now })
  }

  fail(id: number, error: string, now: number): void {
    this.failJob.run({ id, error, now })
  }

  /** At start: jobs a stopped or crashed server left running go back to pending (or fail when spent). */
  recoverInterrupted(now: number): void {
    this.recoverExhausted.run({ now })
    this.recoverRetryable.run({ now })
  }

  pruneDone(before: number): void {
    this.pruneDoneJobs.run({ before })
  }

  async get(id: number): Promise<JobRecord | null> {
    return (this.byId.get({ id }) as JobRecord | undefined) ?? null
  }

  /** Failed → pending, due now, with `budget` more attempts; false when the job is not failed (or unknown). */
  async retry(id: number, budget: number, now: number): Promise<boolean> {
    return this.retryFailed.run({ id, budget, now }).changes > 0
  }

  /** Newest first, cursor = the last id seen. */
  async list(filter: JobFilter): Promise<JobRecord[]> {
    const w = where([
      ['status = $status', 'status', filter.status],
      ['kind = $kind', 'kind', filter.kind],
      ['id < $before', 'before', filter.before],
    ])
    return this.raw.prepare(`SELECT * FROM jobs ${w.sql} ORDER BY id DESC LIMIT $limit`).all({ ...w.params, limit: filter.limit }) as JobRecord[]
  }
}
