// One timeline per click (issue 30, docs/timeline.md). `#/click?id=<click_id>`: the click with every stored field
// (names, not ids), then what happened to it in time order (landing view, click-through, each postback with its
// raw query, status changes, each forward to the source with its HTTP result and latency, retry when failed).
// `#/click?<filters>` without an id: the clicks those filters select (a report row's "Clicks" link), newest
// first, each one linked to its timeline.
import { api, ApiError, type Me } from '../api'
import { field, h } from '../dom'
import { money } from '../format'
import { dbipAttribution, traceList, type TracedPath } from '../trace'
import { writeParams } from '../url-state'
import { conversionsTable, statusHistoryText, type Conversion, type HistoryEntry } from './conversions'
import './click.css'

type Row = Record<string, unknown>
interface TimelineEvent { at: string; kind: 'click' | 'landing_view' | 'landing_click' | 'postback' | 'status_change' | 'forward'; [k: string]: any }
interface Timeline { click: Row & { click_id: string; path_trace: { matched_now: number | null; paths: TracedPath[] } | null }; events: TimelineEvent[] }
interface ListItem {
  click_id: string; created_at: string; campaign_id: number; campaign_name: string | null; source_id: number | null; source_name: string | null
  offer_id: number | null; offer_name: string | null; country: string | null; device_type: string | null; cost: number; converted: boolean
  [sub: string]: unknown
}

const SUBS = ['sub1', 'sub2', 'sub3', 'sub4', 'sub5', 'sub6', 'sub7', 'sub8', 'sub9', 'sub10']
/** The list's filters as the API takes them (and as a report row's link writes them). */
const FILTERS = ['campaign_id', 'source_id', 'offer_id', 'landing_id', ...SUBS, 'country', 'device', 'from', 'to', 'tz']

const when = (iso: string) => new Date(iso).toLocaleString()
const time = (iso: string) => h('time', { datetime: iso }, when(iso))
export const timelineHref = (clickId: string) => `#/click?id=${encodeURIComponent(clickId)}`

/** The lookup box of both modes: opens the timeline of the id typed in. */
function lookupForm(current: string): HTMLFormElement {
  const input = h('input', { name: 'click_id', placeholder: '6f1c2d3e-…', autocomplete: 'off', value: current })
  const form = h('form', { class: 'card filters', role: 'search' }, field('Click id', input), h('button', { type: 'submit' }, 'Look up'))
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const id = input.value.trim()
    if (!id) return
    // The same id again is no hashchange: render it anyway (a second look after a retry).
    const target = timelineHref(id)
    if (location.hash === target) window.dispatchEvent(new HashChangeEvent('hashchange'))
    else location.hash = target
  })
  return form
}

const named = (name: unknown, id: unknown) => (id === null || id === undefined ? '—' : typeof name === 'string' ? `${name} (#${id})` : `#${id} (deleted)`)
const both = (a: unknown, b: unknown) => [a, b].filter((x) => x !== null && x !== undefined && x !== '').join(' ') || null

/** Every stored field, each with a readable label; `data-field` is the API's name for it. */
function clickFields(c: Row): Array<[field: string, label: string, value: unknown]> {
  const params = c.params && typeof c.params === 'object' ? Object.entries(c.params as Record<string, string>) : []
  return [
    ['created_at', 'Time', when(String(c.created_at))],
    ['campaign_id', 'Campaign', named(c.campaign_name, c.campaign_id)],
    ['source_id', 'Source', named(c.source_name, c.source_id)],
    ['offer_id', 'Offer', named(c.offer_name, c.offer_id)],
    ['landing_id', 'Landing', c.landing_id === null ? 'none (direct to the offer)' : named(c.landing_name, c.landing_id)],
    ['path_id', 'Path', c.path_id === null ? 'default rotation' : named(c.path_name, c.path_id)],
    ['cost', 'Cost', money(Number(c.cost), c.cost_currency as string)],
    ['ip', 'IP', c.ip],
    ['country', 'Country', c.country], ['region', 'Region', c.region], ['city', 'City', c.city],
    ['asn', 'ASN', c.asn], ['as_org', 'Network', c.as_org], ['connection', 'Connection', c.connection],
    ['device_type', 'Device', c.device_type], ['os', 'OS', c.os], ['os_version', 'OS version', c.os_version],
    ['browser', 'Browser', c.browser], ['browser_version', 'Browser version', c.browser_version], ['language', 'Language', c.language],
    ['referrer', 'Referrer', c.referrer], ['user_agent', 'User agent', c.user_agent],
    ['is_unique', 'Unique', c.is_unique ? 'yes' : 'no'],
    ['bot_reason', 'Bot', c.bot_reason ?? 'no'],
    ['excluded', 'Excluded (own IP)', c.excluded ? 'yes' : 'no'],
    ...SUBS.map((s): [string, string, unknown] => [s, s, c[s]]),
    ['params', 'Other parameters', params.length ? params.map(([k, v]) => `${k}=${v}`).join(' · ') : null],
  ]
}

