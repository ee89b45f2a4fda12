import { and, asc, eq, gt, ne } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { campaignOffers, campaigns, offers } from '../../db/schema'
import { type Page } from '../../lib/paging'
import type { OfferRow } from './model'

type Values = Omit<OfferRow, 'id'>

export const listOffers = (db: Db, page: Page): OfferRow[] =>
  db.select().from(offers).where(gt(offers.id, page.afterId)).orderBy(asc(offers.id)).limit(page.limit + 1).all()

export const findOffer = (db: Db, id: number): OfferRow | undefined => db.select().from(offers).where(eq(offers.id, id)).get()

/** Another offer already using the slug (excluding `exceptId`). */
export const offerSlugTaken = (db: Db, slug: string, exceptId = 0): boolean =>
  db.select({ id: offers.id }).from(offers).where(and(eq(offers.slug, slug), ne(offers.id, exceptId))).get() !== undefined

export const insertOffer = (db: Db, values: Values): OfferRow => db.insert(offers).values(values).returning().get()

export const updateOffer = (db: Db, id: number, values: Partial<Values>): OfferRow | undefined =>
  db.update(offers).set(values).where(eq(offers.id, id)).returning().get()

export const deleteOffer = (db: Db, id: number): void => { db.delete(offers).where(eq(offers.id, id)).run() }

export const campaignUsingOffer = (db: Db, id: number) =>
  db.select({ id: campaigns.id, slug: campaigns.slug })
    .from(campaignOffers).innerJoin(campaigns, eq(campaigns.id, campaignOffers.campaignId))
    .where(eq(campaignOffers.offerId, id)).limit(1).get()
