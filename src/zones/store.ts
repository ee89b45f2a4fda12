// Blocked zones and saved views: one module for both engines over db/store-db.ts. The names shown with a
// blocked zone (source, campaign, the blocking admin's email) are read from the catalog's and users' tables.
import type { AnyDatabase } from '../db/engine'
import { raw, sql, whereAll } from '../db/sql'
import { storeDb, type StoreDb } from '../db/store-db'

export interface BlockedZoneRow {
  id: number
  sourceId: number
  sourceName: string
  campaignId: number | null
  campaignName: string | null
  dimension: string
  value: string
  reason: string | null
  blockedAt: number
  blockedBy: string | null
}

export interface SavedViewRow { id: number; screen: string; name: string; state: string; createdAt: number }

export interface ZoneFilter { sourceId?: number; campaignId?: number }

const ZONE = raw(`SELECT z.id, z.source_id AS "sourceId", s.name AS "sourceName", z.campaign_id AS "campaignId", c.name AS "campaignName",
  z.dimension, z.value, z.reason, z.blocked_at AS "blockedAt", u.email AS "blockedBy"
  FROM blocked_zones z JOIN sources s ON s.id = z.source_id LEFT JOIN campaigns c ON c.id = z.campaign_id LEFT JOIN users u ON u.id = z.blocked_by`)

const VIEW = raw('SELECT id, screen, name, state, created_at AS "createdAt" FROM saved_views')

export class ZoneStore {
  private readonly db: StoreDb

  constructor(database: AnyDatabase) {
    this.db = storeDb(database)
  }

  source(id: number): Promise<{ id: number; name: string; linkParams: string | null } | undefined> {
    return this.db.get(sql`SELECT id, name, link_params AS "linkParams" FROM sources WHERE id = ${id}`)
  }

  campaign(id: number): Promise<{ id: number; sourceId: number | null } | undefined> {
    return this.db.get(sql`SELECT id, source_id AS "sourceId" FROM campaigns WHERE id = ${id}`)
  }

  /**
   * Newest first, one page: ids below `beforeId` (none: the first page), limit + 1 rows (lib/paging.ts toPage).
   * A campaign filter shows that campaign's rows and the source-wide ones (null campaign), which block it too.
   */
  list(filter: ZoneFilter, beforeId: number | undefined, limit: number): Promise<BlockedZoneRow[]> {
    const w = whereAll([
      beforeId !== undefined && sql`z.id < ${beforeId}`,
      filter.sourceId !== undefined && sql`z.source_id = ${filter.sourceId}`,
      filter.campaignId !== undefined && sql`(z.campaign_id = ${filter.campaignId} OR z.campaign_id IS NULL)`,
    ])
    return this.db.all<BlockedZoneRow>(sql`${ZONE} ${w} ORDER BY z.id DESC LIMIT ${limit + 1}`)
  }

  get(id: number): Promise<BlockedZoneRow | undefined> {
    return this.db.get<BlockedZoneRow>(sql`${ZONE} WHERE z.id = ${id}`)
  }

  /**
   * Blocks each value once per (source, dimension, campaign or none), in one transaction: a value already
   * there is kept as it was (its date, reason and author). Returns the ids of every given value, and which
   * ones this call added.
   */
  async add(z: { sourceId: number; campaignId: number | null; dimension: string; values: readonly string[]; reason: string | null; by: number | null; at: number }): Promise<{ ids: number[]; added: Set<number> }> {
    return this.db.atomically(function* (q) {
      const ids: number[] = []
      const added = new Set<number>()
      const sameCampaign = z.campaignId === null ? sql`campaign_id IS NULL` : sql`campaign_id = ${z.campaignId}`
      for (const value of z.values) {
        const row = (yield q.get<{ id: number }>(sql`INSERT INTO blocked_zones (source_id, campaign_id, dimension, value, reason, blocked_at, blocked_by)
          VALUES (${z.sourceId}, ${z.campaignId}, ${z.dimension}, ${value}, ${z.reason}, ${z.at}, ${z.by}) ON CONFLICT DO NOTHING RETURNING id`)) as { id: number } | undefined
        if (row) {
          ids.push(row.id)
          added.add(row.id)
          continue
        }
        const kept = (yield q.get<{ id: number }>(sql`SELECT id FROM blocked_zones
          WHERE source_id = ${z.sourceId} AND dimension = ${z.dimension} AND value = ${value} AND ${sameCampaign}`)) as { id: number } | undefined
        if (kept) ids.push(kept.id)
      }
      return { ids, added }
    })
  }

  /** The rows of these ids, in the order given. */
  async byIds(ids: readonly number[]): Promise<BlockedZoneRow[]> {
    if (ids.length === 0) return []
    const rows = await this.db.all<BlockedZoneRow>(sql`${ZONE} WHERE ${this.db.inInts(raw('z.id'), ids)}`)
    const byId = new Map(rows.map((r) => [r.id, r]))
    return ids.flatMap((id) => byId.get(id) ?? [])
  }

  async delete(id: number): Promise<boolean> {
    return (await this.db.run(sql`DELETE FROM blocked_zones WHERE id = ${id}`)) > 0
  }

  views(userId: number, screen: string | undefined): Promise<SavedViewRow[]> {
    const w = whereAll([sql`user_id = ${userId}`, screen !== undefined && sql`screen = ${screen}`])
    return this.db.all<SavedViewRow>(sql`${VIEW} ${w} ORDER BY screen ${this.db.byteOrder}, name ${this.db.byteOrder}, id`)
  }

  /** The new view, or null when the user already has a view of that name on that screen. */
  async addView(userId: number, v: { screen: string; name: string; state: string }, at: number): Promise<SavedViewRow | null> {
    const row = await this.db.get<{ id: number }>(sql`INSERT INTO saved_views (user_id, screen, name, state, created_at)
      VALUES (${userId}, ${v.screen}, ${v.name}, ${v.state}, ${at}) ON CONFLICT DO NOTHING RETURNING id`)
    return row ? { id: row.id, ...v, createdAt: at } : null
  }

  /** Only the user's own view: another user's id deletes nothing. */
  async deleteView(userId: number, id: number): Promise<boolean> {
    return (await this.db.run(sql`DELETE FROM saved_views WHERE id = ${id} AND user_id = ${userId}`)) > 0
  }
}
