// Caps on the redirect path (issue 29): which entries of a rotation may still take a click, decided from
// counters in memory so that a capped click costs a few comparisons, never a database round trip.
//
// Clicks. SQLite (one process): the counter is the clicks handed out; each click carries its cap keys and
// the click batch that commits it adds them to `cap_counters` in the same transaction, so after a restart the
// count is exactly the committed clicks. Postgres (several instances): an instance sends a click to a capped
// offer only from a lease of slots granted by one conditional UPDATE of `cap_counters` (never past the
// limit); a lease is a handful of slots, fewer as the cap nears, so a round trip happens once per lease, and
// the instances together never exceed the limit. Slots an instance leased but did not use are returned after
// LEASE_IDLE_MS or at shutdown (a crash loses them: the cap is then reached a few clicks early, never late).
// Conversions. Counted from the conversions table when a cap is first seen (or its period starts) and kept
// current by `conversion.recorded`; Postgres instances also recount every CONVERSION_RECOUNT_MS to see each
// other's. A conversion cap can overshoot by the conversions of clicks already sent (as at every network).
import type { ZoneClock } from '../rules'
import { log } from '../lib/log'
import type { Template } from './template'
import type { Rotation, Target } from './routing'

const DAY = 86_400_000
export const LEASE_MAX = 32
export const LEASE_IDLE_MS = 10_000
export const CONVERSION_RECOUNT_MS = 5_000
/** How long a Postgres instance trusts "no slot left" before asking again (another may have returned some). */
const EXHAUSTED_RECHECK_MS = 5_000

/** A cap compiled for the click path: on an offer (every campaign) or on one entry of one rotation. */
export interface CapRule {
  /** 'o<offer>' or 'c<campaign>p<path, 0 = default rotation>o<offer>' (the cap_counters key). */
  key: string
  /** `key|metric`: the counter's name in the book (built once, not per click). */
  id: string
  metric: 'clicks' | 'conversions'
  limit: number
  period: 'day' | 'total'
  zone: string
  /** Null for period 'total'. */
  clock: ZoneClock | null
  onReached: 'rotate' | 'offer' | 'url'
  fallbackOfferId: number | null
  fallbackUrl: Template | null
  warnPercent: number
  offerId: number
  campaignId: number | null
  pathId: number | null
}

/** A counter's period: its key ('YYYY-MM-DD' local day, or 'total') and where it ends. */
interface Period { key: string; start: number; end: number }

export function periodAt(rule: Pick<CapRule, 'period' | 'clock'>, now: number): Period {
  if (rule.period === 'total' || !rule.clock) return { key: 'total', start: 0, end: Number.POSITIVE_INFINITY }
  const clock = rule.clock
  const day = Math.floor((now + clock.offsetAt(now)) / DAY)
  const localStart = day * DAY
  const start = localStart - clock.offsetAt(localStart - clock.offsetAt(now))
  const next = localStart + DAY
  const end = next - clock.offsetAt(next - clock.offsetAt(now))
  return { key: new Date(localStart).toISOString().slice(0, 10), start, end: end > now ? end : now + 1 }
}

/** The database side, one twin per engine: synchronous on SQLite, Promises on Postgres. */
export interface CapLedger {
  readonly async: boolean
  /** Committed (SQLite) or granted (Postgres) clicks of one cap in one period. */
  clicks(cap: string, period: string): number | Promise<number>
  /** Counted conversions (types that count as conversions, not negative) of the rule's scope since `since`. */
  conversions(rule: CapRule, since: number): number | Promise<number>
  /** Postgres: up to `want` slots of the cap's period, never past `limit`; resolves with the slots granted and the total granted. */
  grant?(cap: string, period: string, want: number, limit: number): Promise<{ granted: number; total: number }>
  /** Postgres: gives back slots leased and not used. */
  release?(cap: string, period: string, n: number): Promise<void>
}

interface Counter {
  rule: CapRule
  period: Period
  /** `cap|period` as the SQLite click batch adds it to cap_counters (built once per period). */
  row: string
  /** Clicks counted (SQLite) or granted to all instances as last seen (Postgres). */
  clicks: number
  conversions: number
  /** Postgres: slots of this instance's lease not used yet, when the last one was used. */
  lease: number
  leaseUsedAt: number
  /** Postgres: the last grant found no slot left (at this time); 0 = not known to be exhausted. */
  exhaustedAt: number
  /** A load or grant in flight. */
  loading: Promise<void> | null
  /** Null until the conversions (conversion caps) are counted. */
  ready: boolean
  /** 0 none, 1 the soft-cap warning, 2 the cap: each logged once per period. */
  logged: 0 | 1 | 2
}

