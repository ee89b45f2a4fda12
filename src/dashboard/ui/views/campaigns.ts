// Campaigns: search, sort, the tracking link to copy, activate/deactivate (a campaign with clicks is never
// deleted: the API answers 409, so the list offers deactivation instead). Read-only users see no controls.
import { all, api, ApiError, can, type Me } from '../api'
import { h, mount } from '../dom'
import { copy, upsert } from '../forms'
import { campaignForm, type CampaignRecord } from './campaign-form'

type Campaign = CampaignRecord
interface Named { id: number; name: string }

type SortKey = 'name' | 'slug' | 'source' | 'active'

export async function campaignsView(me: Me): Promise<HTMLElement> {
  const [campaigns, sources] = await Promise.all([all<Campaign>('/campaigns'), can(me, 'campaigns', 'read') ? all<Named>('/sources') : []])
  const sourceName = new Map(sources.map((s) => [s.id, s.name]))
  const writable = can(me, 'campaigns', 'write')
  let sort: SortKey = 'name'
  let ascending = true
  const search = h('input', { type: 'search', name: 'search', placeholder: 'Search name or slug', 'aria-label': 'Search campaigns' })
  const tbody = h('tbody')
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

  const keyOf = (c: Campaign) => (sort === 'source' ? sourceName.get(c.source_id ?? 0) ?? '' : sort === 'active' ? String(c.active) : c[sort]).toLowerCase()
  const render = () => {
    const q = search.value.trim().toLowerCase()
    const shown = campaigns
      .filter((c) => !q || c.name.toLowerCase().includes(q) || c.slug.toLowerCase().includes(q))
      .sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0) * (ascending ? 1 : -1))
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
        h('td', {}, c.name),
        h('td', {}, h('code', {}, c.slug)),
        h('td', {}, sourceName.get(c.source_id ?? 0) ?? '—'),
        h('td', {}, c.active ? 'Active' : 'Paused'),
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
    if (shown.length === 0) mount(tbody, h('tr', {}, h('td', { colspan: 5 }, campaigns.length ? 'No campaign matches.' : 'No campaigns yet.')))
  }
  const header = (label: string, key: SortKey) => {
    const button = h('button', { type: 'button', class: 'sort', onclick: () => {
      ascending = sort === key ? !ascending : true
      sort = key
      render()
      for (const th of table.querySelectorAll('th[aria-sort]')) th.setAttribute('aria-sort', 'none')
      th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending')
    } }, label)
    const th = h('th', { scope: 'col', 'aria-sort': key === 'name' ? 'ascending' : 'none' }, button)
    return th
  }
  const table = h('table', {},
    h('thead', {}, h('tr', {}, header('Name', 'name'), header('Slug', 'slug'), header('Source', 'source'), header('Status', 'active'), h('th', { scope: 'col' }, 'Tracking link'))),
    tbody,
  )
  search.addEventListener('input', render)
  render()
  return h('section', { 'aria-labelledby': 'campaigns-title' },
    h('div', { class: 'toolbar' }, h('h1', { id: 'campaigns-title' }, 'Campaigns'), search,
      writable ? h('button', { type: 'button', onclick: () => void edit(null) }, 'New campaign') : null),
    status, editor,
    h('div', { class: 'table-wrap' }, table),
  )
}
