// The catalog feature: traffic sources, offers, landings and campaigns. Its verbs hold the rules and
// announce every write as catalog.changed (after-commit); its store holds all catalog SQL, including the
// rows the redirect routing table is built from (handed to tracking as `routingSource`).
import { Elysia } from 'elysia'
import type { AppContext, Feature } from '../context'
import type { VerbSet } from '../lib/verb'
import { campaignRoutes } from './campaigns/routes'
import { campaignVerbs } from './campaigns/verbs'
import { landingRoutes } from './landings/routes'
import { landingVerbs } from './landings/verbs'
import { offerRoutes } from './offers/routes'
import { offerVerbs } from './offers/verbs'
import { sourceRoutes } from './sources/routes'
import { sourceVerbs } from './sources/verbs'
import { SqliteCatalogStore } from './store/sqlite'
import type { CatalogStore, RoutingSource } from './store/types'

export type { CatalogStore, RoutingSource } from './store/types'

export interface CatalogFeature extends Feature {
  store: CatalogStore
  /** What tracking's routing cache reads (synchronously; see RoutingSource). */
  routingSource: RoutingSource
}

export function catalogFeature(ctx: AppContext): CatalogFeature {
  const store = new SqliteCatalogStore(ctx.database)
  const deps = { store, events: ctx.events }
  const sources = sourceVerbs(deps)
  const offers = offerVerbs(deps)
  const landings = landingVerbs(deps)
  const campaigns = campaignVerbs(deps)
  const verbs: VerbSet = {}
  for (const set of [sources, offers, landings, campaigns]) {
    for (const v of Object.values(set)) verbs[v.name] = v as never
  }
  const routes = new Elysia({ name: 'catalog' })
    .use(sourceRoutes(ctx, sources))
    .use(offerRoutes(ctx, offers))
    .use(landingRoutes(ctx, landings))
    .use(campaignRoutes(ctx, campaigns))
  return { name: 'catalog', routes, verbs, store, routingSource: store }
}
