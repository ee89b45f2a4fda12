import type { AppContext } from '../../context'
import { invalid, conflict, notFound } from '../../lib/errors'
import { isUniqueViolation } from '../../db/errors'
import { requiredText, slug, urlTemplate } from '../../lib/fields'
import type { OfferInput, OfferRow } from './model'
import { campaignUsingOffer, deleteOffer, findOffer, insertOffer, offerSlugTaken, updateOffer } from './queries'

type Fields = Partial<Pick<OfferRow, 'name' | 'slug' | 'url' | 'payout' | 'currency'>>

function currency(value: unknown): string {
  if (typeof value !== 'string' || !/^[A-Za-z]{3}$/.test(value)) throw invalid('currency: must be a 3-letter currency code such as USD')
  return value.toUpperCase()
}

function fields(input: OfferInput): Fields {
  const out: Fields = {}
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

const slugTaken = (s: string) => conflict(`slug: "${s}" is already used by another offer`)

export function getOfferOrThrow(ctx: AppContext, id: number): OfferRow {
  const row = findOffer(ctx.database.db, id)
  if (!row) throw notFound('offer not found')
  return row
}

export function createOffer(ctx: AppContext, input: OfferInput): OfferRow {
  const f = fields({ ...input, name: input.name ?? '', slug: input.slug ?? '', url: input.url ?? '' })
  const db = ctx.database.db
  if (offerSlugTaken(db, f.slug!)) throw slugTaken(f.slug!)
  const now = Date.now()
  let row: OfferRow
  try {
    row = insertOffer(db, { name: f.name!, slug: f.slug!, url: f.url!, payout: f.payout ?? 0, currency: f.currency ?? 'USD', createdAt: now, updatedAt: now })
  } catch (err) {
    if (isUniqueViolation(err)) throw slugTaken(f.slug!)
    throw err
  }
  ctx.events.committed('catalog.changed', { entity: 'offer', id: row.id, action: 'created' })
  return row
}

export function patchOffer(ctx: AppContext, id: number, input: OfferInput): OfferRow {
  const f = fields(input)
  const db = ctx.database.db
  getOfferOrThrow(ctx, id)
  if (f.slug !== undefined && offerSlugTaken(db, f.slug, id)) throw slugTaken(f.slug)
  let row: OfferRow | undefined
  try {
    row = updateOffer(db, id, { ...f, updatedAt: Date.now() })
  } catch (err) {
    if (isUniqueViolation(err)) throw slugTaken(f.slug!)
    throw err
  }
  if (!row) throw notFound('offer not found')
  ctx.events.committed('catalog.changed', { entity: 'offer', id, action: 'updated' })
  return row
}

export function removeOffer(ctx: AppContext, id: number): void {
  const db = ctx.database.db
  ctx.database.raw.transaction(() => {
    getOfferOrThrow(ctx, id)
    const user = campaignUsingOffer(db, id)
    if (user) throw conflict(`offer is used by campaign "${user.slug}" (id ${user.id})`)
    deleteOffer(db, id)
  })()
  ctx.events.committed('catalog.changed', { entity: 'offer', id, action: 'deleted' })
}
