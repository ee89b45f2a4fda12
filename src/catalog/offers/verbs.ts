// Offers: the advertiser pages campaigns rotate, with the default payout postbacks fall back to.
import { defineVerb } from '../../lib/verb'
import { invalid } from '../../lib/errors'
import { requiredText, slug, urlTemplate } from '../../lib/fields'
import { announce, found, IdInput, listPage, PageInput, withId, type CatalogDeps } from '../shared'
import type { OfferValues } from '../store/types'
import { OfferCreate, OfferPatch, type OfferInput } from './model'
import { CURRENCY_HINT, currencyCode } from '../../lib/currency'

function currency(value: unknown): string {
  const code = currencyCode(value)
  if (code === null) throw invalid(`currency: ${CURRENCY_HINT}`)
  return code
}

function fields(input: OfferInput): Partial<OfferValues> {
  const out: Partial<OfferValues> = {}
  if (input.name !== undefined) out.name = requiredText(input.name, 'name')
  if (input.slug !== undefined) out.slug = slug(input.slug)
  if (input.url !== undefined) out.url = urlTemplate(input.url, 'url')
  if (input.payout !== undefined) {
    if (typeof input.payout !== 'number' || !Number.isFinite(input.payout)) throw invalid('payout: must be a number')
    out.payout = input.payout
  }
  if (input.currency !== undefined) out.currency = currency(input.currency)
  return out
}

export function offerVerbs({ store, events }: CatalogDeps) {
  return {
    list: defineVerb({
      name: 'catalog.offers.list', summary: 'List offers', permission: 'campaigns:read', input: PageInput,
      run: (_actor, input) => listPage(input, (page) => store.listOffers(page)),
    }),
    get: defineVerb({
      name: 'catalog.offers.get', summary: 'Get an offer', permission: 'campaigns:read', input: IdInput,
      run: (_actor, { id }) => found(store.findOffer(id), 'offer'),
    }),
    create: defineVerb({
      name: 'catalog.offers.create', summary: 'Create an offer', permission: 'campaigns:write', input: OfferCreate,
      async run(_actor, input) {
        const f = fields({ ...input, name: input.name ?? '', slug: input.slug ?? '', url: input.url ?? '' })
        const row = await store.createOffer({ name: f.name!, slug: f.slug!, url: f.url!, payout: f.payout ?? 0, currency: f.currency ?? 'USD' })
        announce(events, 'offer', row.id, 'created')
        return row
      },
    }),
    update: defineVerb({
      name: 'catalog.offers.update', summary: 'Change an offer', permission: 'campaigns:write', input: withId(OfferPatch),
      async run(_actor, { id, ...input }) {
        const row = await store.updateOffer(id, fields(input))
        announce(events, 'offer', id, 'updated')
        return row
      },
    }),
    delete: defineVerb({
      name: 'catalog.offers.delete', summary: 'Delete an offer (conflict while a campaign uses it)', permission: 'campaigns:write', input: IdInput,
      async run(_actor, { id }) {
        await store.deleteOffer(id)
        announce(events, 'offer', id, 'deleted')
        return { ok: true as const }
      },
    }),
  }
}
