// Group commit: every click of one event-loop turn goes into one transaction, and each request's 302
// waits for the commit of its batch. A click that has not been committed is never handed out.
//
// Commits run on the HTTP thread. A Worker-thread writer (own connection, batches posted to it, one in
// flight, acknowledged by id) was built and measured 10-20% slower on this workload, pinned to one core
// and unpinned on two: the WAL page writes are CPU work in the kernel either way, and the round trip
// between threads came on top.
import type { Click } from './click'
import { createCommitter, type ClickAmend, type Committer } from './commit'
import { errorFields, log } from '../../lib/log'

import { WriterUnavailable } from './types'
import type { ClickCosts } from './reprice'

/** How soon after a batch the targeting rollups count it (a fold covers every batch of that time). */
const SETTLE_MS = 200

export { WriterUnavailable }

/** The clicks and amends of one commit, and the promise their 302s wait on (both engines' writers). */
export interface Batch {
  clicks: Click[]
  amends: ClickAmend[]
  promise: Promise<void>
  resolve: () => void
  reject: (e: unknown) => void
}

export function newBatch(): Batch {
  const { promise, resolve, reject } = Promise.withResolvers<void>()
  // Waiters await this promise; the no-op handler only keeps a rejection with no waiter quiet.
  promise.catch(() => {})
  return { clicks: [], amends: [], promise, resolve, reject }
}

export class ClickWriter {
  private batch: Batch | null = null
  private connection: Committer | null = null
  private closed = false

  /** `maxPending`: clicks allowed to wait for one commit; beyond that requests get 503, memory stays bounded. */
  constructor(
    private readonly dbPath: string,
    /** Told about every committed click before its response is released (the click index's tail, click.committed). */
    private readonly onCommitted: (clicks: readonly Click[], rows: readonly number[]) => void,
    private readonly maxPending = 20_000,
  ) {}

  /** Resolves once the click is committed; rejects (→ 503) when its batch could not be. */
  insert(click: Click): Promise<void> {
    const b = this.open()
    b.clicks.push(click)
    return b.promise
  }

  /** Commits `clicks` now, outside any batch (imports and seeds); throws when they could not be. */
  commitNow(clicks: readonly Click[]): number[] {
    if (this.closed) throw new WriterUnavailable('click writer is stopped')
    const rows = this.committer().commit(clicks, [])
    if (clicks.length > 0) this.onCommitted(clicks, rows)
    return rows
  }

  /** Cost updates (reprice.ts) on the writer's connection: each replace its own transaction, between batches. */
  costs(): ClickCosts {
    if (this.closed) throw new WriterUnavailable('click writer is stopped')
    return this.committer().costs
  }

  /** Changes a stored click (offer/landing, views, bot flag), committed with the current batch. */
  amend(a: ClickAmend): Promise<void> {
    const b = this.open()
    b.amends.push(a)
    return b.promise
  }

  /**
   * Counts the committed clicks into the targeting rollups now (reports call it before they read). A failed
   * fold is logged and retried by the next one: the clicks stay committed and the mark says what is left.
   */
  settle(): void {
    if (this.settleTimer) clearTimeout(this.settleTimer)
    this.settleTimer = null
    try {
      // Opened here when no batch has come yet since the start: clicks a crash left uncounted are counted then.
      const committer = this.connection ?? (this.closed ? null : this.committer())
      committer?.settle()
    } catch (err) {
      log.error('tracking: counting clicks into the targeting rollups failed (retried)', { error: errorFields(err).error })
    }
  }

  /** Commits everything still pending (graceful shutdown), then closes the writer's connection. */
  async stop(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.flush()
    this.settle()
    this.connection?.close()
    this.connection = null
  }

  /** Opened on first use, so that a failed open is retried by the next batch instead of sticking. */
  private committer(): Committer {
    return (this.connection ??= createCommitter(this.dbPath))
  }

  private open(): Batch {
    if (this.closed) throw new WriterUnavailable('click writer is stopped')
    let b = this.batch
    if (!b) {
      b = this.batch = newBatch()
      // End of this event-loop turn, not a timer: every request parsed in this turn joins the batch
      // and nobody waits for a clock tick.
      setImmediate(this.flush)
    }
    if (b.clicks.length + b.amends.length >= this.maxPending) throw new WriterUnavailable('too many clicks waiting for commit')
    return b
  }

  private settleTimer: ReturnType<typeof setTimeout> | null = null

  private readonly flush = (): void => {
    const b = this.batch
    if (!b) return
    this.batch = null
    try {
      const rows = this.committer().commit(b.clicks, b.amends)
      if (b.clicks.length > 0) this.onCommitted(b.clicks, rows)
      // The targeting rollups catch up a moment later, many batches in one fold (targeting-fold.ts).
      if (b.clicks.length > 0 && !this.settleTimer && !this.closed) {
        this.settleTimer = setTimeout(() => this.settle(), SETTLE_MS)
        this.settleTimer.unref?.()
      }
    } catch (err) {
      log.error('tracking: a batch of clicks was not committed', { clicks: b.clicks.length, error: errorFields(err).error })
      b.reject(err)
      return
    }
    b.resolve()
  }
}
