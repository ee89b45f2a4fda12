// Webhook events and orders through the admin API on a real server, on either engine (SVC_TEST_ENGINE=postgres
// runs it on Postgres). The rows are written straight through the commerce store, in transactions opened the
// way the receivers' are: list order and paging, filters, get (with the payload), 404, 401, 403, 400.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { AnyDatabase } from '../../src/db/engine'
import { commerceStore } from '../../src/commerce/store'
import type { CommerceQueries, CommerceStore, NewWebhookEvent, OrderRow, OrderUpsert } from '../../src/commerce/store/types'
import { runAsync, runSync, type Steps } from '../../src/lib/steps'
import { startServer, type TestServer } from '../helpers/server'

let s: TestServer
let store: CommerceStore
let database: AnyDatabase

const CLICK_A = '6f1c0c3e-8a4b-4f7e-9c2d-1a2b3c4d5e11'
const CLICK_B = '6f1c0c3e-8a4b-4f7e-9c2d-1a2b3c4d5e12'
const T1 = Date.UTC(2026, 2, 1, 10, 0)
const T2 = Date.UTC(2026, 2, 2, 12, 30)
const T3 = Date.UTC(2026, 2, 3, 8, 15)
const iso = (ms: number) => new Date(ms).toISOString()

/** One transaction as the receivers open it: SQLite on the shared connection (synchronous), Postgres through its handle. */
function atomically<R>(body: (q: CommerceQueries) => Steps<R>): Promise<R> {
  if (database.engine === 'postgres') return database.sql.begin((tx) => runAsync(body(store.in(tx)))) as Promise<R>
  return Promise.resolve(database.raw.transaction(() => runSync(body(store.in(null))))())
}

const delivery = (over: Partial<NewWebhookEvent>): NewWebhookEvent => ({
  source: 'ecom-a', externalId: null, dedupKey: null, topic: 'orders/paid', orderExternalId: null, signature: 'valid',
  outcome: 'error', error: null, payload: null, receivedAt: T1, ...over,
})
const upsert = (over: Partial<OrderUpsert>): OrderUpsert => ({
  source: 'ecom-a', externalId: 'x', status: 'paid', currency: 'EUR', total: 10, email: null, clickId: null, now: T1, ...over,
})

/** A delivery, its order and its outcome, in one transaction. */
async function processed(d: Partial<NewWebhookEvent>, o: Partial<OrderUpsert> | null, outcome: NewWebhookEvent['outcome'], conversionId: number | null = null) {
  return atomically(function* (q) {
    const ev: { id: number; duplicate: boolean } = yield q.recordDelivery(delivery(d))
    let order: OrderRow | null = null
    if (o) {
      order = yield q.upsertOrder(upsert(o))
      if (conversionId !== null) yield q.setOrderConversion(order!.id, 'conversion', conversionId, o.now ?? T1)
    }
    yield q.finishEvent(ev.id, { outcome, error: null, clickId: order?.clickId ?? null, orderId: order?.id ?? null, conversionId })
    return { event: ev, order }
  })
}

let ev1: number, ev2: number, ev3: number, ev4: number
let o1: OrderRow, o2: OrderRow, o3: OrderRow

