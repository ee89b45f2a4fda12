// The landings feature (issue 10; section landings): hosted landing pages at /lp/:slug with their static
// assets, lead forms (POST /api/lead), what browsers report (page views, custom events, bot signals) and
// the four browser scripts. The landing rows themselves are the catalog's; the clicks are tracking's.
import { Elysia } from 'elysia'
import type { AppContext, Feature } from '../context'
import type { AnyDatabase } from '../db/engine'
import type { CatalogStore } from '../catalog'
import type { Tracker } from '../tracking'
import type { VerbSet } from '../lib/verb'
import { landingAdminRoutes } from './admin-routes'
import { landingAdminVerbs } from './admin-verbs'
import { assetRoutes } from './asset-routes'
import { assetVerbs, LandingAssets } from './assets'
import { LandingCapture } from './capture'
import { FormTokens } from './form-token'
import { LandingPages } from './pages'
import { previewRoutes } from './preview'
import { landingApiRoutes, landingPageRoutes } from './public-routes'
import { scriptRoutes } from './scripts/serve'
import { assetStore } from './store/assets'
import { leadStore, visitorEventStore } from './store'
import { Retention } from '../lib/retention'
import { errorFields, log } from '../lib/log'

export interface LandingsFeature extends Feature {
  /** The email of a click's lead (postback rule 6: the buyer's address when the postback has none). */
  leadEmailOf(clickId: string): Promise<string | null>
}

export function landingsFeature(ctx: AppContext, deps: { catalog: CatalogStore; tracker: Tracker }): LandingsFeature {
  const database = ctx.database as AnyDatabase
  const leads = leadStore(database)
  const events = visitorEventStore(database)
  const assets = assetStore(database)
  const pages = new LandingPages((slug) => deps.catalog.findLandingBySlug(slug))
  ctx.events.on('catalog.changed', 'after-commit', 'landings.page-cache', () => pages.invalidate())
  const tokens = new FormTokens(ctx.config.secret)
  const capture = new LandingCapture({
    leads, events, bus: ctx.events, tracker: deps.tracker, findLanding: (id) => deps.catalog.findLanding(id), tokens, publicUrl: ctx.config.publicUrl,
  })
  // Page views and custom events are raw visit data: they follow raw_click_retention_days like the clicks
  // (leads are kept: they are the business's records).
  const retention = new Retention(events, {
    days: () => ctx.settings.get('raw_click_retention_days'),
    onError: (err) => log.error('landings: visitor event retention failed', errorFields(err)),
  })
  let retentionDays = ctx.settings.get('raw_click_retention_days')
  ctx.events.on('settings.changed', 'after-commit', 'landings.retention', () => {
    const days = ctx.settings.get('raw_click_retention_days')
    if (days !== retentionDays) retention.kick()
    retentionDays = days
  })
  const admin = landingAdminVerbs({ leads, events })
  const assetSet = assetVerbs(assets)
  const verbs: VerbSet = {}
  for (const v of [...Object.values(admin.leads), ...Object.values(admin.events), ...Object.values(assetSet)]) verbs[v.name] = v as never
  return {
    name: 'landings',
    routes: new Elysia({ name: 'landings-feature' })
      .use(landingApiRoutes(ctx, capture))
      .use(landingAdminRoutes(ctx, admin))
      .use(assetRoutes(ctx, assetSet))
      .use(previewRoutes(ctx, deps.catalog)),
    nativeRoutes: {
      ...scriptRoutes(),
      ...landingPageRoutes(ctx, { pages, tracker: deps.tracker, tokens, assets: new LandingAssets(assets) }),
    },
    verbs,
    leadEmailOf: (clickId) => leads.emailOfClick(clickId),
    start: () => retention.start(),
    stop: () => retention.stop(),
  }
}
