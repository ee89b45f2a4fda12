// A campaign's create/edit form with the weighted rotation editor (offers, and optional landings): each row
// an offer or landing and its weight, with its share of the traffic spelled out. The API checks the rest
// (slugs, weights 1..10000, at least one offer) and its message lands beside the field. Below the default
// rotation, the targeting paths (issue 28); an existing campaign also gets the simulator.
import { all, api, type Me } from '../api'
import { field, h, mount } from '../dom'
import { clearErrors, showErrors } from '../forms'

export interface CampaignRecord {
  id: number; name: string; slug: string; source_id: number | null; external_id: string | null; active: boolean
  bot_url: string | null; fallback_url: string | null; cost_model: 'none' | 'cpc' | 'param' | 'cpm' | 'revshare'; cpc: number; cpm?: number; revshare_percent?: number
  offers: Array<{ offer_id: number; weight: number; auto_weight?: number | null; cap?: Cap | null }>
  landings: Array<{ landing_id: number; weight: number; auto_weight?: number | null }>
  paths?: PathRecord[]
}
import { rotation, type Named } from './rotation'
import { pathsEditor, type PathRecord, type RuleSetRecord } from './paths-editor'
import { simulator } from './simulator'
import { costUpdates } from './cost-updates'
import { optimisation, rotationsOf } from './optimisation'
import type { Cap } from './numbers/entry-cap'
import { EditorNumbers } from './numbers/editor-data'
import { periodPicker } from './numbers/period-picker'
import { pathNumbers } from './numbers/path-numbers'
import { periodOf } from '../period'

/** The instance's zone for periods (GET /me's time_zone; UTC before it is set). */
const zoneOf = (me: Me | null) => (me as (Me & { time_zone?: string }) | null)?.time_zone || 'UTC'

