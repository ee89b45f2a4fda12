// What the catalog keeps: sources, offers, landings and campaigns with their offer and landing rotations.
// Every catalog query sits behind these two interfaces; store/store.ts implements both on either engine.
//
// CatalogStore is async because a network database needs it. Verbs get no transaction to hold across an
// await (a bun:sqlite transaction cannot span one), so each write is one atomic operation: it runs its
// referential checks inside its own transaction and throws the AppError the caller sees (not_found,
// conflict, invalid naming the field).
import type { campaignPaths, campaigns, landings, offers, ruleSets, sources } from '../../db/schema'
import type { Page } from '../../lib/paging'

export type SourceRow = typeof sources.$inferSelect
export type OfferRow = typeof offers.$inferSelect
export type LandingRow = typeof landings.$inferSelect
export type CampaignRow = typeof campaigns.$inferSelect
export type RuleSetRow = typeof ruleSets.$inferSelect
export type PathRow = typeof campaignPaths.$inferSelect

/** What a write may set; the store stamps id, created_at and updated_at. */
type Values<R> = Omit<R, 'id' | 'createdAt' | 'updatedAt'>
/** link_params may be left out (null): only sources made from a template or given one carry it. */
export type SourceValues = Omit<Values<SourceRow>, 'linkParams'> & { linkParams?: string | null }
/** `cap` may be left out (no cap). */
export type OfferValues = Omit<Values<OfferRow>, 'cap'> & { cap?: string | null }
export type LandingValues = Values<LandingRow>
export type CampaignValues = Values<CampaignRow>

export interface OfferLink { offerId: number; weight: number; cap?: string | null; autoWeight?: number | null }
export interface LandingLink { landingId: number; weight: number; autoWeight?: number | null }
export interface CampaignLinks { offers: OfferLink[]; landings: LandingLink[] }
/** A targeting path with its own rotation (action 'rotation'; empty lists otherwise). */
export interface CampaignPath { row: PathRow; offers: OfferLink[]; landings: LandingLink[] }
export interface Campaign {
  row: CampaignRow; links: CampaignLinks; paths: CampaignPath[]
  /** The link_params of the campaign's source (its tracking_url's query), when read with it. */
  sourceLinkParams?: string | null
}
/** A rule set with the campaigns whose paths use it (lowest id first). */
export interface RuleSet { id: number; row: RuleSetRow; campaignIds: number[] }
export type RuleSetValues = Values<RuleSetRow>

/** A linked offer or landing as the input gave it; `field` names it in "does not exist" errors (offers.0.offer_id). */
export interface LinkRef { id: number; weight: number; field: string; /** An offer entry's cap (JSON, catalog/caps). */ cap?: string | null }
/**
 * A path to write, in campaign order. `id` keeps an existing path of the campaign (its clicks keep pointing at
 * it); null makes a new one. `field` ("paths.2") names it in errors; `conditions` is the checked JSON.
 */
export interface PathWrite {
  id: number | null; field: string; name: string; active: boolean; ruleSetId: number | null; conditions: string
  action: PathRow['action']; url: string | null; offers: LinkRef[]; landings: LinkRef[]
}
/** Rotations and paths to write: a given list replaces the whole list, an absent one stays as it is. */
export interface LinkChanges { offers?: LinkRef[]; landings?: LinkRef[]; paths?: PathWrite[] }

export interface CatalogStore {
  /** One page in id order, fetched with limit + 1 rows (the extra row says another page exists). */
  listSources(page: Page): Promise<SourceRow[]>
  findSource(id: number): Promise<SourceRow | undefined>
  createSource(values: SourceValues): Promise<SourceRow>
  /** not_found "source not found". */
  updateSource(id: number, changes: Partial<SourceValues>): Promise<SourceRow>
  /** not_found; conflict while a campaign uses it. */
  deleteSource(id: number): Promise<void>

