// The report table (issue 30): sortable headers (the server sorts: sort/order, aria-sort), readable headers,
// money with its currency, profit/ROI marked neg/pos, up to three levels as indented expandable rows,
// drill-down, a "Clicks" link per row, a checkbox per row on sub-value reports, the Total and (filtered)
// the Matching rows total.
import { h } from '../../dom'
import { cellText, signClass, type Report, type Row } from './cells'
import { dimLabel, metricLabel, type ReportState } from './state'

export interface TableHooks {
  sort(by: string): void
  /** A drill-down button for a top row, or null. */
  drill(row: Row): HTMLElement | null
  /** The #/click link of a row (its parents first), or null when the clicks list cannot filter by it. */
  clicksHref(chain: Row[]): string | null
  /** Sub-value reports: the selection of top-level values (zones). */
  selection: { values: Set<string>; changed(): void } | null
}

const rowName = (r: Row) => String(r.label ?? r.key ?? '(none)')

export function reportTable(report: Report, state: ReportState, hooks: TableHooks): HTMLTableElement {
  const cols = state.columns
  const labelSort = ['campaign', 'source', 'offer', 'landing', 'path'].includes(state.levels[0]!) ? 'label' : 'key'
  const sortOf = state.sort ?? (['day', 'hour'].includes(state.levels[0]!) ? 'key' : 'clicks')
  const orderOf = state.order ?? (sortOf === 'key' || sortOf === 'label' ? 'asc' : 'desc')
  const header = (id: string, text: string, cls = '') => h('th', {
    scope: 'col', class: cls, 'data-col': id,
    'aria-sort': id === sortOf ? (orderOf === 'asc' ? 'ascending' : 'descending') : null,
  }, h('button', { type: 'button', class: 'sort', onclick: () => hooks.sort(id) }, text, id === sortOf ? (orderOf === 'asc' ? ' ▲' : ' ▼') : ''))
  const sel = hooks.selection
  const pageValues = report.rows.filter((r) => r.key !== null).map((r) => String(r.key))
  const allBox = sel ? h('input', { type: 'checkbox', 'aria-label': 'Select all on this page', 'data-select-all': '' }) : null
  const syncAll = () => {
    if (!allBox || !sel) return
    const n = pageValues.filter((v) => sel.values.has(v)).length
    allBox.checked = n > 0 && n === pageValues.length
    allBox.indeterminate = n > 0 && n < pageValues.length
  }
  const boxes: HTMLInputElement[] = []
  allBox?.addEventListener('change', () => {
    for (const v of pageValues) allBox.checked ? sel!.values.add(v) : sel!.values.delete(v)
    for (const b of boxes) b.checked = allBox.checked
    sel!.changed()
  })

  const line = (row: Row, chain: Row[], depth: number): HTMLTableRowElement[] => {
    const kids = row.children ?? []
    const childRows = kids.flatMap((c) => line(c, [...chain, row], depth + 1))
    for (const c of childRows) if (Number(c.dataset.depth) === depth + 1) c.hidden = true
    const toggle = kids.length ? h('button', {
      type: 'button', class: 'small toggle', 'aria-expanded': 'false', 'aria-label': `Show ${kids.length} rows under ${rowName(row)}`,
      onclick: (e: Event) => {
        const b = e.currentTarget as HTMLButtonElement
        const open = b.getAttribute('aria-expanded') !== 'true'
        b.setAttribute('aria-expanded', String(open))
        b.textContent = open ? '▾' : '▸'
        // Closing hides every level below; opening shows the next level only.
        for (const c of childRows) {
          const d = Number(c.dataset.depth)
          if (!open) { c.hidden = true; c.querySelector('.toggle')?.setAttribute('aria-expanded', 'false') } else if (d === depth + 1) c.hidden = false
        }
      },
    }, '▸') : null
    const href = hooks.clicksHref([...chain, row])
    let box: HTMLInputElement | null = null
    if (sel && depth === 0 && row.key !== null) {
      const v = String(row.key)
      box = h('input', { type: 'checkbox', 'aria-label': `Select ${v}`, 'data-zone': v, checked: sel.values.has(v) })
      box.addEventListener('change', () => { box!.checked ? sel.values.add(v) : sel.values.delete(v); syncAll(); sel.changed() })
      boxes.push(box)
    }
    const tr = h('tr', { 'data-row': depth === 0 ? '' : null, 'data-child': depth ? '' : null, 'data-depth': depth, 'data-key': String(row.key ?? ''), class: depth ? `child depth-${depth}` : '' },
      sel ? h('td', { class: 'pick' }, box) : null,
      h('td', { class: 'label', 'data-label': dimLabel(state.levels[depth] ?? '') },
        toggle, h('span', { class: 'name' }, rowName(row)), ' ',
        depth === 0 ? hooks.drill(row) : null,
        href ? h('a', { class: 'clicks-link', href, 'aria-label': `Clicks of ${rowName(row)}` }, 'Clicks') : null),
      cols.map((c) => h('td', { class: `num ${signClass(report, row, c)}`.trim(), 'data-col': c, 'data-label': metricLabel(c) }, cellText(report, row, c))),
    )
    return [tr, ...childRows]
  }

  const totalLine = (label: string, row: Row, attr: string) => h('tr', { [attr]: '' },
    sel ? h('td', {}) : null,
    h('th', { scope: 'row' }, label),
    cols.map((c) => h('td', { class: `num ${signClass(report, row, c)}`.trim(), 'data-col': c, 'data-label': metricLabel(c) }, cellText(report, row, c))))

  const table = h('table', { class: 'cards report', 'data-report': '' },
    h('thead', {}, h('tr', {},
      sel ? h('th', { scope: 'col', class: 'pick' }, allBox) : null,
      header(labelSort, state.levels.map(dimLabel).join(' › ')),
      cols.map((c) => header(c, metricLabel(c), 'num')))),
    h('tbody', {},
      report.rows.length === 0 ? h('tr', {}, h('td', { colspan: cols.length + 2 }, 'No rows in this range.')) : null,
      report.rows.flatMap((r) => line(r, [], 0))),
    h('tfoot', {},
      report.matched_total ? totalLine(`Matching rows (${report.total_rows})`, report.matched_total, 'data-matched-total') : null,
      totalLine('Total', report.total, 'data-total')),
  )
  syncAll()
  return table
}
