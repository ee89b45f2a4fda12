// The admin verbs of the commerce feature's records (section commerce, read-only): every webhook delivery
// the receivers answered (why an order was or was not attributed), and the orders they describe. Newest
// first with cursor paging, as conversions.list. Filters arrive as query-string text and are parsed here,
// with a 400 naming the parameter.
import { Type } from '@sinclair/typebox'
import { normalizeClickId } from '../lib/click-id'
import { invalid } from '../lib/errors'
import { Int } from '../lib/fields'
import { iso } from '../lib/time'
import { readVerbs } from './read-verbs'
import {
  OUTCOMES, SIGNATURES, WEBHOOK_SOURCES,
  type CommerceStore, type OrderFilter, type OrderRow, type WebhookEventFilter, type WebhookEventRow,
} from './store/types'

type Query = Record<string, string | undefined>

/** Where an order can come from: the webhook sources, and svc's own (native) commerce. */
export const ORDER_SOURCES = [...WEBHOOK_SOURCES, 'native'] as const
/** Longest text filter (an order's external id, a status): anything longer names nothing stored. */
const MAX_TEXT_FILTER = 255

// ── records ──

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()])
/** A string documented with its values (the store holds only these). */
const oneOf = (values: readonly string[], description?: string) =>
  Type.String({ description: `one of ${values.join(', ')}${description ? `: ${description}` : ''}` })

export const WebhookEventRecord = Type.Object({
  id: Int(),
  source: oneOf(WEBHOOK_SOURCES),
  external_id: nullable(Type.String({ description: "the sender's event id, when it has one" })),
  topic: nullable(Type.String({ description: 'the event type as the sender named it' })),
  order_external_id: nullable(Type.String({ description: "the order's id at the sender" })),
  signature: oneOf(SIGNATURES),
  outcome: oneOf(OUTCOMES, 'recorded: no money moved; rejected: refused (signature); error: failed, the sender retries, or an amount that cannot be read (nothing counted; see error)'),
  error: nullable(Type.String()),
  click_id: nullable(Type.String()),
  order_id: nullable(Int()),
  conversion_id: nullable(Int()),
  deliveries: Int({ description: 'how many times the sender delivered this event (redeliveries are counted, not stored again)' }),
  received_at: Type.String({ format: 'date-time' }),
  last_received_at: Type.String({ format: 'date-time' }),
})

export const WebhookEventDetailRecord = Type.Composite([
  WebhookEventRecord,
  Type.Object({ payload: nullable(Type.String({ description: 'the body as received (first 64 KB)' })) }),
])

/** What an order's status holds (spec §3 names paid and failed). */
export const ORDER_STATUS = 'paid, failed (a payment that failed; it becomes paid if a retry succeeds), pending (native checkout), ' +
  'partially_refunded, refunded, cancelled, fulfilled; otherwise the status the platform sent (ecom-a financial_status, ecom-b status)'

export const OrderRecord = Type.Object({
  id: Int(),
  source: oneOf(ORDER_SOURCES),
  external_id: Type.String({ description: "the order's id at its source" }),
  status: Type.String({ description: ORDER_STATUS }),
  currency: nullable(Type.String()),
  total: Type.Number(),
  refunded: Type.Number({ description: 'what the sender reported refunded (never more than counted once it counted)' }),
  counted: nullable(Type.Number({ description: 'what the sale conversion counted, in counted_currency (null: never counted); the cap of every reversal' })),
  counted_currency: nullable(Type.String()),
  reversed: Type.Number({ description: 'what negative conversions (refunds, cancellation) took back so far: never more than counted' }),
  email: nullable(Type.String()),
  click_id: nullable(Type.String({ description: 'the click the order is attributed to (the first attribution wins)' })),
  conversion_id: nullable(Int({ description: 'the sale conversion, once the order counted' })),
  reversal_id: nullable(Int({ description: 'the negative conversion of its cancellation' })),
  product_id: nullable(Int({ description: 'native orders: the product' })),
  payment_account_id: nullable(Int({ description: 'native orders: the payment account' })),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
})

type WebhookEventApi = typeof WebhookEventRecord.static
type OrderApi = typeof OrderRecord.static

