// Caps (docs/caps.md): every cap with its count in the current period, the share used and its state (the
// soft-cap warning, reached), and a form that sets or removes an offer's cap. Rotation entries' own caps are
// set in the campaign editor or the API (offers[].cap of a campaign or a path) and listed here with the offer's.
import { all, api, ApiError, can, type Me } from '../api'
import { field, h, mount } from '../dom'
import { clearErrors, showErrors } from '../forms'

interface CapStatus {
  key: string; offer_id: number; campaign_id: number | null; path_id: number | null; metric: string; limit: number
  period: string; time_zone: string; period_key: string; resets_at: string | null; count: number; percent: number
  state: 'ok' | 'warning' | 'reached'; on_reached: string
}
interface Named { id: number; name: string }

const STATE_LABEL = { ok: 'OK', warning: 'Soft cap', reached: 'Reached' } as const

export async function capsView(me: Me): Promise<HTMLElement> {
  const [offers, campaigns] = await Promise.all([all<Named & { cap: unknown }>('/offers'), all<Named>('/campaigns')])
  const offerName = new Map(offers.map((o) => [o.id, o.name]))
  const campaignName = new Map(campaigns.map((c) => [c.id, c.name]))
  const tbody = h('tbody')
  const load = async () => {
    const { caps } = await api<{ caps: CapStatus[] }>('GET', '/caps')
    mount(tbody, caps.length === 0
      ? h('tr', {}, h('td', { colspan: 7 }, 'No caps yet. Cap an offer below, or give a rotation entry a cap in the campaign editor.'))
      : caps.map((c) => h('tr', { 'data-cap': c.key, 'data-state': c.state },
        h('td', {}, offerName.get(c.offer_id) ?? `#${c.offer_id}`),
        h('td', {}, c.campaign_id === null ? 'every campaign' : `${campaignName.get(c.campaign_id) ?? `#${c.campaign_id}`}${c.path_id ? ` (path #${c.path_id})` : ''}`),
        h('td', {}, `${c.metric} per ${c.period === 'day' ? `day (${c.time_zone})` : 'all time'}`),
        h('td', { class: 'num' }, `${c.count} / ${c.limit}`),
        h('td', { class: 'num' }, `${c.percent}%`),
        h('td', { class: `cap-${c.state}` }, STATE_LABEL[c.state], c.state === 'reached' ? ` → ${c.on_reached}` : ''),
        h('td', {}, c.resets_at ? new Date(c.resets_at).toLocaleString() : '—'))))
  }
  await load()

  const writable = can(me, 'campaigns', 'write')
  const offer = h('select', { name: 'offer_id' }, offers.map((o) => h('option', { value: o.id }, o.name)))
  const metric = h('select', { name: 'cap.metric' }, h('option', { value: 'clicks' }, 'clicks'), h('option', { value: 'conversions' }, 'conversions'))
  const limit = h('input', { name: 'cap.limit', type: 'number', min: 0, required: true, value: 100 })
  const period = h('select', { name: 'cap.period' }, h('option', { value: 'day' }, 'per day'), h('option', { value: 'total' }, 'in total'))
  const zone = h('input', { name: 'cap.time_zone', value: 'UTC' })
  const onReached = h('select', { name: 'cap.on_reached' },
    h('option', { value: 'rotate' }, 'leave the rotation'), h('option', { value: 'offer' }, 'send to a fallback offer'), h('option', { value: 'url' }, 'send to a fallback URL'))
  const fallbackOffer = h('select', { name: 'cap.fallback_offer_id' }, offers.map((o) => h('option', { value: o.id }, o.name)))
  const fallbackUrl = h('input', { name: 'cap.fallback_url', type: 'url', placeholder: 'https://…' })
  const warn = h('input', { name: 'cap.warn_percent', type: 'number', min: 1, max: 100, value: 80 })
  const done = h('p', { 'aria-live': 'polite' })
  const capOf = (): Record<string, unknown> => ({
    metric: metric.value, limit: Number(limit.value), period: period.value, time_zone: zone.value.trim() || 'UTC', on_reached: onReached.value,
    warn_percent: Number(warn.value),
    ...(onReached.value === 'offer' ? { fallback_offer_id: Number(fallbackOffer.value) } : {}),
    ...(onReached.value === 'url' ? { fallback_url: fallbackUrl.value.trim() } : {}),
  })
  const form = h('form', { class: 'card', 'aria-labelledby': 'cap-form-title', 'data-cap-form': '' },
    h('h2', { id: 'cap-form-title' }, "Set an offer's cap"),
    h('p', {}, 'Counted over every campaign that sends to the offer. 0 pauses it. The day starts at midnight in the time zone (use the network\'s).'),
    h('div', { class: 'filters' },
      field('Offer', offer), field('Count', metric), field('Limit', limit), field('Period', period), field('Time zone', zone, 'IANA, e.g. America/New_York'),
      field('Once reached', onReached), field('Fallback offer', fallbackOffer), field('Fallback URL', fallbackUrl), field('Warn at (%)', warn)),
    h('p', { class: 'form-error', role: 'alert' }),
    h('button', { type: 'submit' }, 'Save cap'), ' ',
    h('button', { type: 'button', 'data-remove-cap': '', onclick: () => void save(null) }, 'Remove cap'),
    done)
  const save = async (cap: Record<string, unknown> | null) => {
    clearErrors(form)
    mount(done)
    try {
      const saved = await api<Named>('PATCH', `/offers/${offer.value}`, { cap })
      mount(done, cap ? `Cap of "${saved.name}" saved.` : `Cap of "${saved.name}" removed.`)
      await load()
    } catch (err) {
      // The cap's own fields are named in full ("cap.time_zone: …"): the message goes beside that field.
      const named = err instanceof ApiError ? /^(cap\.[a-z_]+): /.exec(err.message)?.[1] : undefined
      const slot = named ? form.querySelector<HTMLElement>(`[data-error-for="${named}"]`) : null
      if (slot) {
        slot.textContent = (err as Error).message
        form.querySelector(`[name="${named}"]`)?.setAttribute('aria-invalid', 'true')
      } else {
        showErrors(form, err)
      }
    }
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    void save(capOf())
  })

  return h('section', { 'aria-labelledby': 'caps-title' },
    h('div', { class: 'toolbar' }, h('h1', { id: 'caps-title' }, 'Caps'), h('button', { type: 'button', onclick: () => void load() }, 'Refresh')),
    h('div', { class: 'table-wrap' }, h('table', {},
      h('thead', {}, h('tr', {}, ['Offer', 'Where', 'Counts', 'Used', 'Share', 'State', 'Resets'].map((c) => h('th', { scope: 'col' }, c)))),
      tbody)),
    writable && offers.length ? form : null,
  )
}
