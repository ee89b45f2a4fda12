// The recording queries of one Postgres postback batch (pg-batch.ts), set-based where the rules allow, so
// that a batch costs a few round trips instead of two or more per postback:
//   - click lookups: every postback of the batch is started up to its first store call (the lookup, for
//     all but the ignored ones), the click ids asked for are looked up in ONE statement, and each postback
//     gets its own row from it. Clicks are never written by a postback, so reading them first changes nothing.
//   - conversion ids: that same statement draws one id of conversions_id_seq per click found (per time asked), so an insert
//     needs no RETURNING: insert() hands out the next id at once and keeps the row; the kept rows go to the
//     database in ONE multi-row insert (flush()) before any other statement of this class that could read
//     or point at them (dedup check, status update, history, error row) and at the end of the batch, before
//     the before-commit phase (the rollups) and the COMMIT. A row that fails there fails the whole flush: the
//     batch then runs again one postback per savepoint (pg-batch.ts), so the failing one alone gets a 500.
// The ids drawn but not used (a duplicate, a failed batch) are gaps, as a rolled back insert leaves on Postgres.
// In-transaction subscribers write through the transaction itself (job rows): none reads conversions.
import type { TransactionSQL } from 'bun'
import { num } from '../db/pg/client'
import { withArrayLiterals } from '../db/pg/array-literal'
import { NotCollectable, type StatementCollector } from '../db/pg/one-statement'
import { clickDayRange } from '../tracking'
import { clickSelect, PgRecording } from './pg-store'
import type { ClickForConversion, ConversionRecord, NewConversion, NewHistory, RecordingQueries } from './store'

/**
 * $2, $3: the days the batch's click ids name (clickDayRange), so only those partitions are probed.
 * One probe of the click_id hash index per id, written as a LATERAL subquery with LIMIT 1 so that no plan
 * can do otherwise: Bun prepares every statement and Postgres moves to a GENERIC plan after five runs, in which
 * `created_at >= $2 AND created_at < $3` is guessed at 0.5 % of the day. With `click_id = ANY($1)` that plan read
 * the batch's whole day through the created_at index and filtered it (20,985 rows for 16 found: /postback 3-4x
 * slower in bench:ab, and the cost grows with the day); per id, one index probe is the cheaper guess at any size.
 */
export const PREFETCH_SQL = clickSelect(
  'unnest($1::text[]) AS k(click_id) CROSS JOIN LATERAL (SELECT * FROM clicks ' +
  'WHERE click_id = k.click_id AND created_at >= $2 AND created_at < $3 LIMIT 1) c',
).replace('SELECT ', "SELECT nextval('conversions_id_seq') AS new_id, ")
const DAY_MS = 86_400_000
/** A click id naming a day outside this window (an id from before the partitions, see clickDayRange) is looked up alone. */
const PAST_DAYS = 400

/** One array per column (a fixed parameter count for any number of rows); the ids were drawn by the prefetch. */
const INSERT_SQL =
  'INSERT INTO conversions (id, click_row_id, click_id, campaign_id, source_id, offer_id, landing_id, country, path_id, type, status, ' +
  'revenue, currency, cost, transaction_id, email, date, postback_query, created_at, click_created_at) ' +
  'SELECT * FROM unnest($1::int8[], $2::int8[], $3::text[], $4::int4[], $5::int4[], $6::int4[], $7::int4[], $8::text[], $9::int4[], ' +
  '$10::text[], $11::text[], $12::float8[], $13::text[], $14::float8[], $15::text[], $16::text[], $17::int8[], $18::text[], $19::int8[], ' +
  '$20::int8[])'
const COLUMNS = 20
const NEXT_ID_SQL = "SELECT nextval('conversions_id_seq') AS id"

export class PgBatchQueries implements RecordingQueries {
  private readonly direct: PgRecording
  /** Click ids asked for before prefetch(); null once it ran. */
  private asked: string[] | null = []
  private readonly clicks = new Map<string, ClickForConversion>()
  private readonly prefetched: Promise<void>
  private release!: () => void
  private fail!: (e: unknown) => void
  /** Conversion ids drawn by the prefetch, ascending, handed out in insert order. */
  private ids: number[] = []
  private rows: unknown[][] = []

  /**
   * `collector`: the batch's one-statement path (pg-batch.ts): `tx` is then the pool (reads only) and flush()
   * hands the conversion rows to the collector; a call that needs a transaction (the dedup check, a status
   * update, an error row) throws NotCollectable and the batch runs again
   * the ordinary way.
   */
  constructor(private readonly tx: TransactionSQL, private readonly collector: StatementCollector | null = null) {
    this.direct = new PgRecording(tx)
    this.prefetched = new Promise<void>((resolve, reject) => {
      this.release = resolve
      this.fail = reject
    })
    this.prefetched.catch(() => {}) // rethrown to each lookup that waits on it
  }

