// Unique clicks: a visitor's (IP + user agent) first click in a campaign starts a window
// (setting unique_window_hours, default 24 h); their other clicks in it are not unique.
// Decided on the hot path, because the flag is stored on the click row, from an in-memory map that is
// rebuilt from the last window of unique clicks at start, so a restart does not recount visitors.
import type { UniqueClick } from './store/click-store'

const HOUR_MS = 3_600_000

/** The unique-visitor windows as the tracker uses them; a shared-database mode can keep them elsewhere. */
export interface UniqueWindows {
  /** True when this click opens a new window for the visitor (and records that it did). */
  isUnique(campaignId: number, ip: string, userAgent: string | null, now: number): boolean
  setWindowHours(hours: number): void
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

  /** `recentUniques`: the unique clicks since a time, oldest first (the click store's). */
  constructor(recentUniques: (since: number) => readonly UniqueClick[], windowHours: number, now = Date.now()) {
    this.windowMs = windowHours * HOUR_MS
    for (const c of recentUniques(now - this.windowMs)) this.windowStart.set(visitorKey(c.campaignId, c.ip ?? '', c.userAgent), c.createdAt)
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
