// Read-mostly lists of the admin API (leads, orders, webhook deliveries, outbox, subscriptions…): chosen
// columns, the API's filters, "Load more" through next_cursor, an optional CSV export and a row action.
import { api, can, type Me } from '../api'
import { field, h, mount } from '../dom'
import { money, refundAmount } from '../format'

type Row = Record<string, unknown> & { id: number }

export interface RecordsSpec {
  title: string
  section: string
  /** The collection path under /admin/api, without the query. */
  path: string
  columns: string[]
  /** Columns shown otherwise than as their value (money: its currency, a refund's minus sign). */
  render?: Record<string, (row: Row) => string>
  /** Filters the API takes, as text inputs. */
  filters?: string[]
  /** A CSV export path under /admin/api that takes the same filters. */
  exportPath?: string
  /** A write on one row (refund an order), with what it asks first. */
  action?: { label: string; confirm: (row: Row) => string; run: (row: Row) => Promise<unknown> }
}

const cell = (v: unknown) => (v === null || v === undefined || v === '' ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v))

export function recordsView(spec: RecordsSpec) {
  return async (me: Me): Promise<HTMLElement> => {
    const inputs = (spec.filters ?? []).map((f) => h('input', { name: f }))
    const tbody = h('tbody')
    const more = h('button', { type: 'button', class: 'small' }, 'Load more')
    const status = h('p', { class: 'form-error', role: 'alert' })
    const exportLink = spec.exportPath ? h('a', { class: 'button', download: '' }, 'Export CSV') : null
    let cursor: string | null = null
    const query = () => {
      const q = new URLSearchParams()
      spec.filters?.forEach((f, i) => { if (inputs[i]!.value.trim()) q.set(f, inputs[i]!.value.trim()) })
      return q
    }
    const load = async (append: boolean) => {
      status.textContent = ''
      const q = query()
      exportLink?.setAttribute('href', `/admin/api${spec.exportPath}?${q}`)
      q.set('limit', '100')
      if (append && cursor) q.set('cursor', cursor)
      try {
        const page = await api<{ items: Row[]; next_cursor: string | null }>('GET', `${spec.path}?${q}`)
        const rows = page.items.map((r) => h('tr', { 'data-id': r.id },
          spec.columns.map((c) => h('td', spec.render?.[c] ? { class: 'num' } : {}, spec.render?.[c] ? spec.render[c]!(r) : cell(r[c]))),
          spec.action && can(me, spec.section, 'write') ? h('td', {}, h('button', { type: 'button', class: 'small', onclick: async () => {
            if (!confirm(spec.action!.confirm(r))) return
            try { await spec.action!.run(r); await load(false) } catch (err) { status.textContent = (err as Error).message }
          } }, spec.action.label)) : null))
        if (append) tbody.append(...rows)
        else mount(tbody, rows.length ? rows : h('tr', {}, h('td', { colspan: spec.columns.length + 1 }, 'Nothing here.')))
        cursor = page.next_cursor
        more.hidden = cursor === null
      } catch (err) {
        status.textContent = (err as Error).message
      }
    }
    more.addEventListener('click', () => void load(true))
    const form = spec.filters?.length
      ? h('form', { class: 'card filters', role: 'search' }, spec.filters.map((f, i) => field(f.replace(/_/g, ' '), inputs[i]!)), h('button', { type: 'submit' }, 'Filter'), exportLink)
      : exportLink
    form?.addEventListener('submit', (event) => { event.preventDefault(); void load(false) })
    await load(false)
    return h('section', { 'aria-labelledby': 'records-title' },
      h('h1', { id: 'records-title' }, spec.title), form, status,
      h('div', { class: 'table-wrap' }, h('table', {}, h('thead', {}, h('tr', {}, spec.columns.map((c) => h('th', { scope: 'col' }, c.replace(/_/g, ' '))), spec.action ? h('th', {}) : null)), tbody)),
      more,
    )
  }
}

export const LEADS: RecordsSpec = {
  title: 'Leads', section: 'landings', path: '/leads', columns: ['created_at', 'email', 'name', 'landing_id', 'campaign_id', 'click_id'],
  filters: ['email', 'landing_id', 'campaign_id', 'from', 'to'], exportPath: '/leads/export',
}

export const ORDERS: RecordsSpec = {
  title: 'Orders', section: 'commerce', path: '/orders', columns: ['created_at', 'source', 'status', 'total', 'refunded', 'email', 'click_id'],
  // The API keeps refunded as a positive amount (what was refunded); here it reads as money going back.
  render: {
    total: (o) => money(Number(o.total), o.currency as string | null),
    refunded: (o) => refundAmount(Number(o.refunded), o.currency as string | null),
  },
  filters: ['source', 'status', 'click_id'],
  action: {
    label: 'Refund',
    confirm: (o) => `Mark order ${o.id} refunded (all that is left)? This books a negative conversion; it moves no money at the processor.`,
    run: (o) => api('POST', `/orders/${o.id}/refund`, {}),
  },
}

export const SUBSCRIPTIONS: RecordsSpec = {
  title: 'Subscriptions', section: 'commerce', path: '/subscriptions', columns: ['created_at', 'source', 'status', 'email', 'product_id', 'current_period_end'],
  filters: ['source', 'status', 'email'],
}

export const WEBHOOK_EVENTS: RecordsSpec = {
  title: 'Webhook deliveries', section: 'commerce', path: '/webhook-events', columns: ['received_at', 'source', 'topic', 'signature', 'outcome', 'error', 'deliveries'],
  filters: ['source', 'outcome', 'click_id'],
}

export const OUTBOX: RecordsSpec = {
  title: 'Outbox', section: 'email', path: '/outbox', columns: ['created_at', 'to', 'subject', 'status', 'result', 'job'],
  filters: ['status', 'email', 'list_id'],
}
