// The email admin routes (section email): lists as a collection, and each list's subscribers.
import { Elysia, t } from 'elysia'
import type { AppContext } from '../context'
import { adminGuard } from '../http/admin-guard'
import { collectionRoutes, firstParam as first, okResponse, pageQuery, pageSchema, parseId } from '../http/collection'
import { adminActor, invoke, shapedBy, systemActor } from '../lib/verb'
import { page } from './pages'
import { ListCreate, ListPatch, ListRecord, renderList, renderSubscriber, SubscriberCreate, SubscriberRecord } from './model'
import { SUBSCRIBER_STATUSES } from './store/types'
import type { EmailVerbs } from './verbs'
import { AutomationCreate, AutomationPatch, AutomationRecord, renderAutomation, type AutomationVerbs } from './automation-verbs'
import { renderTrigger, TriggerCreate, TriggerPatch, TriggerRecord, type TriggerVerbs } from './trigger-verbs'
import { BroadcastCreate, type SendVerbs } from './send-verbs'
import { OUTBOX_STATUSES, type OutboxView } from './store/outbox-types'
import { iso } from '../lib/time'
import { csvHeaders, csvStream, fileName } from '../lib/csv'

const tags = ['email-lists']
const listParams = t.Object({ id: t.String({ description: 'list id' }) })
const subscriberParams = t.Object({ id: t.String({ description: 'list id' }), sid: t.String({ description: 'subscriber id' }) })
const subscriberQuery = t.Object({
  status: t.Optional(t.String({ description: `one of ${SUBSCRIBER_STATUSES.join(', ')}` })),
  email: t.Optional(t.String({ description: 'exact address (normalised before the lookup)' })),
  ...pageQuery.properties,
})


