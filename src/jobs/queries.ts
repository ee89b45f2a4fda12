// SQL of the durable job table, prepared once per queue.
import type { RawDb, RawStatement } from '../db/client'
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

const iso = (ms: number) => new Date(ms).toISOString()

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

export class JobQueries {
  readonly insert: RawStatement
  /** One statement, so claiming is atomic: due pending rows become running with the attempt counted. */
  readonly claim: RawStatement
  readonly succeed: RawStatement
  readonly reschedule: RawStatement
  readonly fail: RawStatement
  readonly byId: RawStatement
  readonly retry: RawStatement
  readonly recoverRetryable: RawStatement
  readonly recoverExhausted: RawStatement
  readonly pruneDone: RawStatement

  constructor(private readonly raw: RawDb) {
    this.insert = raw.prepare(
      'INSERT INTO jobs (kind, payload, status, attempts, max_attempts, next_run_at, created_at, updated_at) ' +
        "VALUES ($kind, $payload, 'pending', 0, $maxAttempts, $now, $now, $now)",
    )
    this.claim = raw.prepare(
      "UPDATE jobs SET status = 'running', attempts = attempts + 1, updated_at = $now WHERE id IN (" +
        "SELECT id FROM jobs WHERE status = 'pending' AND next_run_at <= $now ORDER BY next_run_at, id LIMIT $limit" +
        ') RETURNING *',
    )
    this.succeed = raw.prepare(
      "UPDATE jobs SET status = 'done', result = $result, updated_at = $now WHERE id = $id",
    )
    this.reschedule = raw.prepare(
      "UPDATE jobs SET status = 'pending', last_error = $error, next_run_at = $nextRunAt, updated_at = $now WHERE id = $id",
    )
    this.fail = raw.prepare(
      "UPDATE jobs SET status = 'failed', last_error = $error, updated_at = $now WHERE id = $id",
    )
    this.byId = raw.prepare('SELECT * FROM jobs WHERE id = $id')
    this.retry = raw.prepare(
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
    this.pruneDone = raw.prepare("DELETE FROM jobs WHERE status = 'done' AND updated_at < $before")
  }

  /** Newest first, cursor = the last id seen. */
  list(filter: { status?: string; kind?: string; limit: number; before?: number }): JobRecord[] {
    const where: string[] = []
    const params: Record<string, unknown> = { limit: filter.limit }
    if (filter.status) { where.push('status = $status'); params.status = filter.status }
    if (filter.kind) { where.push('kind = $kind'); params.kind = filter.kind }
    if (filter.before !== undefined) { where.push('id < $before'); params.before = filter.before }
    const sql = `SELECT * FROM jobs ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id DESC LIMIT $limit`
    return this.raw.prepare(sql).all(params) as JobRecord[]
  }
}
