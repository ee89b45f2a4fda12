// The native commerce records (issue 11): payment accounts, products, and the refunds and subscriptions the
// processors report, on both engines. One interface, one class per engine, one factory; rows have the same
// JS shape on both (numbers for ids and epoch-ms times, `active` a boolean).
//
// Payment account secrets pass through this store as they are stored: encrypted (commerce/accounts.ts holds
// the SecretBox). Writes that rely on another row check it inside their transaction; on Postgres they lock
// it (FOR SHARE a product's references, FOR UPDATE the row a delete removes), so a product created while its
// payment account is deleted either sees the account gone (400) or makes the delete see it (409).
import type { SQL, TransactionSQL } from 'bun'
import type { Database, RawDb, RawStatement } from '../../db/client'
import type { AnyDatabase } from '../../db/engine'
import { isUniqueViolation } from '../../db/errors'
import { numCols, type PgDatabase } from '../../db/pg/client'
import type { refunds, subscriptions } from '../../db/schema'
import { conflict, invalid, notFound } from '../../lib/errors'
import type { Page } from '../../lib/paging'
import type { OrderRow } from './types'

// ── rows ──

export const PAYMENT_ACCOUNT_TYPES = ['pay-a', 'pay-b'] as const
export type PaymentAccountType = (typeof PAYMENT_ACCOUNT_TYPES)[number]

/** A payment account as stored: the four secrets are SecretBox ciphertexts (or null), never plaintext. */
export interface PaymentAccountRow {
  id: number
  type: PaymentAccountType
  name: string
  accountId: string
  webhookSecret: string | null
  apiKey: string | null
  clientId: string | null
  clientSecret: string | null
  webhookRegisteredAt: number | null
  createdAt: number
  updatedAt: number
}

export type NewPaymentAccount = Pick<PaymentAccountRow, 'type' | 'name' | 'accountId' | 'webhookSecret' | 'apiKey' | 'clientId' | 'clientSecret'>
/** What may change (type and account_id never do); secrets encrypted, null clears. */
export type PaymentAccountChanges = Partial<Pick<PaymentAccountRow, 'name' | 'webhookSecret' | 'apiKey' | 'clientId' | 'clientSecret' | 'webhookRegisteredAt'>>

export interface ProductRow {
  id: number
  name: string
  price: number
  currency: string
  offerId: number | null
  emailListId: number | null
  paymentAccountId: number | null
  active: boolean
  createdAt: number
  updatedAt: number
}

export type ProductValues = Omit<ProductRow, 'id' | 'createdAt' | 'updatedAt'>

export type RefundRow = typeof refunds.$inferSelect
export type SubscriptionRow = typeof subscriptions.$inferSelect

export interface RefundFilter {
  orderId?: number
  source?: string
}

export interface SubscriptionFilter {
  source?: string
  status?: string
  email?: string
}

/** How many rows subscriptionsOfEmail / ordersOfEmail return at most (a customer's account page). */
export const OF_EMAIL_LIMIT = 100

export interface CommerceCatalogStore {
  // payment accounts (ascending id, `Page` as the catalog collections)
  listAccounts(page: Page): Promise<PaymentAccountRow[]>
  findAccount(id: number): Promise<PaymentAccountRow | undefined>
  findAccountByAccountId(accountId: string): Promise<PaymentAccountRow | undefined>
  /** pay-a accounts whose webhook endpoint svc registered (webhook_registered_at set), by id. */
  registeredPayAAccounts(): Promise<PaymentAccountRow[]>
  /** conflict when the account_id is taken (a generated one never should be). */
  createAccount(values: NewPaymentAccount): Promise<PaymentAccountRow>
  /** not_found "payment account not found". */
  updateAccount(id: number, changes: PaymentAccountChanges): Promise<PaymentAccountRow>
  /** The (encrypted) endpoint secret the processor gave at registration, and when. not_found as updateAccount. */
  markWebhookRegistered(id: number, encryptedSecret: string, now: number): Promise<void>
  /** not_found; conflict naming the first product that uses it. */
  deleteAccount(id: number): Promise<void>

