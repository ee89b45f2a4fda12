// Group commit for postbacks on Postgres, with the contract of PostbackBatcher (batch.ts): the postbacks that
// gathered while the batches in flight committed share one commit, each with its own event unit, and each
// answer is released after the commit. The rules are the receiver's steps(), driven asynchronously.
// A batch is set-based (pg-batch-queries.ts): one statement looks up every click of the batch (drawing the
// conversions' ids), then every postback runs on against what it read, and its writes are kept:
//   1. ONE STATEMENT (the common batch): the conversions' insert and every before-commit write (forward jobs,
//      e-mail enrolments, the four rollup upserts) gathered by a StatementCollector (db/pg/one-statement.ts)
//      and sent as one autocommitted statement: two round trips per batch and no BEGIN/COMMIT, which on the
//      2-core machine cost Postgres more CPU than the rows (docs/performance.md, session 18).
//   2. A TRANSACTION when a postback needs one: the dedup check and status updates (advisory lock, then a
//      read), an error row; or when the one statement failed with an error of
//      the server (nothing committed). BEGIN, the lookup, the insert with the rollups pipelined, COMMIT.
//   3. One SAVEPOINT per postback when a postback's statement failed in (2), so the failing one alone gets a 500.
// While one batch awaits its statements, the next turn's postbacks form the next batch, on another pooled
// connection; at most PG_BATCHES_IN_FLIGHT commit at once, and postbacks arriving meanwhile gather for the next.
import type { TransactionSQL } from 'bun'
import type { EventBus, Unit } from '../lib/event-bus'
import type { PgPostbackStore } from './pg-store'
import type { PostbackOutcome, PostbackReceiver } from './receive'
import type { Tx } from '../db/engine'
import { StatementCollector } from '../db/pg/one-statement'
import { runAsync, type Steps } from '../lib/steps'
import { PgBatchQueries } from './pg-batch-queries'
import { kept, settle, type Pending, type Settled } from './batch'


/**
 * Postbacks per transaction. A batch's statements do not grow with its size, so larger batches cost less CPU per
 * postback, in Postgres and in svc (measured at 8/16/32, then 16/32/64 with the batches in flight bounded).
 */
export const MAX_PG_BATCH = 64

/**
 * Batches committing at once per instance. Unbounded (a batch per event-loop turn, as many as the pool had
 * connections), a loaded instance sent batches of 3-4 postbacks, and Postgres spent its CPU starting statements:
 * bounded to 2, the postbacks that arrive meanwhile wait for a slot and go in the next batch, up to MAX_PG_BATCH.
 * `npm run bench:ab` on Postgres (docs/performance.md, session 17): /postback 1.9-2.1x, p99 57-76 ms -> 26-37 ms.
 */
export const PG_BATCHES_IN_FLIGHT = 2

const STEP_FAILED = Symbol('a postback statement failed')
/** The one-statement path did not commit anything: the batch runs in a transaction instead. */
const NEEDS_TRANSACTION = Symbol('the batch needs a transaction')

/** An error the server answered with: the statement it ended was rolled back (a lost connection says nothing). */
const fromServer = (e: unknown) => (e as { code?: unknown } | null)?.code === 'ERR_POSTGRES_SERVER_ERROR'

export class PgPostbackBatcher {
  private pending: Pending[] = []
  /** Batches committing now (at most PG_BATCHES_IN_FLIGHT). */
  private running = 0
  private scheduled = false
  /** Batches committed, by the path they took (see the header). */
  readonly paths = { oneStatement: 0, transaction: 0, savepoints: 0 }

  constructor(
    private readonly store: PgPostbackStore,
    private readonly events: EventBus,
    private readonly receiver: Pick<PostbackReceiver, 'steps'>,
  ) {}

  /** Resolves once the postback's effects are committed; rejects (→ 500) when they could not be. */
  submit(rawQuery: string, ip: string): Promise<PostbackOutcome> {
    return new Promise((resolve, reject) => {
      if (!this.scheduled) {
        this.scheduled = true
        setImmediate(this.flush)
      }
      this.pending.push({ rawQuery, ip, resolve, reject })
    })
  }

  /** At the end of a turn, and whenever a batch finishes: what waits goes out while a slot is free. */
  private readonly flush = (): void => {
    this.scheduled = false
    while (this.pending.length > 0 && this.running < PG_BATCHES_IN_FLIGHT) {
      const batch = this.pending.splice(0, MAX_PG_BATCH)
      this.running++
      // run() settles every postback of its batch itself; should it throw, its postbacks get a 500, none hangs.
      void this.run(batch).catch((error) => {
        for (const p of batch) p.reject(error)
      }).finally(() => {
        this.running--
        if (this.pending.length > 0) this.flush()
      })
    }
  }

  /**
   * First as one statement (oneStatement()); when the batch needs a transaction, in one without savepoints,
   * set-based (together()): a postback's statement fails only on a real database error. When one does, its
   * error aborted the whole transaction, which rolls back with nothing committed, and the batch runs again,
   * each postback in its own savepoint so the failing one alone gets a 500. A statement or COMMIT whose
   * answer was lost is never retried: it may have committed, and a second run would record the conversions twice.
   */
  private async run(batch: Pending[]): Promise<void> {
    const one = await this.oneStatement(batch)
    if (one === null) return
    if (one !== NEEDS_TRANSACTION) {
      this.paths.oneStatement++
      return settle(batch, one)
    }
    let settled = await this.attempt(batch, false)
    let path: keyof typeof this.paths = 'transaction'
    if (settled === STEP_FAILED) {
      settled = await this.attempt(batch, true)
      path = 'savepoints'
    }
    if (settled !== STEP_FAILED && settled !== null) {
      this.paths[path]++
      settle(batch, settled)
    }
  }