beforeAll(async () => {
  s = await startServer()
  // The rows below are dated March 2026: retention (90 days by default) must not prune them under the test.
  expect((await s.api('PUT', '/admin/api/settings', { webhook_event_retention_days: 0 })).status).toBe(200)
  database = s.ctx.database as AnyDatabase
  store = commerceStore(database)
  const a = await processed(
    { externalId: 'evt-1', dedupKey: 'evt-1', orderExternalId: '1001', payload: '{"id":1001,"note_attributes":[]}', receivedAt: T1 },
    { externalId: '1001', clickId: CLICK_A, email: 'ann@example.com', total: 49.9, now: T1 }, 'attributed', 501)
  ev1 = a.event.id
  o1 = (await store.findOrder(a.order!.id))!
  // The same event again: counted on the first row, not a new one.
  expect((await processed({ externalId: 'evt-1', dedupKey: 'evt-1', orderExternalId: '1001', receivedAt: T2 }, null, 'attributed', 501)).event)
    .toEqual({ id: ev1, duplicate: true })
  // (finishEvent above ran again on ev1 with no order: put its outcome back the way the receiver leaves it.)
  await atomically(function* (q) {
    yield q.finishEvent(ev1, { outcome: 'attributed', error: null, clickId: CLICK_A, orderId: o1.id, conversionId: 501 })
  })
  const b = await processed(
    { source: 'ecom-b', externalId: 'evt-2', dedupKey: 'evt-2', topic: 'order.created', orderExternalId: '2001', receivedAt: T2 },
    { source: 'ecom-b', externalId: '2001', status: 'pending', currency: null, total: 5, now: T2 }, 'unattributed')
  ev2 = b.event.id
  o2 = b.order!
  ev3 = await store.recordRefused(delivery({ source: 'pay-a', signature: 'invalid', outcome: 'rejected', error: 'signature mismatch', payload: 'not json', receivedAt: T3 }))
  const c = await processed(
    { dedupKey: '1002:orders/cancelled', topic: 'orders/cancelled', orderExternalId: '1002', receivedAt: T3 + 1 },
    { externalId: '1002', status: 'cancelled', clickId: CLICK_B, total: 20, now: T3 + 1 }, 'recorded')
  ev4 = c.event.id
  o3 = c.order!
}, 60_000)
afterAll(() => s?.destroy())

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const ids = (body: { items: Array<{ id: number }> }) => body.items.map((r) => r.id)

async function limitedUser(email: string, permissions: Record<string, { read?: boolean; write?: boolean }>): Promise<string> {
  await s.ctx.users.create({ email, password: 'limited-password-1', permissions })
  return s.login(email, 'limited-password-1')
}