  // products (ascending id)
  listProducts(page: Page): Promise<ProductRow[]>
  findProduct(id: number): Promise<ProductRow | undefined>
  /** invalid naming the field of a reference that does not exist (offer_id, email_list_id, payment_account_id). */
  createProduct(values: ProductValues): Promise<ProductRow>
  /** not_found "product not found"; invalid as createProduct for the references it changes. */
  updateProduct(id: number, changes: Partial<ProductValues>): Promise<ProductRow>
  /** not_found; conflict while orders or subscriptions name it (its history would lose its product). */
  deleteProduct(id: number): Promise<void>

  // refunds and subscriptions: newest first (id descending), ids below `before`; `limit` rows (the caller asks limit + 1)
  listRefunds(filter: RefundFilter, before: number | undefined, limit: number): Promise<RefundRow[]>
  findRefund(id: number): Promise<RefundRow | undefined>
  listSubscriptions(filter: SubscriptionFilter, before: number | undefined, limit: number): Promise<SubscriptionRow[]>
  findSubscription(id: number): Promise<SubscriptionRow | undefined>
  /** A customer's subscriptions and orders (email exactly as stored), newest first, at most OF_EMAIL_LIMIT. */
  subscriptionsOfEmail(email: string): Promise<SubscriptionRow[]>
  ordersOfEmail(email: string): Promise<OrderRow[]>
}

/** The store of the engine in use. */
export function commerceCatalogStore(database: AnyDatabase): CommerceCatalogStore {
  return database.engine === 'postgres' ? new PgCommerceCatalogStore(database) : new SqliteCommerceCatalogStore(database)
}

// ── errors both engines share ──

const accountMissing = () => notFound('payment account not found')
const productMissing = () => notFound('product not found')
const accountIdTaken = () => conflict('account_id: already used by another payment account')
const accountUsed = (p: { id: number; name: string }) => conflict(`payment account is used by product "${p.name}" (id ${p.id})`)
const productHas = (what: 'orders' | 'subscriptions') => conflict(`product has ${what}; set active=false instead`)

/** The references a product may hold: field, table, what a 400 calls it. */
const REFERENCES = [
  ['offerId', 'offer_id', 'offers', 'offer'],
  ['emailListId', 'email_list_id', 'email_lists', 'email list'],
  ['paymentAccountId', 'payment_account_id', 'payment_accounts', 'payment account'],
] as const
const unknownReference = (field: string, what: string, id: number) => invalid(`${field}: ${what} ${id} does not exist`)

const mergeProduct = (row: ProductRow, changes: Partial<ProductValues>): ProductValues => {
  const out: ProductValues = {
    name: row.name, price: row.price, currency: row.currency, offerId: row.offerId, emailListId: row.emailListId,
    paymentAccountId: row.paymentAccountId, active: row.active,
  }
  for (const [k, v] of Object.entries(changes)) if (v !== undefined) (out as unknown as Record<string, unknown>)[k] = v
  return out
}

const mergeAccount = (row: PaymentAccountRow, changes: PaymentAccountChanges): PaymentAccountRow => {
  const out = { ...row }
  for (const [k, v] of Object.entries(changes)) if (v !== undefined) (out as unknown as Record<string, unknown>)[k] = v
  return out
}

// ── SQLite ──

const S_ACCOUNT = 'id, type, name, account_id AS accountId, webhook_secret AS webhookSecret, api_key AS apiKey, client_id AS clientId, ' +
  'client_secret AS clientSecret, webhook_registered_at AS webhookRegisteredAt, created_at AS createdAt, updated_at AS updatedAt'
const S_PRODUCT = 'id, name, price, currency, offer_id AS offerId, email_list_id AS emailListId, payment_account_id AS paymentAccountId, ' +
  'active, created_at AS createdAt, updated_at AS updatedAt'
const S_REFUND = 'id, order_id AS orderId, source, external_id AS externalId, amount, currency, conversion_id AS conversionId, created_at AS createdAt'
const S_SUBSCRIPTION = 'id, source, external_id AS externalId, payment_account_id AS paymentAccountId, ' +
  'customer_external_id AS customerExternalId, email, status, click_id AS clickId, product_id AS productId, ' +
  'current_period_end AS currentPeriodEnd, canceled_at AS canceledAt, created_at AS createdAt, updated_at AS updatedAt'
const S_ORDER = 'id, source, external_id AS externalId, status, currency, total, refunded, counted, ' +
  'counted_currency AS countedCurrency, reversed, email, click_id AS clickId, ' +
  'conversion_id AS conversionId, reversal_id AS reversalId, product_id AS productId, payment_account_id AS paymentAccountId, ' +
  'created_at AS createdAt, updated_at AS updatedAt'

