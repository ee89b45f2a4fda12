// SQL of conversion types and the status map, one module for both engines (db/store-db.ts). The cache that
// /postback reads (conversion-types.ts) loads both tables through load(): one snapshot, synchronous on
// SQLite (so the cache is filled before ConversionTypes' constructor returns), a read-only transaction on
// Postgres. The admin writes return Promises; their rules (built in, in use, mapped) are in type-verbs.ts.
import type { AnyDatabase } from '../db/engine'
import { join, sql } from '../db/sql'
import { storeDb, type StoreDb } from '../db/store-db'
import type { MaybeAsync } from '../lib/steps'

export interface ConversionTypeRecord {
  slug: string
  name: string
  include_in_conversions: number
  include_in_revenue: number
  send_postback: number
  negative: number
  builtin: number
  created_at: number
  updated_at: number
}

export type ConversionTypeRow = Omit<ConversionTypeRecord, 'builtin' | 'created_at' | 'updated_at'>

export type StatusMapRow = { status: string; type_slug: string }

export class ConversionTypesStore {
  private readonly db: StoreDb

  constructor(database: AnyDatabase) {
    this.db = storeDb(database)
  }

  // Slugs and statuses sort by byte order on both engines (db.byteOrder), as the API has always listed them.
  private readonly typesSql = () => sql`SELECT * FROM conversion_types ORDER BY builtin DESC, slug ${this.db.byteOrder}`
  private readonly statusMapSql = () => sql`SELECT status, type_slug FROM status_map ORDER BY status ${this.db.byteOrder}`

  /** Both tables as one snapshot (types built in first, then by slug; the map by status): synchronous on SQLite. */
  load(): MaybeAsync<{ types: ConversionTypeRecord[]; statusMap: StatusMapRow[] }> {
    const typesSql = this.typesSql()
    const statusMapSql = this.statusMapSql()
    return this.db.snapshot(function* (q) {
      const types: ConversionTypeRecord[] = yield q.all(typesSql)
      const statusMap: StatusMapRow[] = yield q.all(statusMapSql)
      return { types, statusMap }
    })
  }

  /** Built in first, then by slug. */
  loadTypes(): Promise<ConversionTypeRecord[]> {
    return this.db.all<ConversionTypeRecord>(this.typesSql())
  }

  async exists(slug: string): Promise<boolean> {
    return (await this.db.get(sql`SELECT 1 AS hit FROM conversion_types WHERE slug = ${slug}`)) !== undefined
  }

  async insert(t: ConversionTypeRow, now: number): Promise<void> {
    await this.db.run(sql`
      INSERT INTO conversion_types (slug, name, include_in_conversions, include_in_revenue, send_postback, negative, builtin, created_at, updated_at)
      VALUES (${t.slug}, ${t.name}, ${t.include_in_conversions}, ${t.include_in_revenue}, ${t.send_postback}, ${t.negative}, 0, ${now}, ${now})`)
  }

  async update(t: ConversionTypeRow, now: number): Promise<void> {
    await this.db.run(sql`
      UPDATE conversion_types SET name = ${t.name}, include_in_conversions = ${t.include_in_conversions},
        include_in_revenue = ${t.include_in_revenue}, send_postback = ${t.send_postback}, negative = ${t.negative}, updated_at = ${now}
      WHERE slug = ${t.slug}`)
  }

  async remove(slug: string): Promise<void> {
    await this.db.run(sql`DELETE FROM conversion_types WHERE slug = ${slug}`)
  }

  async countConversionsOfType(slug: string): Promise<number> {
    return (await this.db.get<{ n: number }>(sql`SELECT count(*) AS n FROM conversions WHERE type = ${slug}`))!.n
  }

  /** By status. */
  async statusesMappedTo(slug: string): Promise<string[]> {
    const rows = await this.db.all<{ status: string }>(sql`SELECT status FROM status_map WHERE type_slug = ${slug} ORDER BY status ${this.db.byteOrder}`)
    return rows.map((r) => r.status)
  }

  /** In one transaction: nobody reads a half-replaced map. */
  replaceStatusMap(entries: Array<[string, string]>): Promise<void> {
    return this.db.atomically(function* (q) {
      yield q.run(sql`DELETE FROM status_map`)
      if (entries.length) yield q.run(sql`INSERT INTO status_map (status, type_slug) VALUES ${join(entries.map(([s, t]) => sql`(${s}, ${t})`))}`)
    })
  }
}
