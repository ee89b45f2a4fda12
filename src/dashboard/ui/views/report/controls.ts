// The report form (issue 30): up to three groupings, the period (presets in the instance's time zone, or custom
// days), the catalog filters by name, the minimum clicks and the metric conditions (→ `having`), and the column
// picker. It reads a state and writes one back; the screen runs the report.
import { field, h } from '../../dom'
import { isPreset, lastDay, periodOf, PRESETS } from '../../period'
import { DIMENSIONS, dimLabel, FILTERS, HAVING_OPS, METRICS, type Condition, type ReportState } from './state'

export interface Picker { param: (typeof FILTERS)[number]['param']; label: string; items: Array<{ id: number; name: string }> }

const OP_LABEL: Record<string, string> = { '<': '<', '<=': '≤', '>': '>', '>=': '≥', '=': '=' }

export function reportForm(state: ReportState, pickers: Picker[], instanceTz: string) {
  const level = (i: number) => h('select', { name: `level${i}` },
    i > 0 ? h('option', { value: '' }, '(none)') : null,
    DIMENSIONS.map((d) => h('option', { value: d, selected: state.levels[i] === d }, dimLabel(d))))
  const levels = [0, 1, 2].map(level)
  const preset = h('select', { name: 'period' }, PRESETS.map((p) => h('option', { value: p.id, selected: p.id === state.period.preset }, p.label)))
  const from = h('input', { name: 'from', type: 'date', value: state.period.from })
  const last = h('input', { name: 'last', type: 'date', value: lastDay(state.period) })
  const tz = h('input', { name: 'tz', value: state.tzOverride ?? '', placeholder: instanceTz, size: 16 })
  const custom = [field('From', from), field('To (inclusive)', last)]
  const showCustom = () => { for (const f of custom) f.hidden = preset.value !== 'custom' }
  preset.addEventListener('change', showCustom)
  showCustom()
  const selects = pickers.map((p) => ({ p, select: h('select', { name: p.param },
    h('option', { value: '' }, '(all)'), p.items.map((i) => h('option', { value: i.id, selected: String(i.id) === state.filters[p.param] }, i.name))) }))
  const minClicks = h('input', { name: 'min_clicks', type: 'number', min: 0, step: 1, value: state.minClicks ?? '', placeholder: '0' })

  // Metric conditions: one row each (metric, comparison, number).
  const conditions = h('ol', { class: 'conditions having', 'aria-label': 'Metric conditions' })
  const conditionRow = (c: Condition) => {
    const metric = h('select', { name: 'having_metric', 'aria-label': 'Metric' },
      METRICS.map((m) => h('option', { value: m.id, selected: m.id === c.metric }, m.label)),
      METRICS.some((m) => m.id === c.metric) ? null : h('option', { value: c.metric, selected: true }, c.metric))
    const op = h('select', { name: 'having_op', 'aria-label': 'Comparison' }, HAVING_OPS.map((o) => h('option', { value: o, selected: o === c.op }, OP_LABEL[o])))
    const value = h('input', { name: 'having_value', type: 'number', step: 'any', value: c.value, 'aria-label': 'Number', required: true })
    const li = h('li', { class: 'condition-head' }, metric, op, value,
      h('button', { type: 'button', class: 'small', 'aria-label': 'Remove condition', onclick: () => li.remove() }, '×'))
    return li
  }
  for (const c of state.having) conditions.append(conditionRow(c))
  const addCondition = h('button', { type: 'button', class: 'small', 'data-add-condition': '', onclick: () => conditions.append(conditionRow({ metric: 'profit', op: '<', value: '0' })) }, 'Add condition')

  const columnBoxes = METRICS.map((m) => h('input', { type: 'checkbox', name: 'col', value: m.id, checked: state.columns.includes(m.id) }))
  const columns = h('details', { class: 'columns' }, h('summary', {}, 'Columns'),
    h('div', { class: 'scopes' }, columnBoxes.map((b, i) => h('label', { class: 'scope' }, b, ' ', METRICS[i]!.label))))

  /** The form's values into `state` (the page goes back to the first). */
  const read = (s: ReportState) => {
    const picked = levels.map((l) => l.value).filter((v, i, all) => v && all.indexOf(v) === i) as ReportState['levels']
    s.levels = picked.length ? picked : ['campaign']
    s.tzOverride = tz.value.trim() || null
    const zone = s.tzOverride ?? instanceTz
    s.period = periodOf(isPreset(preset.value) ? preset.value : '7d', zone, Date.now(), { from: from.value, last: last.value })
    for (const { p, select } of selects) { if (select.value) s.filters[p.param] = select.value; else delete s.filters[p.param] }
    s.minClicks = /^\d+$/.test(minClicks.value.trim()) ? Number(minClicks.value.trim()) : null
    s.having = [...conditions.querySelectorAll('li')].map((li) => ({
      metric: li.querySelector<HTMLSelectElement>('[name=having_metric]')!.value,
      op: li.querySelector<HTMLSelectElement>('[name=having_op]')!.value,
      value: li.querySelector<HTMLInputElement>('[name=having_value]')!.value,
    }))
    s.page = 1
  }
  const readColumns = (s: ReportState) => {
    const cols = columnBoxes.filter((b) => b.checked).map((b) => b.value) as ReportState['columns']
    s.columns = cols.length ? cols : ['clicks']
  }
  /** After a drill-down or a removed crumb: the form shows the state again. */
  const show = (s: ReportState) => {
    levels.forEach((l, i) => { l.value = s.levels[i] ?? '' })
    preset.value = s.period.preset
    from.value = s.period.from
    last.value = lastDay(s.period)
    showCustom()
    for (const { p, select } of selects) select.value = s.filters[p.param] ?? ''
    minClicks.value = s.minClicks === null ? '' : String(s.minClicks)
    conditions.replaceChildren(...s.having.map(conditionRow))
  }

  const fields = h('div', { class: 'filters' },
    field('Group by', levels[0]!), field('Then by', levels[1]!), field('Then by (3rd)', levels[2]!),
    field('Period', preset), custom, field('Time zone', tz, `Default: ${instanceTz}`),
    selects.map(({ p, select }) => field(p.label, select)),
    field('Min. clicks', minClicks, 'Rows with fewer clicks are left out'))
  const metricFilters = h('fieldset', { class: 'having-set' }, h('legend', {}, 'Only rows where'), conditions, addCondition)
  return { fields, metricFilters, columns, read, readColumns, show }
}
