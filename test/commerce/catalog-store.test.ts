// The native commerce store (payment accounts, products, refunds, subscriptions) on both engines: the same
// expectations run against a fresh SQLite file and a fresh Postgres database (skipped when no PostgreSQL
// binaries are installed). Rows of other features (offers, email lists, orders, refunds, subscriptions)
// are written with SQL, as the receivers would. Then: the JS shapes are identical on both engines, and
// on Postgres a product created while its payment account is deleted never leaves a dangling reference.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase, type Database } from '../../src/db/client'
import { migrate } from '../../src/db/migrate'
import { openPg, type PgDatabase } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import { AppError } from '../../src/lib/errors'
import {
  commerceCatalogStore,
  type CommerceCatalogStore, type NewPaymentAccount, type ProductValues,
} from '../../src/commerce/store/catalog'
import { positional } from '../helpers/db'
import { freshPgUrl, pgAvailable } from '../helpers/pg'

const PG_SETUP_MS = 60_000

interface Engine {
  store: CommerceCatalogStore
  /** SQL written SQLite-style with $name parameters; returns the rows (int8 as numbers). */
  query(sql: string, params?: Record<string, unknown>): Promise<Array<Record<string, unknown>>>
  close(): Promise<void>
}

async function sqliteEngine(): Promise<Engine> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-commerce-catalog-'))
  const database: Database = await openDatabase(join(dir, 'svc.db'))
  migrate(database)
  const store = commerceCatalogStore(database)
  return {
    store,
    query: async (sql, params = {}) => database.raw.prepare(sql).all(params) as Array<Record<string, unknown>>,
    close: async () => {
      database.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

async function pgEngine(): Promise<Engine> {
  const db: PgDatabase = await openPg(await freshPgUrl())
  await migratePg(db)
  const store = commerceCatalogStore(db)
  return {
    store,
    query: async (sql, params = {}) => {
      const { text, values } = positional(sql, params)
      const rows = (await db.sql.unsafe(text, values)) as Array<Record<string, unknown>>
      return [...rows].map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])))
    },
    close: () => db.close(),
  }
}

const T0 = 1_760_000_000_000
const CLICK = '6f1c2d3e-4a5b-4c6d-8e7f-0a1b2c3d4e01'

const account = (over: Partial<NewPaymentAccount> = {}): NewPaymentAccount => ({
  type: 'pay-a', name: 'Main', accountId: `acct_${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`,
  webhookSecret: 'v1:enc-webhook', apiKey: 'v1:enc-key', clientId: null, clientSecret: null, ...over,
})
const product = (over: Partial<ProductValues> = {}): ProductValues => ({
  name: 'E-book', price: 19.99, currency: 'EUR', offerId: null, emailListId: null, paymentAccountId: null, active: true, ...over,
})

/** The AppError a promise rejects with, as {code, message}. */
async function failure(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p
  } catch (err) {
    if (err instanceof AppError) return { code: err.code, message: err.message }
    throw err
  }
  throw new Error('expected a rejection')
}

/** Keys in order with every value replaced by its JS type: what must match across engines. */
const typesOf = (row: object | undefined) => Object.entries(row ?? {}).map(([k, v]) => [k, v === null ? 'null' : typeof v])
const shapes: Record<string, unknown> = {}

const engines: Array<[string, () => Promise<Engine>, boolean]> = [
  ['sqlite', sqliteEngine, true],
  ['postgres', pgEngine, pgAvailable().ok],
]

