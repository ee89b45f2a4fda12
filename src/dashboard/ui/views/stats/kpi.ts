// The KPI strip of the home: today so far against yesterday up to the same local time (period.ts
// todayVsYesterday), from the totals of two report calls. Money is per currency, never added.
import { api } from '../../api'
import { h, mount } from '../../dom'
import { money } from '../../format'
import { todayVsYesterday } from '../../period'
import { pct, type MoneyEntry, type StatReport, type StatRow } from './report'

type Key = 'clicks' | 'conversions' | 'cost' | 'revenue' | 'profit' | 'roi'
const KPIS: Array<{ key: Key; label: string; money?: boolean }> = [
  { key: 'clicks', label: 'Clicks' }, { key: 'conversions', label: 'Conversions' },
  { key: 'cost', label: 'Cost', money: true }, { key: 'revenue', label: 'Revenue', money: true },
  { key: 'profit', label: 'Profit', money: true }, { key: 'roi', label: 'ROI', money: true },
]

/** A total's value of `key` in `currency` (null: not defined, e.g. ROI without cost). */
function valueOf(report: StatReport, total: StatRow, key: Key, currency: string | null): number | null {
  if (key === 'clicks' || key === 'conversions') return total[key]
  if (report.currency !== null || !total.money) return report.currency === currency || currency === null ? total[key] : key === 'roi' ? null : 0
  const e = total.money.find((m) => m.currency === currency)
  return e ? (e[key as keyof MoneyEntry] as number | null) : key === 'roi' ? null : 0
}

const currenciesOf = (r: StatReport) => (r.currency !== null ? [r.currency] : r.currencies ?? [])

function change(now: number | null, before: number | null, key: Key): { text: string; cls: string | null } {
  if (now === null || before === null) return { text: '—', cls: null }
  // ROI is a percentage already: its change is in points.
  const delta = key === 'roi' ? now - before : before === 0 ? null : ((now - before) / Math.abs(before)) * 100
  if (delta === null) return { text: now === 0 ? '—' : 'new', cls: null }
  const arrow = delta > 0 ? '▲' : delta < 0 ? '▼' : '='
  const text = `${arrow} ${Math.abs(Math.round(delta * 10) / 10).toFixed(1)}${key === 'roi' ? ' pt' : '%'}`
  // Cost going up is not a win: only profit, ROI, revenue, clicks and conversions are coloured.
  const good = key === 'cost' ? null : delta > 0 ? 'pos' : delta < 0 ? 'neg' : null
  return { text, cls: good }
}

const show = (v: number | null, key: Key, currency: string | null) =>
  v === null ? '—' : key === 'roi' ? pct(v) : key === 'clicks' || key === 'conversions' ? String(v) : money(v, currency)

export function kpiStrip(tz: string): { el: HTMLElement; load: () => Promise<void> } {
  const list = h('dl', { class: 'kpis' })
  const el = h('section', { class: 'kpi-strip', 'data-kpi': '', 'aria-label': 'Today so far against yesterday at the same time' }, list)
  const load = async () => {
    const ranges = todayVsYesterday(tz)
    const read = (q: Record<string, string>) => api<StatReport>('GET', `/reports?${new URLSearchParams({ group_by: 'day', ...q })}`)
    const [today, yesterday] = await Promise.all([read(ranges.today), read(ranges.yesterday)])
    const currencies = [...new Set([...currenciesOf(today), ...currenciesOf(yesterday)])].sort()
    const several = currencies.length > 1
    const items = KPIS.flatMap((k) => (k.money ? (currencies.length ? currencies : [null]) : [null]).map((cur) => {
      const now = valueOf(today, today.total, k.key, cur)
      const before = valueOf(yesterday, yesterday.total, k.key, cur)
      const c = change(now, before, k.key)
      const signed = (k.key === 'profit' || k.key === 'roi') && now !== null ? (now < 0 ? 'neg' : now > 0 ? 'pos' : null) : null
      return h('div', { class: 'kpi', 'data-metric': k.key, 'data-currency': k.money && several ? cur : null },
        h('dt', {}, k.label, k.money && several ? ` (${cur})` : ''),
        h('dd', { class: `kpi-value${signed ? ` ${signed}` : ''}` }, show(now, k.key, cur)),
        h('dd', { class: `kpi-change${c.cls ? ` ${c.cls}` : ''}`, title: 'against yesterday up to the same time' }, c.text, ' ', h('span', { class: 'muted kpi-before' }, `vs ${show(before, k.key, cur)}`)))
    }))
    mount(list, items)
  }
  return { el, load }
}