describe('/admin/api/webhook-events', () => {
  test('list: newest first, rendered (ISO times, deliveries counted, no payload)', async () => {
    const res = await s.api('GET', '/admin/api/webhook-events')
    expect(res.status).toBe(200)
    expect(res.body.next_cursor).toBeNull()
    expect(ids(res.body)).toEqual([ev4, ev3, ev2, ev1])
    expect(res.body.items[3]).toEqual({
      id: ev1, source: 'ecom-a', external_id: 'evt-1', topic: 'orders/paid', order_external_id: '1001', signature: 'valid',
      outcome: 'attributed', error: null, click_id: CLICK_A, order_id: o1.id, conversion_id: 501, deliveries: 2,
      received_at: iso(T1), last_received_at: iso(T2),
    })
    expect(res.body.items[1]).toEqual({
      id: ev3, source: 'pay-a', external_id: null, topic: 'orders/paid', order_external_id: null, signature: 'invalid',
      outcome: 'rejected', error: 'signature mismatch', click_id: null, order_id: null, conversion_id: null, deliveries: 1,
      received_at: iso(T3), last_received_at: iso(T3),
    })
    for (const item of res.body.items) expect(item.received_at).toMatch(ISO)
  })

  test('filters: source, outcome, order, click_id (any case); empty is no filter', async () => {
    const list = async (q: string) => {
      const res = await s.api('GET', `/admin/api/webhook-events?${q}`)
      expect({ q, status: res.status }).toEqual({ q, status: 200 })
      return ids(res.body)
    }
    expect(await list('source=ecom-a')).toEqual([ev4, ev1])
    expect(await list('source=pay-b')).toEqual([])
    expect(await list('outcome=rejected')).toEqual([ev3])
    expect(await list('order=1001')).toEqual([ev1])
    expect(await list('order=2001&source=ecom-a')).toEqual([])
    expect(await list('order=2001&source=ecom-b&outcome=unattributed')).toEqual([ev2])
    expect(await list(`click_id=${CLICK_B.toUpperCase()}`)).toEqual([ev4])
    expect(await list('source=&outcome=&order=&click_id=')).toEqual([ev4, ev3, ev2, ev1])
  })

  test('paging: limit and cursor, newest first', async () => {
    const first = await s.api('GET', '/admin/api/webhook-events?limit=3')
    expect({ ids: ids(first.body), next: first.body.next_cursor }).toEqual({ ids: [ev4, ev3, ev2], next: String(ev2) })
    const second = await s.api('GET', `/admin/api/webhook-events?limit=3&cursor=${first.body.next_cursor}`)
    expect({ ids: ids(second.body), next: second.body.next_cursor }).toEqual({ ids: [ev1], next: null })
    const exact = await s.api('GET', '/admin/api/webhook-events?source=ecom-a&limit=2')
    expect({ ids: ids(exact.body), next: exact.body.next_cursor }).toEqual({ ids: [ev4, ev1], next: null })
    const filtered = await s.api('GET', '/admin/api/webhook-events?source=ecom-a&limit=1')
    expect({ ids: ids(filtered.body), next: filtered.body.next_cursor }).toEqual({ ids: [ev4], next: String(ev4) })
  })

  test('get: the record with its payload; unknown or malformed id is 404', async () => {
    const res = await s.api('GET', `/admin/api/webhook-events/${ev1}`)
    expect(res.status).toBe(200)
    const listed = (await s.api('GET', '/admin/api/webhook-events?order=1001')).body.items[0]
    expect(res.body).toEqual({ ...listed, payload: '{"id":1001,"note_attributes":[]}' })
    expect((await s.api('GET', `/admin/api/webhook-events/${ev2}`)).body.payload).toBeNull()
    expect((await s.api('GET', `/admin/api/webhook-events/${ev3}`)).body.payload).toBe('not json')
    for (const id of ['999999', 'abc', '0', '-1']) {
      expect({ id, ...(await s.api('GET', `/admin/api/webhook-events/${id}`)) }).toMatchObject({ id, status: 404, body: { error: 'webhook event not found' } })
    }
  })

  test('bad filters: 400 naming the parameter', async () => {
    const cases: Array<[string, string]> = [
      ['source=shopify', 'source: must be one of ecom-a, ecom-b, pay-a, pay-b'],
      ['source=native', 'source: must be one of ecom-a, ecom-b, pay-a, pay-b'],
      ['outcome=maybe', 'outcome: must be one of attributed, unattributed, recorded, ignored, rejected, error'],
      ['click_id=not-a-click', 'click_id: must be a click id (UUID)'],
      ['order=a%00b', 'order: must not contain NUL characters'],
      [`order=${'9'.repeat(256)}`, 'order: at most 255 characters'],
      ['limit=0', 'limit: must be a whole number from 1 to 500'],
      ['cursor=x', 'cursor: invalid cursor'],
    ]
    for (const [q, error] of cases) {
      expect({ q, ...(await s.api('GET', `/admin/api/webhook-events?${q}`)) }).toMatchObject({ q, status: 400, body: { error } })
    }
  })
})

