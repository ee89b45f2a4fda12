// The commerce feature (issue 11; section commerce), first part: the e-commerce receivers (ecom-a,
// ecom-b) with their order rows and stored deliveries, the storefront script, and the admin reads of
// webhook events and orders. Conversions go through the postback feature's recorder, in the receiver's
// own transaction, so rollups, forwarding and email triggers follow as they do for /postback.
import { Elysia } from 'elysia'
import type { AppContext, Feature } from '../context'
import type { AnyDatabase } from '../db/engine'
import type { VerbSet } from '../lib/verb'
import type { ConversionRecorder } from '../postback/record'
import type { ConversionTypes } from '../postback/conversion-types'
import { commerceAdminRoutes } from './admin-routes'
import { commerceAdminVerbs } from './admin-verbs'
import { commerceWebhookRoutes } from './routes'
import { storefrontRoutes } from './storefront'
import { commerceStore } from './store'
import { WebhookReceiver } from './webhooks'

export function commerceFeature(ctx: AppContext, deps: { recorder: ConversionRecorder; types: ConversionTypes }): Feature {
  const store = commerceStore(ctx.database as AnyDatabase)
  const receiver = new WebhookReceiver({ store, recorder: deps.recorder, types: deps.types, settings: ctx.settings })
  const admin = commerceAdminVerbs(store)
  const verbs: VerbSet = {}
  for (const v of Object.values(admin).flatMap((set) => Object.values(set))) verbs[v.name] = v as never
  return {
    name: 'commerce',
    routes: new Elysia({ name: 'commerce-feature' })
      .use(commerceWebhookRoutes(receiver))
      .use(commerceAdminRoutes(ctx, admin)),
    nativeRoutes: storefrontRoutes(),
    verbs,
  }
}
