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

/** Limits up to this size keep every hit's time (an exact sliding window); larger ones approximate. */
const EXACT_UP_TO = 32

/** Exact: the times of the hits still inside the window, oldest first. */
interface Log { kind: 'log'; times: number[] }
/** Approximate: counts of the current and previous fixed windows. */
interface Counts { kind: 'counts'; windowStart: number; current: number; previous: number }

const ALLOWED: RateDecision = Object.freeze({ allowed: true, retryAfter: 0 })
const denied = (waitMs: number): RateDecision => ({ allowed: false, retryAfter: Math.max(1, Math.ceil(waitMs / 1000)) })

/**
 * The one in-memory rate limiter (counters live in process memory, per instance), a sliding window.
 *
 * - Small limits (login: 5 per 15 minutes) are exact: the times of the hits inside the window are kept,
 *   so no burst at any moment gets more than `limit` hits into any window-long span.
 * - Large limits (600 postbacks or 120 clicks a minute per address) blend the current and previous fixed
 *   windows, which costs two numbers per key on the hot paths; a burst at a window edge cannot double
 *   the allowance, though the blend may let a few more through than an exact window would.
 *
 * `check` and `refund` let a caller count only some requests (failed logins): hit first, so concurrent
 * requests cannot all slip through before any is counted, and refund the ones that should not count.
 */
export class RateLimiter implements RateLimit {
  private readonly slots = new Map<string, Log | Counts>()
  private readonly exact: boolean
  private lastSweep = 0

  constructor(readonly limit: number, readonly windowMs: number) {
    this.exact = limit <= EXACT_UP_TO
  }

  /** Counts one request and says whether it is allowed; a refused request is not counted. */
  hit(key: string, now = Date.now()): RateDecision {
    this.sweep(now)
    const decision = this.check(key, now)
    if (!decision.allowed) return decision
    const slot = this.slot(key, now)
    if (slot.kind === 'log') slot.times.push(now)
    else slot.current++
    return decision
  }

  /** Whether a hit would be allowed now; counts nothing. */
  check(key: string, now = Date.now()): RateDecision {
    const slot = this.slots.get(key)
    if (!slot) return ALLOWED
    if (slot.kind === 'log') {
      const times = this.prune(slot, now)
      // The oldest hit that must leave the window before another fits.
      return times.length < this.limit ? ALLOWED : denied(times[times.length - this.limit]! + this.windowMs - now)
    }
    this.roll(slot, now)
    const elapsed = (now - slot.windowStart) / this.windowMs
    const estimated = slot.previous * (1 - elapsed) + slot.current
    if (estimated + 1 <= this.limit) return ALLOWED
    // Time until the previous window's weight has decayed enough (or the window rolls over).
    const needed = slot.previous > 0 ? (estimated + 1 - this.limit) / slot.previous : 1 - elapsed
    return denied(Math.min(this.windowMs, needed * this.windowMs))
  }

  /** Takes back the most recent counted hit of `key` (a request that turned out not to count). */
  refund(key: string, now = Date.now()): void {
    const slot = this.slots.get(key)
    if (!slot) return
    if (slot.kind === 'log') {
      this.prune(slot, now).pop()
    } else {
      this.roll(slot, now)
      if (slot.current > 0) slot.current--
    }
  }

  private slot(key: string, now: number): Log | Counts {
    let slot = this.slots.get(key)
    if (!slot) {
      slot = this.exact ? { kind: 'log', times: [] } : { kind: 'counts', windowStart: now - (now % this.windowMs), current: 0, previous: 0 }
      this.slots.set(key, slot)
    }
    return slot
  }

  private prune(slot: Log, now: number): number[] {
    const t = slot.times
    let drop = 0
    while (drop < t.length && t[drop]! <= now - this.windowMs) drop++
    if (drop) t.splice(0, drop)
    return t
  }

  private roll(slot: Counts, now: number): void {
    const windowStart = now - (now % this.windowMs)
    if (slot.windowStart === windowStart) return
    slot.previous = windowStart - slot.windowStart === this.windowMs ? slot.current : 0
    slot.current = 0
    slot.windowStart = windowStart
  }

  private sweep(now: number) {
    if (now - this.lastSweep < this.windowMs) return
    this.lastSweep = now
    for (const [k, s] of this.slots) {
      const idle = s.kind === 'log' ? s.times.length === 0 || now - s.times[s.times.length - 1]! >= this.windowMs : now - s.windowStart >= 2 * this.windowMs
      if (idle) this.slots.delete(k)
    }
  }
}

export interface BackoffOptions {
  /** Failures in a row that cost nothing. */
  free: number
  /** Wait after the first failure beyond `free`; doubles with every further one. */
  baseMs: number
  /** The longest wait ever asked for: the bound on how long anyone can be kept waiting. */
  maxMs: number
  /** A key quiet for this long starts over. */
  forgetMs: number
  /** Keys kept at most (the oldest are forgotten first), so a flood of new keys cannot grow memory. */
  maxKeys: number
}

interface Failures { count: number; last: number }

/**
 * Exponential backoff per key over failures in a row: after `free` failures each attempt must wait
 * baseMs · 2^(failures − free) since the last failure, never more than maxMs. Used per account for
 * logins, so spreading guesses over many addresses gains nothing.
 */
export class Backoff {
  private readonly keys = new Map<string, Failures>()

  constructor(readonly opts: BackoffOptions) {}

  /** Whether an attempt may be made now; counts nothing. */
  check(key: string, now = Date.now()): RateDecision {
    const f = this.current(key, now)
    if (!f || f.count < this.opts.free) return ALLOWED
    const wait = f.last + this.delayMs(f.count) - now
    return wait > 0 ? denied(wait) : ALLOWED
  }

  /** The wait owed after `count` failures in a row. */
  delayMs(count: number): number {
    if (count < this.opts.free) return 0
    return Math.min(this.opts.maxMs, this.opts.baseMs * 2 ** Math.min(count - this.opts.free, 40))
  }

  /** Checks and, when allowed, counts the attempt as a failure up front (concurrent attempts see it); reset() on success. */
  hit(key: string, now = Date.now()): RateDecision {
    const decision = this.check(key, now)
    if (!decision.allowed) return decision
    const f = this.current(key, now) ?? { count: 0, last: now }
    f.count++
    f.last = now
    this.keys.delete(key) // re-inserted last: Map order is least recently failed first
    this.keys.set(key, f)
    if (this.keys.size > this.opts.maxKeys) this.keys.delete(this.keys.keys().next().value!)
    return decision
  }

  reset(key: string): void {
    this.keys.delete(key)
  }

  private current(key: string, now: number): Failures | undefined {
    const f = this.keys.get(key)
    if (f && now - f.last >= this.opts.forgetMs) {
      this.keys.delete(key)
      return undefined
    }
    return f
  }
}
