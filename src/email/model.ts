// Email lists and subscribers over HTTP and MCP: input schemas and the public record shapes.
import { Type as t } from '@sinclair/typebox'
import { Int } from '../lib/fields'
import { iso } from '../lib/time'
import { SUBSCRIBER_SOURCES, SUBSCRIBER_STATUSES, type ListRow, type SubscriberRow } from './store/types'

export const ListCreate = t.Object({ name: t.String({ maxLength: 200 }) })
export const ListPatch = t.Partial(ListCreate)

export const ListRecord = t.Object({
  id: Int(),
  name: t.String(),
  active_subscribers: Int({ description: 'subscribers whose status is active' }),
  created_at: t.String({ format: 'date-time' }),
  updated_at: t.String({ format: 'date-time' }),
})

export const renderList = (r: ListRow): typeof ListRecord.static => ({
  id: r.id,
  name: r.name,
  active_subscribers: r.activeSubscribers,
  created_at: iso(r.createdAt),
  updated_at: iso(r.updatedAt),
})

export const SubscriberCreate = t.Object({
  email: t.String({ maxLength: 254 }),
  name: t.Optional(t.Union([t.String({ maxLength: 200 }), t.Null()])),
  fields: t.Optional(t.Record(t.String(), t.String(), { description: 'custom fields (macros of the messages): up to 50, names a-z 0-9 _ (1-40), values up to 1000 characters' })),
  consent_at: t.Optional(t.String({ description: 'when the person agreed (ISO 8601); default now' })),
  consent_ip: t.Optional(t.Union([t.String({ maxLength: 45 }), t.Null()])),
})

export const SubscriberRecord = t.Object({
  id: Int(),
  list_id: Int(),
  email: t.String(),
  name: t.Union([t.String(), t.Null()]),
  fields: t.Record(t.String(), t.String()),
  source: t.String({ description: `one of ${SUBSCRIBER_SOURCES.join(', ')}` }),
  status: t.String({ description: `one of ${SUBSCRIBER_STATUSES.join(', ')}` }),
  consent_at: t.String({ format: 'date-time' }),
  consent_ip: t.Union([t.String(), t.Null()]),
  created_at: t.String({ format: 'date-time' }),
  updated_at: t.String({ format: 'date-time' }),
})

function parseFields(text: string): Record<string, string> {
  try {
    const v = JSON.parse(text) as unknown
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, string>) : {}
  } catch {
    return {}
  }
}

export const renderSubscriber = (r: SubscriberRow): typeof SubscriberRecord.static => ({
  id: r.id,
  list_id: r.listId,
  email: r.email,
  name: r.name,
  fields: parseFields(r.fields),
  source: r.source,
  status: r.status,
  consent_at: iso(r.consentAt),
  consent_ip: r.consentIp,
  created_at: iso(r.createdAt),
  updated_at: iso(r.updatedAt),
})
