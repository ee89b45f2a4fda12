// Group commit for postbacks on Postgres, with the contract of PostbackBatcher (batch.ts): the postbacks of
// one event-loop turn share one transaction, each inside its own savepoint with its own event unit, and
// each answer is released after the commit. The rules are the receiver's steps(), driven asynchronously.
// While one batch awaits its statements, the next turn's postbacks form the next batch, on another pooled
// connection.
import type { EventBus, Unit } from '../lib/event-bus'
import type { PgPostbackStore } from './pg-store'
import type { PostbackOutcome, PostbackReceiver } from './receive'
import { runAsync } from './steps'
import { settle, type Pending, type Settled } from './batch'


/**
 * Postbacks per transaction. Each one costs several round trips in turn (its savepoint, lookups, insert),
 * so one batch of 64 kept 63 answers waiting on the first; batches of 8 run side by side on the pool's
 * connections instead (bench: 438 → see docs/performance.md).
 */
export const MAX_PG_BATCH = 8

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

  private async run(batch: Pending[]): Promise<void> {
    const settled: Settled[] = []
    try {
      await this.store.begin(async (tx) => {
        // One savepoint after another (never in parallel): a savepoint holds every statement its connection
        // runs while it is open, so overlapping ones would roll back each other's rows.
        for (const p of batch) {
          let unit: Unit | undefined
          try {
            const outcome = (await tx.savepoint((sp) => {
              unit = this.events.unit(sp)
              return runAsync(this.receiver.steps(p.rawQuery, p.ip, unit, this.store.in(sp)))
            })) as PostbackOutcome
            settled.push({ ok: true, outcome, unit: unit! })
          } catch (error) {
            // Rolled back to its savepoint: this postback alone gets a 500, and its unit is dropped.
            settled.push({ ok: false, error })
          }
        }
      })
    } catch (error) {
      // The commit itself failed: nothing of this batch is stored, so nobody may be told OK.
      for (const p of batch) p.reject(error)
      return
    }
    settle(batch, settled)
  }
}
