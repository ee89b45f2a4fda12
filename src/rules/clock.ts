// Local time in an IANA zone for the `time` condition, without an Intl call per click: each zone keeps the
// offset of the hour it last answered for, checked at both ends of that hour (an offset changes at most once
// in an hour), and bisected to the second when it changes inside one. So a click costs a comparison and an
// addition; Intl runs about twice an hour per zone, and at every DST change the boundary is exact.
// (reports/tz.ts computes the same offsets for reports; a feature may not import another's internals.)

const HOUR = 3_600_000
const DAY = 86_400_000

export class ZoneClock {
  private from = 0
  private to = -1
  private offset = 0

  private constructor(readonly zone: string, private readonly format: Intl.DateTimeFormat) {}

  /** The clock of a zone (the canonical name), or null when the name is not a time zone here. */
  static of(name: string): ZoneClock | null {
    const hit = clocks.get(name)
    if (hit) return hit
    let format: Intl.DateTimeFormat
    try {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone: name, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
      })
    } catch {
      return null
    }
    const canonical = format.resolvedOptions().timeZone
    let clock = clocks.get(canonical)
    if (!clock) {
      clock = new ZoneClock(canonical, format)
      // Only canonical names are kept (any casing of a name resolves): bounded by the zones Intl knows (~600).
      clocks.set(canonical, clock)
    }
    return clock
  }

  /** UTC offset in ms at an instant (local wall time = instant + offset). */
  offsetAt(ms: number): number {
    if (ms >= this.from && ms < this.to) return this.offset
    return this.refill(ms)
  }

  /** Minutes since local midnight (0..1439). */
  minuteOfDay(ms: number): number {
    const local = ms + this.offsetAt(ms)
    return Math.floor((local - Math.floor(local / DAY) * DAY) / 60_000)
  }

  /** Local weekday, 0 = Sunday. */
  weekday(ms: number): number {
    // 1970-01-01 was a Thursday.
    const d = (Math.floor((ms + this.offsetAt(ms)) / DAY) + 4) % 7
    return d < 0 ? d + 7 : d
  }

  private refill(ms: number): number {
    const start = Math.floor(ms / HOUR) * HOUR
    const end = start + HOUR
    const a = this.exact(start)
    const b = this.exact(end - 1000)
    if (a === b) return this.keep(start, end, a)
    // The change lies in (start, end - 1000]: bisect to the second.
    let lo = start
    let hi = end - 1000
    while (hi - lo > 1000) {
      const mid = lo + Math.floor((hi - lo) / 2000) * 1000
      if (this.exact(mid) === a) lo = mid
      else hi = mid
    }
    return ms < hi ? this.keep(start, hi, a) : this.keep(hi, end, b)
  }

  private keep(from: number, to: number, offset: number): number {
    this.from = from
    this.to = to
    this.offset = offset
    return offset
  }

  /** The offset from Intl (seconds precision). */
  private exact(ms: number): number {
    const whole = Math.floor(ms / 1000) * 1000
    let y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0
    for (const p of this.format.formatToParts(whole)) {
      switch (p.type) {
        case 'year': y = Number(p.value); break
        case 'month': mo = Number(p.value); break
        case 'day': d = Number(p.value); break
        case 'hour': h = Number(p.value); break
        case 'minute': mi = Number(p.value); break
        case 'second': s = Number(p.value); break
      }
    }
    return Date.UTC(y, mo - 1, d, h, mi, s) - whole
  }
}

const clocks = new Map<string, ZoneClock>()
