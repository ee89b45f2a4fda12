// The native commerce records (issue 11): payment accounts, products, and the refunds and subscriptions the
// processors report. One interface over one module per entity (accounts.ts, products.ts, refunds.ts,
// subscriptions.ts, orders.ts), each written once for both engines (db/store-db.ts); rows have the same JS
// shape on both (numbers for ids and epoch-ms times, `active` a boolean).
import type { AnyDatabase } from '../../db/engine'
import type { refunds, subscriptions } from '../../db/schema'
import { storeDb } from '../../db/store-db'
import type { Page } from '../../lib/paging'
import { accountStore } from './accounts'
import { orderStore } from './orders'
import { productStore } from './products'
import { refundStore } from './refunds'
import { subscriptionStore } from './subscriptions'
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

/** The store, on either engine. */
export function commerceCatalogStore(database: AnyDatabase): CommerceCatalogStore {
  const db = storeDb(database)
  return {
    ...accountStore(db), ...productStore(db), ...refundStore(db), ...subscriptionStore(db), ordersOfEmail: orderStore(db).ordersOfEmail,
  }
}
