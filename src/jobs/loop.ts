// The durable job loop: outbound work (postbacks to sources, later emails) survives restarts and is retried.
// Admin reads and retries are the jobs feature's verbs (src/jobs/verbs.ts), over the same table.
// The loop works over the JobStore interface: on Postgres several instances run a loop on one table,
// each claiming jobs under a lease (see pg-store.ts).
import { abortable, deadline } from '../lib/abortable'
import type { AnyDatabase, Tx } from '../db/engine'
import type { Config } from '../config'
import { createJobStore, type JobOutcome, type JobRecord, type JobStore, type NewJob } from './store'
import { errorFields, log } from '../lib/log'
import { withoutNul } from '../lib/nul'
import { isRetryable, type EnqueueOptions, type JobHandler, type JobKindPolicy, type JobQueue, type JobTarget } from './types'

type Policy = Required<Omit<JobKindPolicy, 'target'>>

type Outcome = { ok: true; result: string | null } | { ok: false; error: string; retryable: boolean }

const MAX_TEXT = 1000
/** Done and cancelled jobs are history; keep a month of it. Failed and pending jobs are never pruned. */
const DONE_RETENTION_MS = 30 * 24 * 3600 * 1000
const PRUNE_EVERY_MS = 3600 * 1000
/** Lease beyond the attempt timeout: covers recording the outcome on a slow database. */
const LEASE_MARGIN_MS = 30_000

/**
 * leaseMs (Postgres): how long a claimed job is this instance's before another may claim it again (an
 * instance that died mid-attempt). Default timeoutMs + 30 s; it must exceed timeoutMs. SQLite ignores it.
 */
export type JobLoopOptions = Readonly<Omit<Config['jobs'], 'leaseMs'> & { leaseMs?: number }>

/** The loop over the database's engine: the integrator's entry point (server context). */
export function createJobLoop(db: AnyDatabase, opts: JobLoopOptions): JobLoop {
  return new JobLoop(createJobStore(db), opts)
}

export class JobLoop implements JobQueue {
  private readonly leaseMs: number
  private readonly handlers = new Map<string, JobHandler>()
  private readonly targets = new Map<string, JobTarget>()
  private readonly policies = new Map<string, Policy>()
  private readonly inflight = new Set<Promise<void>>()
  private timer: ReturnType<typeof setTimeout> | null = null
  private running = false
  private lastPrune = 0
  /** The claim in progress: ticks never overlap (a claim is async), a tick asked for meanwhile runs after it. */
  private ticking: Promise<void> | null = null
  private tickAgain = false

  /** Outcomes are written one write at a time, those that end meanwhile together in the next. */
  private readonly outcomes: OutcomeWriter

  constructor(private readonly q: JobStore, private readonly opts: JobLoopOptions) {
    this.leaseMs = opts.leaseMs ?? opts.timeoutMs + LEASE_MARGIN_MS
    this.outcomes = new OutcomeWriter(q)
  }

  register(kind: string, handler: JobHandler, policy: JobKindPolicy = {}): void {
    if (this.handlers.has(kind)) throw new Error(`job kind "${kind}" is already registered`)
    const { target, ...rest } = policy
    const filled: Policy = {
      section: rest.section ?? 'conversions',
      maxAttempts: rest.maxAttempts ?? this.opts.maxAttempts,
      backoffBaseMs: rest.backoffBaseMs ?? this.opts.backoffBaseMs,
      backoffMaxMs: rest.backoffMaxMs ?? this.opts.backoffMaxMs,
    }
    if (!(Number.isInteger(filled.maxAttempts) && filled.maxAttempts >= 1)) throw new Error(`job kind "${kind}": maxAttempts must be 1 or more`)
    this.handlers.set(kind, handler)
    this.policies.set(kind, filled)
    if (target) this.targets.set(kind, target)
  }

  policyOf(kind: string): Policy | null {
    return this.policies.get(kind) ?? null
  }

  enqueue(kind: string, payload: unknown, opts: EnqueueOptions = {}): number | Promise<number> {
    return this.q.insert(this.newJob(kind, payload, opts), opts.tx)
  }

  enqueueMany(kind: string, payloads: readonly unknown[], opts: EnqueueOptions = {}): number[] | Promise<number[]> {
    return this.q.insertMany(payloads.map((payload) => this.newJob(kind, payload, opts)), opts.tx)
  }

  private newJob(kind: string, payload: unknown, opts: EnqueueOptions): NewJob {
    const policy = this.policies.get(kind)
    // A programming error (every instance runs the same binary, so every kind is registered everywhere).
    if (!policy) throw new Error(`job kind "${kind}" is not registered`)
    const now = Date.now()
    return { kind, payload, maxAttempts: policy.maxAttempts, section: policy.section, ref: opts.ref ?? null, runAt: Math.max(opts.runAt ?? now, 0), now }
  }

