// The report chart (issue 30): clicks and conversions as bars per day (per hour for a single day), revenue and
// cost as lines, one slot per day or hour of the range with zero where the report has no row (never a line
// drawn across empty days), ticks on day (hour) boundaries only, a legend that reads the range's totals without
// hovering (the hovered slot's values while hovering), and a width that follows its container.
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { h, mount } from '../../dom'
import { money } from '../../format'
import { addDays } from '../../period'
import type { Money, Report, Row } from './cells'

const HEIGHT = 240
let plot: uPlot | null = null
let observer: ResizeObserver | null = null

/** Every day from..to (to exclusive), or the 24 hours of one day: the keys the report uses for them. */
export function slots(from: string, to: string, hourly: boolean): string[] {
  if (hourly) return Array.from({ length: 24 }, (_, hr) => `${from}T${String(hr).padStart(2, '0')}:00`)
  const out: string[] = []
  for (let d = from; d < to && out.length < 400; d = addDays(d, 1)) out.push(d)
  return out
}

const label = (key: string) => (key.length === 10 ? key.slice(5) : key.slice(11))

export function drawChart(el: HTMLElement, legend: HTMLElement, report: Report, keys: string[]): void {
  plot?.destroy()
  plot = null
  observer?.disconnect()
  // Several currencies: revenue and cost lines in the cost currency's entry (named in the label), never a sum.
  const entries = report.total.money
  const cur = report.currency ?? (entries ? ((entries.find((m) => m.cost !== 0) ?? entries[0])?.currency ?? null) : null)
  const revenueOf = (r: Row | undefined) => report.currency !== null || !entries
    ? Number(r?.revenue ?? 0) : Number((r?.money as Money[] | undefined)?.find((m) => m.currency === cur)?.revenue ?? 0)
  const byKey = new Map(report.rows.map((r) => [String(r.key), r]))
  if (report.rows.length === 0) {
    mount(el, h('p', {}, 'No data to chart in this range.'))
    mount(legend)
    return
  }
  el.replaceChildren()
  // Local wall-clock keys drawn as UTC so the axis reads them as they are (the report's time zone).
  const x = keys.map((k) => Date.parse(k.length === 10 ? `${k}T00:00:00Z` : `${k}:00Z`) / 1000)
  const col = (name: string) => keys.map((k) => Number(byKey.get(k)?.[name] ?? 0))
  const data: uPlot.AlignedData = [x, col('clicks'), col('conversions'), keys.map((k) => revenueOf(byKey.get(k))), col('cost')]
  const step = keys[0]?.length === 10 ? 86_400 : 3_600
  const names = ['Clicks', 'Conversions', cur ? `Revenue (${cur})` : 'Revenue', cur ? `Cost (${cur})` : 'Cost']
  const sum = (i: number) => (data[i] as number[]).reduce((a, b) => a + b, 0)
  const show = (idx: number | null) => {
    const at = (i: number) => (idx === null ? sum(i) : (data[i] as number[])[idx]!)
    const head = idx === null ? `${keys.length === 24 && step === 3_600 ? 'Day' : `${keys.length} days`} total` : keys[idx]!.replace('T', ' ')
    mount(legend, h('strong', {}, head, ': '), names.map((n, i) => h('span', { class: `legend-item s${i + 1}` },
      `${n} `, h('b', {}, i < 2 ? String(at(i + 1)) : money(at(i + 1), cur)))))
  }
  const bars = uPlot.paths.bars!
  const width = () => Math.max(280, el.clientWidth || 600)
  plot = new uPlot({
    width: width(),
    height: HEIGHT,
    legend: { show: false },
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    scales: { x: { time: true, range: (_u, min, max) => [min - step / 2, max + step / 2] } },
    series: [
      {},
      { label: names[0], stroke: '#1d4ed8', fill: 'rgba(29,78,216,.55)', scale: 'n', paths: bars({ size: [0.45, 40], align: -1 }), points: { show: false } },
      { label: names[1], stroke: '#15803d', fill: 'rgba(21,128,61,.8)', scale: 'n', paths: bars({ size: [0.45, 40], align: 1 }), points: { show: false } },
      { label: names[2], stroke: '#7e22ce', width: 2, scale: 'money' },
      { label: names[3], stroke: '#b91c1c', width: 2, scale: 'money', dash: [4, 3] },
    ],
    axes: [
      {
        // Ticks on the slots themselves (midnights or whole hours), thinned to fit: never 8am/4pm on daily data.
        splits: (u) => {
          const every = Math.max(1, Math.ceil(keys.length / Math.max(1, Math.floor(u.bbox.width / devicePixelRatio / 56))))
          return x.filter((_, i) => i % every === 0)
        },
        values: (_u, splits) => splits.map((s) => label(keys[x.indexOf(s)] ?? '')),
      },
      { scale: 'n' },
      { scale: 'money', side: 1, grid: { show: false } },
    ],
    hooks: { setLegend: [(u) => show(u.cursor.idx ?? null)] },
  }, data, el)
  show(null)
  observer = new ResizeObserver(() => { if (plot && Math.abs(plot.width - width()) > 2) plot.setSize({ width: width(), height: HEIGHT }) })
  observer.observe(el)
}
