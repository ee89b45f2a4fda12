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

const ALLOWED: RateDecision = Object.freeze({ allowed: true, retryAfter: 0 })
const denied = (waitMs: number): RateDecision => ({ allowed: false, retryAfter: Math.max(1, Math.ceil(waitMs / 1000)) })

/**
 * A key as a 53-bit number (two independent 32-bit hashes). The blended windows keep numbers only: no key
 * string and no object per key stays in the heap (65,536 postback addresses held 10.6 MB as strings and
 * objects, measured). Two keys sharing a number share one count for that window, nothing worse: among
 * 65,536 keys in one window the chance of any such pair is ~2 · 10^-7.
 */
function keyNumber(key: string): number {
  return Bun.hash.murmur32v3(key) * 2 ** 21 + (Bun.hash.crc32(key) & 0x1fffff)
}

/**
 * The one in-memory rate limiter (counters live in process memory, per instance), a sliding window.
 *
 * - Small limits (login: 5 per 15 minutes) are exact: the times of the hits inside the window are kept,
 *   so no burst at any moment gets more than `limit` hits into any window-long span.
 * - Large limits (600 postbacks or 120 clicks a minute per address) blend the current and previous fixed
 *   windows, which costs two numbers per key on the hot paths; a burst at a window edge cannot double
 *   the allowance, though the blend may let a few more through than an exact window would. The windows
 *   are the same for every key, so all keys roll over together: the current counts become the previous
 *   ones and older counts are dropped as one map, with no sweep over the keys.
 *
 * `check` and `refund` let a caller count only some requests (failed logins): hit first, so concurrent
 * requests cannot all slip through before any is counted, and refund the ones that should not count.
 */
export class RateLimiter implements RateLimit {
  private readonly exact: boolean
  /** Exact: per key, the times of the hits still inside the window, oldest first. */
  private readonly logs = new Map<string, number[]>()
  private lastSweep = 0
  /** Blended: per key number, the counts of the current and the previous fixed window. */
  private current = new Map<number, number>()
  private previous = new Map<number, number>()
  private windowStart = 0

  constructor(readonly limit: number, readonly windowMs: number) {
    this.exact = limit <= EXACT_UP_TO
  }

  /** Counts one request and says whether it is allowed; a refused request is not counted. */
  hit(key: string, now = Date.now()): RateDecision {
    if (this.exact) {
      this.sweep(now)
      const decision = this.checkLog(key, now)
      if (decision.allowed) {
        const times = this.logs.get(key)
        if (times) times.push(now)
        else this.logs.set(key, [now])
      }
      return decision
    }
    const k = keyNumber(key)
    const decision = this.checkCounts(k, now)
    if (decision.allowed) this.current.set(k, (this.current.get(k) ?? 0) + 1)
    return decision
  }

  /** Whether a hit would be allowed now; counts nothing. */
  check(key: string, now = Date.now()): RateDecision {
    return this.exact ? this.checkLog(key, now) : this.checkCounts(keyNumber(key), now)
  }

  /** Takes back the most recent counted hit of `key` (a request that turned out not to count). */
  refund(key: string, now = Date.now()): void {
    if (this.exact) {
      const times = this.logs.get(key)
      if (times) this.prune(times, now).pop()
      return
    }
    this.roll(now)
    const k = keyNumber(key)
    const n = this.current.get(k)
    if (n === undefined) return
    if (n > 1) this.current.set(k, n - 1)
    else this.current.delete(k)
  }

  private checkLog(key: string, now: number): RateDecision {
    const times = this.logs.get(key)
    if (!times) return ALLOWED
    this.prune(times, now)
    // The oldest hit that must leave the window before another fits.
    return times.length < this.limit ? ALLOWED : denied(times[times.length - this.limit]! + this.windowMs - now)
  }

  private checkCounts(k: number, now: number): RateDecision {
    this.roll(now)
    const current = this.current.get(k) ?? 0
    const previous = this.previous.get(k) ?? 0
    // Clamped: a `now` from before the window (the clock stepped back) counts as its start.
    const elapsed = Math.max(0, (now - this.windowStart) / this.windowMs)
    const estimated = previous * (1 - elapsed) + current
    if (estimated + 1 <= this.limit) return ALLOWED
    // Time until the previous window's weight has decayed enough (or the window rolls over).
    const needed = previous > 0 ? (estimated + 1 - this.limit) / previous : 1 - elapsed
    return denied(Math.min(this.windowMs, needed * this.windowMs))
  }

  private prune(t: number[], now: number): number[] {
    let drop = 0
    while (drop < t.length && t[drop]! <= now - this.windowMs) drop++
    if (drop) t.splice(0, drop)
    return t
  }

  /** Every key at once into the window of `now`: the counts of the window just ended stay as the previous ones. */
  private roll(now: number): void {
    const windowStart = now - (now % this.windowMs)
    if (windowStart === this.windowStart) return
    // An earlier `now` (a caller's clock stepping back) counts in the current window rather than wiping it.
    if (windowStart < this.windowStart) return
    this.previous = windowStart - this.windowStart === this.windowMs ? this.current : new Map()
    this.current = new Map()
    this.windowStart = windowStart
  }

  /** Drops the logs of keys with no hit inside the window, once per window. */
  private sweep(now: number) {
    if (now - this.lastSweep < this.windowMs) return
    this.lastSweep = now
    for (const [k, times] of this.logs) {
      if (times.length === 0 || now - times[times.length - 1]! >= this.windowMs) this.logs.delete(k)
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
