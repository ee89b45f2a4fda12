import { asc, eq, gt } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { campaigns, sources } from '../../db/schema'
import { type Page } from '../../lib/paging'
import type { SourceRow } from './model'

type Values = Omit<SourceRow, 'id'>

export const listSources = (db: Db, page: Page): SourceRow[] =>
  db.select().from(sources).where(gt(sources.id, page.afterId)).orderBy(asc(sources.id)).limit(page.limit + 1).all()

export const findSource = (db: Db, id: number): SourceRow | undefined => db.select().from(sources).where(eq(sources.id, id)).get()

export const insertSource = (db: Db, values: Values): SourceRow => db.insert(sources).values(values).returning().get()

export const updateSource = (db: Db, id: number, values: Partial<Values>): SourceRow | undefined =>
  db.update(sources).set(values).where(eq(sources.id, id)).returning().get()

export const deleteSource = (db: Db, id: number): void => { db.delete(sources).where(eq(sources.id, id)).run() }

/** One campaign still pointing at the source, if any. */
export const campaignUsingSource = (db: Db, id: number) =>
  db.select({ id: campaigns.id, slug: campaigns.slug }).from(campaigns).where(eq(campaigns.sourceId, id)).limit(1).get()
