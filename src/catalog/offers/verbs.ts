// Offers: the advertiser pages campaigns rotate, with the default payout postbacks fall back to.
import { invalid } from '../../lib/errors'
import { requiredText, slug, urlTemplate } from '../../lib/fields'
import { crudVerbs } from '../../lib/verb-inputs'
import { announce, type CatalogDeps } from '../shared'
import type { OfferValues } from '../store/types'
import { OfferCreate, OfferPatch, type OfferInput } from './model'
import { requiredCurrency } from '../../lib/currency'
import { parseCap } from '../caps/model'

function fields(input: OfferInput): Partial<OfferValues> {
  const out: Partial<OfferValues> = {}
  if (input.name !== undefined) out.name = requiredText(input.name, 'name')
  if (input.slug !== undefined) out.slug = slug(input.slug)
  if (input.url !== undefined) out.url = urlTemplate(input.url, 'url')
  if (input.payout !== undefined) {
    if (typeof input.payout !== 'number' || !Number.isFinite(input.payout)) throw invalid('payout: must be a number')
    out.payout = input.payout
  }
  if (input.currency !== undefined) out.currency = requiredCurrency(input.currency)
  const cap = parseCap(input.cap, 'cap')
  if (cap !== undefined) out.cap = cap
  return out
}

export function offerVerbs({ store, events }: CatalogDeps) {
  return crudVerbs({
    name: 'catalog.offers', what: 'offer', permissions: { read: 'campaigns:read', write: 'campaigns:write' },
    summaries: {
      list: 'List offers', get: 'Get an offer', create: 'Create an offer', update: 'Change an offer',
      delete: 'Delete an offer (conflict while a campaign uses it)',
    },
    inputs: { create: OfferCreate, patch: OfferPatch },
    list: (page) => store.listOffers(page), find: (id) => store.findOffer(id), delete: (id) => store.deleteOffer(id),
    create(input) {
      const f = fields({ ...input, name: input.name ?? '', slug: input.slug ?? '', url: input.url ?? '' })
      return store.createOffer({ name: f.name!, slug: f.slug!, url: f.url!, payout: f.payout ?? 0, currency: f.currency ?? 'USD', cap: f.cap ?? null })
    },
    update: (id, input) => store.updateOffer(id, fields(input)),
    announce: (id, action) => announce(events, 'offer', id, action),
  })
}
