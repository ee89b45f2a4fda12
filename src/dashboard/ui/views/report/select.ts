// Zone selection on a sub-value report (issue 30): pick rows (or "Select losers" by a rule over every row of the
// report, not only the page), copy their values in the source's format (its zone list separator) or with a
// comma / new line, and block them for the source (the blocked-zones list keeps them, dated).
import { api, ApiError } from '../../api'
import { field, h, mount } from '../../dom'
import { copy } from '../../forms'
import { costCurrency, valueOf, type Report, type Row } from './cells'
import { apiQuery, dimLabel, type ReportState } from './state'

const SEPARATORS: Record<string, string> = { ',': 'Comma', '\n': 'New line', ';': 'Semicolon', ' ': 'Space' }

/** Rule A: cost ≥ X and no conversion. Rule B: ROI below Y % with at least N clicks. Rows without a value never match. */
export function losers(report: Report, rows: Row[], rule: { kind: 'cost'; cost: number } | { kind: 'roi'; roi: number; clicks: number }): string[] {
  return rows.filter((r) => {
    if (r.key === null) return false
    if (rule.kind === 'cost') return Number(r.cost) >= rule.cost && Number(r.conversions) === 0
    const roi = valueOf(report, r, 'roi')
    return roi !== null && roi < rule.roi && Number(r.clicks) >= rule.clicks
  }).map((r) => String(r.key))
}

/** Every top-level row of the report (metric filters included), in its sort order: what "select losers" reads. */
async function allRows(state: ReportState): Promise<{ report: Report; rows: Row[] }> {
  const rows: Row[] = []
  let first: Report | null = null
  for (let offset = 0; ; offset += 1000) {
    const page = await api<Report>('GET', `/reports?${apiQuery(state, { group_by: state.levels[0], limit: 1000, offset })}`)
    first ??= page
    rows.push(...page.rows)
    if (!page.next_cursor || rows.length >= 20_000) break
  }
  return { report: first!, rows }
}

export interface ZonePanel { el: HTMLElement; values: Set<string>; changed(): void }

