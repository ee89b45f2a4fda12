import type { RawDb } from '../db/client'

/**
 * A job handler performs one attempt. Resolve with a short result text on success; throw JobError
 * (retryable or not) or any error (treated as retryable) on failure.
 */
export type JobHandler = (payload: unknown, signal: AbortSignal) => Promise<string | void>

export class JobError extends Error {
  constructor(message: string, readonly retryable: boolean) {
    super(message)
  }
}

export interface JobRow {
  id: number
  kind: string
  payload: unknown
  status: 'pending' | 'running' | 'done' | 'failed'
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
  /** Synchronous insert; call it inside the transaction that creates the reason for the job. */
  enqueue(kind: string, payload: unknown, raw?: RawDb): number
  /** Wakes the loop after the enqueuing transaction committed. */
  kick(): void
  list(filter: { status?: string; kind?: string; limit?: number; cursor?: string | null }): { items: JobRow[]; next_cursor: string | null }
  get(id: number): JobRow | null
  start(): void
  /** Stops claiming new jobs and waits for in-flight attempts (bounded by their timeout). */
  stop(): Promise<void>
}
