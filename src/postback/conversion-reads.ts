// The admin reads of conversions and postback errors, written once for both engines (the recording path is the
// hot-path twin: store.ts on SQLite, pg-store.ts on Postgres).
import { sql, whereAll } from '../db/sql'
import type { StoreDb } from '../db/store-db'
import type { ConversionFilter, ConversionRecord, ErrorFilter, PostbackErrorRecord, StatusHistoryRecord } from './store'

export class ConversionReads {
  /**
   * `clickRowOf`: SQLite's conversions have no click_id index (schema/conversions.ts), so a click id filter also
   * names the click's row, found through the click index, and uses (click_row_id, …); a click already pruned by
   * retention has no row any more and its conversions are found by a scan (admin reads only). Postgres has the index.
   */
  constructor(private readonly db: StoreDb, private readonly clickRowOf: (clickId: string) => number | undefined = () => undefined) {}

  async conversionById(id: number): Promise<ConversionRecord | null> {
    return (await this.db.get<ConversionRecord>(sql`SELECT * FROM conversions WHERE id = ${id}`)) ?? null
  }

  /** Newest received first. */
  listConversions(f: ConversionFilter): Promise<ConversionRecord[]> {
    const clickRow = f.clickId === undefined ? undefined : this.clickRowOf(f.clickId)
    return this.db.all<ConversionRecord>(sql`SELECT * FROM conversions ${whereAll([
      clickRow !== undefined && sql`click_row_id = ${clickRow}`,
      f.clickId !== undefined && sql`click_id = ${f.clickId}`,
      f.campaignId !== undefined && sql`campaign_id = ${f.campaignId}`,
      f.type !== undefined && sql`type = ${f.type}`,
      f.from !== undefined && sql`date >= ${f.from}`,
      f.to !== undefined && sql`date < ${f.to}`,
      f.before !== undefined && sql`id < ${f.before}`,
    ])} ORDER BY id DESC LIMIT ${f.limit}`)
  }

  /** The conversion's history rows, oldest first. */
  statusHistory(conversionId: number): Promise<StatusHistoryRecord[]> {
    return this.db.all<StatusHistoryRecord>(sql`SELECT * FROM conversion_status_history WHERE conversion_id = ${conversionId} ORDER BY id`)
  }

  /** Newest first. */
  listErrors(f: ErrorFilter): Promise<PostbackErrorRecord[]> {
    return this.db.all<PostbackErrorRecord>(sql`SELECT * FROM postback_errors ${whereAll([
      f.reason !== undefined && sql`reason = ${f.reason}`,
      f.before !== undefined && sql`id < ${f.before}`,
    ])} ORDER BY id DESC LIMIT ${f.limit}`)
  }
}
