// Group commit for postbacks: every postback that arrives in one event-loop turn is recorded in one
// transaction, each inside its own savepoint, and the answers are released after the commit.
// One transaction per postback wrote the same pages (conversion rows, rollups, indexes) again and again:
// its COMMIT was most of the cost of a postback (profiled).
// Each postback has its own event unit: its in-transaction subscribers run inside its savepoint (and roll
// back with it), the before-commit subscribers run once for the units the batch keeps, just before COMMIT,
// and the after-commit subscribers run once the whole batch committed, before the answers leave.
import type { EventBus, Unit } from '../lib/event-bus'
import type { PostbackOutcome, PostbackReceiver } from './receive'

/** Where the batch's transaction and its savepoints come from (the postback store). */
export interface Transactor {
  transaction<T>(fn: () => T): T
}

export interface Pending {
  rawQuery: string
  ip: string
  resolve: (o: PostbackOutcome) => void
  reject: (e: unknown) => void
}

/**
 * One member of a committed batch (a postback; a webhook body of ConversionRecorder.withinBatched): its
 * outcome and unit, or the error that rolled its savepoint back.
 */
export type Settled<T = PostbackOutcome> = { ok: true; outcome: T; unit: Unit } | { ok: false; error: unknown }

/** What waits for a batch member's outcome. */
export interface Waiter<T> {
  resolve: (o: T) => void
  reject: (e: unknown) => void
}

/**
 * After the batch committed (both engines): after-commit subscribers first (the job loop wakes), then the
 * answers; a member whose savepoint rolled back gets its own error (a postback its own 500).
 */
export function settle<T>(batch: readonly Waiter<T>[], settled: readonly Settled<T>[]): void {
  for (const s of settled) if (s.ok) s.unit.commit()
  batch.forEach((p, i) => {
    const s = settled[i]!
    if (s.ok) p.resolve(s.outcome)
    else p.reject(s.error)
  })
}

/** The units of the postbacks whose savepoints the batch keeps (both engines). */
export function kept(settled: readonly Settled<unknown>[]): Unit[] {
  const units: Unit[] = []
  for (const s of settled) if (s.ok) units.push(s.unit)
  return units
}

export class PostbackBatcher {
  private pending: Pending[] = []

  constructor(private readonly db: Transactor, private readonly events: EventBus, private readonly receiver: PostbackReceiver) {}

  /** Resolves once the postback's effects are committed; rejects (→ 500) when they could not be. */
  submit(rawQuery: string, ip: string): Promise<PostbackOutcome> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(this.flush)
      this.pending.push({ rawQuery, ip, resolve, reject })
    })
  }

  private readonly flush = (): void => {
    const batch = this.pending
    this.pending = []
    const outcomes: Settled[] = []
    try {
      this.db.transaction(() => {
        for (const p of batch) {
          const unit = this.events.unit()
          try {
            // A savepoint per postback: one that fails rolls back alone and gets its own 500 (its unit is dropped).
            outcomes.push({ ok: true, outcome: this.db.transaction(() => this.receiver.receive(p.rawQuery, p.ip, unit)), unit })
          } catch (error) {
            outcomes.push({ ok: false, error })
          }
        }
        // Last, once for the batch (the conversion rollup); throwing rolls the whole batch back.
        this.events.beforeCommit(kept(outcomes), null)
      })
    } catch (error) {
      // The commit itself failed: nothing of this batch is stored, so nobody may be told OK.
      for (const p of batch) p.reject(error)
      return
    }
    settle(batch, outcomes)
  }
}
