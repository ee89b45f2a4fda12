// Postback setup: conversion types (flags per type, add one), the status map (received status → type) and
// the postback parameter aliases. Types and the map are section conversions; aliases section settings.
import { api, can, type Me } from '../api'
import { field, h, mount } from '../dom'
import { clearErrors, showErrors } from '../forms'

interface ConversionType { slug: string; name: string; include_in_conversions: boolean; include_in_revenue: boolean; send_postback: boolean; negative: boolean; builtin: boolean }
const FLAGS = ['include_in_conversions', 'include_in_revenue', 'send_postback', 'negative'] as const

function typesSection(types: ConversionType[], writable: boolean, reload: () => void): HTMLElement {
  const status = h('p', { class: 'form-error', role: 'alert' })
  const rows = types.map((t) => h('tr', { 'data-type': t.slug },
    h('td', {}, h('code', {}, t.slug)), h('td', {}, t.name, t.builtin ? ' (built in)' : ''),
    FLAGS.map((f) => h('td', {}, h('input', { type: 'checkbox', checked: t[f], disabled: !writable, 'aria-label': `${t.slug} ${f.replace(/_/g, ' ')}`,
      onchange: async (event: Event) => {
        const box = event.target as HTMLInputElement
        status.textContent = ''
        try { await api('PATCH', `/conversion-types/${t.slug}`, { [f]: box.checked }); t[f] = box.checked } catch (err) { box.checked = !box.checked; status.textContent = (err as Error).message }
      } }))),
    h('td', {}, writable && !t.builtin ? h('button', { type: 'button', class: 'small', onclick: async () => {
      if (!confirm(`Delete the type "${t.slug}"?`)) return
      try { await api('DELETE', `/conversion-types/${t.slug}`); reload() } catch (err) { status.textContent = (err as Error).message }
    } }, 'Delete') : null)))
  let form: HTMLElement | null = null
  if (writable) {
    const slug = h('input', { name: 'slug', required: true })
    const name = h('input', { name: 'name', required: true })
    form = h('form', { class: 'filters' }, field('New type: slug', slug), field('Name', name), h('p', { class: 'form-error', role: 'alert' }), h('button', { type: 'submit' }, 'Add type'))
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      clearErrors(form!)
      try { await api('POST', '/conversion-types', { slug: slug.value, name: name.value }); reload() } catch (err) { showErrors(form!, err) }
    })
  }
  return h('section', { class: 'card', 'aria-labelledby': 'types-title' }, h('h2', { id: 'types-title' }, 'Conversion types'), status,
    h('div', { class: 'table-wrap' }, h('table', {}, h('thead', {}, h('tr', {}, ['slug', 'name', ...FLAGS.map((f) => f.replace(/_/g, ' ')), ''].map((c) => h('th', { scope: 'col' }, c)))), h('tbody', {}, rows))),
    form)
}

function mapSection(map: Record<string, string>, types: ConversionType[], writable: boolean): HTMLElement {
  const list = h('div')
  const addRow = (status: string, type: string) => {
    const s = h('input', { value: status, 'aria-label': 'received status' })
    const t = h('select', { 'aria-label': `type for ${status || 'new status'}` }, types.map((x) => h('option', { value: x.slug }, x.slug)))
    t.value = type
    if (!writable) { s.disabled = true; t.disabled = true }
    const row = h('div', { class: 'rotation-row' }, s, ' → ', t, writable ? h('button', { type: 'button', class: 'small', onclick: () => row.remove() }, 'Remove') : null)
    list.append(row)
  }
  for (const [status, type] of Object.entries(map)) addRow(status, type)
  const saved = h('p', { 'aria-live': 'polite' })
  const form = h('form', { class: 'card', 'aria-labelledby': 'map-title' }, h('h2', { id: 'map-title' }, 'Status map'),
    h('p', {}, 'The status a postback sends → the conversion type it records.'), list,
    writable ? h('button', { type: 'button', class: 'small', onclick: () => addRow('', types[0]?.slug ?? '') }, 'Add status') : null,
    h('p', { class: 'form-error', role: 'alert' }), saved, writable ? h('button', { type: 'submit' }, 'Save status map') : null)
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearErrors(form)
    const next: Record<string, string> = {}
    for (const row of list.children) {
      const key = row.querySelector('input')!.value.trim()
      if (key) next[key] = row.querySelector('select')!.value
    }
    try { await api('PUT', '/status-map', next); saved.textContent = 'Saved.' } catch (err) { showErrors(form, err) }
  })
  return form
}

