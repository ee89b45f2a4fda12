// The commerce feature (issue 11; section commerce): the incoming webhooks (ecom-a, ecom-b, pay-a-ecom,
// pay-a per account, pay-b per account) with their order, refund and subscription rows and stored
// deliveries; native commerce (payment accounts, products, checkout with processor A); the storefront
// script; the admin reads. Conversions go through the postback feature's recorder, in the receiver's own
// transaction, so rollups, forwarding and email triggers follow as they do for /postback.
import { Elysia } from 'elysia'
import type { AppContext, Feature } from '../context'
import type { AnyDatabase } from '../db/engine'
import type { VerbSet } from '../lib/verb'
import type { ConversionRecorder, ConversionTypes } from '../postback'
import { PaymentAccounts } from './accounts'
import { commerceAdminRoutes } from './admin-routes'
import { commerceAdminVerbs } from './admin-verbs'
import { commerceCatalogRoutes, commerceCatalogVerbs, commerceCatalogVerbSet } from './catalog-routes'
import { Checkout } from './checkout'
import { PayBVerifier } from './senders/pay-b-api'
import { checkoutRoutes, commerceWebhookRoutes, manualOrderRoutes } from './routes'
import { manualOrderVerbs } from './manual'
import { storefrontRoutes } from './storefront'
import { commerceStore } from './store'
import { commerceCatalogStore } from './store/catalog'
import { WebhookReceiver } from './webhooks'
import { Retention } from '../lib/retention'
import { errorFields, log } from '../lib/log'

export interface CommerceFeature extends Feature {
  /** A signed-in customer's orders and subscriptions (the /api/account pages), by email. */
  customer: {
    orders(email: string): Promise<Array<Record<string, unknown>>>
    subscriptions(email: string): Promise<Array<Record<string, unknown>>>
  }
}

export function commerceFeature(ctx: AppContext, deps: {
  recorder: ConversionRecorder; types: ConversionTypes
  /** The email feature's restart of a list's automations (resend a post-purchase sequence). */
  restartAutomations(listId: number, email: string): Promise<unknown>
}): CommerceFeature {
  const database = ctx.database as AnyDatabase
  const store = commerceStore(database)
  const catalog = commerceCatalogStore(database)
  const accounts = new PaymentAccounts(catalog, ctx.box)
  const productOf = async (id: number) => {
    const p = await catalog.findProduct(id)
    return p && { id: p.id, emailListId: p.emailListId }
  }
  const receiver = new WebhookReceiver({
    store, recorder: deps.recorder, types: deps.types, settings: ctx.settings, accounts, productOf,
    payB: new PayBVerifier({ apiBase: ctx.config.payBApi, timeoutMs: ctx.config.jobs.timeoutMs }),
  })
  const checkout = new Checkout({
    store, settings: ctx.settings, apiBase: ctx.config.payAApi, publicUrl: ctx.config.publicUrl, timeoutMs: ctx.config.jobs.timeoutMs,
    product: (id) => catalog.findProduct(id),
    account: (id) => accounts.byId(id),
    markWebhookRegistered: (id, secret, now) => accounts.markWebhookRegistered(id, secret, now),
  })
  const admin = commerceAdminVerbs(store)
  const catalogVerbs = commerceCatalogVerbs({ store: catalog, box: ctx.box })
  const manual = manualOrderVerbs({ store, recorder: deps.recorder, types: deps.types, productOf, restartAutomations: deps.restartAutomations })
  const verbs: VerbSet = { ...commerceCatalogVerbSet(catalogVerbs), [manual.refund.name]: manual.refund as never, [manual.resendAutomation.name]: manual.resendAutomation as never }
  for (const v of Object.values(admin).flatMap((set) => Object.values(set))) verbs[v.name] = v as never
  // Stored deliveries are a debugging aid: kept webhook_event_retention_days (orders, refunds and
  // conversions stay). The redelivery window of every sender is at most a few days, far inside the default.
  const retention = new Retention({ prune: (cutoff, limit) => store.pruneEvents(cutoff, limit) }, {
    days: () => ctx.settings.get('webhook_event_retention_days'),
    onError: (err) => log.error('commerce: webhook event retention failed', errorFields(err)),
  })
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
  return {
    name: 'commerce',
    routes: new Elysia({ name: 'commerce-feature' })
      .use(commerceWebhookRoutes(ctx, receiver))
      .use(checkoutRoutes(ctx, checkout))
      .use(commerceAdminRoutes(ctx, admin))
      .use(commerceCatalogRoutes(ctx, catalogVerbs))
      .use(manualOrderRoutes(ctx, manual)),
    nativeRoutes: storefrontRoutes(),
    verbs,
    start: () => {
      retention.start()
      accounts.warnShortSecrets().catch((err) => log.error('commerce: could not check the payment accounts\' secrets', errorFields(err)))
    },
    stop: () => retention.stop(),
    customer: {
      orders: async (email) => (await catalog.ordersOfEmail(email)).map((o) => ({
        id: o.id, source: o.source, status: o.status, total: o.total, refunded: o.refunded, currency: o.currency, product_id: o.productId,
        created_at: iso(o.createdAt), updated_at: iso(o.updatedAt),
      })),
      subscriptions: async (email) => (await catalog.subscriptionsOfEmail(email)).map((x) => ({
        id: x.id, source: x.source, status: x.status, product_id: x.productId, current_period_end: iso(x.currentPeriodEnd),
        canceled_at: iso(x.canceledAt), created_at: iso(x.createdAt),
      })),
    },
  }
}