/** SQLite stores the flag as 0/1. */
const sqliteProduct = (r: unknown): ProductRow => {
  const row = r as ProductRow & { active: unknown }
  return { ...row, active: Number(row.active) !== 0 }
}

/** Named parameters of a product write (no booleans: the drivers refuse them). */
const productParams = (v: ProductValues) => ({
  name: v.name, price: v.price, currency: v.currency, offerId: v.offerId, emailListId: v.emailListId,
  paymentAccountId: v.paymentAccountId, active: v.active ? 1 : 0,
})

export class SqliteCommerceCatalogStore implements CommerceCatalogStore {
  private readonly raw: RawDb
  private readonly st: Record<string, RawStatement>
  /** Filtered lists: one statement per set of filters, prepared on first use. */
  private readonly lists = new Map<string, RawStatement>()

  constructor(database: Database) {
    const raw = (this.raw = database.raw)
    const p = (sql: string) => raw.prepare(sql)
    this.st = {
      accounts: p(`SELECT ${S_ACCOUNT} FROM payment_accounts WHERE id > $afterId ORDER BY id LIMIT $limit`),
      accountById: p(`SELECT ${S_ACCOUNT} FROM payment_accounts WHERE id = $id`),
      accountByAccountId: p(`SELECT ${S_ACCOUNT} FROM payment_accounts WHERE account_id = $accountId`),
      registeredPayA: p(`SELECT ${S_ACCOUNT} FROM payment_accounts WHERE type = 'pay-a' AND webhook_registered_at IS NOT NULL ORDER BY id`),
      insertAccount: p('INSERT INTO payment_accounts (type, name, account_id, webhook_secret, api_key, client_id, client_secret, ' +
        'created_at, updated_at) VALUES ($type, $name, $accountId, $webhookSecret, $apiKey, $clientId, $clientSecret, $now, $now) ' +
        `RETURNING ${S_ACCOUNT}`),
      updateAccount: p('UPDATE payment_accounts SET name = $name, webhook_secret = $webhookSecret, api_key = $apiKey, client_id = $clientId, ' +
        'client_secret = $clientSecret, webhook_registered_at = $webhookRegisteredAt, updated_at = $now WHERE id = $id ' +
        `RETURNING ${S_ACCOUNT}`),
      markRegistered: p('UPDATE payment_accounts SET webhook_secret = $secret, webhook_registered_at = $now, updated_at = $now WHERE id = $id'),
      productOfAccount: p('SELECT id, name FROM products WHERE payment_account_id = $id ORDER BY id LIMIT 1'),
      deleteAccount: p('DELETE FROM payment_accounts WHERE id = $id'),

      products: p(`SELECT ${S_PRODUCT} FROM products WHERE id > $afterId ORDER BY id LIMIT $limit`),
      productById: p(`SELECT ${S_PRODUCT} FROM products WHERE id = $id`),
      insertProduct: p('INSERT INTO products (name, price, currency, offer_id, email_list_id, payment_account_id, active, created_at, updated_at) ' +
        'VALUES ($name, $price, $currency, $offerId, $emailListId, $paymentAccountId, $active, $now, $now) ' +
        `RETURNING ${S_PRODUCT}`),
      updateProduct: p('UPDATE products SET name = $name, price = $price, currency = $currency, offer_id = $offerId, ' +
        'email_list_id = $emailListId, payment_account_id = $paymentAccountId, active = $active, updated_at = $now WHERE id = $id ' +
        `RETURNING ${S_PRODUCT}`),
      orderOfProduct: p('SELECT 1 AS one FROM orders WHERE product_id = $id LIMIT 1'),
      subscriptionOfProduct: p('SELECT 1 AS one FROM subscriptions WHERE product_id = $id LIMIT 1'),
      deleteProduct: p('DELETE FROM products WHERE id = $id'),
      offerExists: p('SELECT 1 AS one FROM offers WHERE id = $id'),
      emailListExists: p('SELECT 1 AS one FROM email_lists WHERE id = $id'),
      paymentAccountExists: p('SELECT 1 AS one FROM payment_accounts WHERE id = $id'),

      refundById: p(`SELECT ${S_REFUND} FROM refunds WHERE id = $id`),
      subscriptionById: p(`SELECT ${S_SUBSCRIPTION} FROM subscriptions WHERE id = $id`),
      subscriptionsOfEmail: p(`SELECT ${S_SUBSCRIPTION} FROM subscriptions WHERE email = $email ORDER BY id DESC LIMIT ${OF_EMAIL_LIMIT}`),
      ordersOfEmail: p(`SELECT ${S_ORDER} FROM orders WHERE email = $email ORDER BY id DESC LIMIT ${OF_EMAIL_LIMIT}`),
    }
  }