/** Where a capped rotation sends this click. */
export type CapDecision<T> =
  | { kind: 'entry'; entry: T; rules: CapRule[] }
  | { kind: 'url'; template: Template; offerId: number }
  | { kind: 'offer'; offer: T; rules: CapRule[] }
  | { kind: 'none' }
  | { kind: 'wait'; until: Promise<void> }

export interface CapStatus {
  key: string
  offer_id: number
  campaign_id: number | null
  path_id: number | null
  metric: 'clicks' | 'conversions'
  limit: number
  period: 'day' | 'total'
  time_zone: string
  period_key: string
  resets_at: string | null
  count: number
  percent: number
  state: 'ok' | 'warning' | 'reached'
  on_reached: 'rotate' | 'offer' | 'url'
  warn_percent: number
}

export class CapBook {
  private readonly counters = new Map<string, Counter>()
  private readonly scratch: Array<CapRule | null | undefined> = []
  private readonly left = new Set<number>()
  private timer: ReturnType<typeof setInterval> | null = null
  /** Releases sent and not answered yet (an idle lease, a period that ended). */
  private readonly releasing = new Set<Promise<void>>()

  constructor(private readonly ledger: CapLedger, private readonly now: () => number = Date.now) {}

  /** Background work on Postgres: idle leases go back, conversion counts follow the other instances. */
  start(): void {
    if (!this.ledger.async || this.timer) return
    this.timer = setInterval(() => this.tick(), 1_000)
    this.timer.unref?.()
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    // A lease asked for by the last click (refill() runs ahead, while a slot is left) may still be on its way:
    // wait for it, so that its slots are in the lease returned below (else they would stay granted after the
    // shutdown and the cap be reached early).
    await Promise.allSettled([...this.counters.values()].map((c) => c.loading))
    await Promise.allSettled([...this.counters.values()].map((c) => this.returnLease(c)))
    await Promise.allSettled([...this.releasing])
  }

  /**
   * The first of `rules` that is reached (its on_reached applies), null when one more click may go through.
   * Undefined on Postgres while a count or lease is on its way (the caller waits on `pending(rules)`).
   */
  blocked(rules: readonly CapRule[], now: number): CapRule | null | undefined {
    let known = true
    for (const rule of rules) {
      const c = this.counter(rule, now)
      if (rule.limit === 0) return rule
      if (!c.ready) {
        known = false
        continue
      }
      if (rule.metric === 'conversions') {
        if (c.conversions >= rule.limit) return rule
      } else if (this.ledger.async) {
        if (c.lease > 0) continue
        if (c.exhaustedAt > 0) {
          if (now - c.exhaustedAt > EXHAUSTED_RECHECK_MS && !c.loading) this.refill(c, now)
          return rule
        }
        known = false
        if (!c.loading) this.refill(c, now)
      } else if (c.clicks >= rule.limit) {
        return rule
      }
    }
    return known ? null : undefined
  }

  /**
   * The offer of a capped rotation for one click: a weighted pick among the entries whose caps hold, where an
   * entry reached with on_reached 'rotate' is left out (its weight shared by the others) and one reached with
   * 'offer' or 'url' keeps its weight and hands its visitors to its fallback. `dry`: an unknown count is taken
   * as not reached (the simulator never waits). Counts nothing: take() does, once the click goes there.
   */
  pick(rotation: Rotation, offerById: ReadonlyMap<number, Target>, now: number, dry = false): CapDecision<Target> {
    const { items } = rotation
    // Scratch space reused by every pick (synchronous, nothing keeps it): no allocation per click.
    const state = this.scratch
    state.length = items.length
    let waits: CapRule[] | null = null
    for (let i = 0; i < items.length; i++) {
      const caps = items[i]!.caps
      const s = caps ? this.blocked(caps, now) : null
      state[i] = s === undefined && dry ? null : s
      if (state[i] === undefined) (waits ??= []).push(...caps!)
    }
    if (waits) return { kind: 'wait', until: this.pending(waits, now) }
    const out = this.left
    out.clear()
    for (let tries = 0; tries <= items.length; tries++) {
      let total = 0
      for (let i = 0; i < items.length; i++) if (!out.has(i) && state[i]?.onReached !== 'rotate') total += items[i]!.weight
      if (total <= 0) return { kind: 'none' }
      let r = Math.random() * total
      let i = 0
      for (; i < items.length; i++) {
        if (out.has(i) || state[i]?.onReached === 'rotate') continue
        r -= items[i]!.weight
        if (r < 0) break
      }
      if (i >= items.length) i = lastOpen(items.length, out, state)
      const entry = items[i]!
      const reached = state[i]
      if (!reached) return { kind: 'entry', entry, rules: entry.caps ?? [] }
      if (reached.onReached === 'url') return { kind: 'url', template: reached.fallbackUrl!, offerId: entry.id }
      const fallback = offerById.get(reached.fallbackOfferId!)
      const fallbackBlocked = fallback?.caps ? this.blocked(fallback.caps, now) : null
      if (fallback && fallbackBlocked === undefined && !dry) return { kind: 'wait', until: this.pending(fallback.caps!, now) }
      if (fallback && !fallbackBlocked) return { kind: 'offer', offer: fallback, rules: fallback.caps ?? [] }
      // The fallback offer is gone or capped itself: this entry leaves the rotation for this click.
      out.add(i)
    }
    return { kind: 'none' }
  }

