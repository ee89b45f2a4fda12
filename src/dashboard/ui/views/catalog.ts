// Sources, offers and landings: one screen shape for the three catalog collections. A list with search and
// sort, a create form and an edit form (PATCH with only what changed), the API's messages beside the fields,
// delete with the API's 409 explained. Read-only users get the list alone.
import { api, ApiError, can, type Me } from '../api'
import { field, h, mount } from '../dom'
import { clearErrors, copy, showErrors } from '../forms'
import { all } from './campaigns'

interface Field { name: string; label: string; type?: 'text' | 'url' | 'number' | 'textarea'; hint?: string; required?: boolean }
export interface CatalogSpec {
  path: string
  title: string
  singular: string
  fields: Field[]
  /** Columns of the list: field names, shown as text. */
  columns: string[]
  /** A value worth copying from a row (the source's postback URL), with its button label. */
  copyable?: { field: string; label: string }
}

type Row = Record<string, unknown> & { id: number }

const text = (v: unknown) => (v === null || v === undefined || v === '' ? '—' : String(v))

export function catalogView(spec: CatalogSpec) {
  return async (me: Me): Promise<HTMLElement> => {
    const rows = await all<Row>(`/${spec.path}`)
    const writable = can(me, spec.path === 'landings' ? 'landings' : 'campaigns', 'write')
    const search = h('input', { type: 'search', name: 'search', placeholder: 'Search', 'aria-label': `Search ${spec.title.toLowerCase()}` })
    const tbody = h('tbody')
    const editor = h('div')
    const status = h('p', { class: 'form-error', role: 'alert' })
    let sort = spec.columns[0]!
    let ascending = true

    const render = () => {
      const q = search.value.trim().toLowerCase()
      const shown = rows
        .filter((r) => !q || spec.columns.some((c) => String(r[c] ?? '').toLowerCase().includes(q)))
        .sort((a, b) => String(a[sort] ?? '').localeCompare(String(b[sort] ?? ''), undefined, { numeric: true }) * (ascending ? 1 : -1))
      mount(tbody, shown.length === 0 ? h('tr', {}, h('td', { colspan: spec.columns.length + 1 }, rows.length ? 'Nothing matches.' : `No ${spec.title.toLowerCase()} yet.`)) : shown.map((r) => {
        const copyValue = spec.copyable ? r[spec.copyable.field] : null
        const copyButton: HTMLButtonElement | null = typeof copyValue === 'string' && copyValue
          ? h('button', { type: 'button', class: 'small', onclick: () => copy(copyButton!, copyValue) }, spec.copyable!.label)
          : null
        return h('tr', { 'data-row': r.id },
          spec.columns.map((c) => h('td', {}, text(r[c]))),
          h('td', { class: 'actions' }, copyButton,
            writable ? h('button', { type: 'button', class: 'small', onclick: () => openForm(r) }, 'Edit') : null,
            writable ? h('button', { type: 'button', class: 'small', onclick: () => void remove(r) }, 'Delete') : null),
        )
      }))
    }

    const remove = async (r: Row) => {
      status.textContent = ''
      if (!confirm(`Delete ${spec.singular} "${text(r.name)}"?`)) return
      try {
        await api('DELETE', `/${spec.path}/${r.id}`)
        rows.splice(rows.indexOf(r), 1)
        render()
      } catch (err) {
        status.textContent = err instanceof ApiError && err.status === 409 ? `${err.message}. Change the campaigns that use it first.` : (err as Error).message
      }
    }

    const openForm = (existing: Row | null) => {
      const inputs = spec.fields.map((f) => {
        const value = existing ? existing[f.name] : undefined
        const attrs = { name: f.name, required: f.required && !existing ? true : null, value: value === null || value === undefined ? '' : String(value) }
        return f.type === 'textarea'
          ? Object.assign(h('textarea', { name: f.name, rows: 10 }), { value: attrs.value })
          : h('input', { ...attrs, type: f.type ?? 'text', step: f.type === 'number' ? 'any' : null })
      })
      const form = h('form', { class: 'card', 'aria-labelledby': 'editor-title' },
        h('h2', { id: 'editor-title' }, existing ? `Edit ${spec.singular} "${text(existing.name)}"` : `New ${spec.singular}`),
        spec.fields.map((f, i) => field(f.label, inputs[i]!, f.hint)),
        h('p', { class: 'form-error', role: 'alert' }),
        h('button', { type: 'submit' }, existing ? 'Save' : `Create ${spec.singular}`), ' ',
        h('button', { type: 'button', class: 'small', onclick: () => editor.replaceChildren() }, 'Cancel'),
      )
      form.addEventListener('submit', async (event) => {
        event.preventDefault()
        clearErrors(form)
        const body: Record<string, unknown> = {}
        spec.fields.forEach((f, i) => {
          const raw = inputs[i]!.value
          const value = raw === '' ? null : f.type === 'number' ? Number(raw) : raw
          // An edit sends only what changed; a create leaves empty optional fields out.
          if (existing ? value !== (existing[f.name] ?? null) : value !== null) body[f.name] = value
        })
        try {
          const saved = await api<Row>(existing ? 'PATCH' : 'POST', existing ? `/${spec.path}/${existing.id}` : `/${spec.path}`, body)
          if (existing) rows[rows.indexOf(existing)] = saved
          else rows.push(saved)
          editor.replaceChildren()
          render()
        } catch (err) {
          showErrors(form, err)
        }
      })
      mount(editor, form)
      inputs[0]?.focus()
    }

    const header = (c: string) => {
      const th = h('th', { scope: 'col', 'aria-sort': c === sort ? 'ascending' : 'none' }, h('button', { type: 'button', class: 'sort', onclick: () => {
        ascending = sort === c ? !ascending : true
        sort = c
        for (const other of th.parentElement!.querySelectorAll('th[aria-sort]')) other.setAttribute('aria-sort', 'none')
        th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending')
        render()
      } }, c.replace(/_/g, ' ')))
      return th
    }
    search.addEventListener('input', render)
    render()
    return h('section', { 'aria-labelledby': `${spec.path}-title` },
      h('div', { class: 'toolbar' }, h('h1', { id: `${spec.path}-title` }, spec.title), search,
        writable ? h('button', { type: 'button', onclick: () => openForm(null) }, `New ${spec.singular}`) : null),
      status, editor,
      h('div', { class: 'table-wrap' }, h('table', {}, h('thead', {}, h('tr', {}, spec.columns.map(header), h('th', { scope: 'col' }, ''))), tbody)),
    )
  }
}

