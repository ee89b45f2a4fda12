// Campaigns, the home screen (issue 30): each campaign with its numbers for a period (Today … custom, in the
// instance's time zone), a sparkline, a KPI strip of today against yesterday at the same time, search,
// filters, sort by any column, auto-refresh, and the state in the URL. The controls stay: the tracking link
// to copy, edit, activate/deactivate, delete (a campaign with clicks is never deleted: the API answers 409,
// so the list offers deactivation instead). Read-only users see no controls; without the reports section,
// no numbers.
import { all, api, ApiError, can, type Me } from '../api'
import { h, mount } from '../dom'
import { copy, upsert } from '../forms'
import { campaignForm, type CampaignRecord } from './campaign-form'
import { kpiStrip } from './stats/kpi'
import { instanceTz, listStats } from './stats/list'

type Campaign = CampaignRecord
interface Named { id: number; name: string }

const OWN_SORTS = ['name', 'slug', 'source']

export async function campaignsView(me: Me, params: URLSearchParams = new URLSearchParams()): Promise<HTMLElement> {
  const kpi = can(me, 'reports', 'read') ? kpiStrip(instanceTz(me)) : null
  // The lists, the period's numbers and the KPI strip are asked for at once: the first screen waits for one round trip, not three.
  const kpiFailed = kpi?.load().then(() => null, (err: Error) => err)
  const [campaigns, sources, stats] = await Promise.all([
    all<Campaign>('/campaigns'),
    can(me, 'campaigns', 'read') ? all<Named>('/sources') : [],
    listStats({ me, dim: 'campaign', params, defaultSort: 'name', sorts: OWN_SORTS, rerender: () => { render(); void kpi?.load().catch(() => {}) } }),
  ])
  const sourceName = new Map(sources.map((s) => [s.id, s.name]))
  const writable = can(me, 'campaigns', 'write')
  const search = h('input', { type: 'search', name: 'search', placeholder: 'Search name or slug', 'aria-label': 'Search campaigns', value: stats.search })
  const statusFilter = h('select', { name: 'status', 'aria-label': 'Filter by status' },
    h('option', { value: '' }, 'All statuses'), h('option', { value: 'active' }, 'Active'), h('option', { value: 'paused' }, 'Paused'))
  statusFilter.value = ['active', 'paused'].includes(params.get('status') ?? '') ? params.get('status')! : ''
  const sourceFilter = h('select', { name: 'source', 'aria-label': 'Filter by source' },
    h('option', { value: '' }, 'All sources'), sources.map((s) => h('option', { value: String(s.id) }, s.name)))
  sourceFilter.value = sources.some((s) => String(s.id) === params.get('source')) ? params.get('source')! : ''
  const filters = () => ({ status: statusFilter.value, source: sourceFilter.value })
  const tbody = h('tbody')
  const tfoot = h('tfoot')
  const status = h('p', { class: 'form-error', role: 'alert' })
  const editor = h('div')
  const edit = async (existing: Campaign | null) => {
    mount(editor, await campaignForm(existing, (saved) => {
      upsert(campaigns, existing, saved)
      editor.replaceChildren()
      render()
    }, () => editor.replaceChildren()))
    editor.querySelector('input')?.focus()
  }

  const keyOf = (c: Campaign) => {
    const sort = stats.sort as 'name' | 'slug' | 'source'
    return (sort === 'source' ? sourceName.get(c.source_id ?? 0) ?? '' : String(c[sort] ?? '')).toLowerCase()
  }
  const compare = (a: Campaign, b: Campaign) => {
    const byStats = stats.compare(a.id, b.id)
    const d = byStats ?? (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0)
    // Equal numbers: by name, so the order is stable whatever the direction.
    return d * (stats.ascending ? 1 : -1) || a.name.localeCompare(b.name)
  }
  const columns = () => 3 + (stats.enabled ? 10 : 0)
  const render = () => {
    const q = search.value.trim().toLowerCase()
    const { status: state, source } = filters()
    const shown = campaigns
      .filter((c) => !q || c.name.toLowerCase().includes(q) || c.slug.toLowerCase().includes(q))
      .filter((c) => !state || (state === 'active') === c.active)
      .filter((c) => !source || String(c.source_id ?? '') === source)
      .sort(compare)
    mount(tbody, shown.map((c) => {
      const link = `${location.origin}/c/${c.slug}`
      const copyButton = h('button', { type: 'button', class: 'small', onclick: () => copy(copyButton, link) }, 'Copy link')
      const toggle = writable
        ? h('button', { type: 'button', class: 'small', 'data-toggle': c.slug, onclick: async () => {
            status.textContent = ''
            try {
              const updated = await api<Campaign>('PATCH', `/campaigns/${c.id}`, { active: !c.active })
              c.active = updated.active
              render()
            } catch (err) {
              status.textContent = (err as Error).message
            }
          } }, c.active ? 'Deactivate' : 'Activate')
        : null
      return h('tr', { 'data-campaign': c.slug },
        // The slug and a paused mark under the name (not columns of their own): the row keeps its numbers in view at 1280 px.
        h('td', { 'data-col': 'name' }, c.name, h('br'), h('code', { class: 'muted' }, c.slug), c.active ? null : h('span', { class: 'badge', 'data-status': 'paused' }, 'Paused')),
        h('td', { class: 'text' }, sourceName.get(c.source_id ?? 0) ?? '—'),
        stats.cells(c.id),
        h('td', { class: 'actions' }, copyButton, toggle, writable ? h('button', { type: 'button', class: 'small', onclick: () => void edit(c) }, 'Edit') : null,
          writable ? h('button', { type: 'button', class: 'small', onclick: async () => {
            status.textContent = ''
            if (!confirm(`Delete the campaign "${c.name}"?`)) return
            try {
              await api('DELETE', `/campaigns/${c.id}`)
              campaigns.splice(campaigns.indexOf(c), 1)
              render()
            } catch (err) {
              // A campaign with clicks stays (its history is in the reports): pausing it is the way.
              status.textContent = err instanceof ApiError && err.status === 409 ? `"${c.name}" has clicks, so it cannot be deleted: deactivate it instead.` : (err as Error).message
            }
          } }, 'Delete') : null),
      )
    }))
    stats.mark(table)
    if (shown.length === 0) mount(tbody, h('tr', {}, h('td', { colspan: columns() }, campaigns.length ? 'No campaign matches.' : 'No campaigns yet.')))
    mount(tfoot, stats.enabled && stats.stats
      ? h('tr', { 'data-total': '' }, h('td', { colspan: 2 }, 'Total, all campaigns'), stats.totalCells(), h('td', {}))
      : null)
  }
  const header = (label: string, key: string, numeric = false) => {
    const button = h('button', { type: 'button', class: 'sort', onclick: () => {
      // Numbers start with the largest first; names with A.
      stats.ascending = stats.sort === key ? !stats.ascending : !numeric
      stats.sort = key
      render()
      stats.save(filters())
      for (const th of table.querySelectorAll('th[aria-sort]')) th.setAttribute('aria-sort', 'none')
      th.setAttribute('aria-sort', stats.ascending ? 'ascending' : 'descending')
    } }, label)
    const th = h('th', { scope: 'col', class: numeric ? 'num' : null, 'data-sort': key, 'aria-sort': key === stats.sort ? (stats.ascending ? 'ascending' : 'descending') : 'none' }, button)
    return th
  }
  const table = h('table', { 'data-home': '', class: stats.enabled ? 'stats-table' : null },
    h('thead', {}, h('tr', {}, header('Name', 'name'), header('Source', 'source'),
      stats.headers(header), h('th', { scope: 'col' }, 'Tracking link'))),
    tbody, tfoot,
  )
  const changed = () => { stats.search = search.value; render(); stats.save(filters()) }
  search.addEventListener('input', changed)
  statusFilter.addEventListener('change', changed)
  sourceFilter.addEventListener('change', changed)
  render()
  const kpiError = await kpiFailed
  if (kpi && kpiError) mount(kpi.el.querySelector('dl')!, h('p', { class: 'form-error', role: 'alert' }, `Today's numbers unavailable: ${kpiError.message}`))
  const section = h('section', { 'aria-labelledby': 'campaigns-title' },
    h('div', { class: 'toolbar' }, h('h1', { id: 'campaigns-title' }, 'Campaigns'),
      writable ? h('button', { type: 'button', onclick: () => void edit(null) }, 'New campaign') : null),
    kpi?.el, stats.controls,
    h('div', { class: 'list-filters' }, search, statusFilter, sources.length ? sourceFilter : null),
    status, editor,
    h('div', { class: 'table-wrap' }, table),
  )
  stats.start(section)
  return section
}
