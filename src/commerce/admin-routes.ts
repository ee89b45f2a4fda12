// Admin API of the commerce records (read-only): webhook deliveries and orders. Thin: the verbs parse the
// filters (400 naming the parameter); these routes shape the answers.
import { Elysia } from 'elysia'
import type { AppContext } from '../context'
import { adminGuard } from '../http/admin-guard'
import { docQuery } from '../http/api-docs'
import { firstParam, idParams, pageQuery, pageSchema, parseId } from '../http/collection'
import { adminActor, invoke, shapedBy } from '../lib/verb'
import {
  ORDER_SOURCES, ORDER_STATUS, OrderRecord, renderOrder, renderWebhookEvent, renderWebhookEventDetail, WebhookEventDetailRecord, WebhookEventRecord,
  type CommerceAdminVerbs,
} from './admin-verbs'
import { OUTCOMES, WEBHOOK_SOURCES } from './store/types'

const paging = {
  limit: pageQuery.properties.limit.description!,
  cursor: pageQuery.properties.cursor.description!,
}
const eventsQuery = docQuery({
  source: `one of ${WEBHOOK_SOURCES.join(', ')}`,
  outcome: `one of ${OUTCOMES.join(', ')}`,
  order: "deliveries about this order (its id at the sender, exact)",
  click_id: 'deliveries attributed to this click (UUID)',
  ...paging,
})
const ordersQuery = docQuery({
  source: `one of ${ORDER_SOURCES.join(', ')}`,
  status: `the order's status (exact): ${ORDER_STATUS}`,
  click_id: 'orders attributed to this click (UUID)',
  ...paging,
})

/** Every parameter as one string (an array, should one arrive, by its first element): never an array bound into SQL. */
function flat(query: Record<string, unknown>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {}
  for (const [k, v] of Object.entries(query)) out[k] = firstParam(v)
  return out
}

export function commerceAdminRoutes(ctx: AppContext, verbs: CommerceAdminVerbs) {
  const { webhookEvents, orders } = verbs
  shapedBy(renderWebhookEvent, webhookEvents.list)
  shapedBy(renderWebhookEventDetail, webhookEvents.get)
  shapedBy(renderOrder, orders.list, orders.get)
  return new Elysia({ name: 'commerce-admin' })
    .use(adminGuard(ctx))
    .get('/admin/api/webhook-events', async ({ query, admin }) => {
      const page = await invoke(webhookEvents.list, adminActor(admin), flat(query))
      return { items: page.items.map(renderWebhookEvent), next_cursor: page.next_cursor }
    }, {
      permission: 'commerce:read', query: eventsQuery, response: pageSchema(WebhookEventRecord),
      detail: { tags: ['commerce'], summary: webhookEvents.list.summary },
    })
    .get('/admin/api/webhook-events/:id', async ({ params, admin }) =>
      renderWebhookEventDetail(await invoke(webhookEvents.get, adminActor(admin), { id: parseId(params.id, 'webhook event') })), {
      permission: 'commerce:read', params: idParams, response: WebhookEventDetailRecord,
      detail: { tags: ['commerce'], summary: webhookEvents.get.summary },
    })
    .get('/admin/api/orders', async ({ query, admin }) => {
      const page = await invoke(orders.list, adminActor(admin), flat(query))
      return { items: page.items.map(renderOrder), next_cursor: page.next_cursor }
    }, {
      permission: 'commerce:read', query: ordersQuery, response: pageSchema(OrderRecord),
      detail: { tags: ['commerce'], summary: orders.list.summary },
    })
    .get('/admin/api/orders/:id', async ({ params, admin }) =>
      renderOrder(await invoke(orders.get, adminActor(admin), { id: parseId(params.id, 'order') })), {
      permission: 'commerce:read', params: idParams, response: OrderRecord,
      detail: { tags: ['commerce'], summary: orders.get.summary },
    })
}
