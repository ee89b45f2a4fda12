// Offers over HTTP and MCP: input schemas and the public record shape.
import { Type as t } from '@sinclair/typebox'
import type { OfferRow } from '../store/types'
import { iso } from '../../lib/time'
import { Int } from '../../lib/fields'
import { CapField, CapRecord, readCap } from '../caps/model'

export const OfferCreate = t.Object({
  name: t.String({ maxLength: 200 }),
  slug: t.String({ maxLength: 64, description: '^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$, unique among offers' }),
  url: t.String({ maxLength: 4096, description: 'absolute http(s) URL template; {click_id} and other macros are substituted at redirect time' }),
  payout: t.Optional(t.Number({ description: 'default payout, used when a postback carries none (default 0)' })),
  currency: t.Optional(t.String({ maxLength: 3, description: 'ISO 4217 code, 3 letters (default USD; stored upper-case)' })),
  cap: CapField,
})
export const OfferPatch = t.Partial(OfferCreate)
export type OfferInput = Partial<typeof OfferCreate.static>

export const OfferRecord = t.Object({
  id: Int(),
  name: t.String(),
  slug: t.String(),
  url: t.String(),
  payout: t.Number(),
  currency: t.String(),
  cap: CapRecord,
  created_at: t.String({ format: 'date-time' }),
  updated_at: t.String({ format: 'date-time' }),
})

export const renderOffer = (r: OfferRow): typeof OfferRecord.static => ({
  id: r.id,
  name: r.name,
  slug: r.slug,
  url: r.url,
  payout: r.payout,
  currency: r.currency,
  cap: readCap(r.cap),
  created_at: iso(r.createdAt),
  updated_at: iso(r.updatedAt),
})