  cancelRef(ref: string, opts: { tx?: Tx } = {}): number | Promise<number> {
    return this.q.cancelRef(ref, Date.now(), opts.tx)
  }

  kick(): void {
    if (this.running) this.schedule(0)
  }

  start(): void {
    if (this.running) return
    this.running = true
    // The first tick waits for the recovery: it must not claim what recovery is about to reset.
    this.ticking = this.q.recoverInterrupted(Date.now())
      .catch((err) => log.error('jobs: recovering interrupted jobs failed', errorFields(err)))
      .finally(() => {
        this.ticking = null
        this.tickAgain = false
        if (this.running) this.schedule(0)
      })
  }

  async stop(): Promise<void> {
    this.running = false
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    if (!this.ticking && this.inflight.size === 0) return
    // Attempts are bounded by timeoutMs (see attempt()); the extra second covers recording the outcome.
    const grace = new Promise<void>((resolve) => {
      const t = setTimeout(resolve, this.opts.timeoutMs + 1000)
      t.unref?.()
    })
    await Promise.race([this.settle(), grace])
  }

  /** A claim in progress launches what it claimed (those jobs are ours now); then the attempts end. */
  private async settle(): Promise<void> {
    if (this.ticking) await this.ticking
    await Promise.allSettled([...this.inflight])
  }

  private schedule(ms: number) {
    if (this.timer) clearTimeout(this.timer)
    this.timer = setTimeout(() => this.tick(), ms)
  }

  private tick() {
    this.timer = null
    if (!this.running) return
    if (this.ticking) {
      this.tickAgain = true
      return
    }
    this.ticking = this.claimAndLaunch().finally(() => {
      this.ticking = null
      const again = this.tickAgain
      this.tickAgain = false
      if (this.running && !this.timer) this.schedule(again ? 0 : this.opts.pollMs)
    })
  }

  private async claimAndLaunch(): Promise<void> {
    try {
      const free = this.opts.concurrency - this.inflight.size
      if (free > 0) {
        const claimed = await this.q.claim(Date.now(), free, this.leaseMs)
        for (const job of claimed) this.launch(job)
      }
      await this.maybePrune()
    } catch (err) {
      log.error('jobs: claiming due jobs failed', errorFields(err))
    }
  }

  private launch(job: JobRecord) {
    const p: Promise<void> = this.attempt(job).finally(() => {
      this.inflight.delete(p)
      if (this.running) this.schedule(0)
    })
    this.inflight.add(p)
  }

  private async attempt(job: JobRecord): Promise<void> {
    const outcome = await this.run(job)
    const at = Date.now()
    const of = `attempt ${job.attempts} of ${job.max_attempts}`
    try {
      if (outcome.ok) {
        if (!(await this.outcomes.write({ job, at, status: 'done', result: outcome.result }))) this.logLate(job, 'succeeded')
      } else if (!outcome.retryable) {
        if (await this.outcomes.write({ job, at, status: 'failed', error: `${outcome.error} (${of}; not retryable)` })) this.logFailure(job, outcome.error, 'failed, not retryable')
        else this.logLate(job, 'failed')
      } else if (job.attempts < job.max_attempts) {
        const delay = this.backoff(job.kind, job.attempts)
        if (await this.outcomes.write({ job, at, status: 'pending', error: `${outcome.error} (${of}; will retry)`, nextRunAt: at + delay })) {
          this.logFailure(job, outcome.error, 'will retry', Math.ceil(delay / 1000))
        } else this.logLate(job, 'failed')
      } else {
        if (await this.outcomes.write({ job, at, status: 'failed', error: `${outcome.error} (${of}; no attempts left)` })) this.logFailure(job, outcome.error, 'failed, no attempts left')
        else this.logLate(job, 'failed')
      }
    } catch (err) {
      // Only when the database went away under us (stop timed out); the row stays running and is recovered
      // at start (SQLite) or claimed again when its lease expires (Postgres).
      log.error('jobs: could not record the outcome of a job', { job: job.id, kind: job.kind, ...errorFields(err) })
    }
  }

  /** Postgres: the lease expired before the outcome was recorded and another claim took the job over. */
  private logLate(job: JobRecord, outcome: string) {
    log.warn('jobs: outcome of an attempt ignored, its lease expired and the job was claimed again', {
      job: job.id, kind: job.kind, attempt: `${job.attempts}/${job.max_attempts}`, outcome,
    })
  }