export const SOURCES: CatalogSpec = {
  path: 'sources', title: 'Sources', singular: 'source', columns: ['name', 'postback_url'],
  copyable: { field: 'postback_url', label: 'Copy postback URL' },
  fields: [
    { name: 'name', label: 'Name', required: true },
    { name: 'postback_url', label: 'Postback URL', type: 'url', hint: 'Called on each conversion. Macros: {click_id}, {payout}, {status}, {external_id}, {sub1}…{sub10}' },
  ],
}

export const OFFERS: CatalogSpec = {
  path: 'offers', title: 'Offers', singular: 'offer', columns: ['name', 'slug', 'payout', 'currency'],
  fields: [
    { name: 'name', label: 'Name', required: true },
    { name: 'slug', label: 'Slug', required: true },
    { name: 'url', label: 'URL', type: 'url', required: true, hint: 'Put {click_id} where the advertiser expects the click id' },
    { name: 'payout', label: 'Payout', type: 'number' },
    { name: 'currency', label: 'Currency', hint: '3 letters, default USD' },
  ],
}

export const LANDINGS: CatalogSpec = {
  path: 'landings', title: 'Landings', singular: 'landing', columns: ['name', 'slug', 'url'],
  fields: [
    { name: 'name', label: 'Name', required: true },
    { name: 'slug', label: 'Slug', required: true, hint: 'Served at /lp/<slug>' },
    { name: 'html', label: 'HTML', type: 'textarea', hint: 'Macros: {click_id}, {offer_url}, {sub1}…; pixel.js is added before </body>' },
    { name: 'url', label: 'Or an external URL', type: 'url' },
  ],
}
