// Time zones for reports: IANA names through Intl, UTC offsets per instant, and the offset changes (DST)
// inside a range, which queries.ts turns into a SQL CASE so local days and hours are computed in SQLite.
import { invalid } from '../lib/errors'

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000

/** [instant (epoch ms), UTC offset in ms from that instant on]. */
export type OffsetChange = [at: number, offsetMs: number]

export class Zone {
  private readonly format: Intl.DateTimeFormat
  /** Offset changes per UTC year, computed once per zone and year (a year costs ~365 Intl calls). */
  private readonly years = new Map<number, { start: number; changes: OffsetChange[] }>()

  private constructor(readonly name: string, format: Intl.DateTimeFormat) {
    this.format = format
  }

  /** `tz` parameter → Zone; an unknown name is a 400 naming the parameter. */
  static parse(raw: string | undefined): Zone {
    const name = raw === undefined || raw === '' ? 'UTC' : raw
    let format: Intl.DateTimeFormat
    try {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone: name, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
      })
    } catch {
      throw invalid(`tz: unknown time zone ${JSON.stringify(name.slice(0, 64))}`)
    }
    const canonical = format.resolvedOptions().timeZone
    let zone = cache.get(canonical)
    if (!zone) {
      zone = new Zone(canonical, format)
      if (cache.size < 500) cache.set(canonical, zone)
    }
    return zone
  }

  /** UTC offset in ms at an instant (local wall time = instant + offset). */
  offsetAt(ms: number): number {
    const whole = Math.floor(ms / 1000) * 1000
    const p: Record<string, number> = {}
    for (const part of this.format.formatToParts(new Date(whole))) if (part.type !== 'literal') p[part.type] = Number(part.value)
    return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) - whole
  }

  /**
   * The instant of a local wall time. A time that occurs twice (DST overlap) is its first occurrence; a time
   * skipped by a DST gap moves forward by the gap (02:30 → 03:30), as Temporal's "compatible" does.
   */
  instantOf(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): number {
    const wall = Date.UTC(y, mo - 1, d, h, mi, s, ms)
    const before = this.offsetAt(wall - DAY_MS)
    const after = this.offsetAt(wall + DAY_MS)
    const valid = [wall - before, wall - after].filter((t) => t + this.offsetAt(t) === wall)
    return valid.length > 0 ? Math.min(...valid) : wall - before
  }

  /** Local calendar date of an instant. */
  dateOf(ms: number): { y: number; mo: number; d: number } {
    const local = new Date(ms + this.offsetAt(ms))
    return { y: local.getUTCFullYear(), mo: local.getUTCMonth() + 1, d: local.getUTCDate() }
  }

  /** Offset at `from` and every change in (from, to). */
  changes(from: number, to: number): { first: number; changes: OffsetChange[] } {
    const out: OffsetChange[] = []
    const y0 = new Date(from).getUTCFullYear()
    const y1 = new Date(to).getUTCFullYear()
    for (let y = y0; y <= y1; y++) for (const c of this.year(y).changes) if (c[0] > from && c[0] < to) out.push(c)
    return { first: this.offsetAt(from), changes: out }
  }

  private year(y: number): { start: number; changes: OffsetChange[] } {
    let hit = this.years.get(y)
    if (hit) return hit
    const start = Date.UTC(y, 0, 1)
    const end = Date.UTC(y + 1, 0, 1)
    const changes: OffsetChange[] = []
    let t = start
    let off = this.offsetAt(t)
    while (t < end) {
      const next = Math.min(t + DAY_MS, end)
      const o = this.offsetAt(next)
      if (o !== off) {
        // Bisect to the second: the change lies in (t, next].
        let lo = t
        let hi = next
        while (hi - lo > 1000) {
          const mid = lo + Math.floor((hi - lo) / 2000) * 1000
          if (this.offsetAt(mid) === off) lo = mid
          else hi = mid
        }
        changes.push([hi, o])
        off = o
      }
      t = next
    }
    hit = { start, changes }
    this.years.set(y, hit)
    return hit
  }
}

const cache = new Map<string, Zone>()

/**
 * The UTC hours in [from, to) (whole hours) whose local day differs from their UTC day: the hours a
 * daily rollup row holds for a neighbouring local day (|offset| hours a day, e.g. 23:00 UTC in Berlin).
 */
export function hoursOffTheirUtcDay(zone: Zone, from: number, to: number): number[] {
  const { first, changes } = zone.changes(from, to)
  const out: number[] = []
  let offset = first
  let next = 0
  for (let h = from; h < to; h += HOUR_MS) {
    while (next < changes.length && changes[next]![0] <= h) offset = changes[next++]![1]
    const local = Math.floor((h + offset) / DAY_MS)
    if (local !== Math.floor(h / DAY_MS)) out.push(h)
  }
  return out
}

/** 'YYYY-MM-DD' of a local-day key. */
export const dayKey = (localMidnight: number) => new Date(localMidnight).toISOString().slice(0, 10)
/** 'YYYY-MM-DDTHH:00' of a local-hour key. */
export const hourKey = (localHour: number) => new Date(localHour).toISOString().slice(0, 13) + ':00'
