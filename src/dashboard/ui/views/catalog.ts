// Sources, offers and landings: one screen shape for the three catalog collections. A list with search and
// sort, a create form and an edit form (PATCH with only what changed), the API's messages beside the fields,
// delete with the API's 409 explained. Read-only users get the list alone.
import { all, api, ApiError, can, type Me } from '../api'
import { field, h, mount } from '../dom'
import { clearErrors, copy, showErrors, upsert } from '../forms'
import { postbackUrlWarnings } from '../../../catalog/sources/postback-macros'
import { money } from '../format'
import { listStats } from './stats/list'

interface Field {
  name: string
  label: string
  /** password: write-only (a secret; empty keeps it). select: the records of `options` by name. */
  type?: 'text' | 'url' | 'number' | 'textarea' | 'password' | 'checkbox' | 'select'
  hint?: string
  required?: boolean
  /** select: a collection path (`/offers`) whose records become the options, or fixed values. */
  options?: string | string[]
  /** Only when creating (e.g. a payment account's type, which never changes). */
  createOnly?: boolean
  /** password: the record's flag that says the secret is set (default has_<name>). */
  setFlag?: string
  /** What to warn about in the value as it is typed (saved anyway): shown beside the field. */
  warn?: (value: string) => string[]
}
export interface CatalogSpec {
  path: string
  /** The admin section of the collection (its read/write permission decides the controls). */
  section: string
  title: string
  singular: string
  fields: Field[]
  /** Columns of the list: field names, shown as text. */
  columns: string[]
  /** A value worth copying from a row (the source's postback URL), with its button label. */
  copyable?: { field: string; label: string }
  /** A link from a row to another screen (an email list's subscribers), or a page in a new tab (a preview). */
  rowLink?: (row: Record<string, unknown>) => { href: string; label: string; newTab?: boolean }
  /** A "From template" picker on the create form: the template registry at this path (docs/templates.md). */
  templates?: 'source-templates' | 'network-templates'
  /** The report dimension of the collection: the list shows each record's numbers for a period (issue 30). */
  stats?: 'source' | 'offer' | 'landing'
}

/** A template as the registry lists it (the fields the picker uses). */
interface Template {
  id: string; name: string; doc_url: string | null; notes: string
  postback_url: string | null; link_params?: string | null; suffix?: string
}

type Row = Record<string, unknown> & { id: number }

/** A column's header: the field's name in words ("postback_url" → "Postback URL"). */
const columnLabel = (name: string) => (name.charAt(0).toUpperCase() + name.slice(1)).replace(/_/g, ' ').replace(/\b(url|Url)\b/, 'URL')

const rowLinkOf = (l: { href: string; label: string; newTab?: boolean }) =>
  h('a', { href: l.href, target: l.newTab ? '_blank' : null, rel: l.newTab ? 'noopener' : null }, l.label)

/** The field's warnings below it, kept up to date as the value changes. */
function withWarnings(wrap: HTMLElement, f: Field, input: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement): HTMLElement {
  if (!f.warn) return wrap
  const list = h('ul', { class: 'field-warning', 'data-warning-for': f.name, role: 'status' })
  const update = () => mount(list, f.warn!(input.value).map((w) => h('li', {}, w)))
  input.addEventListener('input', update)
  update()
  wrap.append(list)
  return wrap
}

const text = (v: unknown) => (v === null || v === undefined || v === '' ? '—' : typeof v === 'boolean' ? (v ? 'yes' : 'no') : String(v))
/** A list cell: an amount with its record's currency ("10.00 USD"), else the value as text. */
const cellText = (r: Row, c: string) =>
  (c === 'payout' || c === 'price') && typeof r[c] === 'number' && typeof r.currency === 'string' ? money(r[c] as number, r.currency) : text(r[c])

