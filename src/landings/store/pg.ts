// Leads and visitor events on PostgreSQL: the same rows, ordering and keys as store/sqlite.ts, through Bun's
// SQL client. ids and epoch-ms times are int8 (strings from the driver): converted with numCols, so a row
// has the same JS shape on both engines.
import type { SQL } from 'bun'
import { num, numCols, type PgDatabase } from '../../db/pg/client'
import type { Page } from '../../lib/paging'
import type {
  LeadFilter, LeadRow, LeadStore, NewLead, NewVisitorEvent, OnLead, VisitorEventCount, VisitorEventFilter, VisitorEventRow, VisitorEventStore,
} from './types'

type Raw = Record<string, unknown>
type Fragment = SQL.Query<unknown>

const leadRows = (rows: Raw[]) => numCols(rows, 'id', 'createdAt') as unknown as LeadRow[]
const eventRows = (rows: Raw[]) => numCols(rows, 'id', 'createdAt') as unknown as VisitorEventRow[]

/** `AND created_at >= from AND created_at < to`, each only when set. */
function timeConditions(sql: SQL, f: { from?: number; to?: number }): Fragment[] {
  return [
    f.from === undefined ? null : sql`AND created_at >= ${f.from}::int8`,
    f.to === undefined ? null : sql`AND created_at < ${f.to}::int8`,
  ].filter((c) => c !== null)
}

/** The conditions, or an empty fragment (an empty array would not render). */
const all = (sql: SQL, conds: Fragment[]) => (conds.length ? conds : sql``)

export class PgLeadStore implements LeadStore {
  private readonly sql: SQL
  /** The columns under their camelCase names (constant SQL text, no values). */
  private readonly cols: Fragment

  constructor(database: PgDatabase) {
    const sql = (this.sql = database.sql)
    this.cols = sql`id, landing_id AS "landingId", campaign_id AS "campaignId", click_id AS "clickId", email, name, fields, ip,
      user_agent AS "userAgent", created_at AS "createdAt"`
  }

  async insert(lead: NewLead, onCreated?: OnLead): Promise<LeadRow> {
    return (await this.sql.begin(async (tx) => {
      const rows = await tx`INSERT INTO leads (landing_id, campaign_id, click_id, email, name, fields, ip, user_agent, created_at)
        VALUES (${lead.landingId}::int, ${lead.campaignId}::int, ${lead.clickId}, ${lead.email}, ${lead.name}, ${JSON.stringify(lead.fields)},
          ${lead.ip}, ${lead.userAgent}, ${lead.createdAt}::int8)
        RETURNING ${this.cols}`
      const row = leadRows(rows)[0]!
      // In the transaction: a hook that throws takes the lead back with it.
      await onCreated?.(row, tx)
      return row
    })) as LeadRow
  }

  async list(filter: LeadFilter, page: Page): Promise<LeadRow[]> {
    const sql = this.sql
    const conds = [
      filter.landingId === undefined ? null : sql`AND landing_id = ${filter.landingId}::int`,
      filter.campaignId === undefined ? null : sql`AND campaign_id = ${filter.campaignId}::int`,
      filter.clickId === undefined ? null : sql`AND click_id = ${filter.clickId}`,
      filter.email === undefined ? null : sql`AND email = ${filter.email}`,
    ].filter((c) => c !== null)
    const rows = await sql`SELECT ${this.cols} FROM leads WHERE id > ${page.afterId}::int8 ${all(sql, conds)} ${all(sql, timeConditions(sql, filter))}
      ORDER BY id LIMIT ${page.limit + 1}::int`
    return leadRows(rows)
  }

  async find(id: number): Promise<LeadRow | undefined> {
    return leadRows(await this.sql`SELECT ${this.cols} FROM leads WHERE id = ${id}::int8`)[0]
  }

  async delete(id: number): Promise<boolean> {
    return (await this.sql`DELETE FROM leads WHERE id = ${id}::int8`).count > 0
  }

  async emailOfClick(clickId: string): Promise<string | null> {
    const [row] = await this.sql`SELECT email FROM leads WHERE click_id = ${clickId} ORDER BY created_at DESC, id DESC LIMIT 1`
    return (row as { email: string } | undefined)?.email ?? null
  }
}

export class PgVisitorEventStore implements VisitorEventStore {
  private readonly sql: SQL
  private readonly cols: Fragment
  /** Each grouping's key, and how it sorts after the count (text in byte order, as SQLite's BINARY; the null key last). */
  private readonly groups: Record<'name' | 'campaign' | 'landing' | 'day', { key: Fragment; order: Fragment }>

  constructor(database: PgDatabase) {
    const sql = (this.sql = database.sql)
    this.cols = sql`id, name, click_id AS "clickId", campaign_id AS "campaignId", landing_id AS "landingId", props, url, ip, created_at AS "createdAt"`
    // The UTC day of the epoch-ms time, whatever the session's time zone (timestamp arithmetic has none).
    const day = sql`to_char(timestamp '1970-01-01' + created_at * interval '1 millisecond', 'YYYY-MM-DD')`
    this.groups = {
      name: { key: sql`name`, order: sql`name COLLATE "C"` },
      campaign: { key: sql`campaign_id`, order: sql`1 NULLS LAST` },
      landing: { key: sql`landing_id`, order: sql`1 NULLS LAST` },
      // YYYY-MM-DD: every collation sorts these alike.
      day: { key: day, order: sql`1` },
    }
  }

  /** SKIP LOCKED: two instances pruning at once take different rows. */
  async prune(cutoff: number, limit: number): Promise<number> {
    const r = await this.sql`
      DELETE FROM visitor_events WHERE id IN (
        SELECT id FROM visitor_events WHERE created_at < ${cutoff}::bigint ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)`
    return r.count
  }

  async insert(e: NewVisitorEvent): Promise<void> {
    await this.sql`INSERT INTO visitor_events (name, click_id, campaign_id, landing_id, props, url, ip, created_at)
      VALUES (${e.name}, ${e.clickId}, ${e.campaignId}::int, ${e.landingId}::int, ${e.props}, ${e.url}, ${e.ip}, ${e.createdAt}::int8)`
  }

  async list(filter: VisitorEventFilter, page: Page): Promise<VisitorEventRow[]> {
    const sql = this.sql
    const rows = await sql`SELECT ${this.cols} FROM visitor_events WHERE id > ${page.afterId}::int8 ${all(sql, this.conditions(filter))}
      ORDER BY id LIMIT ${page.limit + 1}::int`
    return eventRows(rows)
  }

  async count(filter: VisitorEventFilter, groupBy: 'name' | 'campaign' | 'landing' | 'day'): Promise<VisitorEventCount[]> {
    const sql = this.sql
    const { key, order } = this.groups[groupBy]
    const rows = await sql`SELECT ${key} AS "key", count(*) AS "count" FROM visitor_events WHERE TRUE ${all(sql, this.conditions(filter))}
      GROUP BY 1 ORDER BY 2 DESC, ${order}`
    return [...rows].map((r: Raw) => ({ key: r.key as VisitorEventCount['key'], count: num(r.count) }))
  }

  private conditions(f: VisitorEventFilter): Fragment[] {
    const sql = this.sql
    return [
      f.name === undefined ? null : sql`AND name = ${f.name}`,
      f.clickId === undefined ? null : sql`AND click_id = ${f.clickId}`,
      f.campaignId === undefined ? null : sql`AND campaign_id = ${f.campaignId}::int`,
      f.landingId === undefined ? null : sql`AND landing_id = ${f.landingId}::int`,
      ...timeConditions(sql, f),
    ].filter((c) => c !== null)
  }
}