  private tx<T>(fn: () => T): T {
    return this.raw.transaction(fn)()
  }

  private list(sql: string): RawStatement {
    let st = this.lists.get(sql)
    if (!st) this.lists.set(sql, (st = this.raw.prepare(sql)))
    return st
  }

  // ── payment accounts ──

  async listAccounts(page: Page): Promise<PaymentAccountRow[]> {
    return this.st.accounts!.all({ afterId: page.afterId, limit: page.limit + 1 }) as PaymentAccountRow[]
  }

  async findAccount(id: number): Promise<PaymentAccountRow | undefined> {
    return this.account(id)
  }

  async findAccountByAccountId(accountId: string): Promise<PaymentAccountRow | undefined> {
    return (this.st.accountByAccountId!.get({ accountId }) as PaymentAccountRow | null) ?? undefined
  }

  async registeredPayAAccounts(): Promise<PaymentAccountRow[]> {
    return this.st.registeredPayA!.all() as PaymentAccountRow[]
  }

  async createAccount(v: NewPaymentAccount): Promise<PaymentAccountRow> {
    try {
      return this.st.insertAccount!.get({
        type: v.type, name: v.name, accountId: v.accountId, webhookSecret: v.webhookSecret, apiKey: v.apiKey, clientId: v.clientId,
        clientSecret: v.clientSecret, now: Date.now(),
      }) as PaymentAccountRow
    } catch (err) {
      if (isUniqueViolation(err)) throw accountIdTaken()
      throw err
    }
  }

  async updateAccount(id: number, changes: PaymentAccountChanges): Promise<PaymentAccountRow> {
    return this.tx(() => {
      const row = this.account(id)
      if (!row) throw accountMissing()
      const m = mergeAccount(row, changes)
      return this.st.updateAccount!.get({
        id, name: m.name, webhookSecret: m.webhookSecret, apiKey: m.apiKey, clientId: m.clientId, clientSecret: m.clientSecret,
        webhookRegisteredAt: m.webhookRegisteredAt, now: Date.now(),
      }) as PaymentAccountRow
    })
  }

  async markWebhookRegistered(id: number, encryptedSecret: string, now: number): Promise<void> {
    if (this.st.markRegistered!.run({ id, secret: encryptedSecret, now }).changes === 0) throw accountMissing()
  }

  async deleteAccount(id: number): Promise<void> {
    this.tx(() => {
      if (!this.account(id)) throw accountMissing()
      const user = this.st.productOfAccount!.get({ id }) as { id: number; name: string } | null
      if (user) throw accountUsed(user)
      this.st.deleteAccount!.run({ id })
    })
  }

  private account(id: number): PaymentAccountRow | undefined {
    return (this.st.accountById!.get({ id }) as PaymentAccountRow | null) ?? undefined
  }

  // ── products ──

  async listProducts(page: Page): Promise<ProductRow[]> {
    return this.st.products!.all({ afterId: page.afterId, limit: page.limit + 1 }).map(sqliteProduct)
  }

  async findProduct(id: number): Promise<ProductRow | undefined> {
    return this.product(id)
  }

  async createProduct(values: ProductValues): Promise<ProductRow> {
    return this.tx(() => {
      this.checkReferences(values)
      return sqliteProduct(this.st.insertProduct!.get({ ...productParams(values), now: Date.now() }))
    })
  }

  async updateProduct(id: number, changes: Partial<ProductValues>): Promise<ProductRow> {
    return this.tx(() => {
      const row = this.product(id)
      if (!row) throw productMissing()
      this.checkReferences(changes)
      return sqliteProduct(this.st.updateProduct!.get({ ...productParams(mergeProduct(row, changes)), id, now: Date.now() }))
    })
  }

