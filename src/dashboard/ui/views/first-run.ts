// First run (no campaign yet): a source, an offer and a campaign in one guided step, then the tracking link
// and a button that opens it; below, the postback status-updates mode to opt in to.
import { api } from '../api'
import { field, h, mount } from '../dom'
import { clearErrors, copy, showErrors } from '../forms'
import { statusUpdatesCard } from './postback-setup'

export function firstRunView(onDone: () => void): HTMLElement {
  const source = h('input', { name: 'source_name', required: true, placeholder: 'e.g. Facebook Ads' })
  const offerName = h('input', { name: 'offer_name', required: true, placeholder: 'e.g. VPN trial' })
  const offerUrl = h('input', { name: 'url', type: 'url', required: true, placeholder: 'https://advertiser.example/?click={click_id}' })
  const payout = h('input', { name: 'payout', type: 'number', step: '0.01', min: '0', value: '0' })
  const name = h('input', { name: 'name', required: true, placeholder: 'e.g. VPN / Facebook / US' })
  const slug = h('input', { name: 'slug', required: true, placeholder: 'vpn-fb-us' })
  const body = h('div')
  // Kept across attempts: a second submit (after fixing the campaign's slug) does not create them again.
  let src: { id: number } | null = null
  let offer: { id: number } | null = null
  const form = h('form', { class: 'card', 'aria-labelledby': 'first-title' },
    h('h1', { id: 'first-title' }, 'Your first campaign'),
    h('p', {}, 'A campaign sends the traffic of one source to an offer. Put {click_id} in the offer URL so the advertiser can post the conversion back.'),
    h('fieldset', {}, h('legend', {}, 'Traffic source'), field('Source name', source)),
    h('fieldset', {}, h('legend', {}, 'Offer'), field('Offer name', offerName), field('Offer URL', offerUrl, 'Macros: {click_id}, {sub1}…{sub10}'), field('Payout', payout)),
    h('fieldset', {}, h('legend', {}, 'Campaign'), field('Campaign name', name), field('Slug (in the tracking link)', slug)),
    h('p', { class: 'form-error', role: 'alert' }),
    h('button', { type: 'submit' }, 'Create campaign'),
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearErrors(form)
    try {
      // Checked in order, so a message lands beside the field of the record that refused it.
      src ??= await api('POST', '/sources', { name: source.value }).catch(rename({ name: 'source_name' }))
      // The offer's own slug comes from its name; a refusal of it is shown beside the offer name.
      offer ??= await api('POST', '/offers', { name: offerName.value, slug: slugify(offerName.value), url: offerUrl.value, payout: Number(payout.value || 0) })
        .catch(rename({ name: 'offer_name', slug: 'offer_name' }))
      const campaign = await api('POST', '/campaigns', { name: name.value, slug: slug.value, source_id: src!.id, offer_id: offer!.id })
      const link = `${location.origin}/c/${campaign.slug}`
      const copyButton = h('button', { type: 'button', onclick: () => copy(copyButton, link) }, 'Copy link')
      mount(body, h('section', { class: 'card', 'aria-live': 'polite' },
        h('h2', {}, 'Campaign created'),
        h('p', {}, 'Your tracking link:'),
        h('p', {}, h('code', { class: 'link', 'data-tracking-link': '' }, link), ' ', copyButton),
        h('p', {}, h('a', { class: 'button', href: link, target: '_blank', rel: 'noopener', 'data-test-click': '' }, 'Open a test click')),
        h('p', {}, h('a', { href: '#/campaigns', onclick: () => onDone() }, 'Go to campaigns')),
      ))
    } catch (err) {
      showErrors(form, err)
    }
  })
  return h('div', {}, form, body, statusUpdatesCard())
}

/** A 400 from one record names its own field ("name: …"); point it at the wizard's field. */
function rename(map: Record<string, string>) {
  return (err: unknown): never => {
    const e = err as { message?: string }
    for (const [from, to] of Object.entries(map)) {
      if (e.message?.startsWith(`${from}: `)) Object.defineProperty(err, 'field', { value: to })
    }
    throw err
  }
}

/** "VPN trial (US)" → "vpn-trial-us". */
export const slugify = (text: string) => text.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'offer'
