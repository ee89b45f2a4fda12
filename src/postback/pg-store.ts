// SQL of conversions and postback errors on Postgres (the SQLite store is store.ts). Every call is async.
// The recording path runs through `in(tx)`: the same queries bound to the batch's savepoint or the
// recorder's transaction, so they join it (a Postgres transaction is a connection of its own).
import type { SQL, TransactionSQL } from 'bun'
import type { PgDatabase } from '../db/pg/client'
import { num, numCols } from '../db/pg/client'
import { conversions } from '../db/schema'
import { int8Columns } from '../db/table'
import { runAsync, type Steps } from '../lib/steps'
import { clickDayRange } from '../tracking'
import {
  POSTBACK_ERRORS_KEEP,
  type ClickForConversion,
  type ConversionRecord,
  type NewConversion,
  type NewHistory,
  TRANSACTION_ROWS,
  type PostbackStore,
  type RecordingQueries,
} from './store'

/** Namespace of the advisory locks that serialise the duplicate check of one click across instances. */
const DEDUP_LOCK = 0x70627464 // "pbtd"

/** The click with everything a conversion needs, read from `from` (which names the click row `c`). */
export const clickSelect = (from: string) =>
  'SELECT c.id, c.click_id, c.created_at, c.campaign_id, c.source_id, c.offer_id, c.landing_id, c.country, c.path_id, c.excluded, ' +
  'o.payout AS offer_payout, o.currency AS offer_currency, s.postback_url AS source_postback_url, ' +
  'cp.external_id AS campaign_external_id, ' +
  "CASE WHEN cp.cost_model = 'revshare' THEN cp.revshare_percent ELSE 0 END AS campaign_revshare " +
  `FROM ${from} LEFT JOIN offers o ON o.id = c.offer_id LEFT JOIN sources s ON s.id = c.source_id ` +
  'LEFT JOIN campaigns cp ON cp.id = c.campaign_id '
/** $1: its click id; also the batch's prefetch (pg-batch-queries.ts). */
const CLICK_SELECT = clickSelect('clicks c')
const CLICK_BY_ID_SQL = CLICK_SELECT + 'WHERE c.click_id = $1'
/** The same within the UTC day the click id names ($2, $3): one partition, one index probe. */
const CLICK_IN_DAY_SQL = CLICK_BY_ID_SQL + ' AND c.created_at >= $2 AND c.created_at < $3'

/** The recording queries through one connection, transaction or savepoint handle. */
export class PgRecording implements RecordingQueries {
  constructor(protected readonly sql: SQL) {}

  // clicks has a hash index on click_id per day partition on Postgres (drizzle-pg/0034): the day the click id names
  // is probed first (one partition), then every partition (ids made before the upgrade or on SQLite).
  async findClick(clickId: string): Promise<ClickForConversion | null> {
    const day = clickDayRange(clickId)
    return (day && await this.clickIn(CLICK_IN_DAY_SQL, [clickId, day[0], day[1]])) || this.clickIn(CLICK_BY_ID_SQL, [clickId])
  }

  private async clickIn(text: string, values: unknown[]): Promise<ClickForConversion | null> {
    const rows = await this.sql.unsafe(text, values)
    const row = rows[0] as ClickForConversion | undefined
    if (!row) return null
    row.id = num(row.id)
    row.created_at = num(row.created_at)
    return row
  }

  /**
   * Several instances may receive the same postback at once: a transaction-scoped advisory lock on the
   * click makes the check and the insert that follows it one step across instances (as the single SQLite
   * writer does). It is taken only on the dedup path and released when the transaction ends (or its
   * savepoint rolls back).
   */
  async duplicateExists(clickRowId: number, transactionId: string): Promise<boolean> {
    const [, rows] = await Promise.all([this.dedupLock(clickRowId), this.sql`
      SELECT 1 AS hit FROM conversions WHERE click_row_id = ${clickRowId} AND transaction_id = ${transactionId} LIMIT 1`])
    return rows.length > 0
  }