  async deleteProduct(id: number): Promise<void> {
    this.tx(() => {
      if (!this.product(id)) throw productMissing()
      if (this.st.orderOfProduct!.get({ id })) throw productHas('orders')
      if (this.st.subscriptionOfProduct!.get({ id })) throw productHas('subscriptions')
      this.st.deleteProduct!.run({ id })
    })
  }

  private product(id: number): ProductRow | undefined {
    const row = this.st.productById!.get({ id })
    return row ? sqliteProduct(row) : undefined
  }

  /** Every reference the values set (non-null) must exist: invalid naming the first that does not. */
  private checkReferences(values: Partial<ProductValues>): void {
    const exists = { offers: this.st.offerExists!, email_lists: this.st.emailListExists!, payment_accounts: this.st.paymentAccountExists! }
    for (const [key, field, table, what] of REFERENCES) {
      const id = values[key]
      if (id == null) continue
      if (!exists[table].get({ id })) throw unknownReference(field, what, id)
    }
  }

  // ── refunds and subscriptions ──

  async listRefunds(filter: RefundFilter, before: number | undefined, limit: number): Promise<RefundRow[]> {
    const conds: string[] = []
    const params: Record<string, unknown> = { limit }
    if (filter.orderId !== undefined) { conds.push('order_id = $orderId'); params.orderId = filter.orderId }
    if (filter.source !== undefined) { conds.push('source = $source'); params.source = filter.source }
    if (before !== undefined) { conds.push('id < $before'); params.before = before }
    const where = conds.length ? `WHERE ${conds.join(' AND ')}` : ''
    return this.list(`SELECT ${S_REFUND} FROM refunds ${where} ORDER BY id DESC LIMIT $limit`).all(params) as RefundRow[]
  }

  async findRefund(id: number): Promise<RefundRow | undefined> {
    return (this.st.refundById!.get({ id }) as RefundRow | null) ?? undefined
  }

  async listSubscriptions(filter: SubscriptionFilter, before: number | undefined, limit: number): Promise<SubscriptionRow[]> {
    const conds: string[] = []
    const params: Record<string, unknown> = { limit }
    if (filter.source !== undefined) { conds.push('source = $source'); params.source = filter.source }
    if (filter.status !== undefined) { conds.push('status = $status'); params.status = filter.status }
    if (filter.email !== undefined) { conds.push('email = $email'); params.email = filter.email }
    if (before !== undefined) { conds.push('id < $before'); params.before = before }
    const where = conds.length ? `WHERE ${conds.join(' AND ')}` : ''
    return this.list(`SELECT ${S_SUBSCRIPTION} FROM subscriptions ${where} ORDER BY id DESC LIMIT $limit`).all(params) as SubscriptionRow[]
  }

  async findSubscription(id: number): Promise<SubscriptionRow | undefined> {
    return (this.st.subscriptionById!.get({ id }) as SubscriptionRow | null) ?? undefined
  }

  async subscriptionsOfEmail(email: string): Promise<SubscriptionRow[]> {
    return this.st.subscriptionsOfEmail!.all({ email }) as SubscriptionRow[]
  }

  async ordersOfEmail(email: string): Promise<OrderRow[]> {
    return this.st.ordersOfEmail!.all({ email }) as OrderRow[]
  }
}

// ── PostgreSQL ──

type Raw = Record<string, unknown>
type Q = SQL | TransactionSQL
type Fragment = SQL.Query<unknown>

/** The SQLSTATE of a Postgres server error (Bun puts it in `errno`), else undefined. */
function sqlState(err: unknown): string | undefined {
  const e = err as { code?: unknown; errno?: unknown } | null
  return e && e.code === 'ERR_POSTGRES_SERVER_ERROR' && typeof e.errno === 'string' ? e.errno : undefined
}
const UNIQUE_VIOLATION = '23505'

// int8 columns (ids of refunds and subscriptions, order ids, every epoch-ms time) arrive as strings.
const accountRows = (rows: Raw[]) => numCols(rows, 'id', 'webhookRegisteredAt', 'createdAt', 'updatedAt') as unknown as PaymentAccountRow[]
/** float8 arrives as a number already; converted anyway so a driver change cannot turn prices into strings. */
const productRows = (rows: Raw[]) =>
  numCols(rows, 'id', 'price', 'offerId', 'emailListId', 'paymentAccountId', 'createdAt', 'updatedAt').map(
    (r) => ({ ...r, active: Number(r.active) !== 0 }),
  ) as unknown as ProductRow[]
