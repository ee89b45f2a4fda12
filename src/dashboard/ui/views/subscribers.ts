// One email list's subscribers (#/subscribers?list=<id>): filter by status or address, add one by hand,
// import a CSV (sent as text/csv), export, remove.
import { api } from '../api'
import { field, h, mount } from '../dom'
import { clearErrors, showErrors } from '../forms'
import { recordsView } from './records'
import type { Me } from '../api'

export async function subscribersView(me: Me, params: URLSearchParams): Promise<HTMLElement> {
  const listId = Number(params.get('list'))
  const list = await api<{ id: number; name: string; active_subscribers: number }>('GET', `/email-lists/${listId}`)
  const table = await recordsView({
    title: `Subscribers of "${list.name}"`, section: 'email', path: `/email-lists/${listId}/subscribers`,
    columns: ['email', 'name', 'status', 'source', 'created_at'], filters: ['status', 'email'],
    exportPath: `/email-lists/${listId}/subscribers/export`,
    action: {
      label: 'Remove',
      confirm: (r) => `Remove ${String(r.email)} from "${list.name}"? Their consent history goes with them.`,
      run: (r) => api('DELETE', `/email-lists/${listId}/subscribers/${r.id}`),
    },
  })(me)

  const email = h('input', { name: 'email', type: 'email', required: true })
  const name = h('input', { name: 'name' })
  const add = h('form', { class: 'card filters', 'aria-label': 'Add a subscriber' }, field('Email', email), field('Name', name),
    h('p', { class: 'form-error', role: 'alert' }), h('button', { type: 'submit' }, 'Add subscriber'))
  add.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearErrors(add)
    try {
      await api('POST', `/email-lists/${listId}/subscribers`, { email: email.value, ...(name.value ? { name: name.value } : {}) })
      location.reload()
    } catch (err) { showErrors(add, err) }
  })

  const csv = h('textarea', { name: 'csv', rows: 4, placeholder: 'email,name\nann@example.com,Ann' })
  const imported = h('p', { 'aria-live': 'polite' })
  const importForm = h('form', { class: 'card', 'aria-label': 'Import subscribers' }, field('CSV (header row; email required)', csv), imported,
    h('button', { type: 'submit' }, 'Import'))
  importForm.addEventListener('submit', async (event) => {
    event.preventDefault()
    // The import takes the file itself as text/csv (a form could not send that: the CSRF rule).
    const res = await fetch(`/admin/api/email-lists/${listId}/subscribers/import`, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'text/csv' }, body: csv.value })
    const body = await res.json().catch(() => null) as Record<string, unknown> | null
    mount(imported, res.ok ? `Imported: ${JSON.stringify(body)}` : `Refused: ${String(body?.error ?? res.status)}`)
  })
  // A broadcast: one message to every active subscriber, queued in the outbox (real mail goes out).
  const subject = h('input', { name: 'subject', required: true })
  const text = h('textarea', { name: 'text', rows: 5, required: true })
  const sent = h('p', { 'aria-live': 'polite' })
  const broadcast = h('form', { class: 'card', 'aria-label': 'Send a broadcast' }, h('h2', {}, 'Broadcast'),
    field('Subject', subject, 'Macros: {name} {email} {unsubscribe_url}'), field('Text', text),
    h('p', { class: 'form-error', role: 'alert' }), sent, h('button', { type: 'submit' }, 'Send to all active subscribers'))
  broadcast.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearErrors(broadcast)
    if (!confirm(`Send "${subject.value}" to every active subscriber of "${list.name}"?`)) return
    try {
      const out = await api<Record<string, unknown>>('POST', `/email-lists/${listId}/broadcasts`, { subject: subject.value, text: text.value })
      mount(sent, `Queued: ${JSON.stringify(out)}`)
    } catch (err) { showErrors(broadcast, err) }
  })
  return h('div', {}, h('p', {}, h('a', { href: '#/email-lists' }, '← Email lists')), table, add, importForm, broadcast)
}