export function zonePanel(state: ReportState, sources: Array<{ id: number; name: string }>, canBlock: boolean, onSelect: () => void): ZonePanel {
  const dim = state.levels[0]!
  const values = new Set<string>()
  let order: string[] = []
  const count = h('span', { 'data-selected-count': '', 'aria-live': 'polite' })
  const source = h('select', { name: 'zone_source' }, h('option', { value: '' }, '(none: choose a separator)'),
    sources.map((s) => h('option', { value: s.id, selected: String(s.id) === state.filters.source_id }, s.name)))
  const sep = h('select', { name: 'zone_separator' }, Object.entries(SEPARATORS).map(([v, l]) => h('option', { value: v }, l)))
  const formatNote = h('small', { 'data-format-note': '' })
  const text = h('textarea', { readonly: true, rows: 3, 'aria-label': 'Selected values', 'data-zone-text': '' })
  const status = h('p', { 'aria-live': 'polite', 'data-zone-status': '' })
  const copyButton = h('button', { type: 'button', 'data-copy-zones': '' }, 'Copy values')
  const blockButton = h('button', { type: 'button', 'data-block-zones': '' }, 'Block selected')

  /** Selected values in the report's order (losers first as found, then rows picked by hand). */
  const selected = () => [...order.filter((v) => values.has(v)), ...[...values].filter((v) => !order.includes(v))]
  const changed = () => {
    count.textContent = `${values.size} selected`
    onSelect()
  }

  // The source's zone-list format (its template's separator), else the separator chosen here.
  const separator = async (): Promise<string> => {
    if (!source.value) { formatNote.textContent = ''; return sep.value }
    try {
      const f = await api<{ separator: string; note?: string }>('GET', `/sources/${source.value}/zone-format`)
      sep.value = f.separator in SEPARATORS ? f.separator : sep.value
      formatNote.textContent = `${source.selectedOptions[0]?.textContent}'s format: ${SEPARATORS[f.separator] ?? JSON.stringify(f.separator)}${f.note ? ` (${f.note})` : ''}`
      return f.separator
    } catch (err) {
      formatNote.textContent = `No zone format for this source (${err instanceof ApiError ? err.message : 'unreachable'}): ${SEPARATORS[sep.value]}`
      return sep.value
    }
  }
  const fill = async () => { text.value = selected().join(await separator()) }
  source.addEventListener('change', () => void fill())
  sep.addEventListener('change', () => void fill())
  copyButton.addEventListener('click', async () => { await fill(); await copy(copyButton, text.value) })

  blockButton.addEventListener('click', async () => {
    const list = selected()
    if (!source.value) { status.textContent = 'Choose the source to block these values for.'; return }
    if (list.length === 0) { status.textContent = 'Nothing selected.'; return }
    status.textContent = 'Blocking…'
    try {
      // The API takes up to 1000 values a call: a longer selection goes in several, never cut.
      let fresh: number | null = 0
      for (let at = 0; at < list.length; at += 1000) {
        const body: Record<string, unknown> = { source_id: Number(source.value), dimension: dim, values: list.slice(at, at + 1000) }
        if (state.filters.campaign_id) body.campaign_id = Number(state.filters.campaign_id)
        const res = await api<{ items: unknown[]; added?: number }>('POST', '/blocked-zones', body)
        fresh = fresh !== null && typeof res.added === 'number' ? fresh + res.added : null
      }
      mount(status, `Blocked ${list.length} ${dimLabel(dim)} value${list.length === 1 ? '' : 's'}${fresh !== null ? ` (${fresh} new)` : ''} for ${source.selectedOptions[0]?.textContent}. `,
        h('a', { href: `#/blocked-zones?source_id=${source.value}` }, 'Blocked zones of this source'))
    } catch (err) {
      status.textContent = `Not blocked: ${err instanceof ApiError ? err.message : 'the server could not be reached'}`
    }
  })

  // "Select losers": a dialog with the two rules, over every row of the report.
  const ruleCost = h('input', { type: 'radio', name: 'loser_rule', value: 'cost', checked: true })
  const ruleRoi = h('input', { type: 'radio', name: 'loser_rule', value: 'roi' })
  const costMin = h('input', { name: 'loser_cost', type: 'number', min: 0, step: 'any', value: 1 })
  const roiMax = h('input', { name: 'loser_roi', type: 'number', step: 'any', value: -50 })
  const clicksMin = h('input', { name: 'loser_clicks', type: 'number', min: 0, step: 1, value: 50 })
  const dialogNote = h('p', { class: 'muted', 'data-loser-note': '' })
  const dialog = h('dialog', { class: 'losers', 'aria-labelledby': 'losers-title' },
    h('form', { method: 'dialog' },
      h('h2', { id: 'losers-title' }, 'Select losers'),
      h('p', {}, h('label', {}, ruleCost, ' Spend of at least '), costMin, ' with no conversion'),
      h('p', {}, h('label', {}, ruleRoi, ' ROI below '), roiMax, ' % with at least ', clicksMin, ' clicks'),
      dialogNote,
      h('menu', { class: 'toolbar' }, h('button', { value: 'cancel', class: 'small' }, 'Cancel'), h('button', { value: 'select', 'data-apply-losers': '' }, 'Select'))))
  for (const [input, label] of [[costMin, 'Spend at least'], [roiMax, 'ROI below (%)'], [clicksMin, 'At least clicks']] as const) input.setAttribute('aria-label', label)
  dialog.addEventListener('close', async () => {
    if (dialog.returnValue !== 'select') return
    status.textContent = 'Reading every row…'
    try {
      const { report, rows } = await allRows(state)
      const picked = losers(report, rows, ruleCost.checked
        ? { kind: 'cost', cost: Number(costMin.value) }
        : { kind: 'roi', roi: Number(roiMax.value), clicks: Number(clicksMin.value) })
      values.clear()
      for (const v of picked) values.add(v)
      order = picked
      const cur = costCurrency(report)
      status.textContent = `${picked.length} of ${rows.length} rows match.${report.currency === null && cur ? ` Several currencies: cost and ROI read in ${cur}, the cost currency.` : ''}`
      changed()
      await fill()
    } catch (err) {
      status.textContent = `Could not read the rows: ${err instanceof ApiError ? err.message : 'the server could not be reached'}`
    }
  })
  const open = h('button', { type: 'button', 'data-select-losers': '', onclick: () => {
    dialogNote.textContent = 'Reads every row of this report (its filters included), not only this page.'
    dialog.showModal()
  } }, 'Select losers…')
  const clear = h('button', { type: 'button', class: 'small', onclick: () => { values.clear(); order = []; text.value = ''; changed() } }, 'Clear selection')

  const el = h('section', { class: 'card zones', 'aria-labelledby': 'zones-title', 'data-zones': '' },
    h('h2', { id: 'zones-title' }, `${dimLabel(dim)} values: select, copy, block`),
    h('div', { class: 'toolbar' }, open, count, clear),
    h('div', { class: 'filters' }, field('Source', source), field('Separator', sep)),
    formatNote,
    text,
    h('div', { class: 'toolbar' }, copyButton, canBlock ? blockButton : null),
    status, dialog)
  changed()
  return { el, values, changed: () => { changed(); void fill() } }
}