const refundRows = (rows: Raw[]) => numCols(rows, 'id', 'orderId', 'amount', 'conversionId', 'createdAt') as unknown as RefundRow[]
const subscriptionRows = (rows: Raw[]) =>
  numCols(rows, 'id', 'paymentAccountId', 'productId', 'currentPeriodEnd', 'canceledAt', 'createdAt', 'updatedAt') as unknown as SubscriptionRow[]
const orderRows = (rows: Raw[]) =>
  numCols(rows, 'id', 'total', 'refunded', 'counted', 'reversed', 'conversionId', 'reversalId', 'productId', 'paymentAccountId', 'createdAt', 'updatedAt') as unknown as OrderRow[]

/** The conditions, or an empty fragment (an empty array would not render). */
const all = (sql: SQL, conds: Array<Fragment | null>) => {
  const set = conds.filter((c): c is Fragment => c !== null)
  return set.length ? set : sql``
}

export class PgCommerceCatalogStore implements CommerceCatalogStore {
  private readonly sql: SQL

  constructor(database: PgDatabase) {
    this.sql = database.sql
  }

  // The column lists under their camelCase names (constant SQL text), built on the handle that runs them.
  private static account = (q: Q) => q`id, type, name, account_id AS "accountId", webhook_secret AS "webhookSecret", api_key AS "apiKey",
    client_id AS "clientId", client_secret AS "clientSecret", webhook_registered_at AS "webhookRegisteredAt",
    created_at AS "createdAt", updated_at AS "updatedAt"`
  private static product = (q: Q) => q`id, name, price, currency, offer_id AS "offerId", email_list_id AS "emailListId",
    payment_account_id AS "paymentAccountId", active, created_at AS "createdAt", updated_at AS "updatedAt"`
  private static refund = (q: Q) => q`id, order_id AS "orderId", source, external_id AS "externalId", amount, currency,
    conversion_id AS "conversionId", created_at AS "createdAt"`
  private static subscription = (q: Q) => q`id, source, external_id AS "externalId", payment_account_id AS "paymentAccountId",
    customer_external_id AS "customerExternalId", email, status, click_id AS "clickId", product_id AS "productId",
    current_period_end AS "currentPeriodEnd", canceled_at AS "canceledAt", created_at AS "createdAt", updated_at AS "updatedAt"`
  private static order = (q: Q) => q`id, source, external_id AS "externalId", status, currency, total, refunded, counted,
  counted_currency AS "countedCurrency", reversed, email,
    click_id AS "clickId", conversion_id AS "conversionId", reversal_id AS "reversalId", product_id AS "productId",
    payment_account_id AS "paymentAccountId", created_at AS "createdAt", updated_at AS "updatedAt"`

  // ── payment accounts ──

  async listAccounts(page: Page): Promise<PaymentAccountRow[]> {
    const sql = this.sql
    return accountRows(await sql`SELECT ${PgCommerceCatalogStore.account(sql)} FROM payment_accounts
      WHERE id > ${page.afterId}::int8 ORDER BY id LIMIT ${page.limit + 1}::int`)
  }

  async findAccount(id: number): Promise<PaymentAccountRow | undefined> {
    return this.account(this.sql, id)
  }

  async findAccountByAccountId(accountId: string): Promise<PaymentAccountRow | undefined> {
    const sql = this.sql
    return accountRows(await sql`SELECT ${PgCommerceCatalogStore.account(sql)} FROM payment_accounts WHERE account_id = ${accountId}`)[0]
  }

  async registeredPayAAccounts(): Promise<PaymentAccountRow[]> {
    const sql = this.sql
    return accountRows(await sql`SELECT ${PgCommerceCatalogStore.account(sql)} FROM payment_accounts
      WHERE type = 'pay-a' AND webhook_registered_at IS NOT NULL ORDER BY id`)
  }

  async createAccount(v: NewPaymentAccount): Promise<PaymentAccountRow> {
    const sql = this.sql
    const now = Date.now()
    try {
      return accountRows(await sql`INSERT INTO payment_accounts (type, name, account_id, webhook_secret, api_key, client_id, client_secret,
          created_at, updated_at)
        VALUES (${v.type}, ${v.name}, ${v.accountId}, ${v.webhookSecret}, ${v.apiKey}, ${v.clientId}, ${v.clientSecret}, ${now}::int8, ${now}::int8)
        RETURNING ${PgCommerceCatalogStore.account(sql)}`)[0]!
    } catch (err) {
      if (sqlState(err) === UNIQUE_VIOLATION) throw accountIdTaken()
      throw err
    }
  }

