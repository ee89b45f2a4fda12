// The reads of the click timeline and the clicks list (issue 30), one module for both engines. The timeline
// joins what other features wrote into the same database (conversions, their status history, the forward
// jobs): read-only SQL here, so tracking needs none of those features' code (their index.ts import tracking).
import { inList, join, raw, sql, whereAll, type Sql } from '../../db/sql'
import type { StoreDb } from '../../db/store-db'
import { SUB_FIELDS } from './click'

/** The names of what a click points at (null when the record is gone or the click has none). */
export interface ClickNames {
  campaign_name: string | null
  source_name: string | null
  offer_name: string | null
  landing_name: string | null
  path_name: string | null
}

export interface TimelineConversion {
  id: number
  type: string
  status: string | null
  revenue: number
  currency: string | null
  transaction_id: string | null
  date: number
  created_at: number
  postback_query: string | null
  forward_warning: string | null
}

export interface TimelineHistory {
  id: number
  conversion_id: number
  type: string
  status: string | null
  revenue: number
  reversal_id: number | null
  query: string | null
  changed_at: number
}

export interface TimelineJob {
  id: number
  status: string
  attempts: number
  max_attempts: number
  last_error: string | null
  result: string | null
  payload: string
  next_run_at: number
  created_at: number
  updated_at: number
}

/** The forward job kind (postback/forward.ts FORWARD_JOB; written out: postback imports tracking). */
const FORWARD_JOB = 'source_postback'
/** A click's conversions shown at most (a click has a handful; a broken integration could send thousands). */
export const TIMELINE_CONVERSIONS = 200

export interface ClickListFilter {
  from: number
  to: number
  campaignId?: number
  sourceId?: number
  offerId?: number
  landingId?: number
  country?: string
  device?: string
  subs: Partial<Record<(typeof SUB_FIELDS)[number], string>>
  /** Keyset cursor: clicks strictly older than (createdAt, row) in the list's order. */
  before?: { createdAt: number; row: number }
  limit: number
}

export interface ClickListRow {
  row: number
  click_id: string
  created_at: number
  campaign_id: number
  campaign_name: string | null
  source_id: number | null
  source_name: string | null
  offer_id: number | null
  offer_name: string | null
  landing_id: number | null
  country: string | null
  device_type: string | null
  sub1: string | null; sub2: string | null; sub3: string | null; sub4: string | null; sub5: string | null
  sub6: string | null; sub7: string | null; sub8: string | null; sub9: string | null; sub10: string | null
  cost: number
  converted: number
}

const SUB_COLUMNS = SUB_FIELDS.map((f) => raw(f))

export class TimelineReads {
  constructor(private readonly db: StoreDb) {}

  /** One statement: each name a scalar subquery on a primary key. */
  async names(c: { campaignId: number; sourceId: number | null; offerId: number | null; landingId: number | null; pathId: number | null }): Promise<ClickNames> {
    const row = await this.db.get<ClickNames>(sql`SELECT
      (SELECT name FROM campaigns WHERE id = ${c.campaignId}) AS campaign_name,
      (SELECT name FROM sources WHERE id = ${c.sourceId ?? 0}) AS source_name,
      (SELECT name FROM offers WHERE id = ${c.offerId ?? 0}) AS offer_name,
      (SELECT name FROM landings WHERE id = ${c.landingId ?? 0}) AS landing_name,
      (SELECT name FROM campaign_paths WHERE id = ${c.pathId ?? 0}) AS path_name`)
    return row ?? { campaign_name: null, source_name: null, offer_name: null, landing_name: null, path_name: null }
  }

  /** The click's conversions through its row (indexed on both engines: conversions_click_tid_idx), oldest first. */
  conversions(clickRow: number): Promise<TimelineConversion[]> {
    return this.db.all<TimelineConversion>(sql`
      SELECT id, type, status, revenue, currency, transaction_id, date, created_at, postback_query, forward_warning
      FROM conversions WHERE click_row_id = ${clickRow} ORDER BY id LIMIT ${TIMELINE_CONVERSIONS}`)
  }

