// Tracking feature: the redirect hot path (/c, /r), the click store behind it, and the admin read of clicks.
import type { AppContext, Feature } from '../context'
import { errorFields, log } from '../lib/log'
import type { CatalogStore, RoutingSource } from '../catalog'
import { Retention } from '../lib/retention'
import { RoutingCache } from './routing'
import { trackingAdminRoutes, trackingLinkRoutes } from './routes'
import { createClickStore } from './store/click-store'
import type { ClickStore } from './store/types'
import { Tracker, type ClickQuality } from './track'
import { TrafficClassifier, trafficConfig } from './quality/classify'
import { UniqueVisitors, type UniqueWindows } from './unique-visitors'
import { trackingVerbs } from './verbs'
import { ClickEnricher, type GeoLookup } from './enrich'
import { CapBook } from './caps'
import { createCapLedger } from './store/cap-ledger'
import { TimelineReads } from './store/timeline-reads'
import { storeDb } from '../db/store-db'

export { normalizeClickId, CLICK_COOKIE, clickCookie } from './visitor'
export { clickCookieHeader, readVisitor } from './routes'
export type { Tracker, LandingVisit, Visitor } from './track'
export type { CampaignRoute } from './routing'
// A click's stored parameters and macro values, as landings and postback forwarding fill them in.
export { clickParams, encodeMacroValue, fillClickMacros } from './template'
export { newClick, type Click, type ContinuableClick } from './store/click'
export type { ClickStore, ClickCosts, CostScope } from './store/types'
export { SUB_COLUMNS, PARAM_NAME } from './store/reprice'
/** The UTC day a Postgres click id names: probe that day's partition first (store/pg-partitions.ts). */
export { clickDayRange } from './store/pg-partitions'

export interface TrackingFeature extends Feature {
  /**
   * Row id (clicks.id) of a handed-out click; `clickId` must be a lower-case UUID. SQLite only: the
   * postback's SQLite store resolves clicks through the click index with it. On Postgres the postback
   * store joins clicks by click_id itself; use `clicks.rowOf` (async there) for anything else.
   */
  findClickRow(clickId: string): number | undefined
  /** The click store: lookups, and import() for clicks from elsewhere (seeds, imports). */
  clicks: ClickStore
  /** Raw click retention (setting raw_click_retention_days); `run()` prunes what is due now. */
  retention: Retention
  /** The click decisions, for hosted landings (/lp visits, leads, page views, bot signals). */
  tracker: Tracker
}

/**
 * `geo`: the IP data, loaded once at start-up by server.ts (embedded, or SVC_GEOIP_DIR / SVC_GEOIP_CITY);
 * null: clicks store no country or network.
 */
export function trackingFeature(ctx: AppContext, deps: { routes: RoutingSource & Pick<CatalogStore, 'findCampaign'>; geo: GeoLookup | null }): TrackingFeature {
  const cache = new RoutingCache(deps.routes, ctx.config.landingOrigin ?? ctx.config.publicUrl, () => ctx.settings.get('fallback_url'))
  ctx.events.on('catalog.changed', 'after-commit', 'tracking.routing-cache', () => cache.invalidate())
  const clicks = createClickStore(ctx.database, ctx.events)
  const classifier = new TrafficClassifier(trafficConfig(ctx.settings))
  const uniques: UniqueWindows = new UniqueVisitors((since) => clicks.recentUniques(since), ctx.settings.get('unique_window_hours'))
  ctx.events.on('settings.changed', 'after-commit', 'tracking.traffic-quality', () => {
    classifier.reconfigure(trafficConfig(ctx.settings))
    uniques.setWindowHours(ctx.settings.get('unique_window_hours'))
  })
  const quality: ClickQuality = {
    classify: (v, now, connection, dryRun) =>
      classifier.classify({ method: v.method, headers: v.headers, ip: v.ip, userAgent: v.userAgent, connection, now }, dryRun),
    whenReady: () => uniques.whenReady(),
    isUnique: (campaignId, ip, ua, now) => uniques.isUnique(campaignId, ip, ua, now),
  }
  const caps = new CapBook(createCapLedger(ctx.database))
  // Conversion caps count a conversion once it is committed (its offer's cap and its rotation entry's).
  ctx.events.on('conversion.recorded', 'after-commit', 'tracking.caps', (c) => {
    if (c.type.include_in_conversions && !c.type.negative) caps.conversion(c.offerId, c.campaignId, c.pathId ?? null, c.date)
  })
  const tracker = new Tracker(cache, clicks, quality, new ClickEnricher(deps.geo, ctx.config.trustProxy), caps)
  // Raw click retention: the click store deletes click rows older than N days with their click_index
  // entries (SQLite); Postgres drops the day partitions wholly older than N days (docs/postgres.md). Rollups are never touched (a click is counted when it commits), so reports keep their totals;
  // conversions keep the attribution they copied from their click.
  const retention = new Retention(clicks, {
    days: () => ctx.settings.get('raw_click_retention_days'),
    onError: (err) => log.error('tracking: click retention failed', errorFields(err)),
  })
  let retentionDays = ctx.settings.get('raw_click_retention_days')
  ctx.events.on('settings.changed', 'after-commit', 'tracking.retention', () => {
    const days = ctx.settings.get('raw_click_retention_days')
    if (days !== retentionDays) retention.kick()
    retentionDays = days
  })
  const verbs = trackingVerbs({
    clicks, tracker, route: (id) => cache.campaign(id), caps: () => caps.status(cache.capRules()), campaignExists: async (id) => (await deps.routes.findCampaign(id)) !== undefined,
    timeline: new TimelineReads(storeDb(ctx.database)), costCurrency: () => ctx.settings.get('cost_currency'), timeZone: () => ctx.settings.get('time_zone'),
  })
  return {
    name: 'tracking',
    routes: trackingAdminRoutes(ctx, verbs),
    nativeRoutes: trackingLinkRoutes(ctx, tracker),
    verbs,
    findClickRow: (clickId) => {
      const row = clicks.rowOf(clickId)
      if (row instanceof Promise) throw new Error('findClickRow is synchronous and SQLite-only; on Postgres use clicks.rowOf')
      return row
    },
    clicks,
    retention,
    tracker,
    start: async () => {
      clicks.start()
      retention.start()
      caps.start()
      await cache.start() // Postgres loads the routing table before the first request
    },
    stop: async () => {
      await retention.stop()
      await clicks.stop()
      await caps.stop()
    },
  }
}