function aliasesSection(aliases: Record<string, string[]>, writable: boolean): HTMLElement {
  const inputs = Object.entries(aliases).map(([param, names]) => [param, h('input', { name: param, value: names.join(', '), disabled: !writable })] as const)
  const saved = h('p', { 'aria-live': 'polite' })
  const form = h('form', { class: 'card', 'aria-labelledby': 'aliases-title' }, h('h2', { id: 'aliases-title' }, 'Postback parameter aliases'),
    h('p', {}, 'The query-string names each postback parameter is read from, in order.'),
    inputs.map(([param, input]) => field(param, input)), h('p', { class: 'form-error', role: 'alert' }), saved,
    writable ? h('button', { type: 'submit' }, 'Save aliases') : null)
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearErrors(form)
    const body = Object.fromEntries(inputs.map(([param, input]) => [param, input.value.split(',').map((x) => x.trim()).filter(Boolean)]))
    try { await api('PUT', '/postback-aliases', body); saved.textContent = 'Saved.' } catch (err) { showErrors(form, err) }
  })
  return form
}

/**
 * The opt-in `postback_status_updates` mode (issue 26), offered here and on the first run: a checkbox that
 * writes the setting at once. Left out for a user who cannot read the settings.
 */
export function statusUpdatesCard(writable = true): HTMLElement {
  const box = h('input', { type: 'checkbox', name: 'postback_status_updates', disabled: true })
  const note = h('p', { 'aria-live': 'polite' })
  const card = h('section', { class: 'card', 'aria-labelledby': 'status-updates-title', 'data-status-updates': '' },
    h('h2', { id: 'status-updates-title' }, 'Status updates'),
    h('p', {}, 'Some networks post back every status of one sale: pending, then approved (or rejected, or a chargeback), with the same ' +
      'transaction id (tid). By default each postback is a conversion of its own, so such a sale counts twice. Turned on, a postback for a ' +
      'click and tid that already has a conversion moves that conversion to its new status and type (lead → sale, sale → reject), keeps ' +
      'its history, and forwards to the source only when the type changes to one that forwards; a chargeback is recorded as its own ' +
      'negative conversion that cancels the sale, and is final. Postbacks without a tid are never merged.'),
    h('label', {}, box, ' Update a conversion when its status changes'), note)
  api<{ postback_status_updates?: boolean }>('GET', '/settings').then((s) => {
    box.checked = s.postback_status_updates === true
    box.disabled = !writable
  }, () => card.remove())
  box.addEventListener('change', async () => {
    note.textContent = ''
    try {
      await api('PUT', '/settings', { postback_status_updates: box.checked })
      note.textContent = 'Saved.'
    } catch (err) {
      box.checked = !box.checked
      note.textContent = (err as Error).message
    }
  })
  return card
}

export async function postbackSetupView(me: Me): Promise<HTMLElement> {
  const root = h('section', { 'aria-labelledby': 'pb-setup-title' })
  const load = async () => {
    const [types, map, aliases] = await Promise.all([
      api<{ items: ConversionType[] }>('GET', '/conversion-types'),
      api<Record<string, string>>('GET', '/status-map'),
      can(me, 'settings', 'read') ? api<Record<string, string[]>>('GET', '/postback-aliases') : Promise.resolve(null),
    ])
    const writable = can(me, 'conversions', 'write')
    mount(root, h('h1', { id: 'pb-setup-title' }, 'Postback setup'),
      typesSection(types.items, writable, () => void load()), mapSection(map, types.items, writable),
      can(me, 'settings', 'read') ? statusUpdatesCard(can(me, 'settings', 'write')) : null,
      aliases ? aliasesSection(aliases, can(me, 'settings', 'write')) : null)
  }
  await load()
  return root
}
