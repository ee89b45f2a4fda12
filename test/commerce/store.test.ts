// The commerce store (webhook events, orders) on both engines: the same expectations run against a fresh
// SQLite file and a fresh Postgres database. The receivers' queries run through `in(tx)` inside a transaction
// the test opens the way the product does (SQLite: `raw.transaction` on the shared connection, synchronous
// calls; Postgres: `sql.begin`, every call through the tx): deduplicated deliveries, rollback, order upserts
// (the first click wins), the admin reads (newest first, cursor, filters), and identical JS shapes on both.
// Then Postgres-only: two transactions delivering the same event, or changing the same order, at once.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase, type Database } from '../../src/db/client'
import { migrate } from '../../src/db/migrate'
import { openPg, type PgDatabase } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import { commerceStore } from '../../src/commerce/store'
import type { CommerceQueries, CommerceStore, NewWebhookEvent, OrderRow, OrderUpsert, WebhookEventRow } from '../../src/commerce/store/types'
import { runAsync, runSync, type Steps } from '../../src/lib/steps'
import { freshPgUrl, pgAvailable } from '../helpers/pg'

/** The first test to ask starts the throwaway cluster (initdb); slow on a loaded machine. */
const PG_SETUP_MS = 60_000

interface Engine {
  name: string
  store: CommerceStore
  /** Runs `body` in one transaction as the product does; its store calls are yielded (steps.ts). */
  atomically<R>(body: (q: CommerceQueries) => Steps<R>): Promise<R>
  /** The one number a `SELECT count(*) …` answers. */
  count(sql: string): Promise<number>
  close(): Promise<void>
}