  /**
   * The batch as ONE autocommitted statement: the lookup (on the pool), the steps with every write gathered
   * (the conversions' rows, then the before-commit subscribers'), one statement. NEEDS_TRANSACTION when a step
   * or a subscriber needed a transaction or failed before anything was sent, or when the statement failed with
   * an error of the server (rolled back): nothing committed, the caller runs the batch again in a transaction.
   * null when the statement's fate is unknown (the connection was lost): every postback rejected (500), as
   * after a failed COMMIT, never run twice.
   */
  private async oneStatement(batch: Pending[]): Promise<Settled[] | typeof NEEDS_TRANSACTION | null> {
    const collector = new StatementCollector()
    const tx = collector as unknown as TransactionSQL
    let settled: Settled[]
    try {
      const q = new PgBatchQueries(this.store.pool as TransactionSQL, collector)
      settled = await this.runSteps(batch, tx, q)
      void q.flush()
      // Gathered writes resolve at once, so this ends when every subscriber has handed over its writes.
      await this.events.beforeCommit(kept(settled), tx as Tx)
    } catch {
      // A write that needs a transaction (NotCollectable), or any failure before anything was sent: the
      // ordinary path runs the batch again and answers for it.
      return NEEDS_TRANSACTION
    }
    if (collector.refused) return NEEDS_TRANSACTION
    try {
      await collector.send(this.store.pool)
    } catch (error) {
      if (fromServer(error)) return NEEDS_TRANSACTION
      for (const p of batch) p.reject(error)
      return null
    }
    return settled
  }

  /**
   * One transaction over the batch: what each postback came to; STEP_FAILED (only without savepoints) when
   * a postback's statement failed and nothing was committed; null when the commit failed (all rejected).
   */
  private async attempt(batch: Pending[], savepoints: boolean): Promise<Settled[] | typeof STEP_FAILED | null> {
    let settled: Settled[] = []
    let stepFailed = false
    try {
      await this.store.begin(async (tx) => {
        let written: Promise<void> | null = null
        if (savepoints) settled = await this.oneByOne(batch, tx)
        else {
          try {
            ;({ settled, written } = await this.together(batch, tx))
          } catch (error) {
            stepFailed = true
            throw error
          }
        }
        // Last: the shared rows (the rollup of a hot campaign) are locked only for the COMMIT that follows.
        // Sent behind the conversions' insert without waiting for it (one round trip for both): the insert
        // runs first on the connection, so when it fails (a postback's failure: rerun) the rollups fail after it.
        let rollups: void | Promise<void>
        try {
          rollups = this.events.beforeCommit(kept(settled), tx)
        } catch (error) {
          rollups = Promise.reject(error)
        }
        if (written) {
          try {
            await written
          } catch (error) {
            if (rollups instanceof Promise) rollups.catch(() => {})
            stepFailed = true
            throw error
          }
        }
        await rollups
      })
    } catch (error) {
      if (stepFailed) return STEP_FAILED
      // The commit itself failed: nothing of this batch is stored, so nobody may be told OK.
      for (const p of batch) p.reject(error)
      return null
    }
    return settled
  }

  /**
   * The fast path (pg-batch-queries.ts): every postback runs to its first store call, the clicks they ask
   * for are read in one statement, then each runs on, one after another, its conversion row kept for the
   * batch's one multi-row insert. Any failure throws (the batch reruns one by one).
   */
  private async together(batch: Pending[], tx: TransactionSQL): Promise<{ settled: Settled[]; written: Promise<void> }> {
    const q = new PgBatchQueries(tx)
    const settled = await this.runSteps(batch, tx, q)
    // Sent now, awaited by the caller after it has sent the rollups too.
    const written = q.flush()
    written.catch(() => {})
    return { settled, written }
  }

  /** Every postback runs to its first store call, the batch's clicks are read in one statement, then each runs on in turn. */
  private async runSteps(batch: Pending[], tx: TransactionSQL, q: PgBatchQueries): Promise<Settled[]> {
    const runs = batch.map((p) => {
      const unit = this.events.unit(tx)
      const steps = this.receiver.steps(p.rawQuery, p.ip, unit, q)
      const first = steps.next()
      // Awaited in turn below; until then a failure must not count as unhandled.
      if (!first.done && first.value instanceof Promise) first.value.catch(() => {})
      return { unit, steps, first }
    })
    await q.prefetch()
    const settled: Settled[] = []
    for (const r of runs) settled.push({ ok: true, outcome: await runAsync(r.steps, r.first), unit: r.unit })
    return settled
  }

  /** The rerun after a failure: each postback in its own savepoint, so the failing one alone gets a 500. */
  private async oneByOne(batch: Pending[], tx: TransactionSQL): Promise<Settled[]> {
    const settled: Settled[] = []
    // One postback after another (never in parallel): a savepoint holds every statement its connection runs while it is open.
    for (const p of batch) {
      let unit: Unit | undefined
      const steps = (q: TransactionSQL) => {
        unit = this.events.unit(q)
        return runAsync(this.receiver.steps(p.rawQuery, p.ip, unit, this.store.in(q)))
      }
      try {
        settled.push({ ok: true, outcome: (await tx.savepoint(steps)) as PostbackOutcome, unit: unit! })
      } catch (error) {
        // Rolled back to its savepoint: this postback alone gets a 500, and its unit is dropped.
        settled.push({ ok: false, error })
      }
    }
    return settled
  }
}
