// Reports (issue 30): the report a media buyer acts on. Every grouping the API has, up to three levels; the
// period in the instance's time zone; filters by name; server-side sort and paging with the total; metric
// filters; a column picker; saved views; zone selection and blocking on sub-value reports; the chart. All of
// the state is in the URL (report/state.ts). The pieces live in report/*.ts.
import './report/report.css'
import { all, api, ApiError, can, type Me } from '../api'
import { h, mount } from '../dom'
import { clearErrors, showErrors } from '../forms'
import { addDays, isOneDay, periodOf } from '../period'
import { writeParams } from '../url-state'
import type { Report, Row } from './report/cells'
import { drawChart, slots } from './report/chart'
import { reportForm, type Picker } from './report/controls'
import { savedViews } from './report/saved'
import { apiQuery, FILTERS, isSubDim, metricLabel, PAGE_SIZES, stateFromParams, stateToParams, type ReportState } from './report/state'
import { reportTable } from './report/table'
import { zonePanel, type ZonePanel } from './report/select'

/** Drill-down: a row of one grouping opens the next one, filtered to that row. */
const NEXT: Record<string, string> = { campaign: 'landing', source: 'campaign', offer: 'campaign', landing: 'offer' }
/** What the clicks list (#/click) filters by, per grouping. */
const CLICK_FILTER: Record<string, string> = {
  campaign: 'campaign_id', source: 'source_id', offer: 'offer_id', landing: 'landing_id', country: 'country',
  ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`sub${i + 1}`, `sub${i + 1}`])),
}