function fieldList(c: Row): HTMLElement {
  return h('div', {},
    h('dl', { class: 'pairs click-fields' }, clickFields(c).flatMap(([f, label, v]) => [
      h('dt', { 'data-field': f }, label), h('dd', { 'data-field': f }, v === null || v === undefined || v === '' ? '—' : String(v))])),
    dbipAttribution())
}

const stateText = (e: { type: string; status: string | null; revenue: number }, currency: string | null) =>
  `${e.type}${e.status && e.status !== e.type ? ` (${e.status})` : ''}, ${money(e.revenue, currency)}`

const queryBlock = (label: string, query: string | null) => query === null
  ? h('p', { class: 'muted' }, 'Recorded without a /postback (an incoming webhook, an order or the API): no query string.')
  : h('p', {}, `${label}: `, h('code', { class: 'query', 'data-query': '' }, query === '' ? '(empty)' : query))

/** A forward's outcome: "HTTP 200 in 42 ms", the last error, or what it waits for. */
function forwardOutcome(e: TimelineEvent): string {
  if (e.status === 'done') return e.result ?? 'done'
  if (e.status === 'failed') return e.last_error ?? 'failed'
  if (e.status === 'cancelled') return 'cancelled'
  const last = e.last_error ? `; last try: ${e.last_error}` : ''
  return e.status === 'running' ? `sending now${last}` : `waiting${e.next_run_at ? ` until ${when(e.next_run_at)}` : ''}${last}`
}

function retryButton(jobId: number): HTMLElement {
  return h('button', { type: 'button', class: 'small', onclick: async (event: Event) => {
    const button = event.target as HTMLButtonElement
    try { await api('POST', `/jobs/${jobId}/retry`); button.replaceWith('retrying') } catch (err) { button.replaceWith((err as Error).message) }
  } }, 'Retry')
}