export function catalogView(spec: CatalogSpec) {
  return async (me: Me, params: URLSearchParams = new URLSearchParams()): Promise<HTMLElement> => {
    const rows = await all<Row>(`/${spec.path}`)
    const writable = can(me, spec.section, 'write')
    // Options of select fields: a collection's records by name (loaded once per screen).
    const choices = new Map<string, Array<{ value: string; label: string }>>()
    for (const f of spec.fields) {
      if (f.type !== 'select') continue
      choices.set(f.name, Array.isArray(f.options)
        ? f.options.map((o) => ({ value: o, label: o }))
        : (await all<{ id: number; name: string }>(f.options!)).map((r) => ({ value: String(r.id), label: r.name })))
    }
    // The template registry, for the create form's picker (writers only).
    const templates = spec.templates && writable ? (await api<{ items: Template[] }>('GET', `/${spec.templates}`)).items : []
    // The period's numbers per record (sources, offers, landings); a list without `stats` keeps sort and search
    // in the URL all the same.
    const stats = await listStats({
      me, dim: spec.stats ?? null, params, defaultSort: spec.columns[0]!, sorts: spec.columns, rerender: () => render(),
    })
    const search = h('input', { type: 'search', name: 'search', placeholder: 'Search', 'aria-label': `Search ${spec.title.toLowerCase()}`, value: stats.search })
    const tbody = h('tbody')
    const tfoot = h('tfoot')
    const editor = h('div')
    const status = h('p', { class: 'form-error', role: 'alert' })

    const render = () => {
      const q = search.value.trim().toLowerCase()
      const sort = stats.sort
      const shown = rows
        .filter((r) => !q || spec.columns.some((c) => String(r[c] ?? '').toLowerCase().includes(q)))
        .sort((a, b) => (stats.compare(a.id, b.id) ?? String(a[sort] ?? '').localeCompare(String(b[sort] ?? ''), undefined, { numeric: true })) * (stats.ascending ? 1 : -1) ||
          String(a[spec.columns[0]!] ?? '').localeCompare(String(b[spec.columns[0]!] ?? '')))
      const table = tbody.parentElement
      if (table) stats.mark(table)
      mount(tfoot, stats.enabled && stats.stats
        ? h('tr', { 'data-total': '' }, h('td', { colspan: spec.columns.length }, `Total, all ${spec.title.toLowerCase()}`), stats.totalCells(), h('td', {}))
        : null)
      mount(tbody, shown.length === 0 ? h('tr', {}, h('td', { colspan: spec.columns.length + 1 + (stats.enabled ? 10 : 0) }, rows.length ? 'Nothing matches.' : `No ${spec.title.toLowerCase()} yet.`)) : shown.map((r) => {
        const copyValue = spec.copyable ? r[spec.copyable.field] : null
        const copyButton: HTMLButtonElement | null = typeof copyValue === 'string' && copyValue
          ? h('button', { type: 'button', class: 'small', onclick: () => copy(copyButton!, copyValue) }, spec.copyable!.label)
          : null
        return h('tr', { 'data-row': r.id },
          spec.columns.map((c) => h('td', { 'data-col': c === 'name' ? 'name' : null, class: c === 'name' ? null : 'text' }, cellText(r, c))),
          stats.cells(r.id),
          h('td', { class: 'actions' }, copyButton,
            spec.rowLink ? rowLinkOf(spec.rowLink(r)) : null,
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
      const fields = spec.fields.filter((f) => !(existing && f.createOnly))
      const inputs = fields.map((f): HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement => {
        const value = existing ? existing[f.name] : undefined
        const text = value === null || value === undefined ? '' : String(value)
        if (f.type === 'textarea') return Object.assign(h('textarea', { name: f.name, rows: 10 }), { value: text })
        if (f.type === 'checkbox') return h('input', { name: f.name, type: 'checkbox', checked: existing ? value === true : true })
        if (f.type === 'password') {
          const isSet = existing?.[f.setFlag ?? `has_${f.name}`] === true
          return h('input', { name: f.name, type: 'password', autocomplete: 'off', placeholder: existing ? (isSet ? '(set; empty keeps it)' : '(not set)') : '' })
        }
        if (f.type === 'select') {
          const select = h('select', { name: f.name }, f.required ? null : h('option', { value: '' }, '(none)'),
            choices.get(f.name)!.map((c) => h('option', { value: c.value }, c.label)))
          if (text) select.value = text
          return select
        }
        return h('input', { name: f.name, required: f.required && !existing ? true : null, value: text, type: f.type ?? 'text', step: f.type === 'number' ? 'any' : null })
      })
      // From a template (create only): a source takes its postback URL and link parameters; an offer is created
      // through the network template (its click id parameter appended) and answers the postback URL to paste.
      let chosen: Template | null = null
      const info = h('div', { class: 'template-info', 'data-template-info': '', role: 'status' })
      const showTemplate = () => {
        if (!chosen) return mount(info, [])
        const pb = chosen.postback_url
        const copyPb: HTMLButtonElement | null = spec.templates === 'network-templates' && pb
          ? h('button', { type: 'button', class: 'small', onclick: () => copy(copyPb!, pb) }, 'Copy postback URL') : null
        mount(info, [
          chosen.doc_url ? h('p', {}, h('a', { href: chosen.doc_url, target: '_blank', rel: 'noopener noreferrer', 'data-template-doc': '' }, `${chosen.name}: the document`)) : null,
          chosen.notes ? h('p', { class: 'hint' }, chosen.notes) : null,
          spec.templates === 'network-templates'
            ? h('p', {}, `The offer URL gets ${chosen.suffix}. Postback URL to paste into ${chosen.name}: `, h('code', { 'data-template-postback': '' }, pb ?? ''), ' ', copyPb)
            : null,
        ])
      }
      const picker: HTMLSelectElement | null = !existing && templates.length
        ? h('select', { name: 'template', onchange: () => {
          chosen = templates.find((t) => t.id === picker!.value) ?? null
          if (chosen && spec.templates === 'source-templates') {
            fields.forEach((f, i) => {
              const from = f.name === 'postback_url' ? chosen!.postback_url : f.name === 'link_params' ? chosen!.link_params : f.name === 'name' && !inputs[i]!.value ? chosen!.name : undefined
              if (from === undefined) return
              inputs[i]!.value = from ?? ''
              inputs[i]!.dispatchEvent(new Event('input'))
            })
          }
          showTemplate()
        } }, h('option', { value: '' }, '(none)'), templates.map((t) => h('option', { value: t.id }, t.name)))
        : null
      const form = h('form', { class: 'card', 'aria-labelledby': 'editor-title' },
        h('h2', { id: 'editor-title' }, existing ? `Edit ${spec.singular} "${text(existing.name)}"` : `New ${spec.singular}`),
        picker ? field('From template', picker, 'Fills the form from a built-in or imported template') : null, picker ? info : null,
        fields.map((f, i) => f.type === 'checkbox'
          ? h('div', { class: 'field' }, h('label', {}, inputs[i]!, ` ${f.label}`))
          : withWarnings(field(f.label, inputs[i]!, f.hint), f, inputs[i]!)),
        h('p', { class: 'form-error', role: 'alert' }),
        h('button', { type: 'submit' }, existing ? 'Save' : `Create ${spec.singular}`), ' ',
        h('button', { type: 'button', class: 'small', onclick: () => editor.replaceChildren() }, 'Cancel'),
      )
      form.addEventListener('submit', async (event) => {
        event.preventDefault()
        clearErrors(form)
        const body: Record<string, unknown> = {}
        fields.forEach((f, i) => {
          const el = inputs[i]!
          if (f.type === 'checkbox') {
            const checked = (el as HTMLInputElement).checked
            if (!existing || checked !== existing[f.name]) body[f.name] = checked
            return
          }
          const raw = el.value
          // A secret is write-only: empty leaves it as it is.
          if (f.type === 'password') { if (raw !== '') body[f.name] = raw; return }
          const value = raw === '' ? null : f.type === 'number' || (f.type === 'select' && !Array.isArray(f.options)) ? Number(raw) : raw
          // An edit sends only what changed; a create leaves empty optional fields out.
          if (existing ? value !== (existing[f.name] ?? null) : value !== null) body[f.name] = value
        })
        try {
          if (!existing && chosen && spec.templates === 'network-templates') {
            const made = await api<{ offer: Row; postback_url: string }>('POST', `/network-templates/${chosen.id}/create-offer`, body)
            upsert(rows, null, made.offer)
            render()
            // The postback URL stays on screen to be pasted into the network.
            const copyMade: HTMLButtonElement = h('button', { type: 'button', class: 'small', onclick: () => copy(copyMade, made.postback_url) }, 'Copy postback URL')
            mount(editor, h('div', { class: 'card', role: 'status', 'data-created-offer': '' },
              h('p', {}, `Offer "${text(made.offer.name)}" created. Paste this postback URL into ${chosen.name}:`),
              h('p', {}, h('code', { 'data-created-postback': '' }, made.postback_url), ' ', copyMade),
              h('button', { type: 'button', class: 'small', onclick: () => editor.replaceChildren() }, 'Done')))
            return
          }
          const saved = await api<Row>(existing ? 'PATCH' : 'POST', existing ? `/${spec.path}/${existing.id}` : `/${spec.path}`, body)
          upsert(rows, existing, saved)
          editor.replaceChildren()
          render()
        } catch (err) {
          showErrors(form, err)
        }
      })
      mount(editor, form)
      inputs[0]?.focus()
    }

    const header = (label: string, c: string, numeric = false) => {
      const th = h('th', { scope: 'col', class: numeric ? 'num' : null, 'data-sort': c, 'aria-sort': c === stats.sort ? (stats.ascending ? 'ascending' : 'descending') : 'none' }, h('button', { type: 'button', class: 'sort', onclick: () => {
        // Numbers start with the largest first.
        stats.ascending = stats.sort === c ? !stats.ascending : !numeric
        stats.sort = c
        for (const other of th.parentElement!.querySelectorAll('th[aria-sort]')) other.setAttribute('aria-sort', 'none')
        th.setAttribute('aria-sort', stats.ascending ? 'ascending' : 'descending')
        render()
        stats.save()
      } }, label))
      return th
    }
    search.addEventListener('input', () => { stats.search = search.value; render(); stats.save() })
    render()
    const section = h('section', { 'aria-labelledby': `${spec.path}-title` },
      h('div', { class: 'toolbar' }, h('h1', { id: `${spec.path}-title` }, spec.title), search,
        writable ? h('button', { type: 'button', onclick: () => openForm(null) }, `New ${spec.singular}`) : null),
      stats.controls, status, editor,
      h('div', { class: 'table-wrap' }, h('table', { 'data-list': spec.path, class: stats.enabled ? 'stats-table' : null }, h('thead', {}, h('tr', {}, spec.columns.map((c) => header(columnLabel(c), c)), stats.headers(header), h('th', { scope: 'col' }, ''))), tbody, tfoot)),
    )
    stats.mark(section.querySelector('table')!)
    stats.start(section)
    return section
  }
}

export const SOURCES: CatalogSpec = {
  stats: 'source',
  path: 'sources', section: 'campaigns', title: 'Sources', singular: 'source', columns: ['name', 'postback_url'],
  copyable: { field: 'postback_url', label: 'Copy postback URL' }, templates: 'source-templates',
  fields: [
    { name: 'name', label: 'Name', required: true },
    {
      name: 'postback_url', label: 'Postback URL', type: 'url',
      hint: 'Called on each conversion. Macros: {click_id}, {payout}, {status}, {tid}, {currency}, {external_id}, {campaign_id}, {offer_id}, ' +
        "{sub1}…{sub10} (put the network's click id in a sub on the tracking link), or any other parameter of the tracking link by its name",
      // The same check as the API's postback_url_warnings: a placeholder svc does not fill is sent as written.
      warn: postbackUrlWarnings,
    },
    {
      name: 'link_params', label: 'Tracking-link parameters',
      hint: "Query string the source's link carries, in the source's macros (ext={clickid}&zone={zoneid}&cost={cost}); campaigns show it in their tracking URL, the postback URL reads {ext}",
    },
  ],
}

export const OFFERS: CatalogSpec = {
  stats: 'offer',
  path: 'offers', section: 'campaigns', title: 'Offers', singular: 'offer', columns: ['name', 'slug', 'payout'], templates: 'network-templates',
  fields: [
    { name: 'name', label: 'Name', required: true },
    { name: 'slug', label: 'Slug', required: true },
    { name: 'url', label: 'URL', type: 'url', required: true, hint: 'Put {click_id} where the advertiser expects the click id' },
    { name: 'payout', label: 'Payout', type: 'number' },
    { name: 'currency', label: 'Currency', hint: '3 letters, default USD' },
  ],
}

export const LANDINGS: CatalogSpec = {
  stats: 'landing',
  path: 'landings', section: 'landings', title: 'Landings', singular: 'landing', columns: ['name', 'slug', 'url'],
  // The API's preview page (sandboxed, sample macro values) in a tab of its own: admin answers are never framed.
  rowLink: (r) => ({ href: `/admin/api/landings/${r.id}/preview`, label: 'Preview', newTab: true }),
  fields: [
    { name: 'name', label: 'Name', required: true },
    { name: 'slug', label: 'Slug', required: true, hint: 'Served at /lp/<slug>' },
    { name: 'html', label: 'HTML', type: 'textarea', hint: 'Macros: {click_id}, {offer_url}, {sub1}…; pixel.js is added before </body>' },
    { name: 'url', label: 'Or an external URL', type: 'url' },
  ],
}

export const EMAIL_LISTS: CatalogSpec = {
  path: 'email-lists', section: 'email', title: 'Email lists', singular: 'email list', columns: ['name', 'active_subscribers'],
  rowLink: (r) => ({ href: `#/subscribers?list=${r.id}`, label: 'Subscribers' }),
  fields: [{ name: 'name', label: 'Name', required: true }],
}

export const EMAIL_TRIGGERS: CatalogSpec = {
  path: 'email-triggers', section: 'email', title: 'Email triggers', singular: 'email trigger', columns: ['id', 'offer_id', 'target_list_id', 'active'],
  fields: [
    { name: 'offer_id', label: 'A conversion of this offer…', type: 'select', options: '/offers', required: true },
    { name: 'target_list_id', label: '…enrols the buyer in this list', type: 'select', options: '/email-lists', required: true },
    { name: 'active', label: 'Active', type: 'checkbox' },
  ],
}

export const PAYMENT_ACCOUNTS: CatalogSpec = {
  path: 'payment-accounts', section: 'commerce', title: 'Payment accounts', singular: 'payment account',
  columns: ['name', 'type', 'account_id', 'webhook_path'], copyable: { field: 'webhook_path', label: 'Copy webhook path' },
  fields: [
    { name: 'type', label: 'Processor', type: 'select', options: ['pay-a', 'pay-b'], required: true, createOnly: true },
    { name: 'name', label: 'Name', required: true },
    { name: 'webhook_secret', label: 'Webhook secret (pay-b: the webhook id)', type: 'password' },
    { name: 'api_key', label: 'API key (pay-a)', type: 'password' },
    { name: 'client_id', label: 'Client id (pay-b)', type: 'password', setFlag: 'has_client_credentials' },
    { name: 'client_secret', label: 'Client secret (pay-b)', type: 'password', setFlag: 'has_client_credentials' },
  ],
}

export const PRODUCTS: CatalogSpec = {
  path: 'products', section: 'commerce', title: 'Products', singular: 'product', columns: ['name', 'price', 'currency', 'active'],
  fields: [
    { name: 'name', label: 'Name', required: true },
    { name: 'price', label: 'Price', type: 'number', required: true },
    { name: 'currency', label: 'Currency', hint: '3 letters, default USD' },
    { name: 'offer_id', label: 'Offer (its conversions)', type: 'select', options: '/offers' },
    { name: 'email_list_id', label: 'Buyers join this list', type: 'select', options: '/email-lists' },
    { name: 'payment_account_id', label: 'Payment account', type: 'select', options: '/payment-accounts' },
    { name: 'active', label: 'Active', type: 'checkbox' },
  ],
}