  listOffers(page: Page): Promise<OfferRow[]>
  findOffer(id: number): Promise<OfferRow | undefined>
  /** conflict when the slug is taken. */
  createOffer(values: OfferValues): Promise<OfferRow>
  /** not_found; conflict when the slug is taken. */
  updateOffer(id: number, changes: Partial<OfferValues>): Promise<OfferRow>
  /** not_found; conflict while a campaign rotates it. */
  deleteOffer(id: number): Promise<void>

  listLandings(page: Page): Promise<LandingRow[]>
  findLanding(id: number): Promise<LandingRow | undefined>
  /** The landing served at /lp/:slug. */
  findLandingBySlug(slug: string): Promise<LandingRow | undefined>
  createLanding(values: LandingValues): Promise<LandingRow>
  updateLanding(id: number, changes: Partial<LandingValues>): Promise<LandingRow>
  deleteLanding(id: number): Promise<void>

  listCampaigns(page: Page): Promise<Campaign[]>
  findCampaign(id: number): Promise<Campaign | undefined>
  /** Row and rotations in one transaction (never a campaign without offers); invalid when a referenced source, offer or landing does not exist. */
  createCampaign(values: CampaignValues, links: Required<Pick<LinkChanges, 'offers' | 'landings'>> & LinkChanges): Promise<Campaign>
  updateCampaign(id: number, changes: Partial<CampaignValues>, links: LinkChanges): Promise<Campaign>
  /** not_found; conflict once the campaign has clicks (its history would be orphaned). */
  deleteCampaign(id: number): Promise<void>

  listRuleSets(page: Page): Promise<RuleSet[]>
  findRuleSet(id: number): Promise<RuleSet | undefined>
  createRuleSet(values: RuleSetValues): Promise<RuleSet>
  /** not_found "rule set not found". */
  updateRuleSet(id: number, changes: Partial<RuleSetValues>): Promise<RuleSet>
  /** not_found; conflict while a campaign's path uses it. */
  deleteRuleSet(id: number): Promise<void>
}

/**
 * The catalog as the redirect routing table needs it: active campaigns, paused ones that have a
 * fallback_url (active 0: SQLite has no booleans), and the linked offers and landings. `autoWeight`: the weight
 * auto-weights set (src/optimisation), routed instead of `weight` while not null.
 */
export interface RoutingRows {
  campaigns: Array<{
    id: number; slug: string; sourceId: number | null; externalId: string | null; active: number
    botUrl: string | null; fallbackUrl: string | null; costModel: string; cpc: number; cpm: number
  }>
  /** `cap`: the entry's cap, `offerCap`: the offer's (JSON, catalog/caps), null for none. */
  offers: Array<{ campaignId: number; offerId: number; weight: number; autoWeight?: number | null; url: string | null; cap: string | null; offerCap: string | null }>
  /** hasHtml: 1 when the landing has a hosted page (SQLite has no booleans; only truthiness counts). */
  landings: Array<{ campaignId: number; landingId: number; weight: number; autoWeight?: number | null; slug: string; url: string | null; hasHtml: number }>
  /** Active paths in campaign order; `ruleConditions`: the rule set's conditions (JSON), null without one. */
  paths: Array<{
    id: number; campaignId: number; name: string; conditions: string; ruleConditions: string | null; action: string; url: string | null
  }>
  pathOffers: Array<{ pathId: number; offerId: number; weight: number; autoWeight?: number | null; url: string | null; cap: string | null; offerCap: string | null }>
  /** Every offer (a cap's fallback offer may be in no rotation). */
  allOffers: Array<{ id: number; url: string; cap: string | null }>
  pathLandings: Array<{ pathId: number; landingId: number; weight: number; autoWeight?: number | null; slug: string; url: string | null; hasHtml: number }>
}

/**
 * Synchronous on SQLite on purpose: the routing cache rebuilds on the first /c or /r after a catalog change,
 * inside that request, and a sync read keeps RoutingCache.get() free of awaits on every redirect. A network
 * store returns a Promise instead; RoutingCache then loads the table ahead of use (start(), and at once on
 * invalidate()) and requests wait on whenReady() only while a load is in flight.
 */
export interface RoutingSource {
  routingRows(): RoutingRows | Promise<RoutingRows>
}
