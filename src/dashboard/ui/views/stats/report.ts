// Period stats of a catalog list (issue 30): one report call per list (the period's numbers per campaign,
// source, offer or landing) and one for the sparklines (per day, or per hour for a single day). Lists show
// what the reports API answers, formatted here once for the home, the Sources, Offers and Landings lists.
import { api } from '../../api'
import { money, signClass } from '../../format'
import { addDays, isOneDay, periodQuery, type Period } from '../../period'

/** One currency's money of a report row (several currencies: never added). */
export interface MoneyEntry { currency: string; revenue: number; cost: number; profit: number; epc: number | null; roi: number | null }
export interface StatRow {
  key: string | number | null
  label?: string | null
  clicks: number; unique_clicks: number; conversions: number
  cost: number; revenue: number | null; profit: number | null; roi: number | null; cr: number | null; epc: number | null
  money?: MoneyEntry[]
  children?: StatRow[]
}
export interface StatReport { currency: string | null; currencies?: string[]; rows: StatRow[]; total: StatRow; total_rows: number }

export type MetricKey = 'clicks' | 'unique_clicks' | 'conversions' | 'cost' | 'revenue' | 'profit' | 'roi' | 'cr' | 'epc'
interface Metric { key: MetricKey; label: string; kind: 'count' | 'money' | 'pct'; signed?: boolean }
/** The columns of every list with numbers, in order. */
export const METRICS: Metric[] = [
  { key: 'clicks', label: 'Clicks', kind: 'count' },
  { key: 'unique_clicks', label: 'Unique', kind: 'count' },
  { key: 'conversions', label: 'Conv.', kind: 'count' },
  { key: 'cost', label: 'Cost', kind: 'money' },
  { key: 'revenue', label: 'Revenue', kind: 'money' },
  { key: 'profit', label: 'Profit', kind: 'money', signed: true },
  { key: 'roi', label: 'ROI %', kind: 'pct', signed: true },
  { key: 'cr', label: 'CR %', kind: 'pct' },
  { key: 'epc', label: 'EPC', kind: 'money' },
]
export const isMetric = (s: string | null): s is MetricKey => METRICS.some((m) => m.key === s)

export const pct = (v: number) => `${(Math.round(v * 100) / 100 || 0).toFixed(2)}%`

/** The money columns (their header names the currency when the report has one: `moneyUnit`). */
export const isMoney = (key: MetricKey) => METRICS.find((m) => m.key === key)?.kind === 'money'

/** The currency every amount of the report is in, or '' when it has several (each amount then names its own). */
export const moneyUnit = (report: StatReport | null | undefined) => report?.currency ?? ''

/**
 * A metric as shown: one part, or one part per currency. `value` carries the sign for the neg/pos classes.
 * `bare`: with one currency the amount alone (the column's header names the currency, so a list's row keeps
 * its numbers in view); several currencies always name theirs.
 */
export function metricParts(row: StatRow | undefined, key: MetricKey, report: StatReport, bare = false): Array<{ text: string; value: number }> {
  const metric = METRICS.find((m) => m.key === key)!
  const unit = bare ? null : report.currency
  if (!row) return [{ text: metric.kind === 'count' ? '0' : metric.kind === 'money' && key !== 'epc' ? money(0, unit) : '—', value: 0 }]
  if (metric.kind === 'count') return [{ text: String(row[key]), value: row[key] as number }]
  if (report.currency !== null || !row.money) {
    const v = row[key]
    return v === null || v === undefined ? [] : [{ text: metric.kind === 'pct' ? pct(v as number) : money(v as number, unit), value: v as number }]
  }
  // Several currencies: each currency's amount side by side (cost only where there is some).
  return row.money
    .filter((e) => typeof e[key as keyof MoneyEntry] === 'number' && !(key === 'cost' && e.cost === 0))
    .map((e) => {
      const v = e[key as keyof MoneyEntry] as number
      return { text: metric.kind === 'pct' ? `${pct(v)} ${e.currency}` : money(v, e.currency), value: v }
    })
}