  async updateAccount(id: number, changes: PaymentAccountChanges): Promise<PaymentAccountRow> {
    return this.sql.begin(async (tx) => {
      const row = await this.account(tx, id, true)
      if (!row) throw accountMissing()
      const m = mergeAccount(row, changes)
      return accountRows(await tx`UPDATE payment_accounts SET name = ${m.name}, webhook_secret = ${m.webhookSecret}, api_key = ${m.apiKey},
          client_id = ${m.clientId}, client_secret = ${m.clientSecret}, webhook_registered_at = ${m.webhookRegisteredAt}::int8,
          updated_at = ${Date.now()}::int8
        WHERE id = ${id}::int8 RETURNING ${PgCommerceCatalogStore.account(tx)}`)[0]!
    }) as Promise<PaymentAccountRow>
  }

  async markWebhookRegistered(id: number, encryptedSecret: string, now: number): Promise<void> {
    const rows = await this.sql`UPDATE payment_accounts SET webhook_secret = ${encryptedSecret}, webhook_registered_at = ${now}::int8,
      updated_at = ${now}::int8 WHERE id = ${id}::int8 RETURNING id`
    if (rows.length === 0) throw accountMissing()
  }

  async deleteAccount(id: number): Promise<void> {
    await this.sql.begin(async (tx) => {
      if (!(await this.account(tx, id, true))) throw accountMissing()
      const [user] = await tx`SELECT id, name FROM products WHERE payment_account_id = ${id}::int8 ORDER BY id LIMIT 1`
      if (user) throw accountUsed({ id: Number(user.id), name: String(user.name) })
      await tx`DELETE FROM payment_accounts WHERE id = ${id}::int8`
    })
  }

  /** The row; `lock`: FOR UPDATE until the transaction ends. */
  private async account(q: Q, id: number, lock = false): Promise<PaymentAccountRow | undefined> {
    const rows = lock
      ? await q`SELECT ${PgCommerceCatalogStore.account(q)} FROM payment_accounts WHERE id = ${id}::int8 FOR UPDATE`
      : await q`SELECT ${PgCommerceCatalogStore.account(q)} FROM payment_accounts WHERE id = ${id}::int8`
    return accountRows(rows)[0]
  }

  // ── products ──

  async listProducts(page: Page): Promise<ProductRow[]> {
    const sql = this.sql
    return productRows(await sql`SELECT ${PgCommerceCatalogStore.product(sql)} FROM products
      WHERE id > ${page.afterId}::int8 ORDER BY id LIMIT ${page.limit + 1}::int`)
  }

  async findProduct(id: number): Promise<ProductRow | undefined> {
    return this.product(this.sql, id)
  }

  async createProduct(v: ProductValues): Promise<ProductRow> {
    return this.sql.begin(async (tx) => {
      await checkReferences(tx, v)
      const now = Date.now()
      return productRows(await tx`INSERT INTO products (name, price, currency, offer_id, email_list_id, payment_account_id, active,
          created_at, updated_at)
        VALUES (${v.name}, ${v.price}::float8, ${v.currency}, ${v.offerId}::int, ${v.emailListId}::int, ${v.paymentAccountId}::int,
          ${v.active ? 1 : 0}::int, ${now}::int8, ${now}::int8)
        RETURNING ${PgCommerceCatalogStore.product(tx)}`)[0]!
    }) as Promise<ProductRow>
  }

  async updateProduct(id: number, changes: Partial<ProductValues>): Promise<ProductRow> {
    return this.sql.begin(async (tx) => {
      const row = await this.product(tx, id, true)
      if (!row) throw productMissing()
      await checkReferences(tx, changes)
      const m = mergeProduct(row, changes)
      return productRows(await tx`UPDATE products SET name = ${m.name}, price = ${m.price}::float8, currency = ${m.currency},
          offer_id = ${m.offerId}::int, email_list_id = ${m.emailListId}::int, payment_account_id = ${m.paymentAccountId}::int,
          active = ${m.active ? 1 : 0}::int, updated_at = ${Date.now()}::int8
        WHERE id = ${id}::int8 RETURNING ${PgCommerceCatalogStore.product(tx)}`)[0]!
    }) as Promise<ProductRow>
  }