export async function reportsView(me: Me, params: URLSearchParams = new URLSearchParams()): Promise<HTMLElement> {
  const instanceTz = (me as Me & { time_zone?: string }).time_zone ?? 'UTC'
  const state = stateFromParams(params, instanceTz)
  // Saved views are read beside the pickers' lists (one round trip, not two).
  const savedLoading = savedViews(state)
  const pickers: Picker[] = await Promise.all(FILTERS.filter((f) => can(me, f.section, 'read')).map(async (f) => ({
    param: f.param, label: f.label, items: await all<{ id: number; name: string }>(f.path),
  })))
  /** Names for the crumbs: the pickers', and those a drill-down saw on its row. */
  const names = new Map<string, string>()
  for (const p of pickers) for (const i of p.items) names.set(`${p.param}:${i.id}`, i.name)
  const sources = pickers.find((p) => p.param === 'source_id')?.items ?? []

  const form = reportForm(state, pickers, instanceTz)
  const crumbs = h('p', { class: 'crumbs', 'aria-label': 'Active filters' })
  const chart = h('div', { class: 'chart', role: 'img', 'aria-label': 'Clicks and conversions (bars), revenue and cost (lines) over time' })
  const legend = h('p', { class: 'legend', 'data-legend': '' })
  const tableWrap = h('div', { class: 'table-wrap' })
  const pager = h('nav', { class: 'pager toolbar', 'aria-label': 'Pages' })
  const staleNote = h('p', { class: 'stale', role: 'alert', hidden: true })
  const results = h('div', { class: 'results' }, staleNote, chart, legend, pager, tableWrap)
  const zoneSlot = h('div')
  const csv = h('a', { class: 'button', download: '' }, 'Export CSV')
  const controls = h('form', { class: 'card report-form' },
    form.fields, form.metricFilters, form.columns,
    h('p', { class: 'form-error', role: 'alert' }),
    h('div', { class: 'toolbar' }, h('button', { type: 'submit' }, 'Run report'), csv))
  const saved = await savedLoading

  let last: Report | null = null
  let zones: ZonePanel | null = null
  let zoneKey = ''
  let seq = 0

  const clicksHref = (chain: Row[]): string | null => {
    const q = new URLSearchParams()
    for (const f of FILTERS) if (state.filters[f.param]) q.set(f.param, state.filters[f.param]!)
    for (const [i, row] of chain.entries()) {
      const param = CLICK_FILTER[state.levels[i]!]
      if (!param || row.key === null) return null
      q.set(param, String(row.key))
    }
    q.set('from', state.period.from)
    q.set('to', state.period.to)
    q.set('tz', state.period.tz)
    return `#/click?${q}`
  }

  const drill = (row: Row): HTMLElement | null => {
    const top = state.levels[0]!
    const filter = FILTERS.find((f) => f.dim === top)
    const next = NEXT[top]
    const day = top === 'day' && typeof row.key === 'string'
    if (row.key === null || (!day && (!filter || !next))) return null
    return h('button', { type: 'button', class: 'small', 'aria-label': `Drill into ${row.label ?? row.key}`, onclick: () => {
      if (day) {
        state.period = periodOf('custom', state.period.tz, Date.now(), { from: String(row.key), last: String(row.key) })
        state.levels = ['hour']
      } else {
        state.filters[filter!.param] = String(row.key)
        if (row.label) names.set(`${filter!.param}:${row.key}`, row.label)
        state.levels = [next as ReportState['levels'][number]]
      }
      state.page = 1
      state.sort = null
      state.order = null
      form.show(state)
      void run()
    } }, '›')
  }

  const renderCrumbs = () => {
    const crumb = (text: string, remove: () => void) => h('span', { class: 'crumb' }, text, ' ',
      h('button', { type: 'button', class: 'small', 'aria-label': `Remove filter ${text}`, onclick: () => { remove(); state.page = 1; form.show(state); void run() } }, '×'))
    mount(crumbs,
      FILTERS.filter((f) => state.filters[f.param]).map((f) => {
        const id = state.filters[f.param]!
        return crumb(`${f.label}: ${names.get(`${f.param}:${id}`) ?? (id === '0' ? '(none)' : `#${id}`)}`, () => { delete state.filters[f.param] })
      }),
      state.minClicks !== null ? crumb(`Clicks ≥ ${state.minClicks}`, () => { state.minClicks = null }) : null,
      state.having.filter((c) => c.value.trim() !== '').map((c) => crumb(`${metricLabel(c.metric)} ${c.op.replace('<=', '≤').replace('>=', '≥')} ${c.value}`,
        () => { state.having = state.having.filter((x) => x !== c) })))
  }

  const renderPager = (report: Report) => {
    const first = report.total_rows === 0 ? 0 : report.offset + 1
    const end = report.offset + report.rows.length
    const pages = Math.max(1, Math.ceil(report.total_rows / state.size))
    const go = (page: number) => { state.page = page; void run() }
    const size = h('select', { name: 'size', 'aria-label': 'Rows per page' }, PAGE_SIZES.map((n) => h('option', { value: n, selected: n === state.size }, `${n} per page`)))
    size.addEventListener('change', () => { state.size = Number(size.value); go(1) })
    mount(pager,
      h('span', { 'data-pager': '' }, report.total_rows === 0 ? '0 of 0' : `${first}–${end} of ${report.total_rows}`),
      h('span', { class: 'pager-buttons' },
        h('button', { type: 'button', class: 'small', disabled: state.page <= 1, onclick: () => go(state.page - 1) }, '‹ Prev'), ' ',
        h('span', { class: 'muted' }, `page ${state.page} of ${pages}`), ' ',
        h('button', { type: 'button', class: 'small', disabled: end >= report.total_rows, onclick: () => go(state.page + 1) }, 'Next ›')),
      size)
  }

  const renderTable = () => {
    if (!last) return
    mount(tableWrap, reportTable(last, state, {
      sort: (by) => {
        const same = (state.sort ?? '') === by || (!state.sort && by === 'clicks')
        const desc = !(by === 'key' || by === 'label')
        state.order = same ? ((state.order ?? (desc ? 'desc' : 'asc')) === 'desc' ? 'asc' : 'desc') : desc ? 'desc' : 'asc'
        state.sort = by
        state.page = 1
        void run()
      },
      drill,
      clicksHref,
      selection: zones ? { values: zones.values, changed: () => zones!.changed() } : null,
    }))
  }

  const syncBoxes = () => { for (const b of tableWrap.querySelectorAll<HTMLInputElement>('input[data-zone]')) b.checked = zones?.values.has(b.dataset.zone!) ?? false }

  /** The zone panel on a sub-value report (a new one when the report's rows change meaning). */
  const updateZones = () => {
    // Same rows (grouping, period, filters): the selection stays across pages and sorts.
    const q = apiQuery(state, { limit: 1, offset: 0 })
    q.delete('sort')
    q.delete('order')
    const key = `${state.levels[0]}|${q}`
    if (!isSubDim(state.levels[0]!)) { zones = null; zoneKey = ''; zoneSlot.replaceChildren(); return }
    if (key === zoneKey && zones) return
    zoneKey = key
    zones = zonePanel(state, sources, can(me, 'campaigns', 'write'), syncBoxes)
    zoneSlot.replaceChildren(zones.el)
  }

  const run = async () => {
    const mine = ++seq
    writeParams(stateToParams(state))
    renderCrumbs()
    clearErrors(controls)
    const q = apiQuery(state)
    const exportQuery = apiQuery(state, { limit: 1000, offset: 0 })
    exportQuery.set('format', 'csv')
    csv.setAttribute('href', `/admin/api/reports?${exportQuery}`)
    const hourly = isOneDay(state.period)
    const series = new URLSearchParams({ group_by: hourly ? 'hour' : 'day', from: state.period.from, to: state.period.to, tz: state.period.tz, limit: '1000' })
    for (const f of FILTERS) if (state.filters[f.param]) series.set(f.param, state.filters[f.param]!)
    // The chart's series is asked for with the table, not after it; the table shows as soon as it is in.
    const timelineLoading = api<Report>('GET', `/reports?${series}`)
    timelineLoading.catch(() => {}) // its error is the one awaited below
    try {
      const report = await api<Report>('GET', `/reports?${q}`)
      if (mine !== seq) return
      last = report
      updateZones()
      renderTable()
      renderPager(report)
      const timeline = await timelineLoading
      if (mine !== seq) return
      drawChart(chart, legend, timeline, slots(state.period.from, hourly ? addDays(state.period.from, 1) : state.period.to, hourly))
      results.removeAttribute('data-stale')
      staleNote.hidden = true
    } catch (err) {
      if (mine !== seq) return
      // What is on screen no longer matches the form: say so, rather than let it look current.
      const message = err instanceof ApiError ? err.message : 'the server could not be reached'
      results.setAttribute('data-stale', '')
      staleNote.hidden = false
      staleNote.textContent = `Out of date: ${message}`
      showErrors(controls, err)
    }
  }

  controls.addEventListener('submit', (event) => {
    event.preventDefault()
    form.read(state)
    form.readColumns(state)
    void run()
  })
  form.columns.addEventListener('change', () => { form.readColumns(state); writeParams(stateToParams(state)); renderTable() })
  void run()
  return h('section', { 'aria-labelledby': 'reports-title', class: 'report-screen' },
    h('div', { class: 'toolbar' }, h('h1', { id: 'reports-title' }, 'Reports'), saved),
    controls, crumbs, results, zoneSlot)
}

