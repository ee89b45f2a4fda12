import { invalid } from './errors'

/** Epoch milliseconds as the API shows times: ISO 8601 in UTC. */
export const iso = (ms: number) => new Date(ms).toISOString()

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i
const EPOCH = /^\d+(?:\.\d+)?$/

/** Any moment: ISO 8601 (no zone = UTC) or epoch seconds (≤ 11 integer digits) / milliseconds (12–13). */
export function parseMoment(raw: string): number | null {
  let v = raw.trim()
  if (EPOCH.test(v)) {
    const digits = v.split('.')[0]!.length
    if (digits > 13) return null
    const n = Number(v)
    return Math.round(digits <= 11 ? n * 1000 : n)
  }
  // An unencoded "+" in a query string arrives as a space: "10:00:00 03:00" means "10:00:00+03:00".
  v = v.replace(/(\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?) (\d{2}(?::?\d{2})?)$/, '$1+$2')
  const m = ISO.exec(v)
  if (!m) return null
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m
  const ms = Number((frac + '000').slice(0, 3))
  const local = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms)
  const check = new Date(local)
  // Date.UTC rolls over (Feb 30 → Mar 2); a calendar-invalid date is not a date.
  if (
    check.getUTCFullYear() !== Number(y) || check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d) ||
    Number(h) > 23 || Number(mi) > 59 || Number(s) > 59
  ) return null
  let offsetMin = 0
  if (zone && zone.toUpperCase() !== 'Z') {
    const zm = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!
    const zh = Number(zm[2])
    const zmin = Number(zm[3] ?? '0')
    if (zh > 14 || zmin > 59) return null
    offsetMin = (zm[1] === '-' ? -1 : 1) * (zh * 60 + zmin)
  }
  return local - offsetMin * 60_000
}

/** A `from`/`to`-style filter value: undefined when absent or empty, else a moment (400 naming the field). */
export function momentFilter(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined || raw === '') return undefined
  const t = parseMoment(raw)
  if (t === null) throw invalid(`${name}: must be an ISO 8601 date or epoch seconds/milliseconds`)
  return t
}