  /** One line per failed attempt: a retry is a warning, a job that will not run again is an error. */
  private logFailure(job: JobRecord, error: string, outcome: string, retryInSeconds?: number) {
    const fields = {
      job: job.id,
      kind: job.kind,
      target: this.targetOf(job),
      attempt: `${job.attempts}/${job.max_attempts}`,
      outcome,
      retry_in_s: retryInSeconds,
      error: withoutQueries(error),
    }
    if (retryInSeconds === undefined) log.error('job failed', fields)
    else log.warn('job attempt failed', fields)
  }

  private targetOf(job: JobRecord): string {
    const target = this.targets.get(job.kind)
    if (!target) return 'unknown'
    try {
      return target(JSON.parse(job.payload)) ?? 'unknown'
    } catch {
      return 'unknown'
    }
  }

  private async run(job: JobRecord): Promise<Outcome> {
    const handler = this.handlers.get(job.kind)
    if (!handler) return { ok: false, error: `unknown job kind "${job.kind}" (no handler registered)`, retryable: false }
    let payload: unknown
    try {
      payload = JSON.parse(job.payload)
    } catch {
      return { ok: false, error: 'payload is not valid JSON', retryable: false }
    }
    const { signal, clear } = deadline(this.opts.timeoutMs)
    try {
      const result = await abortable(handler(payload, signal, { id: job.id }), signal)
      return { ok: true, result: typeof result === 'string' ? withoutNul(result.slice(0, MAX_TEXT)) : null }
    } catch (err) {
      const timedOut = signal.aborted || (err as Error | null)?.name === 'TimeoutError'
      const message = timedOut ? `timed out after ${this.opts.timeoutMs} ms` : errorText(err)
      // A text with U+0000 would fail the whole outcome write on Postgres (the batch's other outcomes too).
      return { ok: false, error: withoutNul(message.slice(0, MAX_TEXT)), retryable: timedOut || isRetryable(err) }
    } finally {
      clear()
    }
  }

  /**
   * The kind's min(base · 2^(attempts−1), max) plus up to 10 % jitter, so a burst of failures does not retry
   * in lockstep. (A kind no longer registered reaches here only with no handler, which fails for good.)
   */
  private backoff(kind: string, attempts: number): number {
    const { backoffBaseMs, backoffMaxMs } = this.policies.get(kind) ?? this.opts
    const exp = Math.min(backoffBaseMs * 2 ** Math.min(attempts - 1, 40), backoffMaxMs)
    return Math.round(exp * (1 + Math.random() * 0.1))
  }

  private async maybePrune() {
    const now = Date.now()
    if (now - this.lastPrune < PRUNE_EVERY_MS) return
    this.lastPrune = now
    await this.q.pruneDone(now - DONE_RETENTION_MS)
  }
}

/**
 * Group commit for outcomes: the first write starts once the event loop's current turn is over (so the
 * outcomes of every attempt that ended in that turn go together); those that end while a write is in
 * flight wait for it and go together in the next one. On Postgres each write is a commit that waits for
 * its WAL flush, and one per forwarded conversion held the job loop to one flush per postback; on SQLite
 * each is a transaction of its own (session 23, docs/performance.md). Each write() settles when its outcome
 * is in the database, so stop() still waits for every outcome of the attempts it waits for.
 */
class OutcomeWriter {
  private queued: Array<{ outcome: JobOutcome; settle: (applied: boolean) => void; fail: (err: unknown) => void }> = []
  /** A write is scheduled or in flight: what is queued now goes in the next one. */
  private busy = false

  constructor(private readonly q: JobStore) {}

  /** Whether the outcome applied (see JobStore.record). */
  write(outcome: JobOutcome): Promise<boolean> {
    return new Promise((settle, fail) => {
      this.queued.push({ outcome, settle, fail })
      if (this.busy) return
      this.busy = true
      setImmediate(() => void this.drain())
    })
  }

  private async drain(): Promise<void> {
    try {
      while (this.queued.length > 0) {
        const batch = this.queued
        this.queued = []
        try {
          const applied = await this.q.record(batch.map((b) => b.outcome))
          for (const b of batch) b.settle(applied.has(b.outcome.job.id))
        } catch (err) {
          for (const b of batch) b.fail(err)
        }
      }
    } finally {
      this.busy = false
    }
  }
}

/** A failure text may quote a URL (a bad one, a redirect's Location): keep its host and path, drop its query. */
function withoutQueries(text: string): string {
  return text.replace(/\?[^\s"']*/g, '?…')
}

function errorText(err: unknown): string {
  if (err instanceof Error) return err.message || err.name
  return String(err)
}