describe('/admin/api/orders', () => {
  test('list: newest first, rendered', async () => {
    const res = await s.api('GET', '/admin/api/orders')
    expect(res.status).toBe(200)
    expect(ids(res.body)).toEqual([o3.id, o2.id, o1.id])
    expect(res.body.next_cursor).toBeNull()
    expect(res.body.items[2]).toEqual({
      id: o1.id, source: 'ecom-a', external_id: '1001', status: 'paid', currency: 'EUR', total: 49.9, refunded: 0, counted: null, counted_currency: null, reversed: 0,
      email: 'ann@example.com', click_id: CLICK_A, conversion_id: 501, reversal_id: null, product_id: null, payment_account_id: null, created_at: iso(T1), updated_at: iso(T1),
    })
    expect(res.body.items[1]).toEqual({
      id: o2.id, source: 'ecom-b', external_id: '2001', status: 'pending', currency: null, total: 5, refunded: 0, counted: null, counted_currency: null, reversed: 0,
      email: null, click_id: null, conversion_id: null, reversal_id: null, product_id: null, payment_account_id: null, created_at: iso(T2), updated_at: iso(T2),
    })
  })

  test('filters, paging, get, 404, 400', async () => {
    const list = async (q: string) => {
      const res = await s.api('GET', `/admin/api/orders?${q}`)
      expect({ q, status: res.status }).toEqual({ q, status: 200 })
      return ids(res.body)
    }
    expect(await list('source=ecom-a')).toEqual([o3.id, o1.id])
    expect(await list('source=native')).toEqual([])
    expect(await list('status=cancelled')).toEqual([o3.id])
    expect(await list('status=paid&source=ecom-b')).toEqual([])
    expect(await list(`click_id=${CLICK_A}`)).toEqual([o1.id])
    expect(await list('source=&status=&click_id=')).toEqual([o3.id, o2.id, o1.id])

    const first = await s.api('GET', '/admin/api/orders?limit=2')
    expect({ ids: ids(first.body), next: first.body.next_cursor }).toEqual({ ids: [o3.id, o2.id], next: String(o2.id) })
    const second = await s.api('GET', `/admin/api/orders?limit=2&cursor=${first.body.next_cursor}`)
    expect({ ids: ids(second.body), next: second.body.next_cursor }).toEqual({ ids: [o1.id], next: null })

    const one = await s.api('GET', `/admin/api/orders/${o3.id}`)
    expect(one.status).toBe(200)
    expect(one.body).toEqual((await s.api('GET', '/admin/api/orders?status=cancelled')).body.items[0])
    expect(one.body).toMatchObject({ click_id: CLICK_B, status: 'cancelled', total: 20, created_at: iso(T3 + 1) })
    for (const id of ['999999', 'abc']) {
      expect({ id, ...(await s.api('GET', `/admin/api/orders/${id}`)) }).toMatchObject({ id, status: 404, body: { error: 'order not found' } })
    }

    const cases: Array<[string, string]> = [
      ['source=shopify', 'source: must be one of ecom-a, ecom-b, pay-a, pay-b, native'],
      ['click_id=123', 'click_id: must be a click id (UUID)'],
      ['status=%00', 'status: must not contain NUL characters'],
      ['limit=abc', 'limit: must be a whole number from 1 to 500'],
      ['cursor=-5', 'cursor: invalid cursor'],
    ]
    for (const [q, error] of cases) {
      expect({ q, ...(await s.api('GET', `/admin/api/orders?${q}`)) }).toMatchObject({ q, status: 400, body: { error } })
    }
  })
})

describe('permissions', () => {
  const paths = () => ['/admin/api/webhook-events', `/admin/api/webhook-events/${ev1}`, '/admin/api/orders', `/admin/api/orders/${o1.id}`]

  test('a stranger gets 401 everywhere', async () => {
    for (const path of [...paths(), '/admin/api/webhook-events/999999', '/admin/api/orders?source=bad']) {
      expect({ path, ...(await s.api('GET', path, undefined, '')) }).toMatchObject({ path, status: 401, body: { error: 'not authenticated' } })
    }
  })

  test('without the commerce section: 403, even for bad input or an unknown id; commerce:read reads', async () => {
    const other = await limitedUser('conversions-only@example.com', { conversions: { read: true, write: true }, reports: { read: true } })
    for (const path of [...paths(), '/admin/api/webhook-events?source=bad', '/admin/api/orders/999999']) {
      expect({ path, status: (await s.api('GET', path, undefined, other)).status }).toEqual({ path, status: 403 })
    }
    const reader = await limitedUser('commerce-reader@example.com', { commerce: { read: true } })
    for (const path of paths()) expect({ path, status: (await s.api('GET', path, undefined, reader)).status }).toEqual({ path, status: 200 })
  })
})