/** A webhook event as the lists show it (no payload). */
export const renderWebhookEvent = (r: WebhookEventRow): WebhookEventApi => ({
  id: r.id,
  source: r.source,
  external_id: r.externalId,
  topic: r.topic,
  order_external_id: r.orderExternalId,
  signature: r.signature,
  outcome: r.outcome,
  error: r.error,
  click_id: r.clickId,
  order_id: r.orderId,
  conversion_id: r.conversionId,
  deliveries: r.deliveries,
  received_at: iso(r.receivedAt),
  last_received_at: iso(r.lastReceivedAt),
})

/** One webhook event with the body as received. */
export const renderWebhookEventDetail = (r: WebhookEventRow): typeof WebhookEventDetailRecord.static => ({
  ...renderWebhookEvent(r),
  payload: r.payload,
})

export const renderOrder = (r: OrderRow): OrderApi => ({
  id: r.id,
  source: r.source,
  external_id: r.externalId,
  status: r.status,
  currency: r.currency,
  total: r.total,
  refunded: r.refunded,
  counted: r.counted,
  counted_currency: r.countedCurrency,
  reversed: r.reversed,
  email: r.email,
  click_id: r.clickId,
  conversion_id: r.conversionId,
  reversal_id: r.reversalId,
  product_id: r.productId,
  payment_account_id: r.paymentAccountId,
  created_at: iso(r.createdAt),
  updated_at: iso(r.updatedAt),
})

// ── filters ──

const text = () => Type.Optional(Type.String())
export const WebhookEventQuery = Type.Object({ source: text(), outcome: text(), order: text(), click_id: text() })
export const OrderQuery = Type.Object({ source: text(), status: text(), click_id: text() })

const given = (q: Query, name: string): string | undefined => (q[name] === undefined || q[name] === '' ? undefined : q[name])

function oneOfFilter(q: Query, name: string, values: readonly string[]): string | undefined {
  const raw = given(q, name)
  if (raw !== undefined && !values.includes(raw)) throw invalid(`${name}: must be one of ${values.join(', ')}`)
  return raw
}

/** Free text looked up as is; NUL (which Postgres text cannot hold) and overlong values are 400s. */
function textFilter(q: Query, name: string): string | undefined {
  const raw = given(q, name)
  if (raw === undefined) return undefined
  if (raw.includes('\u0000')) throw invalid(`${name}: must not contain NUL characters`)
  if (raw.length > MAX_TEXT_FILTER) throw invalid(`${name}: at most ${MAX_TEXT_FILTER} characters`)
  return raw
}

/** Stored click ids are lower-case UUIDs: any case is accepted. */
function clickFilter(q: Query): string | undefined {
  const raw = given(q, 'click_id')
  if (raw === undefined) return undefined
  const id = normalizeClickId(raw.trim())
  if (!id) throw invalid('click_id: must be a click id (UUID)')
  return id
}

export function webhookEventFilter(q: Query): WebhookEventFilter {
  return {
    source: oneOfFilter(q, 'source', WEBHOOK_SOURCES),
    outcome: oneOfFilter(q, 'outcome', OUTCOMES),
    orderExternalId: textFilter(q, 'order'),
    clickId: clickFilter(q),
  }
}

export function orderFilter(q: Query): OrderFilter {
  return { source: oneOfFilter(q, 'source', ORDER_SOURCES), status: textFilter(q, 'status'), clickId: clickFilter(q) }
}

// ── verbs ──

export function commerceAdminVerbs(store: CommerceStore) {
  const webhookEvents = readVerbs({
    name: 'webhook-events', what: 'webhook event', query: WebhookEventQuery, filter: webhookEventFilter,
    listSummary: 'List webhook deliveries, newest first (filters source, outcome, order, click_id)',
    getSummary: 'Get a webhook delivery, with its body as received',
    list: (f, before, limit) => store.listEvents(f, before, limit), find: (id) => store.findEvent(id),
  })
  const orders = readVerbs({
    name: 'orders', what: 'order', query: OrderQuery, filter: orderFilter,
    listSummary: 'List orders, newest first (filters source, status, click_id)', getSummary: 'Get an order',
    list: (f, before, limit) => store.listOrders(f, before, limit), find: (id) => store.findOrder(id),
  })

  return { webhookEvents, orders }
}

export type CommerceAdminVerbs = ReturnType<typeof commerceAdminVerbs>