  /** What allows() waits for: the loads and grants in flight for these rules. */
  pending(rules: readonly CapRule[], now: number): Promise<void> {
    const waits: Promise<void>[] = []
    for (const rule of rules) {
      const c = this.counter(rule, now)
      if (c.loading) waits.push(c.loading)
    }
    return Promise.all(waits).then(() => undefined)
  }

  /**
   * Counts one click for each click rule (after allows() said yes). Returns the `cap|period` keys the SQLite
   * click batch adds to cap_counters; Postgres counted it against the lease already.
   */
  take(rules: readonly CapRule[], now: number): string[] | undefined {
    let keys: string[] | undefined
    for (const rule of rules) {
      if (rule.metric !== 'clicks') continue
      const c = this.counter(rule, now)
      if (this.ledger.async) {
        c.lease--
        c.leaseUsedAt = now
        if (c.lease < 2 && c.exhaustedAt === 0 && !c.loading) this.refill(c, now)
      } else {
        c.clicks++
        ;(keys ??= []).push(c.row)
      }
      this.noteLevel(c, this.ledger.async ? c.clicks - c.lease : c.clicks)
    }
    return keys
  }

  /** A conversion was recorded (after commit): the conversion caps of its offer and its rotation entry count it. */
  conversion(offerId: number | null, campaignId: number, pathId: number | null, at: number): void {
    if (offerId === null) return
    for (const key of [`o${offerId}`, `c${campaignId}p${pathId ?? 0}o${offerId}`]) {
      const c = this.counters.get(`${key}|conversions`)
      if (!c || !c.ready) continue
      if (at < c.period.start || at >= c.period.end) continue
      c.conversions++
      this.noteLevel(c, c.conversions)
    }
  }

  /** Every cap among `rules` with its count now (the status API). */
  status(rules: readonly CapRule[]): CapStatus[] {
    const now = this.now()
    return rules.map((rule) => {
      const c = this.counter(rule, now)
      const count = rule.metric === 'conversions' ? c.conversions : this.ledger.async ? c.clicks - c.lease : c.clicks
      const percent = rule.limit === 0 ? 100 : Math.round((count / rule.limit) * 1000) / 10
      const reached = count >= rule.limit || (this.ledger.async && rule.metric === 'clicks' && c.exhaustedAt > 0 && c.lease === 0)
      return {
        key: rule.key, offer_id: rule.offerId, campaign_id: rule.campaignId, path_id: rule.pathId, metric: rule.metric, limit: rule.limit,
        period: rule.period, time_zone: rule.zone, period_key: c.period.key,
        resets_at: Number.isFinite(c.period.end) ? new Date(c.period.end).toISOString() : null,
        count, percent, state: reached ? 'reached' : percent >= rule.warnPercent ? 'warning' : 'ok', on_reached: rule.onReached, warn_percent: rule.warnPercent,
      }
    })
  }

  /** The counter of a rule in the current period (a new period starts at zero). */
  private counter(rule: CapRule, now: number): Counter {
    const id = rule.id
    let c = this.counters.get(id)
    if (c && now >= c.period.start && now < c.period.end && c.rule.period === rule.period && c.rule.zone === rule.zone) {
      if (c.rule !== rule) this.reconfigure(c, rule)
      return c
    }
    if (c) void this.returnLease(c)
    const period = periodAt(rule, now)
    c = {
      rule, period, row: `${rule.key}|${period.key}`, clicks: 0, conversions: 0, lease: 0, leaseUsedAt: now, exhaustedAt: 0, loading: null,
      ready: false, logged: 0,
    }
    this.counters.set(id, c)
    this.load(c)
    return c
  }

