// The Postgres click store. Several svc instances share the database, so nothing about clicks is kept in
// process memory beyond the batch being gathered: lookups go through the UNIQUE index on click_id (no
// tail, no buckets), and a click one instance committed is findable from every other at once.
//
// Group commit as on SQLite: every click appended in one event-loop turn goes into one transaction
// (pg-commit.ts) and each request's 302 waits for it. Up to `inFlight` batches commit at once, each on a
// pooled connection of its own and on a click rollup shard of its own (drizzle-pg/0032), so one batch's WAL
// flush and another's statements overlap and batches of one campaign never wait on each other's row locks.
// The default is ONE: measured on the 2-core machine (docs/performance.md, issue 31), two in flight halved the
// batches and raised Postgres' CPU per click from ~70 to ~130 µs, and that CPU is what limits there; a database
// with cores of its own may gain from more (not measured). Instances start at random shards, so two instances
// on one database mostly write different rollup rows.
// When every slot is busy, clicks gather for the next free one: under load batches grow instead of queueing.
// Amends (repoint, landing view, click-through) go only in a batch started once every earlier batch has
// committed: an amend never races an earlier batch holding its click (or an earlier amend of it).
import type { PgDatabase } from '../../db/pg/client'
import { num, numCols } from '../../db/pg/client'
import type { EventBus } from '../../lib/event-bus'
import { errorFields, log } from '../../lib/log'
import { CLICK_COLUMNS, CONTINUE_FIELDS, CLICK_FIELDS, type Click, type ClickField, type ContinuableClick, type StoredClick } from './click'
import { newBatch, type Batch } from './group-commit'
import { CLICK_ROLLUP_SHARDS, commitPg } from './pg-commit'
import { pgClickCosts } from './pg-reprice'
import type { ClickCosts } from './reprice'
import { WriterUnavailable, type ClickAmend, type ClickRange, type ClickStore, type UniqueClick } from './types'

const COLUMN_OF = new Map<string, string>(CLICK_COLUMNS)
/** `column AS "field"`: Postgres folds unquoted aliases to lower case. Constant text from CLICK_COLUMNS. */
const pgSelectList = (fields: readonly ClickField[]) => fields.map((f) => `${COLUMN_OF.get(f)} AS "${f}"`).join(', ')
const FIND_SQL = `SELECT id AS "row", ${pgSelectList(CONTINUE_FIELDS)} FROM clicks WHERE click_id = $1`
const RECORD_SQL = `SELECT id AS "row", ${pgSelectList(CLICK_FIELDS)} FROM clicks WHERE click_id = $1`
/** An export page ($1 lower bound, $2 to, $3/$4 the cursor, $5 limit, $6 campaign): see clicksAfter. */
const exportSql = (campaign: string) =>
  `SELECT id AS "row", ${pgSelectList(CLICK_FIELDS)} FROM clicks WHERE ${campaign}created_at >= $1 AND created_at < $2 ` +
  'AND (created_at > $3 OR id > $4) ORDER BY created_at, id LIMIT $5'
const EXPORT_SQL = exportSql('')
const EXPORT_CAMPAIGN_SQL = exportSql('campaign_id = $6 AND ')


export interface PgClickStoreOptions {
  /** Clicks (and amends) allowed to wait for a commit, in flight or gathering; beyond that appends are refused (503). */
  maxPending?: number
  /** Batches committing at once (default 1, at most CLICK_ROLLUP_SHARDS); each holds a pooled connection. */
  inFlight?: number
  /** Told the size of every committed batch (tests, metrics). */
  onBatch?: (size: { clicks: number; repoints: number }) => void
}

export class PgClickStore implements ClickStore {
  private gathering: Batch | null = null
  /** The batches committing now, by slot; a slot's rollup shard is (shardBase + slot) % CLICK_ROLLUP_SHARDS. */
  private readonly running = new Map<number, Promise<void>>()
  /** Clicks and amends waiting: gathering plus in flight (maxPending bounds it). */
  private pending = 0
  private scheduled = false
  private closed = false
  private readonly maxPending: number
  private readonly slots: number
  /** Where this instance's shards start: two instances on one database mostly write different rows. */
  private readonly shardBase = Math.floor(Math.random() * CLICK_ROLLUP_SHARDS)

  constructor(private readonly db: PgDatabase, private readonly events: EventBus, private readonly opts: PgClickStoreOptions = {}) {
    this.maxPending = opts.maxPending ?? 20_000
    this.slots = Math.max(1, Math.min(CLICK_ROLLUP_SHARDS, opts.inFlight ?? 1))
  }

  append(click: Click): Promise<void> {
    try {
      const b = this.open()
      b.clicks.push(click)
      return b.promise
    } catch (err) {
      return Promise.reject(err)
    }
  }

  repoint(row: number, offerId: number, landingId: number | null): Promise<void> {
    return this.amend({ row, offerId, landingId })
  }

  amend(a: ClickAmend): Promise<void> {
    try {
      const b = this.open()
      b.amends.push(a)
      return b.promise
    } catch (err) {
      return Promise.reject(err)
    }
  }

