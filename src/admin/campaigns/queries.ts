import { and, asc, eq, gt, inArray, ne, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { campaignLandings, campaignOffers, campaigns, clicks, landings, offers, sources } from '../../db/schema'
import { type Page } from '../../lib/paging'
import type { CampaignLinks, CampaignRow, LandingLink, OfferLink } from './model'

type Values = Omit<CampaignRow, 'id'>

export const listCampaigns = (db: Db, page: Page): CampaignRow[] =>
  db.select().from(campaigns).where(gt(campaigns.id, page.afterId)).orderBy(asc(campaigns.id)).limit(page.limit + 1).all()

export const findCampaign = (db: Db, id: number): CampaignRow | undefined => db.select().from(campaigns).where(eq(campaigns.id, id)).get()

export const campaignSlugTaken = (db: Db, slug: string, exceptId = 0): boolean =>
  db.select({ id: campaigns.id }).from(campaigns).where(and(eq(campaigns.slug, slug), ne(campaigns.id, exceptId))).get() !== undefined

/** Offers and landings of each campaign, in the order they were given (rowid = insertion order). */
export function linksOf(db: Db, ids: number[]): Map<number, CampaignLinks> {
  const out = new Map<number, CampaignLinks>(ids.map((id) => [id, { offers: [], landings: [] }]))
  if (ids.length === 0) return out
  const os = db.select().from(campaignOffers).where(inArray(campaignOffers.campaignId, ids)).orderBy(sql`rowid`).all()
  for (const o of os) out.get(o.campaignId)!.offers.push({ offerId: o.offerId, weight: o.weight })
  const ls = db.select().from(campaignLandings).where(inArray(campaignLandings.campaignId, ids)).orderBy(sql`rowid`).all()
  for (const l of ls) out.get(l.campaignId)!.landings.push({ landingId: l.landingId, weight: l.weight })
  return out
}

export const sourceExists = (db: Db, id: number): boolean =>
  db.select({ id: sources.id }).from(sources).where(eq(sources.id, id)).get() !== undefined

export const existingOfferIds = (db: Db, ids: number[]): Set<number> =>
  new Set(ids.length ? db.select({ id: offers.id }).from(offers).where(inArray(offers.id, ids)).all().map((r) => r.id) : [])

export const existingLandingIds = (db: Db, ids: number[]): Set<number> =>
  new Set(ids.length ? db.select({ id: landings.id }).from(landings).where(inArray(landings.id, ids)).all().map((r) => r.id) : [])

export const insertCampaign = (db: Db, values: Values): CampaignRow => db.insert(campaigns).values(values).returning().get()

export const updateCampaign = (db: Db, id: number, values: Partial<Values>): CampaignRow | undefined =>
  db.update(campaigns).set(values).where(eq(campaigns.id, id)).returning().get()

export function replaceOffers(db: Db, campaignId: number, links: OfferLink[]): void {
  db.delete(campaignOffers).where(eq(campaignOffers.campaignId, campaignId)).run()
  if (links.length) db.insert(campaignOffers).values(links.map((l) => ({ campaignId, ...l }))).run()
}

export function replaceLandings(db: Db, campaignId: number, links: LandingLink[]): void {
  db.delete(campaignLandings).where(eq(campaignLandings.campaignId, campaignId)).run()
  if (links.length) db.insert(campaignLandings).values(links.map((l) => ({ campaignId, ...l }))).run()
}

export const campaignHasClicks = (db: Db, id: number): boolean =>
  db.select({ id: clicks.id }).from(clicks).where(eq(clicks.campaignId, id)).limit(1).get() !== undefined

/** campaign_offers and campaign_landings rows go with it (ON DELETE CASCADE). */
export const deleteCampaign = (db: Db, id: number): void => { db.delete(campaigns).where(eq(campaigns.id, id)).run() }
