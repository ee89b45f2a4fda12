// Products (native commerce, section commerce): what the merchant sells through svc's checkout: a price in
// a currency, the offer its sales convert on, the email list buyers join (whose automations are the
// post-purchase sequence) and the payment account that takes the money. Every reference must exist (400
// naming the field). Also here, read-only: what sales leave behind, the refunds and subscriptions the
// processors report (newest first, cursor paging as conversions.list).
import { Type as t } from '@sinclair/typebox'
import { crudVerbs } from '../lib/verb-inputs'
import { invalid } from '../lib/errors'
import { Int, requiredText } from '../lib/fields'
import { iso } from '../lib/time'
import { readVerbs } from './read-verbs'
import { ORDER_SOURCES } from './admin-verbs'
import { requiredCurrency } from '../lib/currency'
import type {
  CommerceCatalogStore, ProductRow, ProductValues, RefundFilter, RefundRow, SubscriptionFilter, SubscriptionRow,
} from './store/catalog'

/** Highest price accepted, and its decimals (8: a satoshi; any real currency needs fewer). */
export const MAX_PRICE = 1e9
export const PRICE_DECIMALS = 8

const nullable = <T extends Parameters<typeof t.Union>[0][number]>(s: T) => t.Union([s, t.Null()])
const reference = (description: string) => t.Optional(nullable(Int({ minimum: 1, description })))

// ── products ──

export const ProductCreate = t.Object({
  name: t.String({ maxLength: 200 }),
  price: t.Number({ description: `greater than 0, at most ${MAX_PRICE}, at most ${PRICE_DECIMALS} decimals` }),
  currency: t.Optional(t.String({ maxLength: 3, description: 'ISO 4217 code, 3 letters (default USD; stored upper-case)' })),
  offer_id: reference('the offer its sales are recorded on as conversions (null: none)'),
  email_list_id: reference('the email list buyers join; its automations are the post-purchase sequence (null: none)'),
  payment_account_id: reference('the payment account that takes the payment (null: none yet)'),
  active: t.Optional(t.Boolean({ description: 'on sale (default true)' })),
})
export const ProductPatch = t.Partial(ProductCreate)
export type ProductInput = Partial<typeof ProductCreate.static>

export const ProductRecord = t.Object({
  id: Int(),
  name: t.String(),
  price: t.Number(),
  currency: t.String(),
  offer_id: nullable(Int()),
  email_list_id: nullable(Int()),
  payment_account_id: nullable(Int()),
  active: t.Boolean(),
  created_at: t.String({ format: 'date-time' }),
  updated_at: t.String({ format: 'date-time' }),
})

export const renderProduct = (r: ProductRow): typeof ProductRecord.static => ({
  id: r.id,
  name: r.name,
  price: r.price,
  currency: r.currency,
  offer_id: r.offerId,
  email_list_id: r.emailListId,
  payment_account_id: r.paymentAccountId,
  active: r.active,
  created_at: iso(r.createdAt),
  updated_at: iso(r.updatedAt),
})

/** > 0, ≤ MAX_PRICE, at most PRICE_DECIMALS decimals (the value survives rounding to that many places). */
export function price(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid('price: must be a number')
  if (value <= 0) throw invalid('price: must be greater than 0')
  if (value > MAX_PRICE) throw invalid(`price: must be at most ${MAX_PRICE}`)
  if (Number(value.toFixed(PRICE_DECIMALS)) !== value) throw invalid(`price: at most ${PRICE_DECIMALS} decimals`)
  return value
}

function referenceId(value: unknown, field: string): number | null {
  if (value === null) return null
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) throw invalid(`${field}: must be a positive integer or null`)
  return value
}

function productFields(input: ProductInput): Partial<ProductValues> {
  const out: Partial<ProductValues> = {}
  if (input.name !== undefined) out.name = requiredText(input.name, 'name')
  if (input.price !== undefined) out.price = price(input.price)
  if (input.currency !== undefined) out.currency = requiredCurrency(input.currency)
  if (input.offer_id !== undefined) out.offerId = referenceId(input.offer_id, 'offer_id')
  if (input.email_list_id !== undefined) out.emailListId = referenceId(input.email_list_id, 'email_list_id')
  if (input.payment_account_id !== undefined) out.paymentAccountId = referenceId(input.payment_account_id, 'payment_account_id')
  if (input.active !== undefined) {
    if (typeof input.active !== 'boolean') throw invalid('active: must be true or false')
    out.active = input.active
  }
  return out
}

export function productVerbs({ store }: { store: CommerceCatalogStore }) {
  return crudVerbs({
    name: 'commerce.products', what: 'product', permissions: { read: 'commerce:read', write: 'commerce:write' },
    summaries: {
      list: 'List products', get: 'Get a product', create: 'Create a product', update: 'Change a product',
      delete: 'Delete a product (conflict once orders or subscriptions name it: set active=false instead)',
    },
    inputs: { create: ProductCreate, patch: ProductPatch },
    list: (page) => store.listProducts(page), find: (id) => store.findProduct(id), delete: (id) => store.deleteProduct(id),
    create(input) {
      const f = productFields({ ...input, name: input.name ?? '', price: input.price ?? Number.NaN })
      return store.createProduct({
        name: f.name!, price: f.price!, currency: f.currency ?? 'USD', offerId: f.offerId ?? null, emailListId: f.emailListId ?? null,
        paymentAccountId: f.paymentAccountId ?? null, active: f.active ?? true,
      })
    },
    update: (id, input) => store.updateProduct(id, productFields(input)),
  })
}

