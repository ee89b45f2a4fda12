// Traffic sources over HTTP and MCP: input schemas and the public record shape.
import { Type as t } from '@sinclair/typebox'
import type { SourceRow } from '../store/types'
import { iso } from '../../lib/time'
import { Int } from '../../lib/fields'

const postbackUrl = t.String({
  maxLength: 4096,
  description: 'absolute http(s) URL template; macros {click_id} {payout} {external_id} {status}',
})

export const SourceCreate = t.Object({
  name: t.String({ maxLength: 200 }),
  postback_url: t.Optional(t.Union([postbackUrl, t.Null()])),
})
export const SourcePatch = t.Partial(SourceCreate)
export type SourceInput = Partial<typeof SourceCreate.static>

export const SourceRecord = t.Object({
  id: Int(),
  name: t.String(),
  postback_url: t.Union([t.String(), t.Null()]),
  created_at: t.String({ format: 'date-time' }),
  updated_at: t.String({ format: 'date-time' }),
})

export const renderSource = (r: SourceRow): typeof SourceRecord.static => ({
  id: r.id,
  name: r.name,
  postback_url: r.postbackUrl,
  created_at: iso(r.createdAt),
  updated_at: iso(r.updatedAt),
})
