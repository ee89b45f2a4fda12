// Subscription rows, one module for both engines: the receivers upsert them in their transaction; admin and
// customer reads.
import { raw, sql, whereAll } from '../../db/sql'
import type { Queries, StoreDb } from '../../db/store-db'
import type { MaybeAsync } from '../../lib/steps'
import { OF_EMAIL_LIMIT, type SubscriptionFilter, type SubscriptionRow } from './catalog'
import type { SubscriptionUpsert } from './types'

const SUBSCRIPTION = raw(`id, source, external_id AS "externalId", payment_account_id AS "paymentAccountId",
  customer_external_id AS "customerExternalId", email, status, click_id AS "clickId", product_id AS "productId",
  current_period_end AS "currentPeriodEnd", canceled_at AS "canceledAt", created_at AS "createdAt", updated_at AS "updatedAt"`)

/** Inserts or updates the subscription (status, email, period end, cancellation; click and product kept once set). */
export const upsertSubscription = (q: Queries, s: SubscriptionUpsert): MaybeAsync<number> =>
  q.run(sql`INSERT INTO subscriptions (source, external_id, payment_account_id, customer_external_id, email, status, click_id, product_id,
      current_period_end, canceled_at, created_at, updated_at)
    VALUES (${s.source}, ${s.externalId}, ${s.paymentAccountId}, ${s.customerExternalId}, ${s.email}, ${s.status}, ${s.clickId},
      ${s.productId}, ${s.currentPeriodEnd}, ${s.canceledAt}, ${s.now}, ${s.now})
    ON CONFLICT (source, external_id) DO UPDATE SET status = excluded.status,
      email = coalesce(excluded.email, subscriptions.email),
      customer_external_id = coalesce(excluded.customer_external_id, subscriptions.customer_external_id),
      click_id = coalesce(subscriptions.click_id, excluded.click_id), product_id = coalesce(subscriptions.product_id, excluded.product_id),
      payment_account_id = coalesce(subscriptions.payment_account_id, excluded.payment_account_id),
      current_period_end = coalesce(excluded.current_period_end, subscriptions.current_period_end),
      canceled_at = coalesce(excluded.canceled_at, subscriptions.canceled_at), updated_at = excluded.updated_at`)

export const subscriptionStore = (db: StoreDb) => ({
  listSubscriptions: (filter: SubscriptionFilter, before: number | undefined, limit: number): Promise<SubscriptionRow[]> =>
    db.all<SubscriptionRow>(sql`SELECT ${SUBSCRIPTION} FROM subscriptions ${whereAll([
      filter.source !== undefined && sql`source = ${filter.source}`,
      filter.status !== undefined && sql`status = ${filter.status}`,
      filter.email !== undefined && sql`email = ${filter.email}`,
      before !== undefined && sql`id < ${before}`,
    ])} ORDER BY id DESC LIMIT ${limit}`),

  findSubscription: (id: number): Promise<SubscriptionRow | undefined> =>
    db.get<SubscriptionRow>(sql`SELECT ${SUBSCRIPTION} FROM subscriptions WHERE id = ${id}`),

  subscriptionsOfEmail: (email: string): Promise<SubscriptionRow[]> =>
    db.all<SubscriptionRow>(sql`SELECT ${SUBSCRIPTION} FROM subscriptions WHERE email = ${email} ORDER BY id DESC LIMIT ${OF_EMAIL_LIMIT}`),
})
