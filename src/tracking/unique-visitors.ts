// Unique clicks: a visitor's (IP + user agent) first click in a campaign starts a window
// (setting unique_window_hours, default 24 h); their other clicks in it are not unique.
// Decided on the hot path, because the flag is stored on the click row, from an in-memory map that is
// rebuilt from the last window of unique clicks at start, so a restart does not recount visitors.
import type { MaybePromise, UniqueClick } from './store/types'
import { errorFields, log } from '../lib/log'

const HOUR_MS = 3_600_000

/** The unique-visitor windows as the tracker uses them; a shared-database mode can keep them elsewhere. */
export interface UniqueWindows {
  /** True when this click opens a new window for the visitor (and records that it did). */
  isUnique(campaignId: number, ip: string, userAgent: string | null, now: number): boolean
  setWindowHours(hours: number): void
  /** A Promise while the windows are still being rebuilt from an async store (Postgres); null once ready. */
  whenReady(): Promise<void> | null
}

/** 53-bit hash of campaign + visitor: enough to make collisions negligible at millions of visitors a day. */
function visitorKey(campaignId: number, ip: string, userAgent: string | null): number {
  return Number(BigInt.asUintN(53, BigInt(Bun.hash(`${campaignId}\n${ip}\n${userAgent ?? ''}`))))
}

/** The windows of one process, in memory. */
export class UniqueVisitors implements UniqueWindows {
  /** visitor key → time of the click that opened the visitor's current window. */
  private readonly windowStart = new Map<number, number>()
  private windowMs: number
  private lastSweep = 0
  private loading: Promise<void> | null = null

  /**
   * `recentUniques`: the unique clicks since a time, oldest first (the click store's). Synchronous on
   * SQLite; on Postgres the windows fill in when the rows arrive, and whenReady() lets the tracker wait.
   * The windows are per instance: with several instances, a visitor alternating between them can be
   * counted unique once per instance.
   */
  constructor(recentUniques: (since: number) => MaybePromise<readonly UniqueClick[]>, windowHours: number, now = Date.now()) {
    this.windowMs = windowHours * HOUR_MS
    const rows = recentUniques(now - this.windowMs)
    if (!(rows instanceof Promise)) {
      this.fill(rows)
      return
    }
    this.loading = rows.then(
      (r) => this.fill(r),
      // Better to count a few returning visitors as unique again than to refuse clicks.
      (err) => log.error('tracking: unique-visitor windows not rebuilt', errorFields(err)),
    ).finally(() => {
      this.loading = null
    })
  }

  whenReady(): Promise<void> | null {
    return this.loading
  }

  /** Windows opened by stored clicks; a window this process opened meanwhile (later) is kept. */
  private fill(rows: readonly UniqueClick[]): void {
    for (const c of rows) {
      const key = visitorKey(c.campaignId, c.ip ?? '', c.userAgent)
      const open = this.windowStart.get(key)
      if (open === undefined || open < c.createdAt) this.windowStart.set(key, c.createdAt)
    }
  }

  setWindowHours(hours: number): void {
    this.windowMs = hours * HOUR_MS
  }

  isUnique(campaignId: number, ip: string, userAgent: string | null, now: number): boolean {
    this.sweep(now)
    const key = visitorKey(campaignId, ip, userAgent)
    const start = this.windowStart.get(key)
    if (start !== undefined && now - start < this.windowMs) return false
    this.windowStart.set(key, now)
    return true
  }

  /** Forgets windows that have ended, so memory follows the visitors of one window. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return
    this.lastSweep = now
    for (const [k, start] of this.windowStart) if (now - start >= this.windowMs) this.windowStart.delete(k)
  }
}
