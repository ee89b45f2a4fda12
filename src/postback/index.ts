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
import { ConversionReads } from './conversion-reads'
import { PgPostbackBatcher } from './pg-batch'
import { PgPostbackStore } from './pg-store'
import type { AnyDatabase } from '../db/engine'
import { subscribeForwarding } from './forward'
import { forwardWarningWriter } from './forward-store'
import type { ClickStore } from '../tracking'
import { PostbackReceiver } from './receive'
import { ConversionRecorder } from './record'
import { postbackRoutes } from './routes'
import { SqlitePostbackStore, type PostbackStore } from './store'
import { conversionTypeVerbs } from './type-verbs'
import { conversionVerbs } from './verbs'
import { storeDb } from '../db/store-db'
import { normalizeClickId } from '../lib/click-id'
import type { VerbSet } from '../lib/verb'

export type { RecordedConversion, ConversionInput, ConversionRecorder, RecordResult } from './record'
export type { ConversionType, ConversionTypes } from './conversion-types'
export type { RecordingQueries } from './store'
export { postbackSignature } from './receive'
export { BUILTIN_TYPES } from './builtin-types'
export { createConversionRollup, type RollupConversion } from './rollup'
export { postbackOperation } from './docs'

/**
 * Picks the stores and the batcher by `ctx.database.engine`. `findClickRow`: on SQLite, the tracking
 * feature's click id → row lookup (SQLite clicks have no click_id index of their own); unused on Postgres,
 * where clicks.click_id is a unique index. `ready` settles once the conversion-types cache is loaded
 * (already on SQLite; on Postgres await it before serving). `types.reload()` is what cross-instance
 * invalidation calls. `clicks`: the tracking feature's click store, read by the forward job for the click's
 * macros ({sub1}…, stored parameters); left out, those stay as written.
 */
export function postbackFeature(
  ctx: AppContext,
  findClickRow?: (clickId: string) => number | undefined,
  clicks?: Pick<ClickStore, 'find'>,
): Feature & { ready: Promise<void>; types: ConversionTypes; recorder: ConversionRecorder } {
  // AppContext types the SQLite database only until the engines are wired in; both are handled here.
  const database = ctx.database as AnyDatabase
  const pg = database.engine === 'postgres' ? new PgPostbackStore(database) : null
  const sqlite = database.engine === 'postgres' ? null : new SqlitePostbackStore(database.raw, findClickRow ?? noClickIndex)
  const store: PostbackStore = (pg ?? sqlite)!
  const typesStore = new ConversionTypesStore(database)
  const reads = new ConversionReads(storeDb(database), sqlite ? (id) => { const c = normalizeClickId(id); return c === null ? undefined : findClickRow!(c) } : undefined)
  const aliases = new Aliases(ctx.settings)
  const types = new ConversionTypes(typesStore, ctx.events)
  // SQLite: incoming webhooks' conversions are group-committed (withinBatched); Postgres transactions are async.
  const recorder = new ConversionRecorder(store, ctx.events, sqlite !== null)
  const receiver = new PostbackReceiver(ctx.settings, aliases, types, sqlite)
  const warn = forwardWarningWriter(database)
  subscribeForwarding({
    events: ctx.events, jobs: ctx.jobs, allowPrivate: ctx.config.outboundAllowPrivate,
    // Read by the forward job, only when its URL still has a {macro}: never on the /postback path.
    lookup: clicks && {
      clickOf: async (id) => {
        const conversion = await reads.conversionById(id)
        return (conversion && (await clicks.find(conversion.click_id))) ?? null
      },
      warn,
    },
  })

  const batcher = pg ? new PgPostbackBatcher(pg, ctx.events, receiver) : new PostbackBatcher(sqlite!, ctx.events, receiver)
  const conversions = conversionVerbs({ store, reads, recorder, types, aliases, settings: ctx.settings, events: ctx.events })
  const typeVerbs = conversionTypeVerbs({ store: typesStore, types, events: ctx.events })
  const routes = new Elysia({ name: 'postback' }).use(conversionAdminRoutes(ctx, conversions, typeVerbs))

  return { name: 'postback', routes, nativeRoutes: postbackRoutes(ctx, batcher), verbs: Object.fromEntries([...Object.values(conversions), ...Object.values(typeVerbs)].map((v) => [v.name, v])) as VerbSet, ready: types.loaded(), types, recorder }
}

function noClickIndex(): never {
  throw new Error('postbackFeature: the SQLite engine needs the tracking feature\'s findClickRow')
}