function eventItem(e: TimelineEvent, c: Timeline['click']): HTMLElement {
  const li = (attrs: Record<string, string | number>, title: string, ...body: Array<Node | string | null>) =>
    h('li', { 'data-kind': e.kind, ...attrs }, time(e.at), ' ', h('strong', {}, title), ...body)
  switch (e.kind) {
    case 'click':
      return li({}, 'Click', ` on ${c.campaign_name ?? `campaign #${c.campaign_id}`}`, c.source_name ? ` from ${c.source_name}` : '',
        c.landing_id !== null ? ` → landing ${c.landing_name ?? `#${c.landing_id}`}` : c.offer_id !== null ? ` → offer ${c.offer_name ?? `#${c.offer_id}`}` : '')
    case 'landing_view':
      return li({}, 'Landing viewed', ` ${c.landing_name ?? (e.landing_id ? `#${e.landing_id}` : '')}`)
    case 'landing_click':
      return li({}, 'Click-through to the offer', ` ${c.offer_name ?? (e.offer_id ? `#${e.offer_id}` : '')}`)
    case 'postback':
      return li({ 'data-conversion': e.conversion_id }, `Conversion #${e.conversion_id}`, `: ${stateText(e as never, e.currency)}`,
        e.transaction_id ? `, tid ${e.transaction_id}` : '', e.date !== e.at ? ` (conversion date ${when(e.date)})` : '',
        queryBlock('Postback', e.query),
        // Sent with placeholders svc could not fill (issue 26): the source may not attribute the conversion.
        e.forward_warning ? h('p', { role: 'status', 'data-forward-warning': e.conversion_id }, `⚠ Conversion ${e.conversion_id}: ${e.forward_warning}`) : null)
    case 'status_change':
      return li({ 'data-conversion': e.conversion_id }, e.reversal_id ? `Conversion #${e.conversion_id} reversed` : `Conversion #${e.conversion_id} changed`,
        e.reversal_id ? ` by conversion #${e.reversal_id} (a negative postback recorded on its own)` : `: ${stateText(e.from, e.currency)} → ${stateText(e as never, e.currency)}`,
        e.reversal_id ? null : queryBlock('Postback', e.query))
    case 'forward':
      return li({ 'data-job': e.job_id, 'data-status': e.status }, 'Forward to the source',
        ` (conversion #${e.conversion_id}): `, h('span', { class: `outcome ${e.status === 'failed' ? 'neg' : e.status === 'done' ? 'pos' : ''}`, 'data-outcome': '' },
          e.status === 'failed' ? '✗ failed: ' : e.status === 'done' ? '✓ ' : '', forwardOutcome(e)),
        `, attempt ${e.attempts} of ${e.max_attempts}`,
        e.url ? h('p', {}, 'URL: ', h('code', { class: 'query' }, e.url)) : null,
        e.status === 'failed' ? retryButton(e.job_id) : null)
  }
}

async function timelineScreen(id: string): Promise<HTMLElement> {
  const lookup = lookupForm(id)
  let t: Timeline
  try {
    t = await api<Timeline>('GET', `/clicks/${encodeURIComponent(id)}/timeline`)
  } catch (err) {
    return h('section', { 'aria-labelledby': 'click-title' }, h('h1', { id: 'click-title' }, 'Click'), lookup,
      h('p', { role: 'alert', class: 'form-error' }, err instanceof ApiError && (err.status === 404 || err.status === 400) ? 'No click with this id.' : (err as Error).message))
  }
  const c = t.click
  const conversionIds = [...new Set(t.events.filter((e) => e.kind === 'postback').map((e) => e.conversion_id as number))]
  const [conversions, negative, histories] = await Promise.all([
    api<{ items: Conversion[] }>('GET', `/conversions?click_id=${encodeURIComponent(c.click_id)}`).then((r) => r.items, () => [] as Conversion[]),
    api<{ items: Array<{ slug: string; negative: boolean }> }>('GET', '/conversion-types')
      .then((r) => new Set(r.items.filter((x) => x.negative).map((x) => x.slug)), () => new Set(['chargeback'])),
    // Only an updated conversion has a history worth a line (its status_change events say the same, in time).
    Promise.all(conversionIds.map((cid) => t.events.some((e) => e.kind === 'status_change' && e.conversion_id === cid)
      ? api<{ status_history: HistoryEntry[] }>('GET', `/conversions/${cid}`).then((x) => x.status_history, () => []) : [])),
  ])
  const trace = c.path_trace
  const pathName = (pid: unknown) => (typeof pid !== 'number' ? 'the default rotation'
    : `path "${trace?.paths.find((p) => p.path_id === pid)?.name ?? 'since removed'}" (#${pid})`)
  return h('section', { 'aria-labelledby': 'click-title', class: 'click-screen' },
    h('h1', { id: 'click-title' }, 'Click'), lookup,
    h('section', { class: 'card', 'data-click': c.click_id },
      h('h2', {}, 'Click ', h('code', { class: 'query' }, c.click_id)),
      fieldList(c),
      trace ? h('div', { 'data-path-trace': '' }, h('h3', {}, 'Targeting paths'),
        h('p', {}, `Took ${pathName(c.path_id)}; under the paths as they are now it would take ${pathName(trace.matched_now)}.`),
        traceList(trace.paths)) : null,
      h('h3', {}, 'Timeline'),
      h('ol', { class: 'timeline', 'data-timeline': '' }, t.events.map((e) => eventItem(e, c))),
      h('h3', {}, 'Its conversions'), conversionsTable(conversions, negative),
      conversionIds.map((cid, i) => histories[i]!.length > 1
        ? h('p', { 'data-status-history': cid }, statusHistoryText(cid, histories[i]!, conversions.find((x) => x.id === cid)?.currency ?? null)) : null)))
}

// ---- the clicks list ----

function filterText(params: URLSearchParams, first: ListItem | undefined): string {
  const names: Record<string, string | null | undefined> = { campaign_id: first?.campaign_name, source_id: first?.source_name, offer_id: first?.offer_name }
  const parts: string[] = []
  for (const k of FILTERS) {
    const v = params.get(k)
    if (!v || k === 'tz') continue
    const label = k.replace(/_id$/, '')
    parts.push(`${label}: ${names[k] ?? v}`)
  }
  return parts.length ? parts.join(' · ') : 'all clicks of the last 30 days'
}

function listRow(i: ListItem): HTMLElement {
  const subs = SUBS.filter((s) => i[s] !== null && i[s] !== undefined).map((s) => `${s}=${i[s]}`).join(' ')
  return h('tr', { 'data-click-row': i.click_id },
    h('td', {}, h('a', { href: timelineHref(i.click_id) }, when(i.created_at))),
    h('td', {}, i.campaign_name ?? `#${i.campaign_id}`),
    h('td', {}, i.source_name ?? '—'),
    h('td', {}, i.offer_name ?? '—'),
    h('td', {}, i.country ?? '—'),
    h('td', {}, i.device_type ?? '—'),
    h('td', { class: 'subs' }, subs || '—'),
    h('td', { class: 'num', 'data-col': 'cost' }, money(i.cost)),
    h('td', {}, i.converted ? 'yes' : 'no'),
    h('td', {}, h('a', { href: timelineHref(i.click_id), 'aria-label': `Timeline of click ${i.click_id}` }, h('code', {}, i.click_id.slice(0, 8)), '…')))
}

async function listScreen(params: URLSearchParams): Promise<HTMLElement> {
  const query = new URLSearchParams()
  for (const k of FILTERS) { const v = params.get(k); if (v) query.set(k, v) }
  // Only the list's own state stays in the address (a typed id or a stale cursor is not state).
  writeParams(query)
  const lookup = lookupForm('')
  const heading = h('h1', { id: 'click-title' }, 'Clicks')
  let page: { items: ListItem[]; next_cursor: string | null; cost_currency?: string }
  try {
    page = await api('GET', `/clicks?${query}${query.size ? '&' : ''}limit=50`)
  } catch (err) {
    return h('section', { 'aria-labelledby': 'click-title' }, heading, lookup, h('p', { role: 'alert', class: 'form-error' }, (err as Error).message))
  }
  const currency = page.cost_currency ?? null
  const tbody = h('tbody', {})
  const add = (items: ListItem[]) => { for (const i of items) tbody.append(listRow(i)) }
  add(page.items)
  if (page.items.length === 0) tbody.append(h('tr', {}, h('td', { colspan: 10 }, 'No clicks match.')))
  const more = h('button', { type: 'button', class: 'small', 'data-more': '' }, 'Show older clicks')
  let cursor = page.next_cursor
  more.hidden = cursor === null
  more.addEventListener('click', async () => {
    if (!cursor) return
    more.disabled = true
    try {
      const next = await api<typeof page>('GET', `/clicks?${query}${query.size ? '&' : ''}limit=50&cursor=${encodeURIComponent(cursor)}`)
      add(next.items)
      cursor = next.next_cursor
      more.hidden = cursor === null
    } catch (err) {
      more.replaceWith(h('p', { role: 'alert' }, (err as Error).message))
    } finally {
      more.disabled = false
    }
  })
  return h('section', { 'aria-labelledby': 'click-title', class: 'click-screen' },
    heading, lookup,
    h('p', { 'data-click-filters': '' }, `Newest first: ${filterText(params, page.items[0])}.`),
    h('div', { class: 'table-wrap' }, h('table', { 'data-clicks': '' },
      // Every click's cost is in the cost currency: named once, in the header.
      h('thead', {}, h('tr', {}, ['Time', 'Campaign', 'Source', 'Offer', 'Country', 'Device', 'Subs', `Cost${currency ? ` (${currency})` : ''}`, 'Converted', 'Click']
        .map((c) => h('th', { scope: 'col' }, c)))),
      tbody)),
    more)
}

export async function clickView(_me: Me, params: URLSearchParams): Promise<HTMLElement> {
  const id = params.get('id')?.trim()
  return id ? timelineScreen(id) : listScreen(params)
}
