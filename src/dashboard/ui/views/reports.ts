// Reports: the report table (one or two groupings, filters, time range, time zone), a chart of clicks,
// conversions, revenue and cost per day or hour, drill-down from a row to the next grouping, CSV export.
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { api, can, type Me } from '../api'
import { field, h, mount } from '../dom'
import { showErrors } from '../forms'
import { perCurrency } from '../format'

const GROUPS = ['campaign', 'source', 'offer', 'landing', 'day', 'hour', 'currency', 'device', 'os', 'browser', 'referrer', 'sub1', 'sub2', 'sub3']
/** Drill-down: a row of one grouping opens the next one, filtered to that row. */
const NEXT: Record<string, string> = { campaign: 'landing', source: 'campaign', offer: 'campaign', landing: 'offer', day: 'hour' }
const FILTER_OF: Record<string, string> = { campaign: 'campaign_id', source: 'source_id', offer: 'offer_id', landing: 'landing_id' }
const COLUMNS = ['clicks', 'unique_clicks', 'conversions', 'revenue', 'cost', 'profit', 'roi', 'cr', 'epc'] as const

interface Row { key: string | number | null; label: string | null; children?: Row[]; [metric: string]: unknown }
interface Report { rows: Row[]; total: Row; from: string; to: string; currencies?: string[] }
type Money = Array<Record<string, unknown>>

const isoDay = (d: Date) => d.toISOString().slice(0, 10)
const fmt = (v: unknown) => (v === null || v === undefined ? '—' : typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : String(v))
/** Several currencies in the range: revenue, profit, roi and epc per currency in one cell (never added together). */
const PER_CURRENCY = new Set(['revenue', 'profit', 'roi', 'epc'])
function cell(row: Row, c: string): string {
  const money = row.money as Array<Record<string, unknown>> | undefined
  if (!Array.isArray(money)) return fmt(row[c])
  if (PER_CURRENCY.has(c)) return perCurrency(money, c)
  // Cost is in the cost currency: its entry names it.
  if (c === 'cost' && row.cost !== 0) return perCurrency(money.filter((m) => m.cost !== 0), 'cost')
  return fmt(row[c])
}

/** The catalog filters a reader may pick by name (each needs the read permission of its section). */
const FILTERS = [
  { param: 'campaign_id', label: 'Campaign', path: '/campaigns', section: 'campaigns' },
  { param: 'source_id', label: 'Source', path: '/sources', section: 'campaigns' },
  { param: 'offer_id', label: 'Offer', path: '/offers', section: 'campaigns' },
  { param: 'landing_id', label: 'Landing', path: '/landings', section: 'landings' },
] as const

export async function reportsView(me: Me): Promise<HTMLElement> {
  const today = new Date()
  const pickers = await Promise.all(FILTERS.filter((f) => can(me, f.section, 'read')).map(async (f) => {
    const items = (await api<{ items: Array<{ id: number; name: string }> }>('GET', `${f.path}?limit=500`)).items
    const select = h('select', { name: f.param }, h('option', { value: '' }, '(all)'), items.map((i) => h('option', { value: i.id }, i.name)))
    return { ...f, select }
  }))
  const group = h('select', { name: 'group_by' }, GROUPS.map((g) => h('option', { value: g }, g)))
  const second = h('select', { name: 'then_by' }, h('option', { value: '' }, '(none)'), GROUPS.map((g) => h('option', { value: g }, g)))
  const from = h('input', { name: 'from', type: 'date', value: isoDay(new Date(today.getTime() - 6 * 86_400_000)) })
  const to = h('input', { name: 'to', type: 'date', value: isoDay(today) })
  const tz = h('input', { name: 'tz', value: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC', 'aria-describedby': 'tz-hint' })
  const filters: Record<string, string> = {}
  const crumbs = h('p', { class: 'crumbs' })
  const table = h('div', { class: 'table-wrap' })
  const chart = h('div', { class: 'chart', role: 'img', 'aria-label': 'Clicks, conversions, revenue and cost over time' })
  const csv = h('a', { class: 'button', download: '' }, 'Export CSV')
  const form = h('form', { class: 'card filters' },
    field('Group by', group), field('Then by', second), field('From', from), field('To (inclusive)', to), field('Time zone', tz),
    pickers.map((p) => field(p.label, p.select)),
    h('p', { class: 'form-error', role: 'alert' }),
    h('button', { type: 'submit' }, 'Run report'), csv,
  )

  const query = (groupBy: string) => {
    const end = new Date(`${to.value}T00:00:00Z`)
    const q = new URLSearchParams({ group_by: groupBy, from: from.value, to: isoDay(new Date(end.getTime() + 86_400_000)), tz: tz.value, ...filters })
    return q.toString()
  }
  const groupBy = () => (second.value && second.value !== group.value ? `${group.value},${second.value}` : group.value)

  /** The pickers and the drill-down share one set of filters: a picker shows what the drill-down chose. */
  const syncPickers = () => { for (const p of pickers) p.select.value = filters[p.param] ?? '' }
  for (const p of pickers) {
    p.select.addEventListener('change', () => {
      if (p.select.value) filters[p.param] = p.select.value
      else delete filters[p.param]
    })
  }

  const run = async () => {
    syncPickers()
    try {
      const report = await api<Report>('GET', `/reports?${query(groupBy())}`)
      csv.setAttribute('href', `/admin/api/reports?${query(groupBy())}&format=csv`)
      mount(table, renderTable(report))
      mount(crumbs, Object.entries(filters).map(([k, v]) => h('span', { class: 'crumb' }, `${k} = ${v} `,
        h('button', { type: 'button', class: 'small', 'aria-label': `Remove filter ${k}`, onclick: () => { delete filters[k]; void run() } }, '×'))))
      const hourly = from.value === to.value
      const series = await api<Report>('GET', `/reports?${query(hourly ? 'hour' : 'day')}&limit=1000`)
      drawChart(chart, series, slots(from.value, to.value, hourly))
    } catch (err) {
      showErrors(form, err)
    }
  }

  const renderTable = (report: Report) => {
    const top = group.value
    const drill = (row: Row) => {
      const filter = FILTER_OF[top]
      const next = NEXT[top]
      if (!filter || !next || row.key === null) return null
      return h('button', { type: 'button', class: 'small', 'aria-label': `Drill into ${row.label ?? row.key}`, onclick: () => {
        filters[filter] = String(row.key)
        group.value = next
        second.value = ''
        void run()
      } }, '›')
    }
    const line = (row: Row, depth: number) => h('tr', { class: depth ? 'child' : '' },
      h('td', {}, depth ? '↳ ' : '', String(row.label ?? row.key ?? '(none)'), ' ', depth ? null : drill(row)),
      COLUMNS.map((c) => h('td', { class: 'num' }, cell(row, c))),
    )
    return h('table', {},
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, groupBy()), COLUMNS.map((c) => h('th', { scope: 'col', class: 'num' }, c)))),
      h('tbody', {}, report.rows.length === 0 ? h('tr', {}, h('td', { colspan: COLUMNS.length + 1 }, 'No data in this range.')) : null,
        report.rows.flatMap((r) => [line(r, 0), ...(r.children ?? []).map((c) => line(c, 1))])),
      h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, 'Total'), COLUMNS.map((c) => h('td', { class: 'num' }, cell(report.total, c))))),
    )
  }

  form.addEventListener('submit', (event) => { event.preventDefault(); void run() })
  void run()
  return h('section', { 'aria-labelledby': 'reports-title' }, h('h1', { id: 'reports-title' }, 'Reports'), form, crumbs, chart, table)
}

