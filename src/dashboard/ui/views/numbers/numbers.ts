// The numbers beside an editor's entries (issue 30, item 5): a report row of /admin/api/reports shown as a
// compact "numbers" cell (clicks, CR, EPC, landing CTR, profit, ROI…). Money is shown per currency and never
// added; profit and ROI carry `neg`/`pos` (the sign stays visible, colour is only a second cue).
import { h } from '../../dom'
import { money, signClass } from '../../format'
import './numbers.css'

export interface MoneyEntry { currency: string; revenue: number | null; cost: number | null; profit: number | null; epc: number | null; roi: number | null }
export interface ReportRow {
  key: string | number | null; label: string | null
  clicks: number; conversions: number; landing_views: number; landing_clicks: number; landing_ctr: number | null
  revenue: number | null; cost: number; profit: number | null; roi: number | null; cr: number | null; epc: number | null
  money?: MoneyEntry[]; children?: ReportRow[]
}
export interface Report { from: string; to: string; tz: string; currency: string | null; currencies?: string[]; rows: ReportRow[]; total: ReportRow }

export type Col = 'clicks' | 'conversions' | 'cr' | 'epc' | 'landing_ctr' | 'revenue' | 'profit' | 'roi'
const LABEL: Record<Col, string> = { clicks: 'Clicks', conversions: 'Conv.', cr: 'CR', epc: 'EPC', landing_ctr: 'LP CTR', revenue: 'Revenue', profit: 'Profit', roi: 'ROI' }

/** A percentage of the API (already × 100): "12.50 %"; none: "—". */
export const percent = (x: number | null | undefined) => (x === null || x === undefined ? '—' : `${x.toFixed(2)} %`)
/** EPC keeps 4 decimals (a few cents per click is the usual size): "0.0250 USD". */
export const epcText = (x: number, currency: string | null) => `${(Math.round(x * 10_000) / 10_000 || 0).toFixed(4)}${currency ? ` ${currency}` : ''}`
export const count = (n: number) => n.toLocaleString('en-US')

/** A money metric of a row: one part per currency (several currencies: the row's `money` entries). */
function moneyParts(row: ReportRow, col: 'revenue' | 'profit' | 'epc' | 'roi', currency: string | null): Array<{ text: string; value: number | null }> {
  const fmt = (v: number, cur: string | null) => (col === 'epc' ? epcText(v, cur) : col === 'roi' ? percent(v) : money(v, cur))
  if (row.money?.length) {
    return row.money.filter((e) => typeof e[col] === 'number').map((e) => ({ text: `${fmt(e[col]!, e.currency)}${col === 'roi' ? ` (${e.currency})` : ''}`, value: e[col] }))
  }
  const v = row[col]
  return [{ text: typeof v === 'number' ? fmt(v, currency) : '—', value: v }]
}

/** One metric of a row as a labelled item: `<span data-col="cr"><span class="n-label">CR</span> <span class="n-value">…</span></span>`. */
export function metricItem(row: ReportRow | null, col: Col, currency: string | null): HTMLElement {
  let value: Array<HTMLElement | string>
  if (!row) value = ['—']
  else if (col === 'clicks' || col === 'conversions') value = [count(row[col])]
  else if (col === 'cr' || col === 'landing_ctr') value = [percent(row[col])]
  else {
    const parts = moneyParts(row, col, currency)
    const signed = col === 'profit' || col === 'roi'
    value = parts.length === 0 ? ['—'] : parts.flatMap((p, i) => [i ? ' · ' : '', signed ? h('span', { class: signClass(p.value) }, p.text) : p.text]).filter((x) => x !== '')
  }
  return h('span', { class: 'n-item', 'data-col': col }, h('span', { class: 'n-label' }, LABEL[col]), ' ', h('span', { class: 'n-value' }, value))
}

/**
 * The numbers cell: the chosen metrics of a row (null: no traffic in the period, every metric "—"), with an
 * optional note (a share of clicks against the share of weight).
 */
export function numbersCell(row: ReportRow | null, cols: readonly Col[], currency: string | null, ...extra: Array<HTMLElement | null>): HTMLElement {
  return h('span', { class: 'numbers', 'data-numbers': row ? '' : 'none' }, cols.map((c) => metricItem(row, c, currency)), extra)
}

/** "clicks 48 % · weight 50 %": where the traffic went against what the weights ask for. */
export function shareItem(clickShare: number | null, weightShare: number | null): HTMLElement {
  const p = (x: number | null) => (x === null ? '—' : `${Math.round(x * 100)} %`)
  return h('span', { class: 'n-item n-share', 'data-col': 'share', title: 'its share of the clicks of the entries listed here, in the period · its share of the weight (the auto weight while auto-weights sets it)' },
    h('span', { class: 'n-label' }, 'Share'), ' ', h('span', { class: 'n-value' }, `clicks ${p(clickShare)} · weight ${p(weightShare)}`))
}