/** The metric cells of a row (`data-col` for the phone cards; profit and ROI marked neg/pos, their sign kept). */
export function metricCells(row: StatRow | undefined, report: StatReport, bare = false): HTMLTableCellElement[] {
  return METRICS.map((m) => {
    const parts = metricParts(row, m.key, report, bare)
    const td = document.createElement('td')
    td.className = 'num'
    td.dataset.col = m.key
    if (parts.length === 0) { td.textContent = '—'; return td }
    if (m.signed) {
      const classes = new Set(parts.map((p) => signClass(p.value)))
      const one = classes.size === 1 ? [...classes][0] : null
      if (one) td.classList.add(one)
      if (parts.length > 1) {
        parts.forEach((p, i) => {
          if (i) td.append(' · ')
          const span = document.createElement('span')
          const c = signClass(p.value)
          if (c) span.className = c
          span.textContent = p.text
          td.append(span)
        })
        return td
      }
    }
    td.textContent = parts.map((p) => p.text).join(' · ')
    return td
  })
}

/**
 * The number a column sorts by. Several currencies: the cost currency's entry (the one with cost), else the
 * first currency's — as the reports API's own `sort=profit` does; amounts are never added.
 */
export function sortValue(row: StatRow | undefined, key: MetricKey, report: StatReport): number {
  if (!row) return key === 'roi' || key === 'cr' || key === 'epc' ? -Infinity : 0
  const metric = METRICS.find((m) => m.key === key)!
  if (metric.kind === 'count' || key === 'cost' || report.currency !== null || !row.money) {
    const v = row[key]
    return typeof v === 'number' ? v : -Infinity
  }
  const main = mainCurrency(report)
  const v = row.money.find((e) => e.currency === main)?.[key as keyof MoneyEntry]
  return typeof v === 'number' ? v : -Infinity
}

function mainCurrency(report: StatReport): string | undefined {
  const entries = report.total.money ?? []
  return (entries.find((e) => e.cost !== 0) ?? entries[0])?.currency
}

export interface Stats {
  report: StatReport
  /** Rows by their key (the id as a string). */
  byKey: Map<string, StatRow>
  /** Clicks per bucket (day or hour) by key; buckets in order. */
  spark: Map<string, number[]>
  buckets: string[]
  unit: 'day' | 'hour'
  /** The period these numbers are of. */
  period: Period
}

const get = <T>(query: Record<string, string>) => api<T>('GET', `/reports?${new URLSearchParams(query)}`)

/** The buckets of a period: its local days, or the 24 hours of its one day. */
export function bucketsOf(period: Period): string[] {
  if (isOneDay(period)) return Array.from({ length: 24 }, (_, h) => `${period.from}T${String(h).padStart(2, '0')}:00`)
  const days: string[] = []
  for (let d = period.from; d < period.to && days.length < 400; d = addDays(d, 1)) days.push(d)
  return days
}

/** The period's numbers per `dim` (campaign, source, offer, landing) and their clicks per day or hour: two calls. */
export async function loadStats(dim: string, period: Period): Promise<Stats> {
  const unit = isOneDay(period) ? 'hour' : 'day'
  const range = periodQuery(period)
  const [report, perBucket] = await Promise.all([
    get<StatReport>({ group_by: dim, ...range, limit: '1000' }),
    get<StatReport>({ group_by: `${dim},${unit}`, ...range, limit: '1000' }),
  ])
  const buckets = bucketsOf(period)
  const index = new Map(buckets.map((b, i) => [b, i]))
  const spark = new Map<string, number[]>()
  for (const row of perBucket.rows) {
    const values = buckets.map(() => 0)
    for (const child of row.children ?? []) {
      const i = index.get(String(child.key))
      if (i !== undefined) values[i] = child.clicks
    }
    spark.set(String(row.key), values)
  }
  return { report, byKey: new Map(report.rows.map((r) => [String(r.key), r])), spark, buckets, unit, period }
}