async function sqliteEngine(): Promise<Engine> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-commerce-'))
  const database: Database = await openDatabase(join(dir, 'svc.db'))
  migrate(database)
  const store = commerceStore(database)
  return {
    name: 'sqlite',
    store,
    // Synchronous: runSync throws if a query returned a Promise.
    atomically: async (body) => database.raw.transaction(() => runSync(body(store.in(null))))(),
    count: async (sql) => Number(Object.values(database.raw.prepare(sql).get() as Record<string, unknown>)[0]),
    close: async () => {
      database.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

let pgDb: PgDatabase | undefined

async function pgEngine(): Promise<Engine> {
  const db = (pgDb = await openPg(await freshPgUrl()))
  await migratePg(db)
  const store = commerceStore(db)
  return {
    name: 'postgres',
    store,
    atomically: (body) => db.sql.begin((tx) => runAsync(body(store.in(tx)))) as Promise<never>,
    count: async (sql) => Number(Object.values((await db.sql.unsafe(sql))[0] as Record<string, unknown>)[0]),
    close: () => db.close(),
  }
}

const T0 = 1_760_000_000_000
const CLICK_A = '6f1c2d3e-4a5b-4c6d-8e7f-0a1b2c3d4e01'
const CLICK_B = '6f1c2d3e-4a5b-4c6d-8e7f-0a1b2c3d4e02'

const delivery = (over: Partial<NewWebhookEvent> = {}): NewWebhookEvent => ({
  source: 'ecom-a', externalId: 'evt-1', dedupKey: 'evt-1', topic: 'orders/paid', orderExternalId: '1001', signature: 'valid',
  outcome: 'error', error: null, payload: '{"id":1001}', receivedAt: T0, ...over,
})
const upsert = (over: Partial<OrderUpsert> = {}): OrderUpsert => ({
  source: 'ecom-a', externalId: '1001', status: 'paid', currency: 'EUR', total: 49.9, email: 'ann@example.com', clickId: CLICK_A, now: T0, ...over,
})

/** One query in its own transaction. */
const once = <R>(e: Engine, call: (q: CommerceQueries) => unknown) =>
  e.atomically(function* (q) {
    const r: R = yield call(q)
    return r
  })

const EVENT_NUMBERS = ['id', 'deliveries', 'receivedAt', 'lastReceivedAt'] as const
const ORDER_NUMBERS = ['id', 'total', 'refunded', 'createdAt', 'updatedAt'] as const

/** A row with every id-like number replaced by its type, keys in order: what must match across engines. */
function shape(row: Record<string, unknown> | undefined): Array<[string, unknown]> {
  return Object.entries(row ?? {}).map(([k, v]) => [k, (k === 'id' || k.endsWith('Id')) && typeof v === 'number' ? 'number' : v])
}
/** What each engine's shape test saw, compared once both have run. */
const shapes: Record<string, unknown> = {}

const engines: Array<[string, () => Promise<Engine>, boolean]> = [
  ['sqlite', sqliteEngine, true],
  ['postgres', pgEngine, pgAvailable().ok],
]

for (const [name, open, available] of engines) {
  describe.skipIf(!available)(`commerce store on ${name}`, () => {
    let e: Engine
    let store: CommerceStore
    beforeAll(async () => {
      e = await open()
      store = e.store
    }, PG_SETUP_MS)
    afterAll(() => e?.close())

    test('recordDelivery: a new dedup key inserts; the same key (same source) counts a redelivery on that row', async () => {
      const first = await once<{ id: number; duplicate: boolean }>(e, (q) => q.recordDelivery(delivery({ dedupKey: 'rd-1' })))
      expect(first).toEqual({ id: first.id, duplicate: false })
      expect(typeof first.id).toBe('number')
      const row = await store.findEvent(first.id)
      expect(row).toEqual({
        id: first.id, source: 'ecom-a', externalId: 'evt-1', dedupKey: 'rd-1', topic: 'orders/paid', orderExternalId: '1001',
        signature: 'valid', outcome: 'error', error: null, clickId: null, orderId: null, conversionId: null, payload: '{"id":1001}',
        deliveries: 1, receivedAt: T0, lastReceivedAt: T0,
      })
      for (const k of EVENT_NUMBERS) expect(typeof row![k]).toBe('number')

      // A redelivery: counted, last_received_at moves; nothing else of the first row changes.
      const again = await once(e, (q) => q.recordDelivery(delivery({ dedupKey: 'rd-1', outcome: 'ignored', payload: 'other', receivedAt: T0 + 5000 })))
      expect(again).toEqual({ id: first.id, duplicate: true })
      const third = await once(e, (q) => q.recordDelivery(delivery({ dedupKey: 'rd-1', receivedAt: T0 + 9000 })))
      expect(third).toEqual({ id: first.id, duplicate: true })
      expect(await store.findEvent(first.id)).toEqual({ ...row!, deliveries: 3, lastReceivedAt: T0 + 9000 })

      // The same key from another source is another event.
      const other = await once<{ id: number; duplicate: boolean }>(e, (q) => q.recordDelivery(delivery({ source: 'ecom-b', dedupKey: 'rd-1' })))
      expect(other.duplicate).toBe(false)
      expect(other.id).toBeGreaterThan(first.id)

      // A null dedup key never conflicts.
      const n1 = await once<{ id: number; duplicate: boolean }>(e, (q) => q.recordDelivery(delivery({ dedupKey: null })))
      const n2 = await once<{ id: number; duplicate: boolean }>(e, (q) => q.recordDelivery(delivery({ dedupKey: null })))
      expect([n1.duplicate, n2.duplicate]).toEqual([false, false])
      expect(n2.id).not.toBe(n1.id)
    })

    test('in(tx): the queries join the transaction; a rollback leaves nothing, and the redelivery is then new', async () => {
      await expect(e.atomically(function* (q) {
        const d: { id: number } = yield q.recordDelivery(delivery({ dedupKey: 'rb-1' }))
        const o: OrderRow = yield q.upsertOrder(upsert({ externalId: 'rb-order' }))
        yield q.setOrderConversion(o.id, 'conversion', 77, T0)
        yield q.finishEvent(d.id, { outcome: 'attributed', error: null, clickId: CLICK_A, orderId: o.id, conversionId: 77 })
        throw new Error('boom')
      })).rejects.toThrow('boom')
      expect(await e.count("SELECT count(*) AS n FROM webhook_events WHERE dedup_key = 'rb-1'")).toBe(0)
      expect(await e.count("SELECT count(*) AS n FROM orders WHERE external_id = 'rb-order'")).toBe(0)
      expect(await once(e, (q) => q.recordDelivery(delivery({ dedupKey: 'rb-1' })))).toMatchObject({ duplicate: false })

      // Several calls in one transaction see each other's writes.
      const r = await e.atomically(function* (q) {
        const a: { id: number; duplicate: boolean } = yield q.recordDelivery(delivery({ dedupKey: 'tx-1' }))
        const b: { id: number; duplicate: boolean } = yield q.recordDelivery(delivery({ dedupKey: 'tx-1', receivedAt: T0 + 1 }))
        return [a, b]
      })
      expect(r).toEqual([{ id: r[0]!.id, duplicate: false }, { id: r[0]!.id, duplicate: true }])
    })

    if (name === 'sqlite') {
      test('SQLite: in(null) answers plain values, never Promises', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'svc-commerce-sync-'))
        const db = await openDatabase(join(dir, 'svc.db'))
        migrate(db)
        const s = commerceStore(db)
        const results = db.raw.transaction(() => {
          const q = s.in(null)
          const d = q.recordDelivery(delivery({ dedupKey: 'sync-1' }))
          const o = q.upsertOrder(upsert())
          const c = q.setOrderConversion((o as OrderRow).id, 'conversion', 5, T0)
          const f = q.finishEvent((d as { id: number }).id, { outcome: 'recorded', error: null, clickId: null, orderId: (o as OrderRow).id, conversionId: null })
          return [d, o, c, f]
        })()
        for (const r of results) expect(r instanceof Promise).toBe(false)
        expect((results[1] as OrderRow).conversionId).toBeNull()
        expect((await s.findOrder((results[1] as OrderRow).id))!.conversionId).toBe(5)
        db.close()
        rmSync(dir, { recursive: true, force: true })
      })
    }

    test('upsertOrder: insert, then update status/total (currency, email kept when absent); the first click id wins', async () => {
      const created = await once<OrderRow>(e, (q) => q.upsertOrder(upsert({ externalId: 'up-1' })))
      expect(created).toEqual({
        id: created.id, source: 'ecom-a', externalId: 'up-1', status: 'paid', currency: 'EUR', total: 49.9, refunded: 0,
        counted: null, countedCurrency: null, reversed: 0,
        email: 'ann@example.com', clickId: CLICK_A, conversionId: null, reversalId: null, productId: null, paymentAccountId: null, createdAt: T0, updatedAt: T0,
      })
      for (const k of ORDER_NUMBERS) expect(typeof created[k]).toBe('number')
      expect(await store.findOrder(created.id)).toEqual(created)

      const updated = await once<OrderRow>(e, (q) => q.upsertOrder(upsert({
        externalId: 'up-1', status: 'refunded', currency: null, total: 0, email: null, clickId: CLICK_B, now: T0 + 1000,
      })))
      expect(updated).toEqual({ ...created, status: 'refunded', total: 0, updatedAt: T0 + 1000 })
      // Refunded is final: a later event updates the rest but not the status.
      const changed = await once<OrderRow>(e, (q) => q.upsertOrder(upsert({ externalId: 'up-1', currency: 'usd', total: 12, email: 'bob@example.com', now: T0 + 2000 })))
      expect(changed).toEqual({ ...created, status: 'refunded', currency: 'usd', total: 12, email: 'bob@example.com', updatedAt: T0 + 2000 })

      // An order first seen without a click takes the first one that arrives, and keeps it.
      const bare = await once<OrderRow>(e, (q) => q.upsertOrder(upsert({ externalId: 'up-2', clickId: null, currency: null, email: null, total: 3 })))
      expect(bare).toMatchObject({ clickId: null, currency: null, email: null, total: 3 })
      expect(await once(e, (q) => q.upsertOrder(upsert({ externalId: 'up-2', clickId: CLICK_B, now: T0 + 1 })))).toMatchObject({ id: bare.id, clickId: CLICK_B })
      expect(await once(e, (q) => q.upsertOrder(upsert({ externalId: 'up-2', clickId: CLICK_A, now: T0 + 2 })))).toMatchObject({ id: bare.id, clickId: CLICK_B })

      // Same external id at another source: another order.
      const elsewhere = await once<OrderRow>(e, (q) => q.upsertOrder(upsert({ source: 'ecom-b', externalId: 'up-1' })))
      expect(elsewhere.id).not.toBe(created.id)
      expect(await e.count("SELECT count(*) AS n FROM orders WHERE external_id = 'up-1'")).toBe(2)
    })

    test('setOrderConversion and finishEvent', async () => {
      const { order, event } = await e.atomically(function* (q) {
        const d: { id: number } = yield q.recordDelivery(delivery({ dedupKey: 'fin-1' }))
        const o: OrderRow = yield q.upsertOrder(upsert({ externalId: 'fin-order' }))
        yield q.setOrderConversion(o.id, 'conversion', 101, T0 + 10)
        yield q.finishEvent(d.id, { outcome: 'attributed', error: null, clickId: CLICK_A, orderId: o.id, conversionId: 101 })
        return { order: o, event: d }
      })
      expect(await store.findOrder(order.id)).toEqual({ ...order, conversionId: 101, updatedAt: T0 + 10 })
      expect(await store.findEvent(event.id)).toMatchObject({ outcome: 'attributed', error: null, clickId: CLICK_A, orderId: order.id, conversionId: 101 })

      await e.atomically(function* (q) {
        yield q.setOrderConversion(order.id, 'reversal', 102, T0 + 20)
        yield q.finishEvent(event.id, { outcome: 'error', error: 'boom', clickId: null, orderId: null, conversionId: null })
      })
      expect(await store.findOrder(order.id)).toEqual({ ...order, conversionId: 101, reversalId: 102, updatedAt: T0 + 20 })
      expect(await store.findEvent(event.id)).toMatchObject({ outcome: 'error', error: 'boom', clickId: null, orderId: null, conversionId: null })
    })

    test('recordRefused: its own row every time (dedup key stored as null), outside any transaction', async () => {
      const refused = delivery({ source: 'pay-a', dedupKey: null, signature: 'invalid', outcome: 'rejected', error: 'bad signature', receivedAt: T0 + 7 })
      const a = await store.recordRefused(refused)
      const b = await store.recordRefused(refused)
      expect(typeof a).toBe('number')
      expect(b).toBeGreaterThan(a)
      const row = await store.findEvent(a)
      expect(row).toEqual({
        id: a, source: 'pay-a', externalId: 'evt-1', dedupKey: null, topic: 'orders/paid', orderExternalId: '1001', signature: 'invalid',
        outcome: 'rejected', error: 'bad signature', clickId: null, orderId: null, conversionId: null, payload: '{"id":1001}',
        deliveries: 1, receivedAt: T0 + 7, lastReceivedAt: T0 + 7,
      })
      // Even with a key, a refused delivery deduplicates nothing, and is not counted on a stored event.
      const c = await store.recordRefused({ ...refused, dedupKey: 'rd-1', source: 'ecom-a' })
      expect((await store.findEvent(c))!.dedupKey).toBeNull()
      expect(await store.findEvent(999_999)).toBeUndefined()
      expect(await store.findOrder(999_999)).toBeUndefined()
    })

    test('pruneEvents (retention): the oldest first, up to the limit, only before the cutoff', async () => {
      const old = 1_000
      const ids = []
      for (let i = 0; i < 3; i++) ids.push(await store.recordRefused(delivery({ source: 'ecom-b', dedupKey: null, outcome: 'rejected', receivedAt: old + i })))
      expect(await store.pruneEvents(old + 2, 1)).toBe(1)
      expect(await store.findEvent(ids[0]!)).toBeUndefined()
      expect(await store.pruneEvents(old + 2, 100)).toBe(1)
      expect(await store.findEvent(ids[1]!)).toBeUndefined()
      expect(await store.findEvent(ids[2]!)).toBeDefined()
      await store.pruneEvents(old + 3, 100)
    })

    test('listEvents: newest first, ids below the cursor, exactly `limit` rows, optional filters', async () => {
      // The newest row before this test's: an ecom-a event.
      await once(e, (q) => q.recordDelivery(delivery({ source: 'ecom-a', dedupKey: 'l-1', orderExternalId: 'A1' })))
      const add = async (over: Partial<NewWebhookEvent>, finish?: { clickId: string; outcome: 'attributed' | 'unattributed' }) => {
        const id = await e.atomically(function* (q) {
          const d: { id: number } = yield q.recordDelivery(delivery(over))
          if (finish) yield q.finishEvent(d.id, { outcome: finish.outcome, error: null, clickId: finish.clickId, orderId: null, conversionId: null })
          return d.id
        })
        return id
      }
      const all0 = await store.listEvents({}, undefined, 100)
      const base = all0.map((r) => r.id)
      const e1 = await add({ source: 'ecom-a', dedupKey: 'l-2', orderExternalId: 'A2' }, { clickId: CLICK_A, outcome: 'attributed' })
      const e2 = await add({ source: 'ecom-b', dedupKey: 'l-3', orderExternalId: 'A2' }, { clickId: CLICK_B, outcome: 'unattributed' })
      const e3 = await add({ source: 'ecom-a', dedupKey: 'l-4', orderExternalId: 'A3', outcome: 'ignored' })
      const e4 = await store.recordRefused(delivery({ source: 'pay-b', dedupKey: null, outcome: 'rejected', orderExternalId: null }))

      const list = async (f: Parameters<CommerceStore['listEvents']>[0], before?: number, limit = 100) =>
        (await store.listEvents(f, before, limit)).map((r) => r.id)
      expect(await list({})).toEqual([e4, e3, e2, e1, ...base])
      expect(await list({}, undefined, 2)).toEqual([e4, e3])
      expect(await list({}, e3, 2)).toEqual([e2, e1])
      expect(await list({}, e1)).toEqual(base)
      expect(await list({ source: 'ecom-a' }, undefined, 3)).toEqual([e3, e1, base[0]!])
      expect(await list({ outcome: 'attributed' })).toEqual([e1])
      expect(await list({ orderExternalId: 'A2' })).toEqual([e2, e1])
      expect(await list({ orderExternalId: 'A2', source: 'ecom-b' })).toEqual([e2])
      expect(await list({ clickId: CLICK_B })).toEqual([e2])
      expect(await list({ clickId: CLICK_A, outcome: 'unattributed' })).toEqual([])
      expect(await list({ source: 'pay-b' }, e4)).toEqual([])
      const rows = await store.listEvents({ source: 'pay-b' }, undefined, 1)
      expect(rows).toEqual([{ ...(await store.findEvent(e4))!, payload: null }]) // lists leave the payload out
      for (const k of EVENT_NUMBERS) expect(typeof rows[0]![k]).toBe('number')
    })

    test('listOrders: newest first, ids below the cursor, exactly `limit` rows, optional filters', async () => {
      const base = (await store.listOrders({}, undefined, 500)).map((r) => r.id)
      const add = (over: Partial<OrderUpsert>) => once<OrderRow>(e, (q) => q.upsertOrder(upsert(over)))
      const o1 = (await add({ source: 'ecom-a', externalId: 'lo-1', status: 'paid', clickId: CLICK_A })).id
      const o2 = (await add({ source: 'ecom-b', externalId: 'lo-2', status: 'pending', clickId: null })).id
      const o3 = (await add({ source: 'native', externalId: 'lo-3', status: 'paid', clickId: CLICK_B })).id
      // An update keeps the row's place (ids, not times, order the list).
      await add({ source: 'ecom-a', externalId: 'lo-1', status: 'fulfilled', now: T0 + 99 })

      const list = async (f: Parameters<CommerceStore['listOrders']>[0], before?: number, limit = 500) =>
        (await store.listOrders(f, before, limit)).map((r) => r.id)
      expect(await list({})).toEqual([o3, o2, o1, ...base])
      expect(await list({}, undefined, 2)).toEqual([o3, o2])
      expect(await list({}, o2, 1)).toEqual([o1])
      expect(await list({ status: 'paid' })).toEqual([o3, ...(await list({ status: 'paid' }, o1))])
      expect(await list({ status: 'fulfilled' })).toEqual([o1])
      expect(await list({ source: 'native' })).toEqual([o3])
      expect(await list({ source: 'ecom-b', status: 'pending' })).toEqual([o2])
      expect(await list({ clickId: CLICK_B }, undefined, 1)).toEqual([o3])
      expect(await list({ source: 'native' }, o3)).toEqual([])
      const rows = await store.listOrders({ source: 'native' }, undefined, 5)
      expect(rows).toEqual([(await store.findOrder(o3))!])
      for (const k of ORDER_NUMBERS) expect(typeof rows[0]![k]).toBe('number')
    })

    test('the same calls give the same JS shapes (keys, types, nulls) on both engines', async () => {
      const r = await e.atomically(function* (q) {
        const d: { id: number; duplicate: boolean } = yield q.recordDelivery(delivery({ source: 'ecom-b', dedupKey: 'shape-1', payload: null, topic: null }))
        const dup: { id: number; duplicate: boolean } = yield q.recordDelivery(delivery({ source: 'ecom-b', dedupKey: 'shape-1', receivedAt: T0 + 3 }))
        const o: OrderRow = yield q.upsertOrder(upsert({ source: 'ecom-b', externalId: 'shape-order', total: 10, currency: null }))
        const o2: OrderRow = yield q.upsertOrder(upsert({ source: 'ecom-b', externalId: 'shape-order', total: 0.1 + 0.2, now: T0 + 4 }))
        yield q.setOrderConversion(o.id, 'reversal', 9, T0 + 5)
        yield q.finishEvent(d.id, { outcome: 'recorded', error: null, clickId: CLICK_A, orderId: o.id, conversionId: null })
        return { d, dup, o, o2 }
      })
      const refused = await store.recordRefused(delivery({ source: 'pay-a', dedupKey: null, externalId: null, orderExternalId: null, signature: 'missing', outcome: 'rejected', error: 'no signature' }))
      const event = await store.findEvent(r.d.id)
      const order = await store.findOrder(r.o.id)
      shapes[e.name] = {
        results: [shape(r.d), shape(r.dup), shape(r.o as unknown as Record<string, unknown>), shape(r.o2 as unknown as Record<string, unknown>)],
        event: shape(event as unknown as Record<string, unknown>),
        refused: shape((await store.findEvent(refused)) as unknown as Record<string, unknown>),
        order: shape(order as unknown as Record<string, unknown>),
        listed: [
          shape((await store.listEvents({ source: 'ecom-b' }, undefined, 1))[0] as unknown as Record<string, unknown>),
          shape((await store.listOrders({ source: 'ecom-b' }, undefined, 1))[0] as unknown as Record<string, unknown>),
        ],
      }
      expect(order).toEqual({ ...r.o2, reversalId: 9, updatedAt: T0 + 5 })
      expect(r.o2.total).toBe(0.1 + 0.2)
      expect((shapes[e.name] as { listed: unknown[] }).listed).toEqual([shape(event as never), shape(order as never)])
    })
  })
}