  /**
   * The status-update mode's read of a click's conversions with this tid, under the dedup path's advisory
   * lock: two instances updating the same conversion at once take turns (the second reads what the first
   * committed), as the single SQLite writer does.
   */
  async byTransaction(clickRowId: number, transactionId: string): Promise<ConversionRecord[]> {
    const [, rows] = await Promise.all([this.dedupLock(clickRowId), this.sql`
      SELECT * FROM conversions WHERE click_row_id = ${clickRowId} AND transaction_id = ${transactionId}
      ORDER BY id DESC LIMIT ${TRANSACTION_ROWS}`])
    return conversionRows(rows)
  }

  /**
   * The lock and the read after it are sent together (pipelined: one round trip). They stay two statements:
   * the read's snapshot must be taken after the lock is granted, so it sees what the holder committed.
   */
  private dedupLock(clickRowId: number) {
    return this.sql`SELECT pg_advisory_xact_lock(${DEDUP_LOCK}::int, (${clickRowId}::bigint % 2147483647)::int)`
  }

  async updateStatus(id: number, type: string, status: string | null, revenue: number, cost: number, query: string | null): Promise<void> {
    await this.sql`
      UPDATE conversions SET type = ${type}, status = ${status}, revenue = ${revenue}, cost = ${cost}, postback_query = ${query} WHERE id = ${id}`
  }

  async insertHistory(h: NewHistory): Promise<void> {
    await this.sql`
      INSERT INTO conversion_status_history (conversion_id, type, status, revenue, reversal_id, query, changed_at)
      VALUES (${h.conversionId}, ${h.type}, ${h.status}, ${h.revenue}, ${h.reversalId}, ${h.query}, ${h.now})`
  }

  async insert(c: NewConversion): Promise<number> {
    const rows = await this.sql`
      INSERT INTO conversions (click_row_id, click_created_at, click_id, campaign_id, source_id, offer_id, landing_id, country, path_id,
        type, status, revenue, currency, cost, transaction_id, email, date, postback_query, created_at)
      VALUES (${c.clickRowId}, ${c.clickCreatedAt}, ${c.clickId}, ${c.campaignId}, ${c.sourceId}, ${c.offerId}, ${c.landingId}, ${c.country ?? null},
        ${c.pathId ?? null}, ${c.type},
        ${c.status}, ${c.revenue}, ${c.currency}, ${c.cost}, ${c.transactionId}, ${c.email}, ${c.date}, ${c.postbackQuery}, ${c.now})
      RETURNING id`
    return num(rows[0].id)
  }

  async recordError(reason: string, clickId: string | null, query: string, ip: string, now: number, conversionId: number | null = null): Promise<void> {
    const rows = await this.sql`
      INSERT INTO postback_errors (reason, click_id, query, ip, conversion_id, created_at)
      VALUES (${reason}, ${clickId}, ${query}, ${ip}, ${conversionId}, ${now})
      RETURNING id`
    // As on SQLite: every 1000th row prunes what lies more than POSTBACK_ERRORS_KEEP rows back. A sequence
    // value lost to a rollback can skip one prune; the next multiple of 1000 catches up.
    const id = num(rows[0].id)
    if (id % 1000 === 0) await this.sql`DELETE FROM postback_errors WHERE id <= ${id - POSTBACK_ERRORS_KEEP}`
  }
}

export class PgPostbackStore extends PgRecording implements PostbackStore {
  /** The connection pool (the postback batch's one-statement path reads and writes through it, pg-batch.ts). */
  readonly pool: SQL

  constructor(db: PgDatabase) {
    super(db.sql)
    this.pool = db.sql
  }

  /** The recording queries bound to `tx` (a transaction or savepoint handle). */
  in(tx: TransactionSQL): RecordingQueries {
    return new PgRecording(tx)
  }

  /** One transaction on a pooled connection; `fn` gets its handle. */
  begin<T>(fn: (tx: TransactionSQL) => Promise<T>): Promise<T> {
    return this.pool.begin(fn) as Promise<T>
  }

  atomically<R>(body: (q: RecordingQueries, tx: TransactionSQL) => Steps<R>): Promise<R> {
    return this.begin((tx) => runAsync(body(this.in(tx), tx)))
  }
}

/** The int8 columns of a whole conversion row (from the schema), read back as numbers as on SQLite. */
const CONVERSION_INT8 = int8Columns(conversions)

function conversionRows(rows: unknown): ConversionRecord[] {
  return numCols(rows as Record<string, unknown>[], ...CONVERSION_INT8) as unknown as ConversionRecord[]
}
