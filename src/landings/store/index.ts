// Leads and visitor events, one module for both engines (db/store-db.ts). ids and epoch-ms times are int8
// on Postgres (strings from its driver), read as numbers by StoreDb: a row has the same JS shape on both engines.
import type { AnyDatabase } from '../../db/engine'
import { raw, sql, whereAll, type Sql } from '../../db/sql'
import { storeDb, type StoreDb } from '../../db/store-db'
import type { Page } from '../../lib/paging'
import type { MaybeAsync } from '../../lib/steps'
import type {
  LeadFilter, LeadRow, LeadStore, NewLead, NewVisitorEvent, OnLead, VisitorEventCount, VisitorEventFilter, VisitorEventRow, VisitorEventStore,
} from './types'

const LEAD = raw(`id, landing_id AS "landingId", campaign_id AS "campaignId", click_id AS "clickId", email, name, fields, ip,
  user_agent AS "userAgent", created_at AS "createdAt"`)
const EVENT = raw(`id, name, click_id AS "clickId", campaign_id AS "campaignId", landing_id AS "landingId", props, url, ip, created_at AS "createdAt"`)

const DAY_MS = 86_400_000
/** Each grouping's key. The day is grouped by its number (integer division on both engines) and named in JS. */
const GROUP_KEY = { name: raw('name'), campaign: raw('campaign_id'), landing: raw('landing_id'), day: raw(`created_at / ${DAY_MS}`) } as const

const timeConditions = (f: { from?: number; to?: number }) => [
  f.from !== undefined && sql`created_at >= ${f.from}`,
  f.to !== undefined && sql`created_at < ${f.to}`,
]

export class Leads implements LeadStore {
  private readonly db: StoreDb

  constructor(database: AnyDatabase) {
    this.db = storeDb(database)
  }

  /** The hook runs in the lead's transaction: a throw takes the lead back with it. */
  insert(lead: NewLead, onCreated?: OnLead): Promise<LeadRow> {
    return this.db.atomically(function* (q) {
      const row: LeadRow = yield q.get<LeadRow>(sql`
        INSERT INTO leads (landing_id, campaign_id, click_id, email, name, fields, ip, user_agent, created_at)
        VALUES (${lead.landingId}, ${lead.campaignId}, ${lead.clickId}, ${lead.email}, ${lead.name}, ${JSON.stringify(lead.fields)},
          ${lead.ip}, ${lead.userAgent}, ${lead.createdAt})
        RETURNING ${LEAD}`)
      const hooked: MaybeAsync<void> | undefined = onCreated?.(row, q.tx)
      // Without a transaction handle (SQLite) the hook writes on the shared connection, so it must be synchronous.
      if (hooked instanceof Promise && q.tx === null) throw new Error('leads.insert: an asynchronous hook on SQLite')
      yield hooked
      return row
    })
  }

  /** In id order after page.afterId, limit + 1 rows. */
  list(f: LeadFilter, page: Page): Promise<LeadRow[]> {
    const w = whereAll([
      sql`id > ${page.afterId}`,
      f.landingId !== undefined && sql`landing_id = ${f.landingId}`,
      f.campaignId !== undefined && sql`campaign_id = ${f.campaignId}`,
      f.clickId !== undefined && sql`click_id = ${f.clickId}`,
      f.email !== undefined && sql`email = ${f.email}`,
      ...timeConditions(f),
    ])
    return this.db.all<LeadRow>(sql`SELECT ${LEAD} FROM leads ${w} ORDER BY id LIMIT ${page.limit + 1}`)
  }

  find(id: number): Promise<LeadRow | undefined> {
    return this.db.get<LeadRow>(sql`SELECT ${LEAD} FROM leads WHERE id = ${id}`)
  }

  async delete(id: number): Promise<boolean> {
    return (await this.db.run(sql`DELETE FROM leads WHERE id = ${id}`)) > 0
  }

  async emailOfClick(clickId: string): Promise<string | null> {
    const row = await this.db.get<{ email: string }>(sql`SELECT email FROM leads WHERE click_id = ${clickId} ORDER BY created_at DESC, id DESC LIMIT 1`)
    return row?.email ?? null
  }
}

export class VisitorEvents implements VisitorEventStore {
  private readonly db: StoreDb

  constructor(database: AnyDatabase) {
    this.db = storeDb(database)
  }

  async insert(e: NewVisitorEvent): Promise<void> {
    await this.db.run(sql`INSERT INTO visitor_events (name, click_id, campaign_id, landing_id, props, url, ip, created_at)
      VALUES (${e.name}, ${e.clickId}, ${e.campaignId}, ${e.landingId}, ${e.props}, ${e.url}, ${e.ip}, ${e.createdAt})`)
  }

  /** Oldest first; two instances pruning at once take different rows (SKIP LOCKED on Postgres). */
  prune(cutoff: number, limit: number): Promise<number> {
    return this.db.run(sql`
      DELETE FROM visitor_events WHERE id IN (
        SELECT id FROM visitor_events WHERE created_at < ${cutoff} ORDER BY created_at LIMIT ${limit} ${this.db.skipLocked})`)
  }

  list(f: VisitorEventFilter, page: Page): Promise<VisitorEventRow[]> {
    const w = whereAll([sql`id > ${page.afterId}`, ...eventConditions(f)])
    return this.db.all<VisitorEventRow>(sql`SELECT ${EVENT} FROM visitor_events ${w} ORDER BY id LIMIT ${page.limit + 1}`)
  }

  /** Largest first, then by key: numbers ascending, text in byte order (SQLite's BINARY, Postgres's "C"), the null key last. */
  async count(f: VisitorEventFilter, groupBy: 'name' | 'campaign' | 'landing' | 'day'): Promise<VisitorEventCount[]> {
    const day = groupBy === 'day'
    const rows = await this.db.all<VisitorEventCount>(
      sql`SELECT ${GROUP_KEY[groupBy]} AS "key", count(*) AS "count" FROM visitor_events ${whereAll(eventConditions(f))} GROUP BY 1`,
      day ? ['key', 'count'] : ['count'])
    // Ordered here, not in SQL: the two engines name their byte-order collation differently.
    const out = day ? rows.map((r) => ({ key: new Date(Number(r.key) * DAY_MS).toISOString().slice(0, 10), count: r.count })) : rows
    return out.sort(byCountThenKey)
  }
}

function eventConditions(f: VisitorEventFilter): Array<Sql | false> {
  return [
    f.name !== undefined && sql`name = ${f.name}`,
    f.clickId !== undefined && sql`click_id = ${f.clickId}`,
    f.campaignId !== undefined && sql`campaign_id = ${f.campaignId}`,
    f.landingId !== undefined && sql`landing_id = ${f.landingId}`,
    ...timeConditions(f),
  ]
}

function byCountThenKey(a: VisitorEventCount, b: VisitorEventCount): number {
  if (a.count !== b.count) return b.count - a.count
  if (a.key === b.key) return 0
  if (a.key === null) return 1
  if (b.key === null) return -1
  if (typeof a.key === 'number' && typeof b.key === 'number') return a.key - b.key
  return Buffer.compare(Buffer.from(String(a.key)), Buffer.from(String(b.key)))
}

/** The lead store, on either engine. */
export const leadStore = (database: AnyDatabase): LeadStore => new Leads(database)

/** The visitor event store (page views, custom events), on either engine. */
export const visitorEventStore = (database: AnyDatabase): VisitorEventStore => new VisitorEvents(database)
