// Conversions and postback problems (section conversions): recent conversions, a click looked up by its
// click_id with its conversions, and the postbacks that recorded nothing or warned, with their raw query:
// where an affiliate debugs an integration.
import { api, ApiError } from '../api'
import { field, h, mount } from '../dom'
import { countedRevenue, money } from '../format'
import { pairs, traceList, type TracedPath } from '../trace'

interface Conversion { id: number; click_id: string; revenue: number; currency: string | null; type: string; status: string | null; transaction_id: string | null; date: string; forward_warning?: string }
interface HistoryEntry { type: string; status: string | null; revenue: number; at: string; reversal_id: number | null }
interface Job { id: number; status: string; attempts: number; last_error: string | null; next_run_at: string | null; payload: { url?: string } }
interface PostbackError { id: number; reason: string; click_id: string | null; query: string | null; ip: string | null; conversion_id: number | null; created_at: string }

const when = (iso: string) => new Date(iso).toLocaleString()

/** Revenue as it counts: a chargeback (any type flagged negative) shows its minus sign. */
function conversionsTable(items: Conversion[], negative: ReadonlySet<string>): HTMLElement {
  return h('div', { class: 'table-wrap' }, h('table', {},
    h('thead', {}, h('tr', {}, ['Date', 'Click', 'Type', 'Status', 'Revenue', 'Transaction'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, items.length === 0 ? h('tr', {}, h('td', { colspan: 6 }, 'No conversions.')) : items.map((c) => h('tr', { 'data-conversion': c.id },
      h('td', {}, when(c.date)), h('td', {}, h('code', {}, c.click_id)), h('td', {}, c.type), h('td', {}, c.status ?? '—'),
      h('td', { class: 'num' }, money(countedRevenue(c, negative), c.currency)), h('td', {}, c.transaction_id ?? '—')))),
  ))
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
  const found = h('div', { 'aria-live': 'polite' })
  const lookup = h('form', { class: 'card filters', role: 'search' }, field('Click id', clickId), h('button', { type: 'submit' }, 'Look up'))
  lookup.addEventListener('submit', async (event) => {
    event.preventDefault()
    const id = clickId.value.trim()
    try {
      const [click, conversions] = await Promise.all([
        api<Record<string, unknown>>('GET', `/clicks/${encodeURIComponent(id)}`),
        api<{ items: Conversion[] }>('GET', `/conversions?click_id=${encodeURIComponent(id)}`),
      ])
      const shown = ['click_id', 'created_at', 'campaign_id', 'source_id', 'path_id', 'offer_id', 'landing_id', 'ip', 'country', 'region', 'city', 'asn', 'as_org', 'connection',
        'device_type', 'os', 'os_version', 'browser', 'browser_version', 'language', 'referrer', 'bot_reason', 'is_unique', 'cost', 'sub1', 'sub2', 'sub3']
      // The campaign's paths as they are now, tried on what the click recorded (issue 28).
      const trace = click.path_trace as { matched_now: number | null; paths: TracedPath[] } | null | undefined
      const pathName = (id: unknown) => (typeof id !== 'number' ? 'the default rotation'
        : `path "${trace?.paths.find((p) => p.path_id === id)?.name ?? 'since removed'}" (#${id})`)
      // Each conversion's postbacks forwarded to the traffic source: status, attempts, last error, retry.
      const forwards = await Promise.all(conversions.items.map((c) => api<{ items: Job[] }>('GET', `/jobs?conversion_id=${c.id}`).then((p) => p.items, () => [] as Job[])))
      const jobs = forwards.flat()
      // Only a conversion with a tid can have been updated (postback_status_updates): its history, when it has one.
      const histories = await Promise.all(conversions.items.map((c) => c.transaction_id
        ? api<{ status_history: HistoryEntry[] }>('GET', `/conversions/${c.id}`).then((x) => x.status_history, () => [])
        : []))
      const jobRows = h('tbody', {}, jobs.length === 0 ? h('tr', {}, h('td', { colspan: 5 }, 'None (the source has no postback URL, or the type sends none).')) : jobs.map((j) => h('tr', { 'data-job': j.id },
        h('td', {}, j.status), h('td', { class: 'num' }, j.attempts), h('td', {}, j.last_error ?? '—'), h('td', { class: 'query' }, h('code', {}, j.payload.url ?? '')),
        h('td', {}, j.status === 'failed' ? h('button', { type: 'button', class: 'small', onclick: async (event: Event) => {
          const button = event.target as HTMLButtonElement
          try { await api('POST', `/jobs/${j.id}/retry`); button.replaceWith('retrying') } catch (err) { button.replaceWith((err as Error).message) }
        } }, 'Retry') : null))))
      mount(found, h('section', { class: 'card', 'data-click': id },
        h('h2', {}, 'Click'),
        pairs(click, shown),
        trace ? h('div', { 'data-path-trace': '' }, h('h3', {}, 'Targeting paths'),
          h('p', {}, `Took ${pathName(click.path_id)}; under the paths as they are now it would take ${pathName(trace.matched_now)}.`),
          traceList(trace.paths)) : null,
        h('h3', {}, 'Its conversions'), conversionsTable(conversions.items, negative),
        conversions.items.map((c, i) => histories[i]!.length > 1 ? h('p', { 'data-status-history': c.id }, `Status history of conversion ${c.id}: `, histories[i]!.map((e) =>
          `${e.type}${e.status ? ` (${e.status})` : ''} ${money(e.revenue, c.currency)}, ${when(e.at)}${e.reversal_id ? `, reversed by conversion ${e.reversal_id}` : ''}`).join(' → ')) : null),
        h('h3', {}, 'Postbacks forwarded to the source'),
        // Sent with placeholders svc could not fill (issue 26): the source may not attribute the conversion.
        conversions.items.filter((c) => c.forward_warning).map((c) => h('p', { role: 'status', 'data-forward-warning': c.id }, `⚠ Conversion ${c.id}: ${c.forward_warning}`)),
        h('div', { class: 'table-wrap' }, h('table', { 'data-forwards': '' }, h('thead', {}, h('tr', {}, ['Status', 'Attempts', 'Last error', 'URL', ''].map((c) => h('th', { scope: 'col' }, c)))), jobRows))))
    } catch (err) {
      mount(found, h('p', { role: 'alert', class: 'form-error' }, err instanceof ApiError && err.status === 404 ? 'No click with this id.' : (err as Error).message))
    }
  })
  return h('section', { 'aria-labelledby': 'conv-title' },
    h('h1', { id: 'conv-title' }, 'Conversions'),
    lookup, found,
    h('h2', {}, 'Recent conversions'), conversionsTable(recent.items, negative),
    h('h2', {}, 'Postback problems'),
    h('p', {}, 'Postbacks that recorded nothing (unknown click, bad signature, address not allowed…) or recorded with a warning, newest first.'),
    h('div', { class: 'table-wrap' }, h('table', { 'data-postback-errors': '' },
      h('thead', {}, h('tr', {}, ['Time', 'Reason', 'Click', 'Query', 'From', 'Recorded'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, errors.items.length === 0 ? h('tr', {}, h('td', { colspan: 6 }, 'No problems.')) : errors.items.map((e) => h('tr', {},
        h('td', {}, when(e.created_at)), h('td', {}, h('strong', {}, e.reason)), h('td', {}, e.click_id ? h('code', {}, e.click_id) : '—'),
        h('td', { class: 'query' }, h('code', {}, e.query ?? '')), h('td', {}, e.ip ?? '—'), h('td', {}, e.conversion_id ? `yes (#${e.conversion_id})` : 'no')))),
    )),
  )
}
