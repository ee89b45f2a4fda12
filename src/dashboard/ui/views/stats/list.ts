// What the lists with numbers share (the home's campaigns; sources, offers, landings): the period bar, the
// stats columns with their sparkline, client-side sort over any column, auto-refresh, and the state
// (period, sort, order, search, filters) in the URL. A view keeps its own columns and controls and asks
// this module for the numbers of each row by its id.
import { can, type Me } from '../../api'
import { h } from '../../dom'
import { periodFromParams, periodToParams, type Period } from '../../period'
import { currentParams, writeParams } from '../../url-state'
import { periodBar } from './period-bar'
import { autoRefresh } from './refresh'
import { isMetric, isMoney, loadStats, METRICS, metricCells, moneyUnit, sortValue, type MetricKey, type Stats } from './report'
import { sparkline } from './sparkline'
import './stats.css'

/** The instance's time zone (GET /me `time_zone`), UTC when the server does not say. */
export const instanceTz = (me: Me) => me.time_zone || 'UTC'

export interface ListStats {
  /** False for a list without a dimension, or a user who may not read reports: the list shows no numbers. */
  enabled: boolean
  sort: string
  ascending: boolean
  search: string
  period: Period
  stats: Stats | null
  /** Toolbar pieces: the period bar and the refresh control (empty when disabled). */
  controls: HTMLElement
  /** Header cells of the stats columns (sortable through `header`). */
  headers(header: (label: string, key: string, numeric?: boolean) => HTMLTableCellElement): HTMLTableCellElement[]
  /** The stats cells of a row by its id: the metrics, then the sparkline. */
  cells(id: number | string): HTMLTableCellElement[]
  /** The footer cells: the period's total of every row (not only the shown ones). */
  totalCells(): HTMLTableCellElement[]
  /** Sorts by a stats column: null when `sort` is not one (the view sorts its own columns). */
  compare(a: number | string, b: number | string): number | null
  /** Writes the state to the URL, with the view's own filters. */
  save(extra?: Record<string, string>): void
  load(): Promise<void>
  /** Marks `table` with the range its numbers are of (`data-range="from/to"`, to exclusive): a hook for tests. */
  mark(table: Element): void
  start(screen: Element): void
}

export async function listStats(opts: { me: Me; dim: string | null; params: URLSearchParams; defaultSort: string; sorts: string[]; rerender: () => void }): Promise<ListStats> {
  const { me, params } = opts
  const tz = instanceTz(me)
  const enabled = opts.dim !== null && can(me, 'reports', 'read')
  const sortParam = params.get('sort')
  const order = params.get('order')
  let extra: Record<string, string> = {}
  // Only the latest load lands (a quick second period click must not be overwritten by the first's answer).
  let loads = 0
  // The money headers' currency line: the cells show bare amounts when the period's report has one currency.
  // The phone cards read a column's name from the header's data-label (dom.ts labelCells): "Cost (USD)".
  const units: Array<{ th: HTMLElement; unit: HTMLElement; label: string }> = []
  const showUnits = () => {
    const currency = moneyUnit(self.stats?.report)
    for (const u of units) {
      u.unit.textContent = currency
      u.th.setAttribute('data-label', currency ? `${u.label} (${currency})` : u.label)
    }
  }
  const self: ListStats = {
    enabled,
    sort: sortParam && (opts.sorts.includes(sortParam) || (enabled && (isMetric(sortParam) || sortParam === 'spark'))) ? sortParam : opts.defaultSort,
    ascending: order ? order !== 'desc' : !(enabled && isMetric(sortParam)),
    search: params.get('q') ?? '',
    period: periodFromParams(params, tz),
    stats: null,
    controls: h('div'),
    headers: (header) => {
      if (!enabled) return []
      units.length = 0
      const cells = METRICS.map((m) => {
        const th = header(m.label, m.key, true)
        if (isMoney(m.key)) {
          const unit = h('span', { class: 'unit', 'data-unit': '' })
          units.push({ th, unit, label: m.label })
          th.append(unit)
        }
        return th
      })
      showUnits()
      return [...cells, header('Trend', 'spark', true)]
    },
    cells: (id) => {
      if (!enabled || !self.stats) return []
      const key = String(id)
      const row = self.stats.byKey.get(key)
      const spark = self.stats.spark.get(key) ?? self.stats.buckets.map(() => 0)
      return [...metricCells(row, self.stats.report, true), h('td', { class: 'spark-cell', 'data-col': 'trend' }, sparkline(spark, self.stats.buckets, self.stats.unit))]
    },
    totalCells: () => (enabled && self.stats ? [...metricCells(self.stats.report.total, self.stats.report, true), h('td', {})] : []),
    compare: (a, b) => {
      if (!enabled || !self.stats) return null
      const s = self.stats
      if (self.sort === 'spark') {
        const sum = (id: number | string) => (s.spark.get(String(id)) ?? []).reduce((x, y) => x + y, 0)
        return sum(a) - sum(b)
      }
      if (!isMetric(self.sort)) return null
      const key: MetricKey = self.sort
      const va = sortValue(s.byKey.get(String(a)), key, s.report)
      const vb = sortValue(s.byKey.get(String(b)), key, s.report)
      return va === vb ? 0 : va < vb ? -1 : 1
    },
    save: (more) => {
      if (more) extra = more
      const p = currentParams()
      for (const k of ['period', 'from', 'last', 'sort', 'order', 'q', 'refresh', ...Object.keys(extra)]) p.delete(k)
      if (enabled) periodToParams(self.period, p)
      p.set('sort', self.sort)
      p.set('order', self.ascending ? 'asc' : 'desc')
      p.set('q', self.search)
      if (enabled && !refresh.on) p.set('refresh', 'off')
      for (const [k, v] of Object.entries(extra)) p.set(k, v)
      writeParams(p)
    },
    load: async () => {
      if (!enabled) return
      const mine = ++loads
      const stats = await loadStats(opts.dim!, self.period)
      if (mine !== loads) return
      self.stats = stats
      showUnits()
      refresh.control.updated()
    },
    mark: (table) => { if (self.stats) table.setAttribute('data-range', `${self.stats.period.from}/${self.stats.period.to}`) },
    start: (screen) => { if (enabled) refresh.control.start(screen) },
  }
  const refresh = {
    on: params.get('refresh') !== 'off',
    control: autoRefresh({
      on: params.get('refresh') !== 'off', tz,
      reload: async () => { await self.load(); opts.rerender() },
      onToggle: (on) => { refresh.on = on; self.save() },
    }),
  }
  if (enabled) {
    self.controls = h('div', { class: 'stats-controls' },
      periodBar(self.period, (p) => {
        self.period = p
        self.save()
        void self.load().then(opts.rerender, (err) => { refresh.control.el.querySelector('[data-updated]')!.textContent = `Update failed: ${(err as Error).message}` })
      }),
      refresh.control.el)
    // The list stays usable without its numbers (a report error is said, not thrown).
    await self.load().catch((err) => { refresh.control.el.querySelector('[data-updated]')!.textContent = `Numbers unavailable: ${(err as Error).message}` })
  }
  return self
}
