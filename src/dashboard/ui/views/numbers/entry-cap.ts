// An offer entry's own cap in the rotation editor (docs/caps.md: `offers[].cap` of a campaign or a path), saved
// with the campaign like the weight. The fields send what was typed (no browser-side limits): the API checks
// the cap and its message ("offers.0.cap.limit: …") is shown beside the field it names.
import { h } from '../../dom'
import type { Named } from '../rotation'

export interface Cap {
  metric: string; limit: number; period: string; time_zone: string; on_reached: string
  fallback_offer_id: number | null; fallback_url: string | null; warn_percent: number
}

export interface EntryCap {
  element: HTMLDetailsElement
  /** The cap to save: null when "Cap this entry" is off. */
  value(): Record<string, unknown> | null
  /** Puts the API's message beside `field` (metric, limit, …); false when there is no such field. */
  showError(field: string, message: string): boolean
  clearErrors(): void
  /** The summary line's status part (the cap's count and state, from /admin/api/caps). */
  status: HTMLElement
}

export function entryCap(initial: Cap | null, offers: Named[], label: string): EntryCap {
  const on = h('input', { type: 'checkbox', 'data-cap-field': 'on', checked: initial !== null, 'aria-label': `cap ${label}` })
  const metric = h('select', { 'data-cap-field': 'metric', 'aria-label': `cap metric of ${label}` },
    h('option', { value: 'clicks' }, 'clicks'), h('option', { value: 'conversions' }, 'conversions'))
  metric.value = initial?.metric ?? 'clicks'
  const limit = h('input', { type: 'number', step: 'any', inputmode: 'numeric', 'data-cap-field': 'limit', 'aria-label': `cap limit of ${label}`, value: initial?.limit ?? '' })
  const period = h('select', { 'data-cap-field': 'period', 'aria-label': `cap period of ${label}` }, h('option', { value: 'day' }, 'per day'), h('option', { value: 'total' }, 'in total'))
  period.value = initial?.period ?? 'day'
  const zone = h('input', { 'data-cap-field': 'time_zone', 'aria-label': `cap time zone of ${label}`, value: initial?.time_zone ?? 'UTC', size: 14 })
  const onReached = h('select', { 'data-cap-field': 'on_reached', 'aria-label': `once the cap of ${label} is reached` },
    h('option', { value: 'rotate' }, 'leave the rotation'), h('option', { value: 'offer' }, 'send to a fallback offer'), h('option', { value: 'url' }, 'send to a fallback URL'))
  onReached.value = initial?.on_reached ?? 'rotate'
  const fallbackOffer = h('select', { 'data-cap-field': 'fallback_offer_id', 'aria-label': `fallback offer of ${label}` }, offers.map((o) => h('option', { value: o.id }, o.name)))
  if (initial?.fallback_offer_id) fallbackOffer.value = String(initial.fallback_offer_id)
  const fallbackUrl = h('input', { type: 'url', 'data-cap-field': 'fallback_url', 'aria-label': `fallback URL of ${label}`, value: initial?.fallback_url ?? '', placeholder: 'https://…' })
  const warn = h('input', { type: 'number', step: 'any', 'data-cap-field': 'warn_percent', 'aria-label': `soft-cap warning % of ${label}`, value: initial?.warn_percent ?? 80, size: 4 })
  const inputs = { metric, limit, period, time_zone: zone, on_reached: onReached, fallback_offer_id: fallbackOffer, fallback_url: fallbackUrl, warn_percent: warn }
  const slot = (name: string) => h('span', { class: 'field-error', 'data-cap-error': name, role: 'alert' })
  const cell = (text: string, input: HTMLElement, name: string) => h('span', { class: 'n-capfield' }, h('span', { class: 'n-label' }, text), input, slot(name))
  const fallbackOfferCell = cell('fallback offer', fallbackOffer, 'fallback_offer_id')
  const fallbackUrlCell = cell('fallback URL', fallbackUrl, 'fallback_url')
  const fields = h('div', { class: 'n-capfields' },
    cell('count', metric, 'metric'), cell('limit (0 pauses)', limit, 'limit'), cell('period', period, 'period'),
    cell('time zone', zone, 'time_zone'), cell('once reached', onReached, 'on_reached'), fallbackOfferCell, fallbackUrlCell, cell('warn at %', warn, 'warn_percent'))
  const sync = () => {
    fields.hidden = !on.checked
    fallbackOfferCell.hidden = onReached.value !== 'offer'
    fallbackUrlCell.hidden = onReached.value !== 'url'
  }
  on.addEventListener('change', sync)
  onReached.addEventListener('change', sync)
  sync()
  const status = h('span', { class: 'n-capstatus' }, initial ? `${initial.limit} ${initial.metric} ${initial.period === 'day' ? 'per day' : 'in total'}` : 'none here')
  const element = h('details', { class: 'n-cap', 'data-entry-cap': '' },
    h('summary', {}, 'Cap: ', status),
    h('label', { class: 'n-capon' }, on, ' Cap this entry here (its clicks in this rotation only; the offer\'s own cap applies as well)'),
    fields, slot('cap'))
  if (initial) element.open = false
  const num = (s: string) => (s.trim() === '' ? null : Number(s))
  return {
    element, status,
    value: () => on.checked ? {
      metric: metric.value, limit: num(limit.value), period: period.value, time_zone: zone.value.trim() || 'UTC', on_reached: onReached.value,
      warn_percent: num(warn.value),
      ...(onReached.value === 'offer' ? { fallback_offer_id: Number(fallbackOffer.value) } : {}),
      ...(onReached.value === 'url' ? { fallback_url: fallbackUrl.value.trim() } : {}),
    } : null,
    showError(field, message) {
      const target = element.querySelector<HTMLElement>(`[data-cap-error="${field in inputs ? field : 'cap'}"]`)!
      target.textContent = message
      ;(inputs as Record<string, HTMLElement>)[field]?.setAttribute('aria-invalid', 'true')
      element.open = true
      return true
    },
    clearErrors() {
      for (const el of element.querySelectorAll('[data-cap-error]')) el.textContent = ''
      for (const el of element.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid')
    },
  }
}
