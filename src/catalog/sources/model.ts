// Traffic sources over HTTP and MCP: input schemas and the public record shape.
import { Type as t } from '@sinclair/typebox'
import type { SourceRow } from '../store/types'
import { iso } from '../../lib/time'
import { Int } from '../../lib/fields'
import { postbackUrlWarnings } from './postback-macros'

const postbackUrl = t.String({
  maxLength: 4096,
  description: 'absolute http(s) URL template, macros in the path, query and fragment only: {click_id} {payout} {status} {type} {tid} ' +
    '{currency} {external_id} {campaign_id} {offer_id} {source_id} {landing_id} {sub1}…{sub10}, and any other parameter ' +
    "stored with the click by its name ({zoneid} for a tracking link's zoneid=…); each value URL-encoded",
})

const linkParams = t.String({
  maxLength: 2048,
  description: "query string the source's tracking link carries, in the source's own macros (`ext={clickid}&zone={zoneid}&cost={cost}`): " +
    '/c stores each parameter with the click, and postback_url reads it back as {ext}; click_id and the other names svc fills are refused',
})

export const SourceCreate = t.Object({
  name: t.String({ maxLength: 200 }),
  postback_url: t.Optional(t.Union([postbackUrl, t.Null()])),
  link_params: t.Optional(t.Union([linkParams, t.Null()])),
})
export const SourcePatch = t.Partial(SourceCreate)
export type SourceInput = Partial<typeof SourceCreate.static>

export const SourceRecord = t.Object({
  id: Int(),
  name: t.String(),
  postback_url: t.Union([t.String(), t.Null()]),
  link_params: t.Union([t.String(), t.Null()], { description: "query string of the source's tracking link (campaigns show it in tracking_url)" }),
  postback_url_warnings: t.Optional(t.Array(t.String(), {
    description: 'only when there is one: placeholders of postback_url that svc does not fill ({foo} unless the click carries a parameter foo, a network\'s [IMPRESSIONID]): ' +
      'the forward is still sent, with them as written',
  })),
  created_at: t.String({ format: 'date-time' }),
  updated_at: t.String({ format: 'date-time' }),
})

export function renderSource(r: SourceRow): typeof SourceRecord.static {
  const warnings = postbackUrlWarnings(r.postbackUrl, r.linkParams ? r.linkParams.split('&').map((p) => p.split('=')[0]!) : [])
  return {
    id: r.id,
    name: r.name,
    postback_url: r.postbackUrl,
    link_params: r.linkParams ?? null,
    ...(warnings.length ? { postback_url_warnings: warnings } : {}),
    created_at: iso(r.createdAt),
    updated_at: iso(r.updatedAt),
  }
}
