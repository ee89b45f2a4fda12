// How a report's numbers read in a cell: counts as they are, ratios with two decimals, money with its currency
// (format.ts). Several currencies in the range: money per currency side by side, never added.
import { money, perCurrency, signClass as toneOf } from '../../format'
import { METRICS } from './state'

export interface Row { key: string | number | null; label: string | null; children?: Row[]; money?: Money[]; [metric: string]: unknown }
export interface Money { currency: string; revenue: number; cost: number; profit: number; epc: number | null; roi: number | null }
export interface Report {
  group_by: string[]; tz: string; from: string; to: string; currency: string | null; currencies?: string[]
  rows: Row[]; total: Row; matched_total?: Row; total_rows: number; limit: number; offset: number; next_cursor: string | null
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)

/** The currency cost is counted in: the one currency, or (several) the entry that holds the cost. */
export function costCurrency(report: Report): string | null {
  if (report.currency !== null) return report.currency
  const entries = report.total.money ?? []
  return (entries.find((m) => m.cost !== 0) ?? entries[0])?.currency ?? null
}

/** The number a money metric or ROI reads in for sign and rules: with several currencies, the cost currency's entry. */
export function valueOf(report: Report, row: Row, metric: string): number | null {
  if (report.currency !== null || !Array.isArray(row.money) || !['revenue', 'profit', 'epc', 'roi'].includes(metric)) return num(row[metric])
  const cur = costCurrency(report)
  return num(row.money.find((m) => m.currency === cur)?.[metric as keyof Money])
}

export function cellText(report: Report, row: Row, metric: string): string {
  const kind = METRICS.find((m) => m.id === metric)?.kind ?? 'count'
  const multi = report.currency === null && Array.isArray(row.money)
  if (kind === 'count') return num(row[metric]) === null ? '—' : String(row[metric])
  if (metric === 'roi' && multi) {
    const parts = row.money!.filter((m) => num(m.roi) !== null).map((m) => `${m.roi!.toFixed(2)} (${m.currency})`)
    return parts.length ? parts.join(' · ') : '—'
  }
  if (kind === 'ratio') { const v = num(row[metric]); return v === null ? '—' : v.toFixed(2) }
  if (metric === 'cost') return money(num(row.cost) ?? 0, costCurrency(report))
  if (multi) return perCurrency(row.money as unknown as Array<Record<string, unknown>>, metric)
  const v = num(row[metric])
  return v === null ? '—' : money(v, report.currency)
}

/** `neg`/`pos` on profit and ROI cells (the sign stays in the text: colour is never the only mark). */
export function signClass(report: Report, row: Row, metric: string): string {
  if (metric !== 'profit' && metric !== 'roi') return ''
  const v = valueOf(report, row, metric)
  return toneOf(v) ?? ''
}
