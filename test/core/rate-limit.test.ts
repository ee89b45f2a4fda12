// The one rate limiter: an exact sliding window for small limits, refunds, and the per-key backoff.
import { describe, expect, test } from 'bun:test'
import { Backoff, RateLimiter } from '../../src/lib/rate-limit'

const MIN = 60_000

describe('RateLimiter, small limits: an exact sliding window', () => {
  test('5 per 15 minutes: 5 hits at minute 14 block until each leaves the window, across a fixed-window edge', () => {
    const l = new RateLimiter(5, 15 * MIN)
    const t0 = 15 * MIN * 1000 // a fixed-window boundary; hits start one minute before the next one
    for (let i = 0; i < 5; i++) expect(l.hit('a', t0 + 14 * MIN).allowed).toBe(true)
    // A fixed window would allow 5 more at minute 15; a blended one some of them. Exact: none until minute 29.
    expect(l.hit('a', t0 + 15 * MIN + 1)).toEqual({ allowed: false, retryAfter: 14 * 60 })
    expect(l.hit('a', t0 + 29 * MIN - 1).allowed).toBe(false)
    // All five left together: five more fit, the sixth does not.
    for (let i = 0; i < 5; i++) expect(l.hit('a', t0 + 29 * MIN).allowed).toBe(true)
    expect(l.hit('a', t0 + 29 * MIN).allowed).toBe(false)
  })

  test('spread hits: the window slides one hit at a time; Retry-After names the oldest hit leaving', () => {
    const l = new RateLimiter(5, 15 * MIN)
    for (let i = 0; i < 5; i++) l.hit('a', i * MIN)
    expect(l.check('a', 10 * MIN)).toEqual({ allowed: false, retryAfter: 5 * 60 })
    expect(l.hit('a', 15 * MIN).allowed).toBe(true) // the hit of minute 0 has left
    expect(l.check('a', 15 * MIN + 1)).toEqual({ allowed: false, retryAfter: 60 })
    expect(l.check('b', 15 * MIN).allowed).toBe(true)
  })

  test('check counts nothing; refund takes back the latest hit', () => {
    const l = new RateLimiter(2, MIN)
    for (let i = 0; i < 10; i++) expect(l.check('a', 0).allowed).toBe(true)
    l.hit('a', 0)
    l.hit('a', 1)
    expect(l.check('a', 2).allowed).toBe(false)
    l.refund('a', 3)
    expect(l.hit('a', 3).allowed).toBe(true)
    expect(l.hit('a', 3).allowed).toBe(false)
  })
})

describe('RateLimiter, large limits: blended fixed windows (hot paths)', () => {
  test('600 per minute: the 601st is refused, and a burst at the window edge cannot double the allowance', () => {
    const l = new RateLimiter(600, MIN)
    const edge = 100 * MIN
    for (let i = 0; i < 600; i++) expect(l.hit('a', edge - 1000).allowed).toBe(true)
    expect(l.hit('a', edge - 1000).allowed).toBe(false)
    let after = 0
    for (let i = 0; i < 600; i++) if (l.hit('a', edge + 1000).allowed) after++
    expect(after).toBeLessThanOrEqual(15)
  })
})

describe('RateLimiter, large limits: every key rolls over with the window', () => {
  test('keys count apart; the previous window weighs less as the current one goes on; two windows later it is forgotten', () => {
    const l = new RateLimiter(100, MIN)
    const w = 1000 * MIN // a window start
    for (let i = 0; i < 100; i++) expect(l.hit('a', w + 1000).allowed).toBe(true)
    expect(l.hit('a', w + 2000)).toEqual({ allowed: false, retryAfter: 58 }) // until the window rolls over
    expect(l.hit('b', w + 2000).allowed).toBe(true) // another key is not touched
    // Next window, a quarter in: 100 × 0.75 = 75 estimated, so 25 more fit and the 26th waits.
    let allowed = 0
    for (let i = 0; i < 40; i++) if (l.hit('a', w + MIN + MIN / 4).allowed) allowed++
    expect(allowed).toBe(25)
    // Its retry-after: the previous window's weight must lose one more hit: 1/100 of a minute.
    expect(l.check('a', w + MIN + MIN / 4)).toEqual({ allowed: false, retryAfter: 1 })
    // Two windows on, nothing of 'a' is left.
    for (let i = 0; i < 100; i++) expect(l.hit('a', w + 3 * MIN).allowed).toBe(true)
    expect(l.hit('a', w + 3 * MIN).allowed).toBe(false)
  })

  test('refund takes back a hit of the current window; a clock that steps back counts in the current window', () => {
    const l = new RateLimiter(40, MIN)
    const w = 50 * MIN
    for (let i = 0; i < 40; i++) l.hit('a', w + 10)
    expect(l.check('a', w + 20).allowed).toBe(false)
    l.refund('a', w + 20)
    expect(l.hit('a', w + 20).allowed).toBe(true)
    expect(l.hit('a', w + 20).allowed).toBe(false)
    l.refund('nobody', w + 20) // nothing to take back: no error, nothing counted
    expect(l.check('nobody', w + 20).allowed).toBe(true)
    // 5 s earlier than the window start: still the same counts, not a fresh window.
    expect(l.hit('a', w - 5000).allowed).toBe(false)
  })

  test('65,536 addresses in a window leave no object or string per address in the heap', () => {
    const { heapStats } = require('bun:jsc') as typeof import('bun:jsc')
    const l = new RateLimiter(600, MIN)
    Bun.gc(true)
    const before = heapStats().objectCount
    for (let n = 0; n < 65_536; n++) l.hit(`198.18.${(n >> 8) & 255}.${n & 255}`, 5 * MIN)
    Bun.gc(true)
    const added = heapStats().objectCount - before
    // A string and a counts object per address were 131k objects before (two per address).
    expect(added).toBeLessThan(2_000)
    expect(l.hit('198.18.0.1', 5 * MIN).allowed).toBe(true) // and each address is still counted
  })
})

describe('Backoff', () => {
  const opts = { free: 5, baseMs: 1000, maxMs: 15 * MIN, forgetMs: 24 * 60 * MIN, maxKeys: 3 }

  test('free failures, then 1 s doubling after the last failure, never more than the bound', () => {
    const b = new Backoff(opts)
    for (let i = 0; i < 5; i++) expect(b.hit('x', 0).allowed).toBe(true)
    expect(b.hit('x', 0)).toEqual({ allowed: false, retryAfter: 1 })
    expect(b.hit('x', 1000).allowed).toBe(true) // 6th failure
    expect(b.check('x', 1000)).toEqual({ allowed: false, retryAfter: 2 })
    expect([5, 6, 7, 14, 15, 16, 100, 10_000].map((n) => b.delayMs(n))).toEqual([1000, 2000, 4000, 512_000, 900_000, 900_000, 900_000, 900_000])
  })

  test('reset clears a key; a key quiet for forgetMs starts over; the oldest keys go beyond maxKeys', () => {
    const b = new Backoff(opts)
    for (let i = 0; i < 6; i++) b.hit('x', 0)
    b.reset('x')
    expect(b.check('x', 0).allowed).toBe(true)
    for (let i = 0; i < 6; i++) b.hit('y', 0)
    expect(b.check('y', 24 * 60 * MIN).allowed).toBe(true)
    for (let i = 0; i < 6; i++) b.hit('z', 1)
    for (const k of ['k1', 'k2', 'k3']) b.hit(k, 2)
    expect(b.check('z', 3).allowed).toBe(true) // forgotten to keep at most 3 keys
  })
})
