import type { Section } from '../lib/permissions'
import type { Tx } from '../db/engine'

/**
 * A job handler performs one attempt. Resolve with a short result text on success; throw JobError
 * (retryable or not) or any error (treated as retryable) on failure. Any error carrying a boolean
 * `retryable` (e.g. OutboundError from src/lib/outbound.ts) is honoured the same way as JobError.
 * `job.id` is the same for every attempt, and after a restart: a handler whose effect must happen once even
 * if an attempt ran to its end but its outcome was never recorded (a crash) keys that effect by it.
 */
export type JobHandler = (payload: unknown, signal: AbortSignal, job: { id: number }) => Promise<string | void>

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

export const JOB_STATUSES = ['pending', 'running', 'done', 'failed', 'cancelled'] as const
export type JobStatus = (typeof JOB_STATUSES)[number]

/** A job as the admin API shows it (timestamps ISO 8601, payload parsed). */
export interface JobRow {
  id: number
  kind: string
  payload: unknown
  status: JobStatus
  attempts: number
  max_attempts: number
  section: string
  ref: string | null
  last_error: string | null
  result: string | null
  next_run_at: string
  created_at: string
  updated_at: string
}

/**
 * How one kind of job is run, declared once at register(): what its jobs are about (log lines), who may see
 * them, and its retry policy. Left out: the SVC_JOBS_* defaults and the `conversions` section.
 */
export interface JobKindPolicy {
  target?: JobTarget
  /** Permission section of its jobs: the admin job list shows a person only the sections they may read. */
  section?: Section
  /** Attempts in all (the first one included). */
  maxAttempts?: number
  /** Delay before retry n: min(backoffBaseMs · 2^(n−1), backoffMaxMs), plus up to 10 % jitter. */
  backoffBaseMs?: number
  backoffMaxMs?: number
}

export interface EnqueueOptions {
  /**
   * The transaction that creates the reason for the job, so the job commits with it or not at all
   * (Postgres; on SQLite the shared connection's open transaction includes the insert, leave it out).
   */
  tx?: Tx
  /** Not before this time (epoch ms): a delayed job, e.g. the third message of an automation. */
  runAt?: number
  /** What the job is about, so that cancelRef() can cancel its pending jobs together (e.g. "subscriber:42"). */
  ref?: string
}

/** What producers (forwarding, email) and the server see of the loop. */
export interface JobQueue {
  register(kind: string, handler: JobHandler, policy?: JobKindPolicy): void
  /**
   * Call it inside the transaction that creates the reason for the job (an in-transaction subscriber),
   * so the job commits with it or not at all. SQLite: a synchronous insert on the one shared connection,
   * returns the id. Postgres: inserts through `opts.tx` (on its own connection without one) and returns a
   * Promise of the id, which the caller must await. The kind must be registered (its policy is stored).
   */
  enqueue(kind: string, payload: unknown, opts?: EnqueueOptions): number | Promise<number>
  /**
   * Several jobs of one kind in one go (a before-commit subscriber's batch): the same rules as enqueue(), the
   * ids in order; on Postgres one statement through `opts.tx` instead of a round trip per job.
   */
  enqueueMany(kind: string, payloads: readonly unknown[], opts?: EnqueueOptions): number[] | Promise<number[]>
  /**
   * Cancels every pending job with this ref (a running attempt finishes; its handler re-checks what it
   * needs). Same engine rules as enqueue(): synchronous on SQLite, a Promise on Postgres. Returns how many.
   */
  cancelRef(ref: string, opts?: { tx?: Tx }): number | Promise<number>
  /** The registered policy of a kind, defaults filled in; null for a kind this binary does not know. */
  policyOf(kind: string): Required<Omit<JobKindPolicy, 'target'>> | null
  /** Wakes the loop; call it after the enqueuing transaction committed (an after-commit subscriber). */
  kick(): void
  start(): void
  /** Stops claiming new jobs and waits for in-flight attempts (bounded by their timeout). */
  stop(): Promise<void>
}
