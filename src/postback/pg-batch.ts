// Group commit for postbacks on Postgres, with the contract of PostbackBatcher (batch.ts): the postbacks of
// one event-loop turn share one transaction, each with its own event unit, and each answer is released
// after the commit; a postback whose statement fails gets its own 500 (savepoints, see run()). The rules are the receiver's steps(), driven asynchronously.
// While one batch awaits its statements, the next turn's postbacks form the next batch, on another pooled
// connection.
import type { TransactionSQL } from 'bun'
import type { EventBus, Unit } from '../lib/event-bus'
import type { PgPostbackStore } from './pg-store'
import type { PostbackOutcome, PostbackReceiver } from './receive'
import { runAsync } from '../lib/steps'
import { kept, settle, type Pending, type Settled } from './batch'


/**
 * Postbacks per transaction. Each one costs several round trips in turn (its savepoint, lookups, insert),
 * so one batch of 64 kept 63 answers waiting on the first; batches of 8 run side by side on the pool's
 * connections instead (bench: 438 → see docs/performance.md).
 */
export const MAX_PG_BATCH = 8

const STEP_FAILED = Symbol('a postback statement failed')

export class PgPostbackBatcher {
  private pending: Pending[] = []

  constructor(
    private readonly store: PgPostbackStore,
    private readonly events: EventBus,
    private readonly receiver: Pick<PostbackReceiver, 'steps'>,
  ) {}

  /** Resolves once the postback's effects are committed; rejects (→ 500) when they could not be. */
  submit(rawQuery: string, ip: string): Promise<PostbackOutcome> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(this.flush)
      this.pending.push({ rawQuery, ip, resolve, reject })
    })
  }

  private readonly flush = (): void => {
    const all = this.pending
    this.pending = []
    for (let i = 0; i < all.length; i += MAX_PG_BATCH) void this.run(all.slice(i, i + MAX_PG_BATCH))
  }

  /**
   * First without savepoints: they cost two of a postback's four round trips, and a postback's statement
   * fails only on a real database error. When one does, its error aborted the whole transaction, which
   * rolls back with nothing committed, and the batch runs again, each postback in its own savepoint so the
   * failing one alone gets a 500. A failed COMMIT (or before-commit phase) is never retried: a commit whose
   * answer was lost may have happened, and a second run would record the conversions twice.
   */
  private async run(batch: Pending[]): Promise<void> {
    let settled = await this.attempt(batch, false)
    if (settled === STEP_FAILED) settled = await this.attempt(batch, true)
    if (settled !== STEP_FAILED && settled !== null) settle(batch, settled)
  }

  /**
   * One transaction over the batch: what each postback came to; STEP_FAILED (only without savepoints) when
   * a postback's statement failed and nothing was committed; null when the commit failed (all rejected).
   */
  private async attempt(batch: Pending[], savepoints: boolean): Promise<Settled[] | typeof STEP_FAILED | null> {
    const settled: Settled[] = []
    let stepFailed = false
    try {
      await this.store.begin(async (tx) => {
        // One postback after another (never in parallel): a transaction runs one statement at a time, and a
        // savepoint holds every statement its connection runs while it is open.
        for (const p of batch) {
          let unit: Unit | undefined
          const steps = (q: TransactionSQL) => {
            unit = this.events.unit(q)
            return runAsync(this.receiver.steps(p.rawQuery, p.ip, unit, this.store.in(q)))
          }
          if (!savepoints) {
            try {
              settled.push({ ok: true, outcome: await steps(tx), unit: unit! })
            } catch (error) {
              stepFailed = true
              throw error
            }
            continue
          }
          try {
            settled.push({ ok: true, outcome: (await tx.savepoint(steps)) as PostbackOutcome, unit: unit! })
          } catch (error) {
            // Rolled back to its savepoint: this postback alone gets a 500, and its unit is dropped.
            settled.push({ ok: false, error })
          }
        }
        // Last: the shared rows (the rollup of a hot campaign) are locked only for the COMMIT that follows.
        await this.events.beforeCommit(kept(settled), tx)
      })
    } catch (error) {
      if (stepFailed) return STEP_FAILED
      // The commit itself failed: nothing of this batch is stored, so nobody may be told OK.
      for (const p of batch) p.reject(error)
      return null
    }
    return settled
  }
}