let plot: uPlot | null = null

/** Every day from..to (inclusive), or every hour of a single day: the keys the report uses for them. */
function slots(from: string, to: string, hourly: boolean): string[] {
  if (hourly) return Array.from({ length: 24 }, (_, hour) => `${from}T${String(hour).padStart(2, '0')}:00`)
  const out: string[] = []
  for (let t = Date.parse(`${from}T00:00:00Z`), end = Date.parse(`${to}T00:00:00Z`); t <= end && out.length < 400; t += 86_400_000) {
    out.push(new Date(t).toISOString().slice(0, 10))
  }
  return out
}

/**
 * Clicks and conversions on the left axis, revenue and cost on the right, one point per day or hour of the
 * range (zero where the report has no row), so the time axis is the range asked for. Several currencies in
 * the range: the revenue line is the cost currency's (the one cost is in), named in its label; never a sum.
 */
function drawChart(el: HTMLElement, report: Report, keys: string[]): void {
  const rows = report.rows
  const money = report.total.money as Money | undefined
  const cur = Array.isArray(money) ? String((money.find((m) => m.cost !== 0) ?? money[0])?.currency ?? '') : null
  const revenue = (r: Row | undefined) => cur === null ? Number(r?.revenue ?? 0) : Number((r?.money as Money | undefined)?.find((m) => m.currency === cur)?.revenue ?? 0)
  plot?.destroy()
  plot = null
  if (rows.length === 0) { mount(el, h('p', {}, 'No data to chart.')); return }
  el.replaceChildren()
  const byKey = new Map(rows.map((r) => [String(r.key), r]))
  // Local wall-clock keys shown as they read (the axis labels are in the report's time zone).
  const x = keys.map((k) => Date.parse(k.length === 10 ? `${k}T00:00:00Z` : `${k}:00Z`) / 1000)
  const col = (name: string) => keys.map((k) => Number(byKey.get(k)?.[name] ?? 0))
  plot = new uPlot({
    width: Math.max(300, el.clientWidth || 600),
    height: 240,
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    series: [
      {},
      { label: 'Clicks', stroke: '#2563eb', scale: 'n' },
      { label: 'Conversions', stroke: '#16a34a', scale: 'n', dash: [6, 3] },
      { label: cur ? `Revenue (${cur})` : 'Revenue', stroke: '#9333ea', scale: 'money' },
      { label: 'Cost', stroke: '#dc2626', scale: 'money', dash: [2, 2] },
    ],
    axes: [{}, { scale: 'n' }, { scale: 'money', side: 1 }],
  }, [x, col('clicks'), col('conversions'), keys.map((k) => revenue(byKey.get(k))), col('cost')], el)
}