  /** Looks up every click asked for so far in one statement; later lookups go one by one. */
  async prefetch(): Promise<void> {
    const asked = this.asked!
    this.asked = null
    // The days the ids name, within the partitions that can exist: ids outside go to the lookup one by one.
    const now = Date.now()
    let from = Infinity
    let to = -Infinity
    // With repeats: a click asked for twice (two conversions of it in one batch) gets a row, and an id, each time.
    const inWindow: string[] = []
    for (const id of asked) {
      const day = clickDayRange(id)
      if (!day || day[0] < now - PAST_DAYS * DAY_MS || day[0] > now + DAY_MS) continue
      inWindow.push(id)
      from = Math.min(from, day[0])
      to = Math.max(to, day[1])
    }
    if (inWindow.length === 0) return this.release()
    try {
      const rows = (await this.tx.unsafe(PREFETCH_SQL, withArrayLiterals([inWindow, from, to]))) as Array<ClickForConversion & { new_id: unknown }>
      for (const r of rows) {
        this.ids.push(num(r.new_id))
        const { new_id: _, ...click } = r
        click.id = num(click.id)
        click.created_at = num(click.created_at)
        this.clicks.set(click.click_id, click)
      }
      this.ids.sort((a, b) => a - b)
      this.release()
    } catch (e) {
      this.fail(e)
      throw e
    }
  }

  findClick(clickId: string): ClickForConversion | null | Promise<ClickForConversion | null> {
    if (this.asked) {
      this.asked.push(clickId)
      // Not among the batch's rows: a click id from before the partitions (its day is random), or unknown.
      return this.prefetched.then(() => this.cached(clickId) ?? this.direct.findClick(clickId))
    }
    const c = this.cached(clickId)
    return c ?? this.direct.findClick(clickId)
  }

  /** A copy per postback: two postbacks of one click never share the object. */
  private cached(clickId: string): ClickForConversion | null {
    const c = this.clicks.get(clickId)
    return c ? { ...c } : null
  }

  /** Throws when this batch gathers its writes into one statement: `what` needs the transaction. */
  private needsTransaction(what: string): void {
    if (this.collector) throw new NotCollectable(`${what} needs the batch's transaction`)
  }

  insert(c: NewConversion): number | Promise<number> {
    const id = this.ids.shift()
    if (id !== undefined) return this.keep(id, c)
    // A click looked up alone (an id from before the partitions): its conversion's id drawn alone too.
    if (this.collector) return this.tx.unsafe(NEXT_ID_SQL).then((r) => this.keep(num((r as Array<{ id: unknown }>)[0]!.id), c))
    return this.flush().then(() => this.direct.insert(c))
  }

  private keep(id: number, c: NewConversion): number {
    this.rows.push([id, c.clickRowId, c.clickId, c.campaignId, c.sourceId, c.offerId, c.landingId, c.country ?? null, c.pathId ?? null,
      c.type, c.status, c.revenue, c.currency, c.cost, c.transactionId, c.email, c.date, c.postbackQuery, c.now, c.clickCreatedAt])
    return id
  }

  /** Writes the kept conversion rows, in one statement, sent at once (statements sent after it run after it). */
  flush(): Promise<void> {
    if (this.rows.length === 0) return Promise.resolve()
    const cols: unknown[][] = Array.from({ length: COLUMNS }, () => [])
    for (const row of this.rows) for (let j = 0; j < COLUMNS; j++) cols[j]!.push(row[j])
    this.rows = []
    if (this.collector) {
      this.collector.first(INSERT_SQL, cols)
      return Promise.resolve()
    }
    return this.tx.unsafe(INSERT_SQL, withArrayLiterals(cols)).execute().then(() => {})
  }

  async duplicateExists(clickRowId: number, transactionId: string): Promise<boolean> {
    this.needsTransaction('the duplicate check')
    await this.flush()
    return this.direct.duplicateExists(clickRowId, transactionId)
  }

  async byTransaction(clickRowId: number, transactionId: string): Promise<ConversionRecord[]> {
    this.needsTransaction('a status update')
    await this.flush()
    return this.direct.byTransaction(clickRowId, transactionId)
  }

  async updateStatus(id: number, type: string, status: string | null, revenue: number, cost: number, query: string | null): Promise<void> {
    this.needsTransaction('a status update')
    await this.flush()
    return this.direct.updateStatus(id, type, status, revenue, cost, query)
  }

  async insertHistory(h: NewHistory): Promise<void> {
    this.needsTransaction('a status history row')
    await this.flush()
    return this.direct.insertHistory(h)
  }

  async recordError(reason: string, clickId: string | null, query: string, ip: string, now: number, conversionId: number | null = null): Promise<void> {
    this.needsTransaction('an error row')
    if (conversionId !== null) await this.flush()
    return this.direct.recordError(reason, clickId, query, ip, now, conversionId)
  }
}