for (const [name, open, available] of engines) {
  describe.skipIf(!available)(`commerce catalog store on ${name}`, () => {
    let e: Engine
    let store: CommerceCatalogStore
    let offerId: number
    let listId: number
    beforeAll(async () => {
      e = await open()
      store = e.store
      offerId = Number((await e.query(`INSERT INTO offers (name, slug, url, payout, currency, created_at, updated_at)
        VALUES ('O', 'o', 'https://adv.example/', 0, 'USD', $t, $t) RETURNING id`, { t: T0 }))[0]!.id)
      listId = Number((await e.query('INSERT INTO email_lists (name, created_at, updated_at) VALUES ($n, $t, $t) RETURNING id', { n: 'Buyers', t: T0 }))[0]!.id)
    }, PG_SETUP_MS)
    afterAll(() => e?.close())

    test('payment accounts: create, find (by id and account id), list, update, mark registered, delete', async () => {
      const before = Date.now()
      const a = await store.createAccount(account({ name: 'Shop A' }))
      expect(a).toEqual({
        id: a.id, type: 'pay-a', name: 'Shop A', accountId: a.accountId, webhookSecret: 'v1:enc-webhook', apiKey: 'v1:enc-key',
        clientId: null, clientSecret: null, webhookRegisteredAt: null, createdAt: a.createdAt, updatedAt: a.createdAt,
      })
      expect(a.createdAt).toBeGreaterThanOrEqual(before)
      for (const k of ['id', 'createdAt', 'updatedAt'] as const) expect(typeof a[k]).toBe('number')
      expect(await store.findAccount(a.id)).toEqual(a)
      expect(await store.findAccountByAccountId(a.accountId)).toEqual(a)
      expect(await store.findAccountByAccountId('acct_nope')).toBeUndefined()
      expect(await store.findAccount(999_999_999_999)).toBeUndefined()

      const b = await store.createAccount(account({ type: 'pay-b', name: 'Shop B', webhookSecret: null, apiKey: null, clientId: 'v1:id', clientSecret: 'v1:cs' }))
      // The account id is unique.
      expect(await failure(store.createAccount(account({ accountId: a.accountId })))).toEqual({ code: 'conflict', message: 'account_id: already used by another payment account' })

      // Ascending ids, limit + 1 rows, after a cursor.
      const page = await store.listAccounts({ afterId: 0, limit: 1 })
      expect(page.map((r) => r.id)).toEqual([a.id, b.id])
      expect((await store.listAccounts({ afterId: a.id, limit: 50 })).map((r) => r.id)).toEqual([b.id])

      // An update changes what it names; undefined leaves, null clears.
      const changed = await store.updateAccount(a.id, { name: 'Shop A2', apiKey: null, webhookSecret: undefined })
      expect(changed).toEqual({ ...a, name: 'Shop A2', apiKey: null, updatedAt: changed.updatedAt })
      expect(await failure(store.updateAccount(999_999, { name: 'x' }))).toEqual({ code: 'not_found', message: 'payment account not found' })

      expect(await store.registeredPayAAccounts()).toEqual([])
      await store.markWebhookRegistered(a.id, 'v1:new-secret', T0 + 5)
      const registered = await store.findAccount(a.id)
      expect(registered).toEqual({ ...changed, webhookSecret: 'v1:new-secret', webhookRegisteredAt: T0 + 5, updatedAt: T0 + 5 })
      expect(typeof registered!.webhookRegisteredAt).toBe('number')
      // pay-b accounts are never among them, even when marked.
      await store.markWebhookRegistered(b.id, 'v1:x', T0 + 6)
      expect(await store.registeredPayAAccounts()).toEqual([registered!])
      expect(await failure(store.markWebhookRegistered(999_999, 'v1:x', T0))).toEqual({ code: 'not_found', message: 'payment account not found' })

      shapes[`${name}:account`] = typesOf(registered)

      await store.deleteAccount(b.id)
      expect(await store.findAccount(b.id)).toBeUndefined()
      expect(await failure(store.deleteAccount(b.id))).toEqual({ code: 'not_found', message: 'payment account not found' })
    })

    test('products: references checked (400 naming the field), update merges, delete refused once sold', async () => {
      const acct = await store.createAccount(account())
      const p = await store.createProduct(product({ offerId, emailListId: listId, paymentAccountId: acct.id }))
      expect(p).toEqual({
        id: p.id, name: 'E-book', price: 19.99, currency: 'EUR', offerId, emailListId: listId, paymentAccountId: acct.id, active: true,
        createdAt: p.createdAt, updatedAt: p.createdAt,
      })
      expect(await store.findProduct(p.id)).toEqual(p)
      expect(await store.findProduct(999_999)).toBeUndefined()
      shapes[`${name}:product`] = typesOf(p)

      for (const [over, message] of [
        [{ offerId: 999_999 }, 'offer_id: offer 999999 does not exist'],
        [{ emailListId: 999_999 }, 'email_list_id: email list 999999 does not exist'],
        [{ paymentAccountId: 99_999_999_999 }, 'payment_account_id: payment account 99999999999 does not exist'],
      ] as const) {
        expect(await failure(store.createProduct(product(over)))).toEqual({ code: 'invalid', message })
        expect(await failure(store.updateProduct(p.id, over))).toEqual({ code: 'invalid', message })
      }

      const off = await store.updateProduct(p.id, { active: false, price: 25, offerId: null })
      expect(off).toEqual({ ...p, active: false, price: 25, offerId: null, updatedAt: off.updatedAt })
      expect(await store.findProduct(p.id)).toEqual(off)
      expect(await failure(store.updateProduct(999_999, { name: 'x' }))).toEqual({ code: 'not_found', message: 'product not found' })

      const q = await store.createProduct(product({ name: 'Course' }))
      expect((await store.listProducts({ afterId: 0, limit: 50 })).map((r) => r.id)).toEqual([p.id, q.id])
      expect((await store.listProducts({ afterId: p.id, limit: 50 })).map((r) => r.name)).toEqual(['Course'])

      // The account a product uses cannot go; the product names itself in the 409.
      expect(await failure(store.deleteAccount(acct.id))).toEqual({ code: 'conflict', message: `payment account is used by product "E-book" (id ${p.id})` })

      // A product with an order (or a subscription) keeps its history: 409, set active=false instead.
      await e.query(`INSERT INTO orders (source, external_id, status, total, refunded, product_id, created_at, updated_at)
        VALUES ('native', 'ord-p', 'paid', 25, 0, $p, $t, $t)`, { p: p.id, t: T0 })
      expect(await failure(store.deleteProduct(p.id))).toEqual({ code: 'conflict', message: 'product has orders; set active=false instead' })
      await e.query(`INSERT INTO subscriptions (source, external_id, status, product_id, created_at, updated_at)
        VALUES ('native', 'sub-p', 'trialing', $p, $t, $t)`, { p: q.id, t: T0 })
      expect(await failure(store.deleteProduct(q.id))).toEqual({ code: 'conflict', message: 'product has subscriptions; set active=false instead' })

      const r = await store.createProduct(product({ name: 'Loose', paymentAccountId: acct.id }))
      await store.deleteProduct(r.id)
      expect(await store.findProduct(r.id)).toBeUndefined()
      expect(await failure(store.deleteProduct(r.id))).toEqual({ code: 'not_found', message: 'product not found' })

      // Once no product uses it, the account goes.
      await store.updateProduct(p.id, { paymentAccountId: null })
      await store.deleteAccount(acct.id)
    })

    test('refunds and subscriptions: newest first, filters, cursor; a customer\'s subscriptions and orders', async () => {
      const o1 = Number((await e.query(`INSERT INTO orders (source, external_id, status, total, refunded, email, created_at, updated_at)
        VALUES ('pay-a', 'ch_1', 'paid', 30, 0, 'ann@example.com', $t, $t) RETURNING id`, { t: T0 }))[0]!.id)
      const o2 = Number((await e.query(`INSERT INTO orders (source, external_id, status, total, refunded, email, created_at, updated_at)
        VALUES ('ecom-a', '1001', 'paid', 10, 0, 'ann@example.com', $t, $t) RETURNING id`, { t: T0 + 1 }))[0]!.id)
      const refund = async (order: number, source: string, ext: string, amount: number, t: number) => Number((await e.query(
        `INSERT INTO refunds (order_id, source, external_id, amount, currency, conversion_id, created_at)
         VALUES ($order, $source, $ext, $amount, 'EUR', NULL, $t) RETURNING id`, { order, source, ext, amount, t }))[0]!.id)
      const r1 = await refund(o1, 'pay-a', 're_1', 5, T0 + 10)
      const r2 = await refund(o2, 'ecom-a', 'rf_1', 2.5, T0 + 20)
      const r3 = await refund(o1, 'pay-a', 're_2', 7.25, T0 + 30)

      const all = await store.listRefunds({}, undefined, 10)
      expect(all.map((r) => r.id)).toEqual([r3, r2, r1])
      expect(all[0]).toEqual({ id: r3, orderId: o1, source: 'pay-a', externalId: 're_2', amount: 7.25, currency: 'EUR', conversionId: null, createdAt: T0 + 30 })
      expect(await store.findRefund(r2)).toEqual(all[1]!)
      expect(await store.findRefund(999_999)).toBeUndefined()
      expect((await store.listRefunds({ orderId: o1 }, undefined, 10)).map((r) => r.id)).toEqual([r3, r1])
      expect((await store.listRefunds({ source: 'ecom-a' }, undefined, 10)).map((r) => r.id)).toEqual([r2])
      expect((await store.listRefunds({ orderId: o1, source: 'ecom-a' }, undefined, 10))).toEqual([])
      expect((await store.listRefunds({}, r3, 1)).map((r) => r.id)).toEqual([r2])
      shapes[`${name}:refund`] = typesOf(all[0])

      const sub = async (ext: string, over: Record<string, unknown>) => Number((await e.query(
        `INSERT INTO subscriptions (source, external_id, payment_account_id, customer_external_id, email, status, click_id, product_id,
           current_period_end, canceled_at, created_at, updated_at)
         VALUES ($source, $ext, $pa, $cust, $email, $status, $click, NULL, $end, $canceled, $t, $t) RETURNING id`,
        { source: 'pay-a', ext, pa: 3, cust: 'cus_1', email: 'ann@example.com', status: 'active', click: CLICK, end: T0 + 86_400_000, canceled: null, t: T0, ...over }))[0]!.id)
      const s1 = await sub('sub_1', {})
      const s2 = await sub('sub_2', { source: 'pay-b', email: 'bob@example.com', status: 'CANCELLED', canceled: T0 + 99, end: null, click: null, pa: null, cust: null })
      const s3 = await sub('sub_3', { status: 'past_due' })

      // (The products test left one subscription before these.)
      const subs = (await store.listSubscriptions({}, undefined, 10)).slice(0, 3)
      expect(subs.map((s) => s.id)).toEqual([s3, s2, s1])
      expect(subs[2]).toEqual({
        id: s1, source: 'pay-a', externalId: 'sub_1', paymentAccountId: 3, customerExternalId: 'cus_1', email: 'ann@example.com',
        status: 'active', clickId: CLICK, productId: null, currentPeriodEnd: T0 + 86_400_000, canceledAt: null, createdAt: T0, updatedAt: T0,
      })
      expect(await store.findSubscription(s2)).toEqual(subs[1]!)
      expect(await store.findSubscription(999_999)).toBeUndefined()
      expect((await store.listSubscriptions({ source: 'pay-b' }, undefined, 10)).map((s) => s.id)).toEqual([s2])
      expect((await store.listSubscriptions({ status: 'active' }, undefined, 10)).map((s) => s.id)).toEqual([s1])
      expect((await store.listSubscriptions({ email: 'ann@example.com' }, undefined, 10)).map((s) => s.id)).toEqual([s3, s1])
      expect((await store.listSubscriptions({}, s3, 1)).map((s) => s.id)).toEqual([s2])
      shapes[`${name}:subscription`] = [typesOf(subs[2]), typesOf(subs[1])]

      expect((await store.subscriptionsOfEmail('ann@example.com')).map((s) => s.id)).toEqual([s3, s1])
      expect(await store.subscriptionsOfEmail('nobody@example.com')).toEqual([])
      const orders = await store.ordersOfEmail('ann@example.com')
      expect(orders.map((o) => o.id)).toEqual([o2, o1])
      expect(orders[1]).toEqual({
        id: o1, source: 'pay-a', externalId: 'ch_1', status: 'paid', currency: null, total: 30, refunded: 0, counted: null, countedCurrency: null, reversed: 0, email: 'ann@example.com',
        clickId: null, conversionId: null, reversalId: null, productId: null, paymentAccountId: null, createdAt: T0, updatedAt: T0,
      })
      shapes[`${name}:order`] = typesOf(orders[1])
    })
  })
}

