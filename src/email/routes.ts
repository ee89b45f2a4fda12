// The email admin routes (section email): lists as a collection, and each list's subscribers.
import { Elysia, t } from 'elysia'
import type { AppContext } from '../context'
import { adminGuard } from '../http/admin-guard'
import { collectionRoutes, okResponse, pageQuery, pageSchema, parseId } from '../http/collection'
import { adminActor, invoke } from '../lib/verb'
import { ListCreate, ListPatch, ListRecord, renderList, renderSubscriber, SubscriberCreate, SubscriberRecord } from './model'
import { SUBSCRIBER_STATUSES } from './store/types'
import type { EmailVerbs } from './verbs'

const tags = ['email-lists']
const listParams = t.Object({ id: t.String({ description: 'list id' }) })
const subscriberParams = t.Object({ id: t.String({ description: 'list id' }), sid: t.String({ description: 'subscriber id' }) })
const subscriberQuery = t.Object({
  status: t.Optional(t.String({ description: `one of ${SUBSCRIBER_STATUSES.join(', ')}` })),
  email: t.Optional(t.String({ description: 'exact address (normalised before the lookup)' })),
  ...pageQuery.properties,
})

/** A repeated query parameter counts once (first occurrence). */
const first = (v: unknown): string | undefined => (Array.isArray(v) ? (v.length ? String(v[0]) : undefined) : v === undefined ? undefined : String(v))

export function emailRoutes(ctx: AppContext, verbs: EmailVerbs) {
  const listId = (raw: string) => parseId(raw, 'email list')
  const subscriberId = (raw: string) => parseId(raw, 'subscriber')
  const base = '/admin/api/email-lists/:id/subscribers'
  return new Elysia({ name: 'email' })
    .use(collectionRoutes(ctx, { name: 'email-lists', what: 'email list', verbs: verbs.lists, render: renderList, record: ListRecord, create: ListCreate, patch: ListPatch }))
    .use(adminGuard(ctx))
    .get(base, async ({ params, query, admin }) => {
      const page = await invoke(verbs.subscribers.list, adminActor(admin), {
        id: listId(params.id), status: first(query.status), email: first(query.email), limit: first(query.limit), cursor: first(query.cursor),
      })
      return { items: page.items.map(renderSubscriber), next_cursor: page.next_cursor }
    }, { permission: 'email:read', params: listParams, query: subscriberQuery, response: pageSchema(SubscriberRecord), detail: { tags, summary: verbs.subscribers.list.summary } })
    .post(base, async ({ params, body, set, admin }) => {
      const { row, created } = await invoke(verbs.subscribers.add, adminActor(admin), { ...body, id: listId(params.id) })
      // 201 for a new subscriber; 200 with the subscriber as it was when the address was already there.
      set.status = created ? 201 : 200
      return renderSubscriber(row)
    }, { permission: 'email:write', params: listParams, body: SubscriberCreate, response: { 200: SubscriberRecord, 201: SubscriberRecord }, detail: { tags, summary: verbs.subscribers.add.summary } })
    .get(`${base}/:sid`, async ({ params, admin }) =>
      renderSubscriber(await invoke(verbs.subscribers.get, adminActor(admin), { id: listId(params.id), subscriber_id: subscriberId(params.sid) })),
      { permission: 'email:read', params: subscriberParams, response: SubscriberRecord, detail: { tags, summary: verbs.subscribers.get.summary } })
    .delete(`${base}/:sid`, ({ params, admin }) =>
      invoke(verbs.subscribers.remove, adminActor(admin), { id: listId(params.id), subscriber_id: subscriberId(params.sid) }),
      { permission: 'email:write', params: subscriberParams, response: okResponse, detail: { tags, summary: verbs.subscribers.remove.summary } })
}
