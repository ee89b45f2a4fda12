// The catalog feature: traffic sources, offers, landings and campaigns. Its verbs hold the rules and
// announce every write as catalog.changed (after-commit); its store holds all catalog SQL, including the
// rows the redirect routing table is built from (handed to tracking as `routingSource`).
import { Elysia } from 'elysia'
import type { AppContext, Feature } from '../context'
import type { VerbSet } from '../lib/verb'
import { campaignVerbs } from './campaigns/verbs'
import { landingVerbs } from './landings/verbs'
import { offerVerbs } from './offers/verbs'
import { sourceVerbs } from './sources/verbs'
import { ruleSetVerbs } from './paths/verbs'
import { renderRuleSet, RuleSetCreate, RuleSetPatch, RuleSetRecord } from './paths/model'
import type { AnyDatabase } from '../db/engine'
import { CatalogDbStore } from './store/store'
import { collectionRoutes } from '../http/collection'
import { CampaignCreate, CampaignPatch, CampaignRecord, renderCampaign } from './campaigns/model'
import { LandingCreate, LandingPatch, LandingRecord, renderLanding } from './landings/model'
import { OfferCreate, OfferPatch, OfferRecord, renderOffer } from './offers/model'
import { SourceCreate, SourcePatch, SourceRecord, renderSource } from './sources/model'
import type { Campaign, CatalogStore, RoutingSource } from './store/types'

export type { CatalogStore, LandingRow, RoutingRows, RoutingSource } from './store/types'
// A landing's html and its macros (the hosted /lp pages fill them), a source's postback URL macros (forwarding).
export { MAX_HTML } from './landings/model'
export { analyzeMacros, fillSlot, type LANDING_MACROS, type MacroSlot } from './landings/macro-context'
export { authorityEnd, CONVERSION_MACROS, fillMacros, forwardWarning, SUB_MACROS, unreplacedPlaceholders } from './sources/postback-macros'
// A source's tracking-link parameters and the source and offer records (templates create them).
export { linkParams, parseLinkParams } from './sources/link-params'
export { renderSource, SourceRecord } from './sources/model'
export { renderOffer, OfferRecord } from './offers/model'
export { readCap, type Cap } from './caps/model'

export interface CatalogFeature extends Feature {
  store: CatalogStore & RoutingSource
  /** What tracking's routing cache reads (synchronously on SQLite, a Promise on Postgres; see RoutingSource). */
  routingSource: RoutingSource
}

/** The catalog store over the database in use (one module for both engines). */
export function catalogStore(database: AnyDatabase): CatalogStore & RoutingSource {
  return new CatalogDbStore(database)
}

export function catalogFeature(ctx: AppContext): CatalogFeature {
  // ctx.database is still typed as the SQLite Database on this branch; the integrator widens it to AnyDatabase.
  const store = catalogStore(ctx.database as AnyDatabase)
  const deps = { store, events: ctx.events }
  const sources = sourceVerbs(deps)
  const offers = offerVerbs(deps)
  const landings = landingVerbs(deps)
  const campaigns = campaignVerbs(deps)
  const ruleSets = ruleSetVerbs(deps)
  const verbs: VerbSet = {}
  for (const set of [sources, offers, landings, campaigns, ruleSets]) {
    for (const v of Object.values(set)) verbs[v.name] = v as never
  }
  const routes = new Elysia({ name: 'catalog' })
    .use(collectionRoutes(ctx, { name: 'sources', what: 'source', verbs: sources, render: renderSource, record: SourceRecord, create: SourceCreate, patch: SourcePatch }))
    .use(collectionRoutes(ctx, { name: 'offers', what: 'offer', verbs: offers, render: renderOffer, record: OfferRecord, create: OfferCreate, patch: OfferPatch }))
    .use(collectionRoutes(ctx, { name: 'landings', what: 'landing', verbs: landings, render: renderLanding, record: LandingRecord, create: LandingCreate, patch: LandingPatch }))
    .use(collectionRoutes(ctx, { name: 'campaigns', what: 'campaign', verbs: campaigns, render: (c: Campaign) => renderCampaign(c, ctx.config.publicUrl ?? ''), record: CampaignRecord, create: CampaignCreate, patch: CampaignPatch }))
    .use(collectionRoutes(ctx, { name: 'rule-sets', what: 'rule set', verbs: ruleSets, render: renderRuleSet, record: RuleSetRecord, create: RuleSetCreate, patch: RuleSetPatch }))
  return { name: 'catalog', routes, verbs, store, routingSource: store }
}