  async deleteProduct(id: number): Promise<void> {
    await this.sql.begin(async (tx) => {
      if (!(await this.product(tx, id, true))) throw productMissing()
      if ((await tx`SELECT 1 AS one FROM orders WHERE product_id = ${id}::int8 LIMIT 1`).length) throw productHas('orders')
      if ((await tx`SELECT 1 AS one FROM subscriptions WHERE product_id = ${id}::int8 LIMIT 1`).length) throw productHas('subscriptions')
      await tx`DELETE FROM products WHERE id = ${id}::int8`
    })
  }

  private async product(q: Q, id: number, lock = false): Promise<ProductRow | undefined> {
    const rows = lock
      ? await q`SELECT ${PgCommerceCatalogStore.product(q)} FROM products WHERE id = ${id}::int8 FOR UPDATE`
      : await q`SELECT ${PgCommerceCatalogStore.product(q)} FROM products WHERE id = ${id}::int8`
    return productRows(rows)[0]
  }

  // ── refunds and subscriptions ──

  async listRefunds(filter: RefundFilter, before: number | undefined, limit: number): Promise<RefundRow[]> {
    const sql = this.sql
    const conds = all(sql, [
      filter.orderId === undefined ? null : sql`AND order_id = ${filter.orderId}::int8`,
      filter.source === undefined ? null : sql`AND source = ${filter.source}`,
      before === undefined ? null : sql`AND id < ${before}::int8`,
    ])
    return refundRows(await sql`SELECT ${PgCommerceCatalogStore.refund(sql)} FROM refunds WHERE TRUE ${conds} ORDER BY id DESC LIMIT ${limit}::int`)
  }

  async findRefund(id: number): Promise<RefundRow | undefined> {
    const sql = this.sql
    return refundRows(await sql`SELECT ${PgCommerceCatalogStore.refund(sql)} FROM refunds WHERE id = ${id}::int8`)[0]
  }

  async listSubscriptions(filter: SubscriptionFilter, before: number | undefined, limit: number): Promise<SubscriptionRow[]> {
    const sql = this.sql
    const conds = all(sql, [
      filter.source === undefined ? null : sql`AND source = ${filter.source}`,
      filter.status === undefined ? null : sql`AND status = ${filter.status}`,
      filter.email === undefined ? null : sql`AND email = ${filter.email}`,
      before === undefined ? null : sql`AND id < ${before}::int8`,
    ])
    return subscriptionRows(await sql`SELECT ${PgCommerceCatalogStore.subscription(sql)} FROM subscriptions WHERE TRUE ${conds}
      ORDER BY id DESC LIMIT ${limit}::int`)
  }

  async findSubscription(id: number): Promise<SubscriptionRow | undefined> {
    const sql = this.sql
    return subscriptionRows(await sql`SELECT ${PgCommerceCatalogStore.subscription(sql)} FROM subscriptions WHERE id = ${id}::int8`)[0]
  }

  async subscriptionsOfEmail(email: string): Promise<SubscriptionRow[]> {
    const sql = this.sql
    return subscriptionRows(await sql`SELECT ${PgCommerceCatalogStore.subscription(sql)} FROM subscriptions WHERE email = ${email}
      ORDER BY id DESC LIMIT ${OF_EMAIL_LIMIT}::int`)
  }

  async ordersOfEmail(email: string): Promise<OrderRow[]> {
    const sql = this.sql
    return orderRows(await sql`SELECT ${PgCommerceCatalogStore.order(sql)} FROM orders WHERE email = ${email}
      ORDER BY id DESC LIMIT ${OF_EMAIL_LIMIT}::int`)
  }
}

/**
 * Every reference the values set (non-null) must exist: invalid naming the first that does not. FOR SHARE
 * keeps each until this write commits, so a concurrent delete of it waits and then sees this product.
 */
async function checkReferences(tx: TransactionSQL, values: Partial<ProductValues>): Promise<void> {
  for (const [key, field, table, what] of REFERENCES) {
    const id = values[key]
    if (id == null) continue
    if ((await tx`SELECT id FROM ${tx(table)} WHERE id = ${id}::int8 FOR SHARE`).length === 0) throw unknownReference(field, what, id)
  }
}