describe.skipIf(!pgAvailable().ok)('both engines', () => {
  test('rows read back identically (keys in order, types, nulls, values)', () => {
    expect(Object.keys(shapes).sort()).toEqual(['postgres', 'sqlite'])
    expect(shapes.postgres).toEqual(shapes.sqlite)
  })
})

describe.skipIf(!pgAvailable().ok)('commerce store on postgres: concurrent transactions', () => {
  let db: PgDatabase
  let store: CommerceStore
  beforeAll(async () => {
    db = await openPg(await freshPgUrl())
    await migratePg(db)
    store = commerceStore(db)
  }, PG_SETUP_MS)
  afterAll(() => db?.close())

  /** A promise and its resolver: holds a transaction open until the test lets it go. */
  const gate = () => {
    let open!: () => void
    const p = new Promise<void>((r) => (open = r))
    return { p, open }
  }
  /** Whether `p` settled within `ms`. */
  const settles = (p: Promise<unknown>, ms: number) => Promise.race([p.then(() => true, () => true), Bun.sleep(ms).then(() => false)])

  test('the same event delivered twice at once: the second waits for the first commit, then counts as a duplicate', async () => {
    const release = gate()
    const firstInserted = gate()
    const first = db.sql.begin(async (tx) => {
      const r = await store.in(tx).recordDelivery(delivery({ dedupKey: 'race-1' }))
      firstInserted.open()
      await release.p
      return r
    })
    await firstInserted.p
    const second = db.sql.begin(async (tx) => store.in(tx).recordDelivery(delivery({ dedupKey: 'race-1', receivedAt: T0 + 50 })))
    // Blocked on the unique index while the first transaction is open.
    expect(await settles(second, 300)).toBe(false)
    release.open()
    const [a, b] = await Promise.all([first, second])
    expect(a.duplicate).toBe(false)
    expect(b).toEqual({ id: a.id, duplicate: true })
    expect(await store.findEvent(a.id)).toMatchObject({ deliveries: 2, receivedAt: T0, lastReceivedAt: T0 + 50 })
    expect(Number((await db.sql`SELECT count(*) AS n FROM webhook_events WHERE dedup_key = 'race-1'`)[0].n)).toBe(1)
  })

  test('many deliveries of one event at once: exactly one is new, the rest are counted on it', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) =>
      db.sql.begin(async (tx) => store.in(tx).recordDelivery(delivery({ dedupKey: 'race-many', receivedAt: T0 + i })))))
    expect(results.filter((r) => !r.duplicate)).toHaveLength(1)
    expect(new Set(results.map((r) => r.id)).size).toBe(1)
    expect((await store.findEvent(results[0]!.id))!.deliveries).toBe(8)
  })

  test('when the first delivery rolls back, the waiting one inserts and is not a duplicate', async () => {
    const release = gate()
    const firstInserted = gate()
    const first = db.sql.begin(async (tx) => {
      await store.in(tx).recordDelivery(delivery({ dedupKey: 'race-2' }))
      firstInserted.open()
      await release.p
      throw new Error('processing failed')
    })
    await firstInserted.p
    const second = db.sql.begin(async (tx) => store.in(tx).recordDelivery(delivery({ dedupKey: 'race-2', receivedAt: T0 + 60 })))
    expect(await settles(second, 300)).toBe(false)
    release.open()
    await expect(first).rejects.toThrow('processing failed')
    const b = await second
    expect(b.duplicate).toBe(false)
    expect(await store.findEvent(b.id)).toMatchObject({ deliveries: 1, receivedAt: T0 + 60 })
  })

  test('two events of one order at once take turns on the order row; the first click id stays', async () => {
    const release = gate()
    const firstUpserted = gate()
    const first = db.sql.begin(async (tx) => {
      const o = await store.in(tx).upsertOrder(upsert({ externalId: 'race-order', clickId: CLICK_A, status: 'paid' }))
      firstUpserted.open()
      await release.p
      return o
    })
    await firstUpserted.p
    const second = db.sql.begin(async (tx) => store.in(tx).upsertOrder(upsert({ externalId: 'race-order', clickId: CLICK_B, status: 'fulfilled', now: T0 + 1 })))
    expect(await settles(second, 300)).toBe(false)
    release.open()
    const [a, b] = await Promise.all([first, second])
    expect(b).toEqual({ ...a, status: 'fulfilled', clickId: CLICK_A, updatedAt: T0 + 1 })
    expect(await store.findOrder(a.id)).toEqual(b)
  })

  test('in() without a transaction handle is a wiring bug, said at once', () => {
    expect(() => store.in(null)).toThrow('transaction handle')
  })
})