  /** The status-history rows of these conversions, oldest first. */
  history(conversionIds: readonly number[]): Promise<TimelineHistory[]> {
    if (conversionIds.length === 0) return Promise.resolve([])
    return this.db.all<TimelineHistory>(sql`
      SELECT id, conversion_id, type, status, revenue, reversal_id, query, changed_at
      FROM conversion_status_history WHERE conversion_id IN ${inList(conversionIds)} ORDER BY id`)
  }

  /**
   * The forward jobs of these conversions. A scan of the forwards like the admin job list's conversion_id
   * filter (jobs/list.ts): done jobs are pruned, so the table holds recent and open work only.
   */
  forwards(conversionIds: readonly number[]): Promise<Array<TimelineJob & { conversion_id: number }>> {
    if (conversionIds.length === 0) return Promise.resolve([])
    const conversionId = this.db.engine === 'postgres'
      ? sql`CAST(CAST(payload AS jsonb)->>'conversion_id' AS bigint)`
      : sql`json_extract(payload, '$.conversion_id')`
    return this.db.all(sql`
      SELECT id, status, attempts, max_attempts, last_error, result, payload, next_run_at, created_at, updated_at,
        ${conversionId} AS conversion_id
      FROM jobs WHERE kind = ${FORWARD_JOB} AND ${conversionId} IN ${inList(conversionIds)} ORDER BY id`)
  }

  /**
   * Newest first, keyset-paged on (created_at, id). Always bounded by the time range: on (campaign_id,
   * created_at) with a campaign, on created_at without one, so a page reads at most its range's index
   * entries. Names and `converted` are per-row lookups on primary keys and conversions' click_row_id index.
   */
  list(f: ClickListFilter): Promise<ClickListRow[]> {
    const subs: Sql[] = []
    SUB_FIELDS.forEach((name, i) => {
      const v = f.subs[name]
      if (v !== undefined) subs.push(sql`c.${SUB_COLUMNS[i]!} = ${v}`)
    })
    const where = whereAll([
      sql`c.created_at >= ${f.from}`,
      sql`c.created_at < ${f.to}`,
      f.campaignId !== undefined && sql`c.campaign_id = ${f.campaignId}`,
      f.sourceId !== undefined && sql`c.source_id = ${f.sourceId}`,
      f.offerId !== undefined && sql`c.offer_id = ${f.offerId}`,
      f.landingId !== undefined && sql`c.landing_id = ${f.landingId}`,
      f.country !== undefined && sql`c.country = ${f.country}`,
      f.device !== undefined && sql`c.device_type = ${f.device}`,
      subs.length > 0 && join(subs, ' AND '),
      f.before !== undefined && sql`(c.created_at < ${f.before.createdAt} OR (c.created_at = ${f.before.createdAt} AND c.id < ${f.before.row}))`,
    ])
    return this.db.all<ClickListRow>(sql`
      SELECT c.id AS row, c.click_id, c.created_at, c.campaign_id, c.source_id, c.offer_id, c.landing_id, c.country, c.device_type,
        c.sub1, c.sub2, c.sub3, c.sub4, c.sub5, c.sub6, c.sub7, c.sub8, c.sub9, c.sub10, c.cost,
        (SELECT name FROM campaigns WHERE id = c.campaign_id) AS campaign_name,
        (SELECT name FROM sources WHERE id = c.source_id) AS source_name,
        (SELECT name FROM offers WHERE id = c.offer_id) AS offer_name,
        CASE WHEN EXISTS (SELECT 1 FROM conversions v WHERE v.click_row_id = c.id) THEN 1 ELSE 0 END AS converted
      FROM clicks c ${where}
      ORDER BY c.created_at DESC, c.id DESC LIMIT ${f.limit}`)
  }
}
