import type { Tx } from '../db/engine'

/**
 * A job handler performs one attempt. Resolve with a short result text on success; throw JobError
 * (retryable or not) or any error (treated as retryable) on failure. Any error carrying a boolean
 * `retryable` (e.g. OutboundError from src/lib/outbound.ts) is honoured the same way as JobError.
 */
export type JobHandler = (payload: unknown, signal: AbortSignal) => Promise<string | void>

/**
 * Where a job goes, for the log line of a failed attempt: a host, never a full URL (query strings carry
 * click data and secrets). The loop does not read payloads itself; each kind says what its target is.
 */
export type JobTarget = (payload: unknown) => string | null

export class JobError extends Error {
  constructor(message: string, readonly retryable: boolean) {
    super(message)
  }
}

/** Retryable unless the error says otherwise: an unknown failure deserves another attempt. */
export function isRetryable(err: unknown): boolean {
  const r = (err as { retryable?: unknown } | null)?.retryable
  return typeof r === 'boolean' ? r : true
}

export const JOB_STATUSES = ['pending', 'running', 'done', 'failed'] as const
export type JobStatus = (typeof JOB_STATUSES)[number]

/** A job as the admin API shows it (timestamps ISO 8601, payload parsed). */
export interface JobRow {
  id: number
  kind: string
  payload: unknown
  status: JobStatus
  attempts: number
  max_attempts: number
  last_error: string | null
  result: string | null
  next_run_at: string
  created_at: string
  updated_at: string
}

/** What producers (forwarding, later email) and the server see of the loop. */
export interface JobQueue {
  register(kind: string, handler: JobHandler, target?: JobTarget): void
  /**
   * Call it inside the transaction that creates the reason for the job (an in-transaction subscriber),
   * so the job commits with it or not at all. SQLite: a synchronous insert on the one shared connection
   * (`tx` is null there), returns the id. Postgres: inserts through `tx`, the caller's transaction (on
   * its own connection without one) and returns a Promise of the id, which the caller must await.
   */
  enqueue(kind: string, payload: unknown, tx?: Tx): number | Promise<number>
  /** Wakes the loop; call it after the enqueuing transaction committed (an after-commit subscriber). */
  kick(): void
  start(): void
  /** Stops claiming new jobs and waits for in-flight attempts (bounded by their timeout). */
  stop(): Promise<void>
}
