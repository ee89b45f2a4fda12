// A campaign's create/edit form with the weighted rotation editor (offers, and optional landings): each row
// an offer or landing and its weight, with its share of the traffic spelled out. The API checks the rest
// (slugs, weights 1..10000, at least one offer) and its message lands beside the field.
import { api } from '../api'
import { field, h } from '../dom'
import { clearErrors, showErrors } from '../forms'

export interface CampaignRecord {
  id: number; name: string; slug: string; source_id: number | null; external_id: string | null; active: boolean
  bot_url: string | null; fallback_url: string | null; cost_model: 'none' | 'cpc' | 'param'; cpc: number
  offers: Array<{ offer_id: number; weight: number }>; landings: Array<{ landing_id: number; weight: number }>
}
interface Named { id: number; name: string }

/** One rotation (offers or landings): rows of a select and a weight, plus the share each row gets. */
function rotation(kind: 'offer' | 'landing', choices: Named[], initial: Array<{ id: number; weight: number }>, required: boolean) {
  const rows = h('div', { class: 'rotation' })
  const name = kind === 'offer' ? 'offers' : 'landings'
  const shares = () => {
    const lines = [...rows.querySelectorAll<HTMLElement>('.rotation-row')]
    const total = lines.reduce((sum, l) => sum + Math.max(0, Number(l.querySelector<HTMLInputElement>('input')!.value) || 0), 0)
    for (const l of lines) {
      const w = Math.max(0, Number(l.querySelector<HTMLInputElement>('input')!.value) || 0)
      l.querySelector('.share')!.textContent = total ? `${Math.round((w / total) * 100)} % of traffic` : ''
    }
  }
  const add = (id: number | null, weight: number) => {
    const n = rows.children.length + 1
    const select = h('select', { 'aria-label': `${kind} ${n}` }, choices.map((c) => h('option', { value: c.id }, c.name)))
    if (id !== null) select.value = String(id)
    const w = h('input', { type: 'number', min: 1, max: 10000, step: 1, value: weight, 'aria-label': `weight of ${kind} ${n}`, oninput: shares })
    const row = h('div', { class: 'rotation-row' }, select, w, h('span', { class: 'share' }),
      h('button', { type: 'button', class: 'small', 'aria-label': `remove ${kind} ${n}`, onclick: () => { row.remove(); shares() } }, 'Remove'))
    rows.append(row)
    shares()
  }
  for (const r of initial) add(r.id, r.weight)
  if (required && initial.length === 0 && choices.length) add(choices[0]!.id, 100)
  const element = h('fieldset', {},
    h('legend', {}, kind === 'offer' ? 'Offers (rotation)' : 'Landings (rotation, optional)'),
    choices.length ? rows : h('p', {}, `No ${kind}s yet: create one first.`),
    choices.length ? h('button', { type: 'button', class: 'small', onclick: () => add(null, 100) }, `Add ${kind}`) : null,
    h('span', { class: 'field-error', 'data-error-for': name, role: 'alert' }),
  )
  const value = () => [...rows.querySelectorAll<HTMLElement>('.rotation-row')].map((l) => ({
    [`${kind}_id`]: Number(l.querySelector('select')!.value), weight: Number(l.querySelector<HTMLInputElement>('input')!.value),
  }))
  return { element, value }
}

export async function campaignForm(existing: CampaignRecord | null, onSaved: (c: CampaignRecord) => void, onCancel: () => void): Promise<HTMLElement> {
  const [sources, offers, landings] = await Promise.all([
    api<{ items: Named[] }>('GET', '/sources?limit=500'), api<{ items: Named[] }>('GET', '/offers?limit=500'), api<{ items: Named[] }>('GET', '/landings?limit=500'),
  ])
  const name = h('input', { name: 'name', required: true, value: existing?.name ?? '' })
  const slug = h('input', { name: 'slug', required: true, value: existing?.slug ?? '' })
  const source = h('select', { name: 'source_id' }, h('option', { value: '' }, '(none)'), sources.items.map((s) => h('option', { value: s.id }, s.name)))
  source.value = existing?.source_id ? String(existing.source_id) : ''
  const external = h('input', { name: 'external_id', value: existing?.external_id ?? '' })
  const costModel = h('select', { name: 'cost_model' }, ['none', 'cpc', 'param'].map((m) => h('option', { value: m }, m)))
  costModel.value = existing?.cost_model ?? 'none'
  const cpc = h('input', { name: 'cpc', type: 'number', min: 0, step: 'any', value: existing?.cpc ?? 0 })
  const botUrl = h('input', { name: 'bot_url', type: 'url', value: existing?.bot_url ?? '' })
  const fallback = h('input', { name: 'fallback_url', type: 'url', value: existing?.fallback_url ?? '' })
  const active = h('input', { name: 'active', type: 'checkbox', checked: existing ? existing.active : true })
  const offerRotation = rotation('offer', offers.items, existing?.offers.map((o) => ({ id: o.offer_id, weight: o.weight })) ?? [], true)
  const landingRotation = rotation('landing', landings.items, existing?.landings.map((l) => ({ id: l.landing_id, weight: l.weight })) ?? [], false)
  const form = h('form', { class: 'card', 'aria-labelledby': 'campaign-form-title' },
    h('h2', { id: 'campaign-form-title' }, existing ? `Edit campaign "${existing.name}"` : 'New campaign'),
    field('Name', name), field('Slug', slug, 'The tracking link is /c/<slug>'), field('Source', source),
    field('External id', external, "The campaign's id on the source side ({external_id})"),
    offerRotation.element, landingRotation.element,
    field('Cost model', costModel, 'cpc: every click costs the CPC; param: the source passes ?cost= on the link'), field('CPC', cpc),
    field('Bot URL', botUrl, 'Where flagged visitors go instead (empty: the same as people)'),
    field('Fallback URL', fallback, 'Where visitors go while the campaign is paused'),
    h('div', { class: 'field' }, h('label', {}, active, ' Active')),
    h('p', { class: 'form-error', role: 'alert' }),
    h('button', { type: 'submit' }, existing ? 'Save' : 'Create campaign'), ' ',
    h('button', { type: 'button', class: 'small', onclick: onCancel }, 'Cancel'),
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearErrors(form)
    const body = {
      name: name.value, slug: slug.value, source_id: source.value ? Number(source.value) : null, external_id: external.value || null,
      offers: offerRotation.value(), landings: landingRotation.value(), cost_model: costModel.value, cpc: Number(cpc.value || 0),
      bot_url: botUrl.value || null, fallback_url: fallback.value || null, active: active.checked,
    }
    try {
      onSaved(await api<CampaignRecord>(existing ? 'PATCH' : 'POST', existing ? `/campaigns/${existing.id}` : '/campaigns', body))
    } catch (err) {
      showErrors(form, err)
    }
  })
  return form
}

