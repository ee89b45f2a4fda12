// Leads and visitor events on SQLite: prepared statements on the shared connection. The list and count
// queries vary with their optional filters (db/where.ts), so each statement text is prepared once, on
// first use, and kept.
import type { Database, RawDb, RawStatement } from '../../db/client'
import { where, type Condition } from '../../db/where'
import type { Page } from '../../lib/paging'
import type {
  LeadFilter, LeadRow, LeadStore, NewLead, NewVisitorEvent, OnLead, VisitorEventCount, VisitorEventFilter, VisitorEventRow, VisitorEventStore,
} from './types'

const LEAD = 'id, landing_id AS landingId, campaign_id AS campaignId, click_id AS clickId, email, name, fields, ip, ' +
  'user_agent AS userAgent, created_at AS createdAt'
const EVENT = 'id, name, click_id AS clickId, campaign_id AS campaignId, landing_id AS landingId, props, url, ip, created_at AS createdAt'

/** The key of each grouping; the UTC day computed from the epoch-ms time, as Postgres does (pg.ts). */
const GROUP_KEY = {
  name: 'name',
  campaign: 'campaign_id',
  landing: 'landing_id',
  day: "strftime('%Y-%m-%d', created_at / 1000, 'unixepoch')",
} as const

/** Statements whose text depends on which filters are set: prepared once per text. */
class StatementCache {
  private readonly statements = new Map<string, RawStatement>()
  constructor(private readonly raw: RawDb) {}
  get(sql: string): RawStatement {
    let st = this.statements.get(sql)
    if (!st) this.statements.set(sql, (st = this.raw.prepare(sql)))
    return st
  }
}

const timeConditions = (f: { from?: number; to?: number }): Condition[] => [
  ['created_at >= $from', 'from', f.from],
  ['created_at < $to', 'to', f.to],
]

export class SqliteLeadStore implements LeadStore {
  private readonly raw: RawDb
  private readonly cache: StatementCache
  private readonly insertLead: RawStatement
  private readonly byId: RawStatement
  private readonly deleteLead: RawStatement
  private readonly newestOfClick: RawStatement

  constructor(database: Database) {
    const raw = (this.raw = database.raw)
    this.cache = new StatementCache(raw)
    this.insertLead = raw.prepare(
      'INSERT INTO leads (landing_id, campaign_id, click_id, email, name, fields, ip, user_agent, created_at) ' +
        `VALUES ($landingId, $campaignId, $clickId, $email, $name, $fields, $ip, $userAgent, $createdAt) RETURNING ${LEAD}`,
    )
    this.byId = raw.prepare(`SELECT ${LEAD} FROM leads WHERE id = $id`)
    this.deleteLead = raw.prepare('DELETE FROM leads WHERE id = $id')
    this.newestOfClick = raw.prepare('SELECT email FROM leads WHERE click_id = $clickId ORDER BY created_at DESC, id DESC LIMIT 1')
  }

  async insert(lead: NewLead, onCreated?: OnLead): Promise<LeadRow> {
    return this.raw.transaction(() => {
      const row = this.insertLead.get({
        landingId: lead.landingId, campaignId: lead.campaignId, clickId: lead.clickId, email: lead.email, name: lead.name,
        fields: JSON.stringify(lead.fields), ip: lead.ip, userAgent: lead.userAgent, createdAt: lead.createdAt,
      }) as LeadRow
      // Synchronous on SQLite: the hook's writes go through the same connection, inside this transaction.
      if (onCreated?.(row, null) instanceof Promise) throw new Error('leads.insert: an asynchronous hook on SQLite')
      return row
    })()
  }

  async list(filter: LeadFilter, page: Page): Promise<LeadRow[]> {
    const w = where([
      ['id > $afterId', 'afterId', page.afterId],
      ['landing_id = $landingId', 'landingId', filter.landingId],
      ['campaign_id = $campaignId', 'campaignId', filter.campaignId],
      ['click_id = $clickId', 'clickId', filter.clickId],
      ['email = $email', 'email', filter.email],
      ...timeConditions(filter),
    ])
    return this.cache.get(`SELECT ${LEAD} FROM leads ${w.sql} ORDER BY id LIMIT $limit`).all({ ...w.params, limit: page.limit + 1 }) as LeadRow[]
  }

  async find(id: number): Promise<LeadRow | undefined> {
    return (this.byId.get({ id }) as LeadRow | null) ?? undefined
  }

  async delete(id: number): Promise<boolean> {
    return this.deleteLead.run({ id }).changes > 0
  }

  async emailOfClick(clickId: string): Promise<string | null> {
    const row = this.newestOfClick.get({ clickId }) as { email: string } | null | undefined
    return row?.email ?? null
  }
}

export class SqliteVisitorEventStore implements VisitorEventStore {
  private readonly cache: StatementCache
  private readonly insertEvent: RawStatement
  private readonly pruneEvents: RawStatement

  constructor(database: Database) {
    this.cache = new StatementCache(database.raw)
    this.pruneEvents = database.raw.prepare(
      'DELETE FROM visitor_events WHERE id IN (SELECT id FROM visitor_events WHERE created_at < $cutoff ORDER BY created_at LIMIT $limit)',
    )
    this.insertEvent = database.raw.prepare(
      'INSERT INTO visitor_events (name, click_id, campaign_id, landing_id, props, url, ip, created_at) ' +
        'VALUES ($name, $clickId, $campaignId, $landingId, $props, $url, $ip, $createdAt)',
    )
  }

  async insert(e: NewVisitorEvent): Promise<void> {
    this.insertEvent.run({
      name: e.name, clickId: e.clickId, campaignId: e.campaignId, landingId: e.landingId, props: e.props, url: e.url, ip: e.ip, createdAt: e.createdAt,
    })
  }

  async prune(cutoff: number, limit: number): Promise<number> {
    return this.pruneEvents.run({ cutoff, limit }).changes
  }

  async list(filter: VisitorEventFilter, page: Page): Promise<VisitorEventRow[]> {
    const w = where([['id > $afterId', 'afterId', page.afterId], ...eventConditions(filter)])
    return this.cache.get(`SELECT ${EVENT} FROM visitor_events ${w.sql} ORDER BY id LIMIT $limit`)
      .all({ ...w.params, limit: page.limit + 1 }) as VisitorEventRow[]
  }

  async count(filter: VisitorEventFilter, groupBy: 'name' | 'campaign' | 'landing' | 'day'): Promise<VisitorEventCount[]> {
    const w = where(eventConditions(filter))
    // Largest first, then by key (text in binary order, as Postgres's COLLATE "C"), the null key last.
    return this.cache.get(
      `SELECT ${GROUP_KEY[groupBy]} AS "key", count(*) AS "count" FROM visitor_events ${w.sql} GROUP BY 1 ORDER BY 2 DESC, 1 NULLS LAST`,
    ).all(w.params) as VisitorEventCount[]
  }
}

function eventConditions(f: VisitorEventFilter): Condition[] {
  return [
    ['name = $name', 'name', f.name],
    ['click_id = $clickId', 'clickId', f.clickId],
    ['campaign_id = $campaignId', 'campaignId', f.campaignId],
    ['landing_id = $landingId', 'landingId', f.landingId],
    ...timeConditions(f),
  ]
}
