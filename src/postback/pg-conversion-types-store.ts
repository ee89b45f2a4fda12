// SQL of conversion types and the status map on Postgres (the SQLite store is conversion-types-store.ts).
// Same rows, same order; flags stay integers 0/1, times are int8 read back as numbers.
import type { SQL } from 'bun'
import type { PgDatabase } from '../db/pg/client'
import { numCols } from '../db/pg/client'
import type { ConversionTypeRecord, ConversionTypeRow, ConversionTypesStore, StatusMapRow } from './conversion-types-store'

export class PgConversionTypesStore implements ConversionTypesStore {
  private readonly sql: SQL

  constructor(db: PgDatabase) {
    this.sql = db.sql
  }

  async loadTypes(): Promise<ConversionTypeRecord[]> {
    // COLLATE "C": byte order, as SQLite's BINARY collation sorts the slugs.
    const rows = await this.sql`SELECT * FROM conversion_types ORDER BY builtin DESC, slug COLLATE "C"`
    return numCols(rows as Record<string, unknown>[], 'created_at', 'updated_at') as unknown as ConversionTypeRecord[]
  }

  async loadStatusMap(): Promise<StatusMapRow[]> {
    return (await this.sql`SELECT status, type_slug FROM status_map ORDER BY status COLLATE "C"`) as StatusMapRow[]
  }

  async exists(slug: string): Promise<boolean> {
    return (await this.sql`SELECT 1 AS hit FROM conversion_types WHERE slug = ${slug}`).length > 0
  }

  async insert(t: ConversionTypeRow, now: number): Promise<void> {
    await this.sql`
      INSERT INTO conversion_types (slug, name, include_in_conversions, include_in_revenue, send_postback, negative, builtin, created_at, updated_at)
      VALUES (${t.slug}, ${t.name}, ${t.include_in_conversions}, ${t.include_in_revenue}, ${t.send_postback}, ${t.negative}, 0, ${now}, ${now})`
  }

  async update(t: ConversionTypeRow, now: number): Promise<void> {
    await this.sql`
      UPDATE conversion_types SET name = ${t.name}, include_in_conversions = ${t.include_in_conversions},
        include_in_revenue = ${t.include_in_revenue}, send_postback = ${t.send_postback}, negative = ${t.negative},
        updated_at = ${now}
      WHERE slug = ${t.slug}`
  }

  async remove(slug: string): Promise<void> {
    await this.sql`DELETE FROM conversion_types WHERE slug = ${slug}`
  }

  async countConversionsOfType(slug: string): Promise<number> {
    const rows = await this.sql`SELECT count(*)::int AS n FROM conversions WHERE type = ${slug}`
    return rows[0].n as number
  }

  async statusesMappedTo(slug: string): Promise<string[]> {
    const rows = await this.sql`SELECT status FROM status_map WHERE type_slug = ${slug} ORDER BY status COLLATE "C"`
    return (rows as Array<{ status: string }>).map((r) => r.status)
  }

  async replaceStatusMap(entries: Array<[string, string]>): Promise<void> {
    await this.sql.begin(async (tx) => {
      await tx`DELETE FROM status_map`
      if (entries.length) await tx`INSERT INTO status_map ${tx(entries.map(([status, type_slug]) => ({ status, type_slug })))}`
    })
  }
}