export type ProductVerbs = ReturnType<typeof productVerbs>

// ── refunds and subscriptions (read-only) ──

export const RefundRecord = t.Object({
  id: Int(),
  order_id: Int(),
  source: t.String({ description: `one of ${ORDER_SOURCES.join(', ')}` }),
  external_id: t.String({ description: "the refund's id at the sender" }),
  amount: t.Number({ description: "in the order's currency" }),
  currency: nullable(t.String()),
  conversion_id: nullable(Int({ description: 'the negative conversion the refund recorded' })),
  created_at: t.String({ format: 'date-time' }),
})

export const SubscriptionRecord = t.Object({
  id: Int(),
  source: t.String({ description: `one of ${ORDER_SOURCES.join(', ')}` }),
  external_id: t.String({ description: "the subscription's id at the processor" }),
  payment_account_id: nullable(Int()),
  customer_external_id: nullable(t.String({ description: "the customer's id at the processor" })),
  email: nullable(t.String()),
  status: t.String({ description: 'as the processor reports it' }),
  click_id: nullable(t.String()),
  product_id: nullable(Int()),
  current_period_end: nullable(t.String({ format: 'date-time' })),
  canceled_at: nullable(t.String({ format: 'date-time' })),
  created_at: t.String({ format: 'date-time' }),
  updated_at: t.String({ format: 'date-time' }),
})

const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms))

export const renderRefund = (r: RefundRow): typeof RefundRecord.static => ({
  id: r.id,
  order_id: r.orderId,
  source: r.source,
  external_id: r.externalId,
  amount: r.amount,
  currency: r.currency,
  conversion_id: r.conversionId,
  created_at: iso(r.createdAt),
})

export const renderSubscription = (r: SubscriptionRow): typeof SubscriptionRecord.static => ({
  id: r.id,
  source: r.source,
  external_id: r.externalId,
  payment_account_id: r.paymentAccountId,
  customer_external_id: r.customerExternalId,
  email: r.email,
  status: r.status,
  click_id: r.clickId,
  product_id: r.productId,
  current_period_end: isoOrNull(r.currentPeriodEnd),
  canceled_at: isoOrNull(r.canceledAt),
  created_at: iso(r.createdAt),
  updated_at: iso(r.updatedAt),
})

type Query = Record<string, string | undefined>
/** Longest text filter: anything longer names nothing stored. */
const MAX_TEXT_FILTER = 255

const text = () => t.Optional(t.String())
export const RefundQuery = t.Object({ order_id: text(), source: text() })
export const SubscriptionQuery = t.Object({ source: text(), status: text(), email: text() })

const given = (q: Query, name: string): string | undefined => (q[name] === undefined || q[name] === '' ? undefined : q[name])

function sourceFilter(q: Query): string | undefined {
  const raw = given(q, 'source')
  if (raw !== undefined && !(ORDER_SOURCES as readonly string[]).includes(raw)) throw invalid(`source: must be one of ${ORDER_SOURCES.join(', ')}`)
  return raw
}

/** Free text looked up as is (trimmed); NUL (which Postgres text cannot hold) and overlong values are 400s. */
function textFilter(q: Query, name: string): string | undefined {
  const raw = given(q, name)?.trim()
  if (raw === undefined || raw === '') return undefined
  if (raw.includes('\u0000')) throw invalid(`${name}: must not contain NUL characters`)
  if (raw.length > MAX_TEXT_FILTER) throw invalid(`${name}: at most ${MAX_TEXT_FILTER} characters`)
  return raw
}

function idFilter(q: Query, name: string): number | undefined {
  const raw = given(q, name)
  if (raw === undefined) return undefined
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw invalid(`${name}: must be a positive integer`)
  return Number(raw)
}

export const refundFilter = (q: Query): RefundFilter => ({ orderId: idFilter(q, 'order_id'), source: sourceFilter(q) })
export const subscriptionFilter = (q: Query): SubscriptionFilter =>
  ({ source: sourceFilter(q), status: textFilter(q, 'status'), email: textFilter(q, 'email') })

export function salesRecordVerbs({ store }: { store: CommerceCatalogStore }) {
  const refunds = readVerbs({
    name: 'refunds', what: 'refund', query: RefundQuery, filter: refundFilter,
    listSummary: 'List refunds, newest first (filters order_id, source)', getSummary: 'Get a refund',
    list: (f, before, limit) => store.listRefunds(f, before, limit), find: (id) => store.findRefund(id),
  })
  const subscriptions = readVerbs({
    name: 'subscriptions', what: 'subscription', query: SubscriptionQuery, filter: subscriptionFilter,
    listSummary: 'List subscriptions, newest first (filters source, status, email)', getSummary: 'Get a subscription',
    list: (f, before, limit) => store.listSubscriptions(f, before, limit), find: (id) => store.findSubscription(id),
  })
  return { refunds, subscriptions }
}

export type SalesRecordVerbs = ReturnType<typeof salesRecordVerbs>

// ── what the checkout reads ──

/** The product reads the checkout uses (the store's findProduct: undefined for an unknown id). */
export type ProductsStoreRead = Pick<CommerceCatalogStore, 'findProduct'>

/** The store narrowed to what the checkout may call. */
export const productsStoreRead = (store: CommerceCatalogStore): ProductsStoreRead => ({ findProduct: (id) => store.findProduct(id) })