describe.skipIf(!pgAvailable().ok)('both engines', () => {
  test('rows have the same JS shape (keys in order, value types)', () => {
    for (const kind of ['account', 'product', 'refund', 'subscription', 'order']) {
      expect(shapes[`postgres:${kind}`]).toBeDefined()
      expect(shapes[`postgres:${kind}`]).toEqual(shapes[`sqlite:${kind}`])
    }
  })
})

describe.skipIf(!pgAvailable().ok)('commerce catalog store on postgres: concurrent writes', () => {
  test('a product created while its payment account is deleted: either the 400 or the 409, never a dangling reference', async () => {
    const e = await pgEngine()
    try {
      for (let i = 0; i < 10; i++) {
        const acct = await e.store.createAccount(account())
        const results = await Promise.allSettled([
          e.store.createProduct(product({ paymentAccountId: acct.id })),
          e.store.deleteAccount(acct.id),
        ])
        const [created, deleted] = results
        if (created.status === 'fulfilled') {
          expect(deleted.status).toBe('rejected')
          expect((deleted as PromiseRejectedResult).reason.code).toBe('conflict')
          expect(await e.store.findAccount(acct.id)).toBeDefined()
          await e.store.deleteProduct(created.value.id)
        } else {
          expect(deleted.status).toBe('fulfilled')
          expect(created.reason.code).toBe('invalid')
        }
      }
      const dangling = await e.query('SELECT count(*) AS n FROM products p WHERE p.payment_account_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM payment_accounts a WHERE a.id = p.payment_account_id)')
      expect(Number(dangling[0]!.n)).toBe(0)
    } finally {
      await e.close()
    }
  }, PG_SETUP_MS)
})