  /** The same cap after a catalog change: a raised limit may free slots, a lowered one is checked as it comes. */
  private reconfigure(c: Counter, rule: CapRule): void {
    if (rule.limit > c.rule.limit) c.exhaustedAt = 0
    if (rule.limit !== c.rule.limit) c.logged = 0
    c.rule = rule
  }

  private load(c: Counter): void {
    const { rule, period } = c
    if (rule.metric === 'conversions') {
      const n = this.ledger.conversions(rule, period.start)
      if (typeof n === 'number') {
        c.conversions = n
        c.ready = true
      } else {
        c.loading = n.then((v) => { c.conversions = v; c.ready = true }, (err) => this.failed(c, err))
      }
      return
    }
    if (this.ledger.async) {
      // A lease is taken on the first click that needs it.
      c.ready = true
      return
    }
    c.clicks = this.ledger.clicks(rule.key, period.key) as number
    c.ready = true
  }

  /** Postgres: asks for a lease, smaller as the cap nears, so that instances never strand many slots. */
  private refill(c: Counter, _now: number): void {
    const { rule, period } = c
    const left = Math.max(0, rule.limit - c.clicks)
    const want = Math.max(1, Math.min(LEASE_MAX, Math.floor(left / 8)))
    c.loading = this.ledger.grant!(rule.key, period.key, want, rule.limit).then(({ granted, total }) => {
      c.loading = null
      if (c.period !== period) {
        if (granted > 0) void this.release(rule.key, period.key, granted) // stop() waits on `releasing`
        return
      }
      c.clicks = total
      c.lease += granted
      // Every slot is out (maybe some in other instances' leases): reached once this lease is used up.
      c.exhaustedAt = total >= rule.limit ? Math.max(1, Date.now()) : 0
    }, (err) => this.failed(c, err))
  }

  private failed(c: Counter, err: unknown): void {
    c.loading = null
    // Unknown is treated as reached until the next try: a cap must not be overshot because the database was away.
    c.exhaustedAt = Date.now()
    if (c.rule.metric === 'conversions') { c.conversions = c.rule.limit; c.ready = true }
    log.error('caps: counting a cap failed (treated as reached until the next try)', { cap: c.rule.key, error: String(err) })
  }

  /** Gives back the counter's unused slots; stop() waits for every release still on its way. */
  private returnLease(c: Counter): Promise<void> {
    if (!this.ledger.release || c.lease <= 0) return Promise.resolve()
    const n = c.lease
    c.lease = 0
    return this.release(c.rule.key, c.period.key, n)
  }

  private release(cap: string, period: string, n: number): Promise<void> {
    const done = this.ledger.release!(cap, period, n).catch(() => {}).finally(() => this.releasing.delete(done))
    this.releasing.add(done)
    return done
  }

  private tick(): void {
    const now = this.now()
    for (const c of this.counters.values()) {
      if (c.lease > 0 && now - c.leaseUsedAt > LEASE_IDLE_MS) void this.returnLease(c)
      if (c.rule.metric === 'conversions' && c.ready && !c.loading) {
        const since = c.period.start
        const n = this.ledger.conversions(c.rule, since)
        if (typeof n === 'number') c.conversions = n
        else c.loading = n.then((v) => { c.loading = null; if (c.period.start === since) c.conversions = v }, () => { c.loading = null })
      }
      if (c.rule.metric === 'conversions' || c.lease === 0) this.noteLevel(c, c.rule.metric === 'conversions' ? c.conversions : c.clicks - c.lease)
    }
  }

  /** Logs the soft-cap warning and the reached cap once per period. */
  private noteLevel(c: Counter, count: number): void {
    const { rule } = c
    const level = count >= rule.limit ? 2 : count * 100 >= rule.limit * rule.warnPercent ? 1 : 0
    if (level <= c.logged) return
    c.logged = level as 0 | 1 | 2
    const fields = { cap: rule.key, offer_id: rule.offerId, campaign_id: rule.campaignId, path_id: rule.pathId, metric: rule.metric, limit: rule.limit, count, period: c.period.key }
    if (level === 2) log.warn('caps: cap reached', fields)
    else log.warn(`caps: ${rule.warnPercent}% of the cap reached`, fields)
  }
}

function lastOpen(n: number, out: ReadonlySet<number>, state: ReadonlyArray<CapRule | null | undefined>): number {
  for (let i = n - 1; i >= 0; i--) if (!out.has(i) && state[i]?.onReached !== 'rotate') return i
  return n - 1
}
