import { and, asc, eq, gt, ne } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { campaignLandings, campaigns, landings } from '../../db/schema'
import { type Page } from '../../lib/paging'
import type { LandingRow } from './model'

type Values = Omit<LandingRow, 'id'>

export const listLandings = (db: Db, page: Page): LandingRow[] =>
  db.select().from(landings).where(gt(landings.id, page.afterId)).orderBy(asc(landings.id)).limit(page.limit + 1).all()

export const findLanding = (db: Db, id: number): LandingRow | undefined => db.select().from(landings).where(eq(landings.id, id)).get()

/** Another landing already using the slug (excluding `exceptId`). */
export const landingSlugTaken = (db: Db, slug: string, exceptId = 0): boolean =>
  db.select({ id: landings.id }).from(landings).where(and(eq(landings.slug, slug), ne(landings.id, exceptId))).get() !== undefined

export const insertLanding = (db: Db, values: Values): LandingRow => db.insert(landings).values(values).returning().get()

export const updateLanding = (db: Db, id: number, values: Partial<Values>): LandingRow | undefined =>
  db.update(landings).set(values).where(eq(landings.id, id)).returning().get()

export const deleteLanding = (db: Db, id: number): void => { db.delete(landings).where(eq(landings.id, id)).run() }

export const campaignUsingLanding = (db: Db, id: number) =>
  db.select({ id: campaigns.id, slug: campaigns.slug })
    .from(campaignLandings).innerJoin(campaigns, eq(campaigns.id, campaignLandings.campaignId))
    .where(eq(campaignLandings.landingId, id)).limit(1).get()
