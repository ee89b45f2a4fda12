export interface RateDecision {
  allowed: boolean
  /** Seconds until a request would be allowed again (0 when allowed). */
  retryAfter: number
}

/**
 * A rate limit as its callers see it: one hit per request, answered at once. Spec §8 keeps limits per
 * instance, so several instances behind a balancer each allow the full rate; a shared mode could put
 * a database- or cache-backed counter behind this same interface without touching the callers.
 */
export interface RateLimit {
  hit(key: string, now?: number): RateDecision
}

interface Slot { windowStart: number; current: number; previous: number }

/**
 * The one in-memory rate limiter (counters live in process memory, per instance).
 * Sliding window approximated from the current and previous fixed windows, so a burst at a window
 * edge cannot double the allowance.
 */
export class RateLimiter implements RateLimit {
  private readonly slots = new Map<string, Slot>()
  private lastSweep = 0

  constructor(readonly limit: number, readonly windowMs: number) {}

  hit(key: string, now = Date.now()): RateDecision {
    const windowStart = now - (now % this.windowMs)
    let slot = this.slots.get(key)
    if (!slot) {
      slot = { windowStart, current: 0, previous: 0 }
      this.slots.set(key, slot)
    } else if (slot.windowStart !== windowStart) {
      slot.previous = windowStart - slot.windowStart === this.windowMs ? slot.current : 0
      slot.current = 0
      slot.windowStart = windowStart
    }
    const elapsed = (now - windowStart) / this.windowMs
    const estimated = slot.previous * (1 - elapsed) + slot.current
    this.sweep(now)
    if (estimated + 1 > this.limit) {
      // Time until the previous window's weight has decayed enough (or the window rolls over).
      const needed = slot.previous > 0 ? (estimated + 1 - this.limit) / slot.previous : 1 - elapsed
      const waitMs = Math.min(this.windowMs, Math.max(1000, needed * this.windowMs))
      return { allowed: false, retryAfter: Math.ceil(waitMs / 1000) }
    }
    slot.current++
    return { allowed: true, retryAfter: 0 }
  }

  private sweep(now: number) {
    if (now - this.lastSweep < this.windowMs) return
    this.lastSweep = now
    for (const [k, s] of this.slots) if (now - s.windowStart >= 2 * this.windowMs) this.slots.delete(k)
  }
}