export async function campaignForm(listed: CampaignRecord | null, onSaved: (c: CampaignRecord) => void, onCancel: () => void): Promise<HTMLElement> {
  // The instance's zone comes with /me (the campaigns screen does not hand its user down). The campaign is read
  // again: auto-weights and caps change it in the background, and the form shows its weights as they are now.
  const [sources, offers, landings, ruleSets, me, fresh] = await Promise.all([
    api<{ items: Named[] }>('GET', '/sources?limit=500'), api<{ items: Named[] }>('GET', '/offers?limit=500'), api<{ items: Named[] }>('GET', '/landings?limit=500'),
    all<RuleSetRecord>('/rule-sets'), listed ? api<Me>('GET', '/me').catch(() => null) : null,
    listed ? api<CampaignRecord>('GET', `/campaigns/${listed.id}`).catch(() => listed) : null,
  ])
  const existing = fresh ?? listed
  const name = h('input', { name: 'name', required: true, value: existing?.name ?? '' })
  const slug = h('input', { name: 'slug', required: true, value: existing?.slug ?? '' })
  const source = h('select', { name: 'source_id' }, h('option', { value: '' }, '(none)'), sources.items.map((s) => h('option', { value: s.id }, s.name)))
  source.value = existing?.source_id ? String(existing.source_id) : ''
  const external = h('input', { name: 'external_id', value: existing?.external_id ?? '' })
  const costModel = h('select', { name: 'cost_model' }, ['none', 'cpc', 'cpm', 'param', 'revshare'].map((m) => h('option', { value: m }, m)))
  costModel.value = existing?.cost_model ?? 'none'
  const cpc = h('input', { name: 'cpc', type: 'number', min: 0, step: 'any', value: existing?.cpc ?? 0 })
  const cpm = h('input', { name: 'cpm', type: 'number', min: 0, step: 'any', value: existing?.cpm ?? 0 })
  const revshare = h('input', { name: 'revshare_percent', type: 'number', min: 0, max: 100, step: 'any', value: existing?.revshare_percent || '' })
  const botUrl = h('input', { name: 'bot_url', type: 'url', value: existing?.bot_url ?? '' })
  const fallback = h('input', { name: 'fallback_url', type: 'url', value: existing?.fallback_url ?? '' })
  const active = h('input', { name: 'active', type: 'checkbox', checked: existing ? existing.active : true })
  // A saved campaign's numbers beside its weights and paths (issue 30), for the period picked at the top.
  const numbers = existing ? new EditorNumbers(existing.id, rotationsOf(existing).map((r) => ({ pathId: r.pathId, kind: r.kind }))) : null
  const numbersSource = numbers ? { numbers, pathId: null } : undefined
  const numbersBar = numbers ? (() => {
    const status = h('span', { class: 'n-status', 'aria-live': 'polite' })
    const reload = (p: ReturnType<typeof periodOf>) => {
      mount(status, 'Loading…')
      void numbers.load(p).then(() => mount(status, numbers.error ? h('span', { class: 'form-error' }, numbers.error) : ''))
    }
    const picker = periodPicker(periodOf('7d', zoneOf(me)), reload)
    reload(picker.value())
    return h('div', { class: 'n-bar', 'data-editor-numbers': '' }, picker.element, ' ', status,
      h('p', { class: 'muted' }, 'Beside each weight: its clicks, conversions, CR, EPC (landings: landing CTR) and share of the rotation\'s clicks in the period, from Reports; the split test\'s P(best); the caps acting on it.'),
      h('div', {}, h('strong', {}, 'Default rotation: '), pathNumbers(numbers, null)))
  })() : null
  const offerRotation = rotation('offer', offers.items, existing?.offers.map((o) => ({ id: o.offer_id, weight: o.weight, auto_weight: o.auto_weight, cap: o.cap })) ?? [], true, undefined, numbersSource)
  const landingRotation = rotation('landing', landings.items, existing?.landings.map((l) => ({ id: l.landing_id, weight: l.weight, auto_weight: l.auto_weight })) ?? [], false, undefined, numbersSource)
  const paths = pathsEditor(existing?.paths ?? [], { offers: offers.items, landings: landings.items, ruleSets }, numbers ?? undefined)
  const form = h('form', { class: 'card', 'aria-labelledby': 'campaign-form-title' },
    h('h2', { id: 'campaign-form-title' }, existing ? `Edit campaign "${existing.name}"` : 'New campaign'),
    field('Name', name), field('Slug', slug, 'The tracking link is /c/<slug>'), field('Source', source),
    field('External id', external, "The campaign's id on the source side ({external_id})"),
    numbersBar,
    offerRotation.element, landingRotation.element,
    field('Cost model', costModel, 'cpc: every click costs the CPC; cpm: CPM / 1000 per click; param: the source passes ?cost= on the link; revshare: a percentage of each conversion\'s revenue'), field('CPC', cpc), field('CPM', cpm), field('Revshare %', revshare),
    field('Bot URL', botUrl, 'Where flagged visitors go instead (empty: the same as people)'),
    field('Fallback URL', fallback, 'Where visitors go while the campaign is paused'),
    h('div', { class: 'field' }, h('label', {}, active, ' Active')),
    paths.element,
    h('p', { class: 'form-error', role: 'alert' }),
    h('button', { type: 'submit' }, existing ? 'Save' : 'Create campaign'), ' ',
    h('button', { type: 'button', class: 'small', onclick: onCancel }, 'Cancel'),
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearErrors(form)
    paths.clearErrors()
    offerRotation.clearErrors()
    landingRotation.clearErrors()
    const body = {
      name: name.value, slug: slug.value, source_id: source.value ? Number(source.value) : null, external_id: external.value || null,
      offers: offerRotation.value(), landings: landingRotation.value(), cost_model: costModel.value, cpc: Number(cpc.value || 0), cpm: Number(cpm.value || 0), ...(revshare.value ? { revshare_percent: Number(revshare.value) } : {}),
      bot_url: botUrl.value || null, fallback_url: fallback.value || null, active: active.checked, paths: paths.value(),
    }
    try {
      onSaved(await api<CampaignRecord>(existing ? 'PATCH' : 'POST', existing ? `/campaigns/${existing.id}` : '/campaigns', body))
    } catch (err) {
      showErrors(form, err)
      // "paths.1.conditions.0.values.0: …" also goes on that path's condition; "offers.0.cap.limit: …" beside
      // that entry's cap field.
      if (err instanceof Error) {
        const entry = /^(offers|landings)\.(\d+\..+?): /.exec(err.message)
        if (entry) (entry[1] === 'offers' ? offerRotation : landingRotation).showError(entry[2]!, err.message)
        else paths.showError(err.message)
      }
    }
  })
  if (!existing) return form
  return h('div', { class: 'campaign-editor' }, form, simulator(existing.id, { offers: offers.items, landings: landings.items }), costUpdates(existing.id),
    optimisation(existing.id, rotationsOf(existing), { offers: offers.items, landings: landings.items }))
}

