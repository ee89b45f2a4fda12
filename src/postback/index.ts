// The postback feature: GET /postback (advertiser → conversion), forwarding to traffic sources through the
// job loop, and the admin API of conversions, conversion types, status map, postback errors and aliases.
import { Elysia } from 'elysia'
import type { AppContext, Feature } from '../context'
import { jobsAdminRoutes } from '../jobs/routes'
import { Aliases } from './aliases'
import { conversionAdminRoutes } from './admin-routes'
import { ConversionTypes } from './conversion-types'
import { ConversionsReader } from './conversions'
import { FORWARD_JOB, forwardHandler } from './forward'
import { normalizeClickId } from '../lib/click-id'
import { PostbackQueries, type ClickForConversion } from './queries'
import { PostbackReceiver } from './receive'
import { ConversionRecorder, type ConversionHook } from './record-conversion'
import { postbackRoutes } from './routes'
import { PostbackBatcher } from './batch'

export type { ConversionHook, RecordedConversion, ConversionInput, RecordResult } from './record-conversion'
export type { ClickForConversion } from './queries'
export { postbackSignature } from './receive'

export interface PostbackFeature extends Feature {
  /** Other ways of creating conversions (e-commerce webhooks) record through the same path. */
  recorder: ConversionRecorder
  conversionTypes: ConversionTypes
  /** The click of a click id (any case), with what attribution and forwarding need; null when unknown. */
  findClick(clickId: string): ClickForConversion | null
  /** Registers a hook that runs in every conversion's transaction (spec §4 rule 6, email triggers). */
  onConversionRecorded(hook: ConversionHook): void
}

/** `findClickRow`: the tracking feature's click id → row lookup (clicks have no click_id index of their own). */
export function postbackFeature(ctx: AppContext, findClickRow: (clickId: string) => number | undefined): PostbackFeature {
  const raw = ctx.database.raw
  const queries = new PostbackQueries(raw, findClickRow)
  const aliases = new Aliases(ctx.settings)
  const types = new ConversionTypes(queries, ctx.events)
  const recorder = new ConversionRecorder(raw, queries, ctx.jobs)
  const receiver = new PostbackReceiver(ctx.settings, aliases, types, queries, recorder)
  ctx.jobs.register(FORWARD_JOB, forwardHandler(ctx.config.outboundAllowPrivate))

  const routes = new Elysia({ name: 'postback' })
    .use(postbackRoutes(ctx, new PostbackBatcher(raw, receiver)))
    .use(conversionAdminRoutes(ctx, { aliases, types, reader: new ConversionsReader(queries) }))
    // The job queue has no feature of its own; its admin view lives with its main producer.
    .use(jobsAdminRoutes(ctx))

  return {
    name: 'postback',
    routes,
    recorder,
    conversionTypes: types,
    findClick: (clickId) => {
      const id = normalizeClickId(clickId.trim())
      return id ? queries.findClick(id) : null
    },
    onConversionRecorded: (hook) => recorder.onRecorded(hook),
  }
}
