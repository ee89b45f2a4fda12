// Query parameters of the reports: parsed and validated here, so a bad one is a 400 that names it.
import { invalid } from '../lib/errors'
import { DIMENSIONS, isDimension, isTimeDimension, type Dimension } from './dimensions'
import { currencyCode } from '../lib/currency'
import { METRIC_NAMES, MONEY_METRICS, type MetricName, type MoneyMetric } from './metrics'
import type { Filters } from './queries'
import { Zone } from './tz'

export type Query = Record<string, string | undefined>
/** `revenue.EUR`: a money metric in one currency (a code, upper-case). */
export type SortKey = MetricName | 'key' | 'label' | `${MoneyMetric}.${string}`
export type Format = 'json' | 'csv'

export interface Range {
  zone: Zone
  from: number
  to: number
}

export type HavingOp = '<' | '<=' | '>' | '>=' | '='
/** One metric condition on top-level rows: `profit<0`, `revenue.EUR>=100`. */
export interface Condition {
  metric: Exclude<SortKey, 'key' | 'label'>
  op: HavingOp
  value: number
}

export interface ReportRequest extends Range {
  dims: Dimension[]
  filters: Filters
  sort: SortKey
  order: 'asc' | 'desc'
  limit: number
  offset: number
  format: Format
  /** Top-level rows with fewer clicks are left out (0 = none left out). */
  minClicks: number
  /** Every condition must hold for a top-level row to stay. */
  having: Condition[]
}

export interface ExportRequest extends Range {
  filters: Filters
}

export const DEFAULT_LIMIT = 100
export const MAX_LIMIT = 1000
export const DEFAULT_DAYS = 30
/** Levels of group_by. */
export const MAX_LEVELS = 3
/** Conditions in one `having`. */
export const MAX_CONDITIONS = 20
/** Dates outside these years are refused: conversions before 2000 cannot exist, and DST tables stay small. */
const MIN_YEAR = 2000
const MAX_YEAR = 2100

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|z|[+-]\d{2}:?\d{2}| \d{2}:?\d{2})?$/

/** A repeated query parameter counts once, first occurrence (as everywhere else). */
export function flatQuery(query: Record<string, unknown>): Query {
  const out: Query = {}
  for (const [k, v] of Object.entries(query)) out[k] = Array.isArray(v) ? String(v[0] ?? '') : v === undefined ? undefined : String(v)
  return out
}

const present = (v: string | undefined): v is string => v !== undefined && v !== ''

/**
 * `from`/`to`: YYYY-MM-DD (local midnight in the report's zone), a local date-time without offset (in the
 * zone), an ISO 8601 date-time with Z or an offset (absolute), or epoch seconds/milliseconds (absolute).
 */
export function parseTime(raw: string, zone: Zone, name: string): number {
  const bad = () => invalid(`${name}: must be YYYY-MM-DD, an ISO 8601 date-time or epoch seconds/milliseconds (years ${MIN_YEAR}–${MAX_YEAR - 1})`)
  const v = raw.trim()
  // Epoch seconds (up to 11 digits) or milliseconds, as the conversions list accepts them.
  if (/^\d{9,13}$/.test(v)) {
    const t = v.length <= 11 ? Number(v) * 1000 : Number(v)
    const y = new Date(t).getUTCFullYear()
    if (y < MIN_YEAR || y >= MAX_YEAR) throw bad()
    return t
  }
  const m = DATE_TIME.exec(v)
  if (!m) throw bad()
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', offset] = m
  const parts = [Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s), Number((frac + '000').slice(0, 3))] as const
  const probe = new Date(Date.UTC(parts[0], parts[1] - 1, parts[2]))
  if (
    parts[0] < MIN_YEAR || parts[0] >= MAX_YEAR || probe.getUTCMonth() !== parts[1] - 1 || probe.getUTCDate() !== parts[2] ||
    parts[3] > 23 || parts[4] > 59 || parts[5] > 59
  ) throw bad()
  if (offset === undefined) return zone.instantOf(...parts)
  const wall = Date.UTC(parts[0], parts[1] - 1, parts[2], parts[3], parts[4], parts[5], parts[6])
  if (offset === 'Z' || offset === 'z') return wall
  // An unencoded "+" in a query string arrives as a space.
  const om = /^([+ -])(\d{2}):?(\d{2})$/.exec(offset)!
  const minutes = Number(om[2]) * 60 + Number(om[3])
  if (Number(om[2]) > 14 || Number(om[3]) > 59) throw bad()
  return wall - (om[1] === '-' ? -1 : 1) * minutes * 60_000
}

/**
 * tz, from, to. Default: the last 30 local days including today (from local midnight 29 days ago to the next midnight).
 * `defaultTz`: the zone without a `tz` (the instance's time_zone setting).
 */
export function parseRange(q: Query, now = Date.now(), defaultTz = 'UTC'): Range {
  const zone = Zone.parse(present(q.tz) ? q.tz : defaultTz)
  let to: number
  let from: number
  if (present(q.to)) {
    to = parseTime(q.to, zone, 'to')
  } else {
    const today = zone.dateOf(now)
    to = zone.instantOf(today.y, today.mo, today.d + 1)
  }
  if (present(q.from)) {
    from = parseTime(q.from, zone, 'from')
  } else {
    const end = zone.dateOf(to - 1)
    from = zone.instantOf(end.y, end.mo, end.d + 1 - DEFAULT_DAYS)
  }
  if (from >= to) throw invalid('to: must be after from')
  return { zone, from, to }
}

