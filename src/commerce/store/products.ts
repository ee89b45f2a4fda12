// Products, one module for both engines (db/store-db.ts). A write checks the rows it references inside its
// transaction and, on Postgres, keeps them FOR SHARE until it commits: a product created while its payment
// account is deleted either sees the account gone (400) or makes the delete see it (409).
import { raw, sql } from '../../db/sql'
import type { Queries, StoreDb } from '../../db/store-db'
import { conflict, invalid, notFound } from '../../lib/errors'
import type { Page } from '../../lib/paging'
import type { Steps } from '../../lib/steps'
import type { ProductRow, ProductValues } from './catalog'

const PRODUCT = raw(`id, name, price, currency, offer_id AS "offerId", email_list_id AS "emailListId",
  payment_account_id AS "paymentAccountId", active, created_at AS "createdAt", updated_at AS "updatedAt"`)

const productMissing = () => notFound('product not found')
const productHas = (what: 'orders' | 'subscriptions') => conflict(`product has ${what}; set active=false instead`)
const unknownReference = (field: string, what: string, id: number) => invalid(`${field}: ${what} ${id} does not exist`)

/** The references a product may hold: field, column, table, what a 400 calls it. */
const REFERENCES = [
  ['offerId', 'offer_id', 'offers', 'offer'],
  ['emailListId', 'email_list_id', 'email_lists', 'email list'],
  ['paymentAccountId', 'payment_account_id', 'payment_accounts', 'payment account'],
] as const

/** The flag is an integer (0/1) on both engines. */
const decoded = (row: ProductRow | undefined): ProductRow | undefined => row && { ...row, active: Number(row.active) !== 0 }

const merge = (row: ProductRow, changes: Partial<ProductValues>): ProductValues => {
  const out: ProductValues = {
    name: row.name, price: row.price, currency: row.currency, offerId: row.offerId, emailListId: row.emailListId,
    paymentAccountId: row.paymentAccountId, active: row.active,
  }
  for (const [k, v] of Object.entries(changes)) if (v !== undefined) (out as unknown as Record<string, unknown>)[k] = v
  return out
}

export const productStore = (db: StoreDb) => {
  /** Every reference the values set (non-null) must exist: invalid naming the first that does not. */
  function* checkReferences(q: Queries, values: Partial<ProductValues>): Steps<void> {
    for (const [key, field, table, what] of REFERENCES) {
      const id = values[key]
      if (id == null) continue
      const found: unknown = yield q.get(sql`SELECT id FROM ${raw(table)} WHERE id = ${id} ${db.forShare}`)
      if (!found) throw unknownReference(field, what, id)
    }
  }

  return {
    listProducts: async (page: Page): Promise<ProductRow[]> =>
      (await db.all<ProductRow>(sql`SELECT ${PRODUCT} FROM products WHERE id > ${page.afterId} ORDER BY id LIMIT ${page.limit + 1}`)).map((r) => decoded(r)!),

    findProduct: async (id: number): Promise<ProductRow | undefined> =>
      decoded(await db.get<ProductRow>(sql`SELECT ${PRODUCT} FROM products WHERE id = ${id}`)),

    createProduct: (v: ProductValues): Promise<ProductRow> =>
      db.atomically(function* (q: Queries) {
        yield* checkReferences(q, v)
        const now = Date.now()
        const row: ProductRow | undefined = yield q.get(sql`INSERT INTO products (name, price, currency, offer_id, email_list_id,
            payment_account_id, active, created_at, updated_at)
          VALUES (${v.name}, ${v.price}, ${v.currency}, ${v.offerId}, ${v.emailListId}, ${v.paymentAccountId}, ${v.active}, ${now}, ${now})
          RETURNING ${PRODUCT}`)
        return decoded(row)!
      }),

    updateProduct: (id: number, changes: Partial<ProductValues>): Promise<ProductRow> =>
      db.atomically(function* (q: Queries) {
        const row: ProductRow | undefined = yield q.get(sql`SELECT ${PRODUCT} FROM products WHERE id = ${id} ${db.forUpdate}`)
        if (!row) throw productMissing()
        yield* checkReferences(q, changes)
        const m = merge(decoded(row)!, changes)
        const updated: ProductRow | undefined = yield q.get(sql`UPDATE products SET name = ${m.name}, price = ${m.price},
            currency = ${m.currency}, offer_id = ${m.offerId}, email_list_id = ${m.emailListId}, payment_account_id = ${m.paymentAccountId},
            active = ${m.active}, updated_at = ${Date.now()}
          WHERE id = ${id} RETURNING ${PRODUCT}`)
        return decoded(updated)!
      }),

    /** exists → named by orders or subscriptions (its history would lose its product) → delete. */
    deleteProduct: (id: number): Promise<void> =>
      db.atomically(function* (q: Queries) {
        const row: unknown = yield q.get(sql`SELECT id FROM products WHERE id = ${id} ${db.forUpdate}`)
        if (!row) throw productMissing()
        const order: unknown = yield q.get(sql`SELECT 1 AS one FROM orders WHERE product_id = ${id} LIMIT 1`)
        if (order) throw productHas('orders')
        const subscription: unknown = yield q.get(sql`SELECT 1 AS one FROM subscriptions WHERE product_id = ${id} LIMIT 1`)
        if (subscription) throw productHas('subscriptions')
        yield q.run(sql`DELETE FROM products WHERE id = ${id}`)
      }),
  }
}
