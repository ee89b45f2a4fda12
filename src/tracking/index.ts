// Tracking feature: the redirect hot path (/c, /r) and the admin read of clicks.
import type { AppContext, Feature } from '../context'
import { ClickWriter } from './click-writer'
import { ClickQueries } from './queries'
import { RoutingCache } from './routing'
import { trackingRoutes } from './routes'
import { Tracker } from './track'

export { normalizeClickId, CLICK_COOKIE } from './visitor'

export function trackingFeature(ctx: AppContext): Feature {
  const cache = new RoutingCache(ctx.database.raw, ctx.config.publicUrl)
  ctx.signals.on('catalog', () => cache.invalidate())
  const writer = new ClickWriter(ctx.database.path)
  const clicks = new ClickQueries(ctx.database.raw)
  const tracker = new Tracker(cache, writer, clicks)
  return {
    name: 'tracking',
    routes: trackingRoutes(ctx, tracker, clicks),
    stop: () => writer.stop(),
  }
}
