// Tracking feature: the redirect hot path (/c, /r) and the admin read of clicks.
import type { AppContext, Feature } from '../context'
import { ClickIndex } from './click-index'
import { ClickWriter } from './click-writer'
import { ClickQueries } from './queries'
import { RoutingCache } from './routing'
import { trackingRoutes } from './routes'
import { Tracker } from './track'

export { normalizeClickId, CLICK_COOKIE } from './visitor'

export interface TrackingFeature extends Feature {
  /** Row id (clicks.id) of a handed-out click; `clickId` must be a lower-case UUID. */
  findClickRow(clickId: string): number | undefined
}

export function trackingFeature(ctx: AppContext): TrackingFeature {
  const cache = new RoutingCache(ctx.database.raw, ctx.config.publicUrl)
  ctx.signals.on('catalog', () => cache.invalidate())
  const index = new ClickIndex(ctx.database.raw)
  // Catch up with clicks a crash left unindexed before anything can look them up.
  index.indexAll()
  const writer = new ClickWriter(ctx.database.path, (ids, rows) => index.noteCommitted(ids, rows))
  const clicks = new ClickQueries(ctx.database.raw, index)
  const tracker = new Tracker(cache, writer, clicks)
  return {
    name: 'tracking',
    routes: trackingRoutes(ctx, tracker, clicks),
    findClickRow: (clickId) => index.lookup(clickId),
    start: () => index.start(),
    stop: async () => {
      await writer.stop()
      index.stop()
    },
  }
}