export function emailRoutes(ctx: AppContext, { verbs, sending, triggers, automations }: { verbs: EmailVerbs; sending: SendVerbs; triggers: TriggerVerbs; automations: AutomationVerbs }) {
  const listId = (raw: string) => parseId(raw, 'email list')
  const subscriberId = (raw: string) => parseId(raw, 'subscriber')
  const base = '/admin/api/email-lists/:id/subscribers'
  shapedBy(renderSubscriber, verbs.subscribers.list, verbs.subscribers.get)
  shapedBy(({ row, created }: { row: Parameters<typeof renderSubscriber>[0]; created: boolean }) => ({ ...renderSubscriber(row), created }), verbs.subscribers.add)
  shapedBy(renderOutbox, sending.outbox)
  return new Elysia({ name: 'email' })
    // Public: the link in every message. The body of the one-click POST is not read (any content type).
    .get('/email/unsubscribe/:token', ({ params }) => {
      if (!sending.links.verify(params.token)) return page(404, 'Link not valid', 'This unsubscribe link is not valid. Copy the whole link from the email, or reply to it and ask to be removed.')
      return page(200, 'Unsubscribe', 'Stop receiving these emails?', `<form method="post"><button type="submit">Unsubscribe</button></form>`)
    }, { detail: { tags: ['email'], summary: 'The page an unsubscribe link opens (one button)' } })
    .post('/email/unsubscribe/:token', async ({ params }) => {
      try {
        await invoke(sending.unsubscribe, systemActor('unsubscribe-link'), { token: params.token })
      } catch (err) {
        if ((err as { code?: string }).code === 'not_found') return page(404, 'Link not valid', 'This unsubscribe link is not valid.')
        throw err
      }
      return page(200, 'Unsubscribed', 'You are unsubscribed: you will get no more emails from this list.')
    }, { parse: 'none', detail: { tags: ['email'], summary: 'Unsubscribe (the button, and the RFC 8058 one-click POST of mail clients)' } })
    .use(collectionRoutes(ctx, { name: 'automations', what: 'email automation', verbs: automations, render: renderAutomation, record: AutomationRecord, create: AutomationCreate, patch: AutomationPatch }))
    .use(collectionRoutes(ctx, { name: 'email-triggers', what: 'email trigger', verbs: triggers, render: renderTrigger, record: TriggerRecord, create: TriggerCreate, patch: TriggerPatch }))
    .use(collectionRoutes(ctx, { name: 'email-lists', what: 'email list', verbs: verbs.lists, render: renderList, record: ListRecord, create: ListCreate, patch: ListPatch }))
    .use(adminGuard(ctx))
    .get(base, async ({ params, query, admin }) => {
      const page = await invoke(verbs.subscribers.list, adminActor(admin), {
        id: listId(params.id), status: first(query.status), email: first(query.email), limit: first(query.limit), cursor: first(query.cursor),
      })
      return { items: page.items.map(renderSubscriber), next_cursor: page.next_cursor }
    }, { permission: 'email:read', params: listParams, query: subscriberQuery, response: pageSchema(SubscriberRecord), detail: { tags, summary: verbs.subscribers.list.summary } })
    .get('/admin/api/email-lists/:id/subscribers/export', async ({ params, query, admin }) => {
      const id = listId(params.id)
      const next = await invoke(verbs.subscribers.export, adminActor(admin), { id, status: first(query.status) })
      return new Response(csvStream(next), { headers: csvHeaders(fileName(['email-list', String(id), 'subscribers'])) })
    }, { permission: 'email:read', params: listParams, query: t.Object({ status: t.Optional(t.String({ description: `one of ${SUBSCRIBER_STATUSES.join(', ')}` })) }), detail: { tags, summary: verbs.subscribers.export.summary } })
    .post(`${base}/import`, async ({ params, body, admin }) =>
      invoke(verbs.subscribers.import, adminActor(admin), { id: listId(params.id), csv: typeof body === 'string' ? body : '' }),
    { csvUpload: 'email:write', params: listParams, detail: { tags, summary: verbs.subscribers.import.summary, description: 'Body: the CSV file itself (content-type: text/csv), up to 8 MB and 50,000 rows.' } })
    .post(base, async ({ params, body, set, admin }) => {
      const { row, created } = await invoke(verbs.subscribers.add, adminActor(admin), { ...body, id: listId(params.id) })
      // 201 for a new subscriber; 200 with the subscriber as it was when the address was already there.
      set.status = created ? 201 : 200
      return renderSubscriber(row)
    }, { permission: 'email:write', params: listParams, body: SubscriberCreate, response: { 200: SubscriberRecord, 201: SubscriberRecord }, detail: { tags, summary: verbs.subscribers.add.summary } })
    .get(`${base}/:sid`, async ({ params, admin }) =>
      renderSubscriber(await invoke(verbs.subscribers.get, adminActor(admin), { id: listId(params.id), subscriber_id: subscriberId(params.sid) })),
      { permission: 'email:read', params: subscriberParams, response: SubscriberRecord, detail: { tags, summary: verbs.subscribers.get.summary } })
    .post(`${base}/:sid/restart-automations`, ({ params, admin }) =>
      invoke(verbs.subscribers.restart, adminActor(admin), { id: listId(params.id), subscriber_id: subscriberId(params.sid) }),
    { permission: 'email:write', params: subscriberParams, response: okResponse, detail: { tags, summary: verbs.subscribers.restart.summary } })
    .delete(`${base}/:sid`, ({ params, admin }) =>
      invoke(verbs.subscribers.remove, adminActor(admin), { id: listId(params.id), subscriber_id: subscriberId(params.sid) }),
      { permission: 'email:write', params: subscriberParams, response: okResponse, detail: { tags, summary: verbs.subscribers.remove.summary } })
    .post('/admin/api/email-lists/:id/broadcasts', async ({ params, body, set, admin }) => {
      const out = await invoke(sending.broadcast, adminActor(admin), { ...body, id: listId(params.id) })
      set.status = 202 // accepted: the job loop sends them
      return out
    }, { permission: 'email:write', params: listParams, body: BroadcastCreate, detail: { tags, summary: sending.broadcast.summary } })
    .get('/admin/api/outbox', async ({ query, admin }) => {
      const page = await invoke(sending.outbox, adminActor(admin), {
        status: first(query.status), list_id: first(query.list_id), email: first(query.email), limit: first(query.limit), cursor: first(query.cursor),
      })
      return { items: page.items.map(renderOutbox), next_cursor: page.next_cursor }
    }, { permission: 'email:read', query: outboxQuery, detail: { tags: ['outbox'], summary: sending.outbox.summary } })
}

const outboxQuery = t.Object({
  status: t.Optional(t.String({ description: `one of ${OUTBOX_STATUSES.join(', ')}` })),
  list_id: t.Optional(t.String({ description: 'messages of one list' })),
  email: t.Optional(t.String({ description: 'messages to one address' })),
  ...pageQuery.properties,
})

/** An outbox row; while queued, `job` says where its sending stands (attempts, last error). */
function renderOutbox(r: OutboxView) {
  return {
    id: r.id, list_id: r.listId, subscriber_id: r.subscriberId, to: r.toEmail, subject: r.subject, status: r.status,
    message_id: r.messageId, result: r.result, job_id: r.jobId,
    job: r.jobId === null || r.jobStatus === null ? null : { status: r.jobStatus, attempts: r.jobAttempts, last_error: r.jobLastError },
    created_at: iso(r.createdAt), updated_at: iso(r.updatedAt),
  }
}
