// The postback feature: GET /postback (advertiser → conversion), forwarding to traffic sources through the
// job loop, and the verbs and admin API of conversions, conversion types, status map, postback errors and
// aliases. A recorded conversion is announced as `conversion.recorded`; rollups and forwarding subscribe.
import { Elysia } from 'elysia'
import type { AppContext, Feature } from '../context'
import { Aliases } from './aliases'
import { conversionAdminRoutes } from './admin-routes'
import { PostbackBatcher } from './batch'
import { ConversionTypes } from './conversion-types'
import { ConversionTypesStore } from './conversion-types-store'
import { subscribeForwarding } from './forward'
import { PostbackReceiver } from './receive'
import { ConversionRecorder } from './record'
import { postbackRoutes } from './routes'
import { PostbackStore } from './store'
import { conversionTypeVerbs } from './type-verbs'
import { conversionVerbs } from './verbs'

export type { RecordedConversion, ConversionInput, RecordResult } from './record'
export { postbackSignature } from './receive'

/** `findClickRow`: the tracking feature's click id → row lookup (clicks have no click_id index of their own). */
export function postbackFeature(ctx: AppContext, findClickRow: (clickId: string) => number | undefined): Feature {
  const raw = ctx.database.raw
  const store = new PostbackStore(raw, findClickRow)
  const typesStore = new ConversionTypesStore(raw)
  const aliases = new Aliases(ctx.settings)
  const types = new ConversionTypes(typesStore, ctx.events)
  const recorder = new ConversionRecorder(store, ctx.events)
  const receiver = new PostbackReceiver(ctx.settings, aliases, types, store, recorder)
  subscribeForwarding({ events: ctx.events, jobs: ctx.jobs, allowPrivate: ctx.config.outboundAllowPrivate })

  const conversions = conversionVerbs({ store, recorder, types, aliases, settings: ctx.settings, events: ctx.events })
  const typeVerbs = conversionTypeVerbs({ store: typesStore, types, events: ctx.events })
  const routes = new Elysia({ name: 'postback' })
    .use(postbackRoutes(ctx, new PostbackBatcher(store, ctx.events, receiver)))
    .use(conversionAdminRoutes(ctx, conversions, typeVerbs))

  return { name: 'postback', routes, verbs: { ...conversions, ...typeVerbs } }
}
