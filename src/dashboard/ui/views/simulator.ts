// The targeting simulator (issue 28): a made-up visit to a saved campaign (IP, user agent, language,
// referrer, query string, unique or not, a time), answered by the server's own routing: the path, offer,
// landing and address it would get, what the rules read of the visitor, and each condition's outcome.
// Nothing is recorded.
import { api, ApiError } from '../api'
import { field, h, mount } from '../dom'
import { traceList, visitorPanel, type TracedPath } from '../trace'
import type { Named } from './rotation'

interface SimulateResult {
  path: { id: number; name: string; action: string } | null
  offer_id: number | null; landing_id: number | null; location: string | null; bot_reason: string | null
  visitor: Record<string, unknown>; trace: TracedPath[]
}

/** "sub1=a&sub2=b" (a leading "?" or a whole link too) → {sub1: 'a', sub2: 'b'}. */
function queryOf(text: string): Record<string, string> {
  const t = text.trim()
  const qs = t.includes('?') ? t.slice(t.indexOf('?') + 1) : t
  return Object.fromEntries(new URLSearchParams(qs))
}

export function simulator(campaignId: number, names: { offers: Named[]; landings: Named[] }): HTMLElement {
  const ip = h('input', { name: 'ip', required: true, placeholder: '203.0.113.7 or 2001:db8::1', autocomplete: 'off' })
  const ua = h('input', { name: 'user_agent', value: navigator.userAgent })
  const language = h('input', { name: 'accept_language', placeholder: 'de-DE,de;q=0.9' })
  const referer = h('input', { name: 'referer', placeholder: 'https://www.facebook.com/' })
  const query = h('input', { name: 'query', placeholder: 'sub1=fb&sub2=123' })
  const unique = h('input', { name: 'unique', type: 'checkbox', checked: true })
  const time = h('input', { name: 'time', type: 'datetime-local' })
  const result = h('div', { 'aria-live': 'polite', class: 'sim-result' })
  const nameOf = (list: Named[], id: number | null) => (id === null ? '—' : `${list.find((x) => x.id === id)?.name ?? 'unknown'} (#${id})`)
  const form = h('form', { class: 'card', 'aria-labelledby': `sim-title-${campaignId}`, 'data-simulator': campaignId },
    h('h3', { id: `sim-title-${campaignId}` }, 'Simulate a visit'),
    h('p', {}, 'Runs the saved campaign (save your changes first). Nothing is recorded.'),
    h('div', { class: 'filters' },
      field('Visitor IP', ip), field('User agent', ua), field('Accept-Language', language), field('Referer', referer),
      field('Query string', query, 'sub1=…&sub2=…'), field('Time', time, 'empty: now (your local time)'),
      h('div', { class: 'field' }, h('label', {}, unique, ' Unique visitor'))),
    h('p', { class: 'form-error', role: 'alert' }),
    h('button', { type: 'submit' }, 'Simulate'),
    result,
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    const error = form.querySelector<HTMLElement>('.form-error')!
    error.textContent = ''
    const headers: Record<string, string> = {}
    if (language.value.trim()) headers['accept-language'] = language.value.trim()
    if (referer.value.trim()) headers.referer = referer.value.trim()
    const when = time.value ? new Date(time.value) : null
    try {
      const r = await api<SimulateResult>('POST', `/campaigns/${campaignId}/simulate`, {
        ip: ip.value.trim(), user_agent: ua.value, headers, query: queryOf(query.value), unique: unique.checked,
        ...(when && !Number.isNaN(when.getTime()) ? { time: when.toISOString() } : {}),
      })
      mount(result, h('div', { 'data-sim-result': '' },
        h('dl', { class: 'pairs' },
          h('dt', {}, 'Path'), h('dd', { 'data-sim-path': r.path?.id ?? '' }, r.path ? `${r.path.name} (${r.path.action})` : 'none: the default rotation'),
          h('dt', {}, 'Offer'), h('dd', {}, nameOf(names.offers, r.offer_id)),
          h('dt', {}, 'Landing'), h('dd', {}, nameOf(names.landings, r.landing_id)),
          h('dt', {}, 'Sent to'), h('dd', {}, r.location === null ? 'the 404 page' : h('code', { class: 'link' }, r.location)),
          h('dt', {}, 'Bot'), h('dd', {}, r.bot_reason ?? 'no')),
        h('h4', {}, 'The visitor, as the rules read it'), visitorPanel(r.visitor),
        h('h4', {}, 'Paths tried'), traceList(r.trace)))
    } catch (err) {
      mount(result)
      error.textContent = err instanceof ApiError && err.status === 409
        ? `${err.message} (a paused campaign, or one without a usable offer, sends nobody anywhere)`
        : err instanceof ApiError ? err.message : 'The server could not be reached.'
    }
  })
  return form
}
