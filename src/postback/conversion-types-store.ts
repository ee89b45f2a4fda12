// SQL of conversion types and the status map on SQLite, and the engine-neutral interface
// (PgConversionTypesStore in pg-conversion-types-store.ts is the Postgres one). The two loaders feed the
// in-memory cache that /postback reads (src/postback/conversion-types.ts): synchronous here, so the SQLite
// cache is loaded before the constructor returns; async on Postgres. The admin writes return Promises.
import type { RawDb, RawStatement } from '../db/client'
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

export interface ConversionTypesStore {
  /** Built-in first, then by slug. */
  loadTypes(): MaybeAsync<ConversionTypeRecord[]>
  /** By status. */
  loadStatusMap(): MaybeAsync<StatusMapRow[]>
  exists(slug: string): Promise<boolean>
  insert(t: ConversionTypeRow, now: number): Promise<void>
  update(t: ConversionTypeRow, now: number): Promise<void>
  remove(slug: string): Promise<void>
  countConversionsOfType(slug: string): Promise<number>
  /** By status. */
  statusesMappedTo(slug: string): Promise<string[]>
  /** Atomically: nobody reads a half-replaced map. */
  replaceStatusMap(entries: Array<[string, string]>): Promise<void>
}

export class SqliteConversionTypesStore implements ConversionTypesStore {
  private readonly allTypes: RawStatement
  private readonly allStatusMap: RawStatement

  constructor(private readonly raw: RawDb) {
    this.allTypes = raw.prepare('SELECT * FROM conversion_types ORDER BY builtin DESC, slug')
    this.allStatusMap = raw.prepare('SELECT status, type_slug FROM status_map ORDER BY status')
  }

  loadTypes(): ConversionTypeRecord[] {
    return this.allTypes.all() as ConversionTypeRecord[]
  }

  loadStatusMap(): StatusMapRow[] {
    return this.allStatusMap.all() as StatusMapRow[]
  }

  async exists(slug: string): Promise<boolean> {
    return this.raw.prepare('SELECT 1 AS hit FROM conversion_types WHERE slug = $slug').get({ slug }) !== undefined
  }

  async insert(t: ConversionTypeRow, now: number): Promise<void> {
    this.raw
      .prepare(
        'INSERT INTO conversion_types (slug, name, include_in_conversions, include_in_revenue, send_postback, negative, builtin, created_at, updated_at) ' +
          'VALUES ($slug, $name, $include_in_conversions, $include_in_revenue, $send_postback, $negative, 0, $now, $now)',
      )
      .run({ ...t, now })
  }

  async update(t: ConversionTypeRow, now: number): Promise<void> {
    this.raw
      .prepare(
        'UPDATE conversion_types SET name = $name, include_in_conversions = $include_in_conversions, ' +
          'include_in_revenue = $include_in_revenue, send_postback = $send_postback, negative = $negative, updated_at = $now ' +
          'WHERE slug = $slug',
      )
      .run({ ...t, now })
  }

  async remove(slug: string): Promise<void> {
    this.raw.prepare('DELETE FROM conversion_types WHERE slug = $slug').run({ slug })
  }

  async countConversionsOfType(slug: string): Promise<number> {
    return (this.raw.prepare('SELECT count(*) AS n FROM conversions WHERE type = $slug').get({ slug }) as { n: number }).n
  }

  async statusesMappedTo(slug: string): Promise<string[]> {
    return (this.raw.prepare('SELECT status FROM status_map WHERE type_slug = $slug ORDER BY status').all({ slug }) as Array<{ status: string }>)
      .map((r) => r.status)
  }

  async replaceStatusMap(entries: Array<[string, string]>): Promise<void> {
    this.raw.transaction(() => {
      this.raw.exec('DELETE FROM status_map')
      const ins = this.raw.prepare('INSERT INTO status_map (status, type_slug) VALUES ($status, $slug)')
      for (const [status, slug] of entries) ins.run({ status, slug })
    })()
  }
}
