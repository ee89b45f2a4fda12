// Tracking feature: the redirect hot path (/c, /r) and the admin read of clicks.
import type { AppContext, Feature } from '../context'
import type { RoutingSource } from '../catalog'
import { ClickIndex } from './click-index'
import { ClickWriter } from './click-writer'
import { ClickQueries } from './queries'
import { ClickRetention } from './retention'
import { RoutingCache } from './routing'
import { trackingAdminRoutes, trackingLinkRoutes } from './routes'
import { Tracker, type ClickQuality } from './track'
import { TrafficClassifier, trafficConfig } from './quality/classify'
import { UniqueVisitors } from './unique-visitors'

export { normalizeClickId, CLICK_COOKIE } from './visitor'

export interface TrackingFeature extends Feature {
  /** Row id (clicks.id) of a handed-out click; `clickId` must be a lower-case UUID. */
  findClickRow(clickId: string): number | undefined
  /** Takes in clicks inserted behind the click writer's back (test and bench seeds). */
  catchUp(): void
  /** Raw click retention (setting raw_click_retention_days); `run()` prunes what is due now. */
  retention: ClickRetention
}

export function trackingFeature(ctx: AppContext, catalog: { routes: RoutingSource }): TrackingFeature {
  const cache = new RoutingCache(catalog.routes, ctx.config.publicUrl)
  ctx.events.on('catalog.changed', 'after-commit', 'tracking.routing-cache', () => cache.invalidate())
  // Reloads the clicks past the index watermark into its tail before anything can look them up.
  const index = new ClickIndex(ctx.database.raw)
  const writer = new ClickWriter(ctx.database.path, (ids, rows) => index.noteCommitted(ids, rows))
  const clicks = new ClickQueries(ctx.database.raw, index)
  const classifier = new TrafficClassifier(trafficConfig(ctx.settings))
  const uniques = new UniqueVisitors(ctx.database.raw, ctx.settings.get('unique_window_hours'))
  ctx.events.on('settings.changed', 'after-commit', 'tracking.traffic-quality', () => {
    classifier.reconfigure(trafficConfig(ctx.settings))
    uniques.setWindowHours(ctx.settings.get('unique_window_hours'))
  })
  const quality: ClickQuality = {
    classify: (v, now) => classifier.classify({ method: v.method, headers: v.headers, ip: v.ip, userAgent: v.userAgent, now }),
    isUnique: (campaignId, ip, ua, now) => uniques.isUnique(campaignId, ip, ua, now),
  }
  const tracker = new Tracker(cache, writer, clicks, quality)
  const retention = new ClickRetention(ctx.database.raw, {
    days: () => ctx.settings.get('raw_click_retention_days'),
    bucketOf: (row) => index.bucketOf(row),
    onPruned: (gone) => {
      index.forget(gone)
      index.refreshBuckets()
    },
  })
  let retentionDays = ctx.settings.get('raw_click_retention_days')
  ctx.events.on('settings.changed', 'after-commit', 'tracking.retention', () => {
    const days = ctx.settings.get('raw_click_retention_days')
    if (days !== retentionDays) retention.kick()
    retentionDays = days
  })
  return {
    name: 'tracking',
    routes: trackingAdminRoutes(ctx, clicks),
    nativeRoutes: trackingLinkRoutes(ctx, tracker),
    findClickRow: (clickId) => index.lookup(clickId),
    catchUp: () => index.catchUp(),
    retention,
    start: () => {
      index.start()
      retention.start()
    },
    stop: async () => {
      await retention.stop()
      await writer.stop()
      index.stop()
    },
  }
}
