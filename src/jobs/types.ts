import type { RawDb } from '../db/client'

/**
 * A job handler performs one attempt. Resolve with a short result text on success; throw JobError
 * (retryable or not) or any error (treated as retryable) on failure. Any error carrying a boolean
 * `retryable` (e.g. OutboundError from src/lib/outbound.ts) is honoured the same way as JobError.
 */
export type JobHandler = (payload: unknown, signal: AbortSignal) => Promise<string | void>

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

export interface JobQueue {
  register(kind: string, handler: JobHandler): void
  /**
   * Synchronous insert; call it inside the transaction that creates the reason for the job.
   * `raw` is accepted for callers that hold it, but the queue always writes through the one shared
   * connection, so an open transaction on that connection includes the insert either way.
   */
  enqueue(kind: string, payload: unknown, raw?: RawDb): number
  /** Wakes the loop after the enqueuing transaction committed. */
  kick(): void
  /** Newest first; `before` is the cursor (an id), `limit` already validated. */
  list(filter: { status?: string; kind?: string; limit: number; before?: number }): { items: JobRow[]; next_cursor: string | null }
  get(id: number): JobRow | null
  /** Failed job → pending, due now, with a fresh attempt budget. Null when the id is unknown. */
  retry(id: number): JobRow | null
  start(): void
  /** Stops claiming new jobs and waits for in-flight attempts (bounded by their timeout). */
  stop(): Promise<void>
}
