// Conversions and postback problems (section conversions): recent conversions (each click id a link to its
// timeline, views/click.ts), the click lookup (it opens that timeline), and the postbacks that recorded nothing
// or warned, with their raw query: where an affiliate debugs an integration.
import { api } from '../api'
import { field, h } from '../dom'
import { countedRevenue, money } from '../format'

export interface Conversion { id: number; click_id: string; revenue: number; currency: string | null; type: string; status: string | null; transaction_id: string | null; date: string; forward_warning?: string }
export interface HistoryEntry { type: string; status: string | null; revenue: number; at: string; reversal_id: number | null }
interface PostbackError { id: number; reason: string; click_id: string | null; query: string | null; ip: string | null; conversion_id: number | null; created_at: string }

const when = (iso: string) => new Date(iso).toLocaleString()
const timelineHref = (clickId: string) => `#/click?id=${encodeURIComponent(clickId)}`

/** Revenue as it counts: a chargeback (any type flagged negative) shows its minus sign. Click ids open their timeline. */
export function conversionsTable(items: Conversion[], negative: ReadonlySet<string>): HTMLElement {
  return h('div', { class: 'table-wrap' }, h('table', {},
    h('thead', {}, h('tr', {}, ['Date', 'Click', 'Type', 'Status', 'Revenue', 'Transaction'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, items.length === 0 ? h('tr', {}, h('td', { colspan: 6 }, 'No conversions.')) : items.map((c) => h('tr', { 'data-conversion': c.id },
      h('td', {}, when(c.date)), h('td', {}, h('a', { href: timelineHref(c.click_id), 'data-click-link': c.click_id }, h('code', {}, c.click_id))),
      h('td', {}, c.type), h('td', {}, c.status ?? '—'),
      h('td', { class: 'num' }, money(countedRevenue(c, negative), c.currency)), h('td', {}, c.transaction_id ?? '—')))),
  ))
}

/** A conversion's statuses in one line (postback_status_updates), oldest first. */
export function statusHistoryText(id: number, history: readonly HistoryEntry[], currency: string | null): string {
  return `Status history of conversion ${id}: ` + history.map((e) =>
    `${e.type}${e.status ? ` (${e.status})` : ''} ${money(e.revenue, currency)}, ${when(e.at)}${e.reversal_id ? `, reversed by conversion ${e.reversal_id}` : ''}`).join(' → ')
}

export async function conversionsView(): Promise<HTMLElement> {
  const [recent, errors, types] = await Promise.all([
    api<{ items: Conversion[] }>('GET', '/conversions?limit=50'),
    api<{ items: PostbackError[] }>('GET', '/postback-errors?limit=50'),
    // Which types count negative (the same permission as the conversions; chargeback when unreadable).
    api<{ items: Array<{ slug: string; negative: boolean }> }>('GET', '/conversion-types').then((t) => t.items, () => [{ slug: 'chargeback', negative: true }]),
  ])
  const negative: ReadonlySet<string> = new Set(types.filter((t) => t.negative).map((t) => t.slug))
  const clickId = h('input', { name: 'click_id', placeholder: '6f1c2d3e-…', autocomplete: 'off' })
  // The click's whole story is its timeline screen: the lookup opens it.
  const lookup = h('form', { class: 'card filters', role: 'search' }, field('Click id', clickId), h('button', { type: 'submit' }, 'Look up'))
  lookup.addEventListener('submit', (event) => {
    event.preventDefault()
    const id = clickId.value.trim()
    if (id) location.hash = timelineHref(id)
  })
  return h('section', { 'aria-labelledby': 'conv-title' },
    h('h1', { id: 'conv-title' }, 'Conversions'),
    lookup,
    h('h2', {}, 'Recent conversions'), conversionsTable(recent.items, negative),
    h('h2', {}, 'Postback problems'),
    h('p', {}, 'Postbacks that recorded nothing (unknown click, bad signature, address not allowed…) or recorded with a warning, newest first.'),
    h('div', { class: 'table-wrap' }, h('table', { 'data-postback-errors': '' },
      h('thead', {}, h('tr', {}, ['Time', 'Reason', 'Click', 'Query', 'From', 'Recorded'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, errors.items.length === 0 ? h('tr', {}, h('td', { colspan: 6 }, 'No problems.')) : errors.items.map((e) => h('tr', {},
        h('td', {}, when(e.created_at)), h('td', {}, h('strong', {}, e.reason)), // A warning row's click has a conversion, so a timeline; an ignored postback's id may name no click.
        h('td', {}, e.click_id ? (e.conversion_id ? h('a', { href: timelineHref(e.click_id) }, h('code', {}, e.click_id)) : h('code', {}, e.click_id)) : '—'),
        h('td', { class: 'query' }, h('code', {}, e.query ?? '')), h('td', {}, e.ip ?? '—'), h('td', {}, e.conversion_id ? `yes (#${e.conversion_id})` : 'no')))),
    )),
  )
}