function idParam(q: Query, name: keyof Filters): number | undefined {
  const raw = q[name]
  if (!present(raw)) return undefined
  if (!/^\d{1,15}$/.test(raw.trim())) throw invalid(`${name}: must be a whole number (0 = none)`)
  return Number(raw.trim())
}

export function parseFilters(q: Query): Filters {
  const f: Filters = {}
  for (const name of ['campaign_id', 'source_id', 'offer_id', 'landing_id'] as const) {
    const v = idParam(q, name)
    if (v !== undefined) f[name] = v
  }
  return f
}

export function parseGroupBy(raw: string | undefined): Dimension[] {
  if (!present(raw)) return ['campaign']
  const parts = raw.split(',').map((p) => p.trim())
  const allowed = `one to three of ${DIMENSIONS.join(', ')}, comma-separated`
  if (parts.length > MAX_LEVELS) throw invalid(`group_by: at most three levels (${allowed})`)
  for (const p of parts) if (!isDimension(p)) throw invalid(`group_by: unknown grouping ${JSON.stringify(p.slice(0, 40))} (${allowed})`)
  if (new Set(parts).size !== parts.length) throw invalid('group_by: the levels must differ')
  return parts as Dimension[]
}

function wholeNumber(q: Query, name: string, def: number, min: number, max: number): number {
  const raw = q[name]
  if (!present(raw)) return def
  if (!/^\d{1,9}$/.test(raw.trim()) || Number(raw) < min || Number(raw) > max) throw invalid(`${name}: must be a whole number from ${min} to ${max}`)
  return Number(raw)
}

export function parseReportRequest(q: Query, now = Date.now(), defaultTz = 'UTC'): ReportRequest {
  const dims = parseGroupBy(q.group_by)
  const range = parseRange(q, now, defaultTz)
  const filters = parseFilters(q)

  let sort: SortKey
  if (present(q.sort)) sort = parseSort(q.sort)
  else {
    sort = isTimeDimension(dims[0]!) ? 'key' : 'clicks'
  }
  let order: 'asc' | 'desc'
  if (present(q.order)) {
    if (q.order !== 'asc' && q.order !== 'desc') throw invalid('order: must be asc or desc')
    order = q.order
  } else {
    order = sort === 'key' || sort === 'label' ? 'asc' : 'desc'
  }

  const limit = wholeNumber(q, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT)
  // `cursor` is the next_cursor of the previous page (an offset), for clients that page like other collections.
  const offset = present(q.cursor) ? wholeNumber(q, 'cursor', 0, 0, 1e9) : wholeNumber(q, 'offset', 0, 0, 1e9)
  const minClicks = wholeNumber(q, 'min_clicks', 0, 0, 1e9)
  return { ...range, dims, filters, sort, order, limit, offset, format: parseFormat(q), minClicks, having: parseHaving(q.having) }
}

const CONDITION = /^([a-z_]+(?:\.[A-Za-z]{3})?)\s*(<=|>=|<|>|=)\s*(-?\d{1,15}(?:\.\d{1,9})?)$/

/**
 * `having`: comma-separated `metric op number` (`profit<0,clicks>=100`); op one of < <= > >= =; metric one
 * of METRIC_NAMES or a money metric in one currency (`revenue.EUR`), as sort takes them.
 */
export function parseHaving(raw: string | undefined): Condition[] {
  if (!present(raw)) return []
  const hint = `metric op number, comma-separated; op one of < <= > >= =; metric one of ${METRIC_NAMES.join(', ')}, or ${MONEY_METRICS.join(', ')} in one currency (revenue.EUR)`
  const parts = raw.split(',').map((p) => p.trim())
  if (parts.length > MAX_CONDITIONS) throw invalid(`having: at most ${MAX_CONDITIONS} conditions`)
  return parts.map((part) => {
    const m = CONDITION.exec(part)
    let metric: SortKey | null = null
    if (m) {
      try {
        metric = parseSort(m[1]!)
      } catch {
        metric = null
      }
    }
    if (!m || metric === null || metric === 'key' || metric === 'label') {
      throw invalid(`having: ${JSON.stringify(part.slice(0, 60))} is not a condition like profit<0 (${hint})`)
    }
    return { metric, op: m[2] as HavingOp, value: Number(m[3]) }
  })
}

/** key, label, a metric, or a money metric in one currency: `revenue.EUR` (profit, epc, roi; any case). */
export function parseSort(raw: string): SortKey {
  if (raw === 'key' || raw === 'label' || (METRIC_NAMES as readonly string[]).includes(raw)) return raw as SortKey
  const m = /^([a-z]+)\.([A-Za-z]{3})$/.exec(raw)
  const code = m && (MONEY_METRICS as readonly string[]).includes(m[1]!) ? currencyCode(m[2]) : null
  if (m && code) return `${m[1] as MoneyMetric}.${code}`
  throw invalid(`sort: must be key, label, one of ${METRIC_NAMES.join(', ')}, or ${MONEY_METRICS.join(', ')} in one currency (revenue.EUR)`)
}

export function parseFormat(q: Query): Format {
  if (!present(q.format) || q.format === 'json') return 'json'
  if (q.format === 'csv') return 'csv'
  throw invalid('format: must be json or csv')
}

export function parseExportRequest(q: Query, now = Date.now(), defaultTz = 'UTC'): ExportRequest {
  const range = parseRange(q, now, defaultTz)
  const filters = parseFilters(q)
  if (present(q.format) && q.format !== 'csv') throw invalid('format: must be csv')
  return { ...range, filters }
}
