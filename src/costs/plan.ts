// What a cost update means before anything is written: its local days, its sub filter, and the amount's cents
// split over the days by the clicks each holds (the same split reprice.ts makes over the clicks), so the days
// add up to the amount to the cent and each day can be applied in a transaction of its own.
import { conflict, invalid } from '../lib/errors'
import { PARAM_NAME, SUB_COLUMNS, Zone } from './deps'

const DAY_MS = 86_400_000
/** A year and a day: longer ranges are sent as several updates. */
export const MAX_DAYS = 366
const MAX_SUB_VALUE = 500

export interface Day {
  /** YYYY-MM-DD, local to the zone. */
  key: string
  /** [from, to): the local day's instants (23 or 25 hours at a DST change). */
  from: number
  to: number
}

export interface Sub { name: string; value: string }

/** `time_zone` → Zone (default UTC); an unknown zone is a 400 naming `field`. */
export function zoneOf(raw: string | undefined, field = 'time_zone'): Zone {
  try {
    return Zone.parse(raw)
  } catch {
    throw invalid(`${field}: unknown time zone ${JSON.stringify(String(raw).slice(0, 64))}`)
  }
}

/** A calendar date `YYYY-MM-DD` → [y, m, d]; anything else (2026-02-30 included) is a 400 naming `field`. */
export function parseDate(raw: unknown, field: string): [number, number, number] {
  const m = typeof raw === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw.trim()) : null
  if (!m) throw invalid(`${field}: must be a date YYYY-MM-DD`)
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const t = new Date(Date.UTC(y, mo - 1, d))
  if (y < 1970 || t.getUTCFullYear() !== y || t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d) throw invalid(`${field}: ${raw} is not a calendar date`)
  return [y, mo, d]
}

/** The local days from `from` to `to`, both included. */
export function daysOf(zone: Zone, from: [number, number, number], to: [number, number, number], fields = ['from', 'to']): Day[] {
  const first = Date.UTC(from[0], from[1] - 1, from[2])
  const last = Date.UTC(to[0], to[1] - 1, to[2])
  if (last < first) throw invalid(`${fields[1]}: must not be before ${fields[0]}`)
  const n = (last - first) / DAY_MS + 1
  if (n > MAX_DAYS) throw invalid(`${fields[1]}: at most ${MAX_DAYS} days per update`)
  const out: Day[] = []
  for (let i = 0; i < n; i++) {
    const a = new Date(first + i * DAY_MS)
    const b = new Date(first + (i + 1) * DAY_MS)
    out.push({
      key: a.toISOString().slice(0, 10),
      from: zone.instantOf(a.getUTCFullYear(), a.getUTCMonth() + 1, a.getUTCDate()),
      to: zone.instantOf(b.getUTCFullYear(), b.getUTCMonth() + 1, b.getUTCDate()),
    })
  }
  return out
}

/** sub1..sub10 or a link parameter's name, with a value; a 400 naming `field` otherwise. */
export function checkSub(name: unknown, value: unknown, field: string): Sub {
  if (typeof name !== 'string' || !(SUB_COLUMNS.includes(name as never) || PARAM_NAME.test(name))) {
    throw invalid(`${field}.name: must be sub1..sub10 or a link parameter name (letters, digits, _ . -, at most 64)`)
  }
  if (typeof value !== 'string' || value === '' || value.length > MAX_SUB_VALUE) throw invalid(`${field}.value: must be text of 1..${MAX_SUB_VALUE} characters`)
  return { name, value }
}

/**
 * Refuses days whose raw clicks retention may have deleted (created before now − raw_click_retention_days):
 * their clicks are gone or going, so the spend could not be spread over them exactly. 409 naming them.
 */
export function checkRetention(days: readonly Day[], retentionDays: number, now: number, where = ''): void {
  if (retentionDays <= 0) return
  const cutoff = now - retentionDays * DAY_MS
  const gone = days.filter((d) => d.from < cutoff).map((d) => d.key)
  if (gone.length === 0) return
  const named = gone.length > 5 ? `${gone.slice(0, 5).join(', ')} and ${gone.length - 5} more` : gone.join(', ')
  throw conflict(`${where}the raw clicks of ${named} are deleted by raw_click_retention_days (${retentionDays}): ` +
    'a cost update needs the clicks of its days (reports keep their totals, but the spend cannot be spread over deleted clicks)')
}

/**
 * `cents` over days holding `counts` clicks: each click floor(cents / n), the first (cents mod n) clicks in time
 * order one cent more; a day gets the sum of its clicks' shares.
 */
export function splitCents(cents: number, counts: readonly number[]): number[] {
  const n = counts.reduce((a, b) => a + b, 0)
  if (n === 0) return counts.map(() => 0)
  const base = Math.floor(cents / n)
  let extra = cents % n
  return counts.map((c) => {
    const more = Math.min(extra, c)
    extra -= more
    return base * c + more
  })
}
