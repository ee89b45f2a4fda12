// Admin API of native commerce (section commerce): the payment-accounts and products collections (plain
// CRUD through collectionRoutes) and the read-only refunds and subscriptions. Thin: the verbs hold the rules
// and parse the filters (400 naming the field); these routes shape the answers. commerceCatalogVerbs builds
// every verb of these records once per server, for every surface.
import { Elysia } from 'elysia'
import type { AppContext } from '../context'
import { adminGuard } from '../http/admin-guard'
import { docQuery } from '../http/api-docs'
import { collectionRoutes, firstParam, idParams, pageQuery, pageSchema, parseId } from '../http/collection'
import type { SecretBox } from '../lib/crypto'
import { adminActor, invoke, shapedBy, type VerbSet } from '../lib/verb'
import { PaymentAccountCreate, PaymentAccountPatch, PaymentAccountRecord, paymentAccountVerbs, renderPaymentAccount } from './accounts'
import { ORDER_SOURCES } from './admin-verbs'
import {
  ProductCreate, ProductPatch, ProductRecord, productVerbs, RefundRecord, renderProduct, renderRefund, renderSubscription, salesRecordVerbs,
  SubscriptionRecord,
} from './products'
import type { CommerceCatalogStore } from './store/catalog'

/** The verbs of payment accounts, products, refunds and subscriptions. */
export function commerceCatalogVerbs(deps: { store: CommerceCatalogStore; box: SecretBox }) {
  const { refunds, subscriptions } = salesRecordVerbs(deps)
  return {
    paymentAccounts: paymentAccountVerbs(deps),
    products: productVerbs(deps),
    refunds,
    subscriptions,
  }
}

export type CommerceCatalogVerbs = ReturnType<typeof commerceCatalogVerbs>

/** Every verb by name, as a feature hands them to the server (`Feature.verbs`). */
export function commerceCatalogVerbSet(verbs: CommerceCatalogVerbs): VerbSet {
  const out: VerbSet = {}
  for (const set of Object.values(verbs)) for (const v of Object.values(set)) out[v.name] = v as never
  return out
}

const paging = {
  limit: pageQuery.properties.limit.description!,
  cursor: pageQuery.properties.cursor.description!,
}
const refundsQuery = docQuery({
  order_id: 'refunds of this order (its id)',
  source: `one of ${ORDER_SOURCES.join(', ')}`,
  ...paging,
})
const subscriptionsQuery = docQuery({
  source: `one of ${ORDER_SOURCES.join(', ')}`,
  status: 'the status as the processor reported it (exact)',
  email: "the customer's address (exact, as stored)",
  ...paging,
})

/** Every parameter as one string (an array, should one arrive, by its first element): never an array bound into SQL. */
function flat(query: Record<string, unknown>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {}
  for (const [k, v] of Object.entries(query)) out[k] = firstParam(v)
  return out
}

export function commerceCatalogRoutes(ctx: AppContext, verbs: CommerceCatalogVerbs) {
  const { refunds, subscriptions } = verbs
  shapedBy(renderRefund, refunds.list, refunds.get)
  shapedBy(renderSubscription, subscriptions.list, subscriptions.get)
  const tags = ['commerce']
  return new Elysia({ name: 'commerce-catalog' })
    .use(collectionRoutes(ctx, {
      name: 'payment-accounts', what: 'payment account', verbs: verbs.paymentAccounts, render: renderPaymentAccount,
      record: PaymentAccountRecord, create: PaymentAccountCreate, patch: PaymentAccountPatch,
    }))
    .use(collectionRoutes(ctx, {
      name: 'products', what: 'product', verbs: verbs.products, render: renderProduct,
      record: ProductRecord, create: ProductCreate, patch: ProductPatch,
    }))
    .use(adminGuard(ctx))
    .get('/admin/api/refunds', async ({ query, admin }) => {
      const page = await invoke(refunds.list, adminActor(admin), flat(query))
      return { items: page.items.map(renderRefund), next_cursor: page.next_cursor }
    }, {
      permission: 'commerce:read', query: refundsQuery, response: pageSchema(RefundRecord),
      detail: { tags, summary: refunds.list.summary },
    })
    .get('/admin/api/refunds/:id', async ({ params, admin }) =>
      renderRefund(await invoke(refunds.get, adminActor(admin), { id: parseId(params.id, 'refund') })), {
      permission: 'commerce:read', params: idParams, response: RefundRecord,
      detail: { tags, summary: refunds.get.summary },
    })
    .get('/admin/api/subscriptions', async ({ query, admin }) => {
      const page = await invoke(subscriptions.list, adminActor(admin), flat(query))
      return { items: page.items.map(renderSubscription), next_cursor: page.next_cursor }
    }, {
      permission: 'commerce:read', query: subscriptionsQuery, response: pageSchema(SubscriptionRecord),
      detail: { tags, summary: subscriptions.list.summary },
    })
    .get('/admin/api/subscriptions/:id', async ({ params, admin }) =>
      renderSubscription(await invoke(subscriptions.get, adminActor(admin), { id: parseId(params.id, 'subscription') })), {
      permission: 'commerce:read', params: idParams, response: SubscriptionRecord,
      detail: { tags, summary: subscriptions.get.summary },
    })
}
