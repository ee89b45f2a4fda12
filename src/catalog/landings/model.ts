// Landings over HTTP and MCP: input schemas and the public record shape.
import { Type as t } from '@sinclair/typebox'
import type { LandingRow } from '../store/types'
import { iso } from '../../lib/time'
import { Int } from '../../lib/fields'

export const MAX_HTML = 1_000_000

export const LandingCreate = t.Object({
  name: t.String({ maxLength: 200 }),
  slug: t.String({ maxLength: 64, description: '^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$, unique among landings' }),
  html: t.Optional(t.Union([t.String({ maxLength: MAX_HTML, description: 'page served at /lp/:slug' }), t.Null()])),
  url: t.Optional(t.Union([t.String({ maxLength: 4096, description: 'absolute http(s) URL template of an externally hosted page' }), t.Null()])),
  email_list_id: t.Optional(t.Union([Int({ minimum: 1 }), t.Null()])),
}, { description: 'html or url (at least one)' })
export const LandingPatch = t.Partial(LandingCreate)
export type LandingInput = Partial<typeof LandingCreate.static>

export const LandingRecord = t.Object({
  id: Int(),
  name: t.String(),
  slug: t.String(),
  html: t.Union([t.String(), t.Null()]),
  url: t.Union([t.String(), t.Null()]),
  email_list_id: t.Union([Int(), t.Null()]),
  created_at: t.String({ format: 'date-time' }),
  updated_at: t.String({ format: 'date-time' }),
})

export const renderLanding = (r: LandingRow): typeof LandingRecord.static => ({
  id: r.id,
  name: r.name,
  slug: r.slug,
  html: r.html,
  url: r.url,
  email_list_id: r.emailListId,
  created_at: iso(r.createdAt),
  updated_at: iso(r.updatedAt),
})