  /** Its own transaction, outside the batches (seeds, imports). */
  async import(clicks: readonly Click[]): Promise<number[]> {
    if (this.closed) throw new WriterUnavailable('click writer is stopped')
    if (clicks.length === 0) return []
    const rows = await commitPg(this.db.sql, clicks, [])
    this.events.committed('click.committed', { clicks, rows })
    return rows
  }

  /** Nothing to do: the targeting rollups are written with the clicks here (pg-commit.ts). */
  settle(): void {}

  costs(): ClickCosts {
    return pgClickCosts(this.db.sql)
  }

  async rowOf(clickId: string): Promise<number | undefined> {
    const [r] = await this.db.sql`SELECT id FROM clicks WHERE click_id = ${clickId}`
    return r ? num(r.id) : undefined
  }

  async find(clickId: string): Promise<ContinuableClick | undefined> {
    const [r] = await this.db.sql.unsafe(FIND_SQL, [clickId])
    return r ? numCols([r], 'row', 'landingClickedAt')[0] : undefined
  }

  async record(clickId: string): Promise<StoredClick | undefined> {
    const [r] = await this.db.sql.unsafe(RECORD_SQL, [clickId])
    if (!r) return undefined
    numCols([r], 'row', 'createdAt', 'landingViewedAt', 'landingClickedAt', 'asn')
    // Flags are stored as 0/1.
    r.excluded = r.excluded === 1
    r.isUnique = r.isUnique === 1
    return r as StoredClick
  }

  /**
   * Deletes up to `limit` clicks created before `cutoff`, oldest first, in one statement. SKIP LOCKED: two
   * instances pruning at once take different rows instead of waiting for each other.
   */
  async prune(cutoff: number, limit: number): Promise<number> {
    const r = await this.db.sql`
      DELETE FROM clicks WHERE id IN (
        SELECT id FROM clicks WHERE created_at < ${cutoff} ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)`
    return r.count
  }

  async recentUniques(since: number): Promise<UniqueClick[]> {
    const rows = await this.db.sql`
      SELECT campaign_id AS "campaignId", ip, user_agent AS "userAgent", created_at AS "createdAt"
      FROM clicks WHERE created_at >= ${since} AND is_unique = 1 ORDER BY created_at`
    return numCols(rows as Array<Record<string, unknown>>, 'createdAt') as unknown as UniqueClick[]
  }

  /** One page of an export; the lower bound moves up with the cursor, so a page never rescans the pages before it. */
  async clicksAfter(range: ClickRange, createdAt: number, row: number, limit: number): Promise<StoredClick[]> {
    const args = [Math.max(range.from, createdAt), range.to, createdAt, row, limit]
    const rows = range.campaignId === undefined
      ? await this.db.sql.unsafe(EXPORT_SQL, args)
      : await this.db.sql.unsafe(EXPORT_CAMPAIGN_SQL, [...args, range.campaignId])
    numCols(rows as Array<Record<string, unknown>>, 'row', 'createdAt', 'landingViewedAt', 'landingClickedAt', 'asn')
    for (const r of rows) {
      r.excluded = r.excluded === 1
      r.isUnique = r.isUnique === 1
    }
    return rows as StoredClick[]
  }

  /** Nothing runs in the background on Postgres (no click index, the server checkpoints itself). */
  start(): void {}

  /** Commits everything still pending, then refuses new clicks. */
  async stop(): Promise<void> {
    this.closed = true
    while (this.running.size > 0 || this.gathering) {
      this.flush()
      // commit() never rejects: a failed batch rejects its own waiters.
      if (this.running.size > 0) await Promise.race(this.running.values())
    }
  }

  private open(): Batch {
    if (this.closed) throw new WriterUnavailable('click writer is stopped')
    if (this.pending >= this.maxPending) throw new WriterUnavailable('too many clicks waiting for commit')
    let b = this.gathering
    if (!b) b = this.gathering = newBatch()
    this.pending++
    // End of this event-loop turn, not a timer; when no slot is free, the next batch to finish flushes instead.
    if (!this.scheduled) {
      this.scheduled = true
      setImmediate(this.flush)
    }
    return b
  }

  private readonly flush = (): void => {
    this.scheduled = false
    const b = this.gathering
    if (!b || this.running.size >= this.slots) return
    // Amends wait until every batch started before them has committed (the last one to finish flushes again).
    if (b.amends.length > 0 && this.running.size > 0) return
    let slot = 0
    while (this.running.has(slot)) slot++
    this.gathering = null
    const shard = (this.shardBase + slot) % CLICK_ROLLUP_SHARDS
    const done = this.commit(b, shard).finally(() => {
      this.running.delete(slot)
      this.pending -= b.clicks.length + b.amends.length
      // What gathered meanwhile goes next, at once.
      if (this.gathering) this.flush()
    })
    this.running.set(slot, done)
  }

  private async commit(b: Batch, shard: number): Promise<void> {
    let rows: number[]
    try {
      rows = await commitPg(this.db.sql, b.clicks, b.amends, shard)
    } catch (err) {
      log.error('tracking: a batch of clicks was not committed', { clicks: b.clicks.length, error: errorFields(err).error })
      b.reject(err)
      return
    }
    this.opts.onBatch?.({ clicks: b.clicks.length, repoints: b.amends.length })
    if (b.clicks.length > 0) this.events.committed('click.committed', { clicks: b.clicks, rows })
    b.resolve()
  }
}
