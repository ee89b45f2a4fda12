// Saved views of the report screen (issue 30): a name for the current URL state, a list to reopen one, delete.
// The saved-views API is per user; an instance without it (404) simply shows no control.
import { api, ApiError } from '../../api'
import { h, mount } from '../../dom'
import { stateToParams, type ReportState } from './state'

interface SavedView { id: number; screen: string; name: string; state: string; created_at: string }

export async function savedViews(state: ReportState): Promise<HTMLElement> {
  let items: SavedView[]
  try {
    items = (await api<{ items: SavedView[] }>('GET', '/saved-views?screen=reports')).items
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 403)) return h('span', { hidden: true, 'data-saved-views': 'absent' })
    return h('span', { class: 'muted', 'data-saved-views': 'error' }, 'Saved views unavailable.')
  }
  const pick = h('select', { name: 'saved_view', 'aria-label': 'Saved view' })
  const name = h('input', { name: 'view_name', placeholder: 'Name this view', 'aria-label': 'View name', maxlength: 100, size: 14 })
  const status = h('span', { 'aria-live': 'polite', class: 'muted' })
  const list = () => mount(pick, h('option', { value: '' }, items.length ? 'Open a saved view…' : 'No saved views'),
    items.map((v) => h('option', { value: v.id }, v.name)))
  list()
  pick.addEventListener('change', () => {
    const view = items.find((v) => String(v.id) === pick.value)
    if (view) location.hash = `#/reports?${view.state}`
  })
  const save = async () => {
    if (!name.value.trim()) { status.textContent = 'Name the view first.'; name.focus(); return }
    try {
      const view = await api<SavedView>('POST', '/saved-views', { screen: 'reports', name: name.value.trim(), state: stateToParams(state).toString() })
      items.push(view)
      list()
      name.value = ''
      status.textContent = `Saved "${view.name}".`
    } catch (err) {
      status.textContent = `Not saved: ${err instanceof ApiError ? err.message : 'the server could not be reached'}`
    }
  }
  const remove = async () => {
    const view = items.find((v) => String(v.id) === pick.value)
    if (!view) { status.textContent = 'Pick the view to delete.'; return }
    try {
      await api('DELETE', `/saved-views/${view.id}`)
      items = items.filter((v) => v !== view)
      list()
      status.textContent = `Deleted "${view.name}".`
    } catch (err) {
      status.textContent = `Not deleted: ${err instanceof ApiError ? err.message : 'the server could not be reached'}`
    }
  }
  return h('div', { class: 'saved-views', 'data-saved-views': '' }, pick,
    h('button', { type: 'button', class: 'small', onclick: () => void remove() }, 'Delete view'), name,
    h('button', { type: 'button', class: 'small', onclick: () => void save() }, 'Save view'), status)
}
