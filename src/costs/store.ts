// The cost_updates history (one row per local day of an update) and the campaign lookups a cost update needs;
// one module for both engines over db/store-db.ts.
import type { AnyDatabase } from '../db/engine'
import { raw, sql, whereAll } from '../db/sql'
import { storeDb, type StoreDb } from '../db/store-db'

export interface CostUpdateRow {
  id: number
  campaignId: number
  day: string
  timeZone: string
  subName: string | null
  subValue: string | null
  amount: number
  currency: string
  clicks: number
  createdBy: string
  createdAt: number
}

export type NewCostUpdate = Omit<CostUpdateRow, 'id'>

const COLUMNS = raw('id, campaign_id AS "campaignId", day, time_zone AS "timeZone", sub_name AS "subName", sub_value AS "subValue", ' +
  'amount, currency, clicks, created_by AS "createdBy", created_at AS "createdAt"')

export class CostUpdateStore {
  private readonly db: StoreDb

  constructor(database: AnyDatabase) {
    this.db = storeDb(database)
  }

  /** The campaign of an id, or of a slug (the CSV names campaigns either way); reads the catalog's table. */
  async campaign(ref: { id: number } | { slug: string }): Promise<{ id: number; slug: string } | undefined> {
    return 'id' in ref
      ? this.db.get(sql`SELECT id, slug FROM campaigns WHERE id = ${ref.id}`)
      : this.db.get(sql`SELECT id, slug FROM campaigns WHERE slug = ${ref.slug}`)
  }

  async add(rows: readonly NewCostUpdate[]): Promise<void> {
    if (rows.length === 0) return
    await this.db.atomically(function* (q) {
      for (const r of rows) {
        yield q.run(sql`INSERT INTO cost_updates (campaign_id, day, time_zone, sub_name, sub_value, amount, currency, clicks, created_by, created_at)
          VALUES (${r.campaignId}, ${r.day}, ${r.timeZone}, ${r.subName}, ${r.subValue}, ${r.amount}, ${r.currency}, ${r.clicks}, ${r.createdBy}, ${r.createdAt})`)
      }
    })
  }

  /** Oldest first, one page: ids after `afterId`, limit + 1 rows (lib/paging.ts toPage). */
  list(filter: { campaignId?: number }, afterId: number, limit: number): Promise<CostUpdateRow[]> {
    const w = whereAll([sql`id > ${afterId}`, filter.campaignId !== undefined && sql`campaign_id = ${filter.campaignId}`])
    return this.db.all<CostUpdateRow>(sql`SELECT ${COLUMNS} FROM cost_updates ${w} ORDER BY id LIMIT ${limit + 1}`)
  }
}
