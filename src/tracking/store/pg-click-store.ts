// The Postgres click store. Several svc instances share the database, so nothing about clicks is kept in
// process memory beyond the batch being gathered: lookups go through the click_id hash index of the
// click's day partition (pg-partitions.ts; no tail, no buckets), and a click one instance committed is
// findable from every other at once.
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
import { analyzeDay, ANALYZE_AFTER_CLICKS, clickDayRange, DAY_MS, dayOf, dropDaysBefore, ensurePartitions, newPgClickId } from './pg-partitions'
import type { ClickCosts } from './reprice'
import { WriterUnavailable, type ClickAmend, type ClickRange, type ClickStore, type UniqueClick } from './types'

const COLUMN_OF = new Map<string, string>(CLICK_COLUMNS)
/** `column AS "field"`: Postgres folds unquoted aliases to lower case. Constant text from CLICK_COLUMNS. */
const pgSelectList = (fields: readonly ClickField[]) => fields.map((f) => `${COLUMN_OF.get(f)} AS "${f}"`).join(', ')
const FIND_SQL = `SELECT id AS "row", ${pgSelectList(CONTINUE_FIELDS)} FROM clicks WHERE click_id = $1`
const RECORD_SQL = `SELECT id AS "row", ${pgSelectList(CLICK_FIELDS)} FROM clicks WHERE click_id = $1`
const ROW_SQL = 'SELECT id AS "row" FROM clicks WHERE click_id = $1'
/** The same lookups within the UTC day the id names ($2, $3: clickDayRange): one partition, one index probe. */
const IN_DAY = ' AND created_at >= $2 AND created_at < $3'
export const FIND_DAY_SQL = FIND_SQL + IN_DAY
const RECORD_DAY_SQL = RECORD_SQL + IN_DAY
const ROW_DAY_SQL = ROW_SQL + IN_DAY
/** Rows of the default partition (clicks of a day without its partition) deleted per prune chunk. */
const PRUNE_DEFAULT_SQL =
  'DELETE FROM click_days.clicks_default WHERE ctid = ANY(ARRAY(' +
  'SELECT ctid FROM click_days.clicks_default WHERE created_at < $1 ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED))'
/** An export page ($1 lower bound, $2 to, $3/$4 the cursor, $5 limit, $6 campaign): see clicksAfter. */
const exportSql = (campaign: string) =>
  `SELECT id AS "row", ${pgSelectList(CLICK_FIELDS)} FROM clicks WHERE ${campaign}created_at >= $1 AND created_at < $2 ` +
  'AND (created_at > $3 OR id > $4) ORDER BY created_at, id LIMIT $5'
const EXPORT_SQL = exportSql('')
const EXPORT_CAMPAIGN_SQL = exportSql('campaign_id = $6 AND ')


/** How often the day partitions ahead are checked (pg-partitions.ts: a week is kept ahead). */
const PARTITION_INTERVAL_MS = 3_600_000

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
  /** Clicks this instance committed per UTC day (countDays), and the ANALYZE runs it started. */
  private readonly dayClicks = new Map<number, number>()
  private readonly maintenance = new Set<Promise<void>>()
  /** The partitions ahead of the last start/hourly run are made (retention waits for it: it may move rows). */
  private ready: Promise<void> = Promise.resolve()

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
    this.countDays(clicks)
    this.events.committed('click.committed', { clicks, rows })
    return rows
  }

  /** Nothing to do: the targeting rollups are written with the clicks here (pg-commit.ts). */
  settle(): void {}

  costs(): ClickCosts {
    return pgClickCosts(this.db.sql)
  }

  /** UUID v4 whose last 16 bits are the day of `createdAt`: a lookup then probes that day's partition only (pg-partitions.ts). */
  newClickId(createdAt: number): string {
    return newPgClickId(createdAt)
  }

  async rowOf(clickId: string): Promise<number | undefined> {
    const r = await this.lookup(ROW_DAY_SQL, ROW_SQL, clickId)
    return r ? num(r.row) : undefined
  }

  async find(clickId: string): Promise<ContinuableClick | undefined> {
    const r = await this.lookup(FIND_DAY_SQL, FIND_SQL, clickId)
    return r ? numCols([r], 'row', 'landingClickedAt', 'createdAt')[0] as ContinuableClick : undefined
  }

  async record(clickId: string): Promise<StoredClick | undefined> {
    const r = await this.lookup(RECORD_DAY_SQL, RECORD_SQL, clickId)
    if (!r) return undefined
    numCols([r], 'row', 'createdAt', 'landingViewedAt', 'landingClickedAt', 'asn')
    // Flags are stored as 0/1.
    r.excluded = r.excluded === 1
    r.isUnique = r.isUnique === 1
    return r as unknown as StoredClick
  }

  /**
   * A click id is looked up in the partition of the day it names (pg-partitions.ts), then, when not there (an
   * id made before the upgrade, on SQLite or elsewhere), in every partition: such ids and unknown ids cost both.
   */
  private async lookup(inDay: string, anyDay: string, clickId: string): Promise<Record<string, unknown> | undefined> {
    const day = clickDayRange(clickId)
    if (day) {
      const [r] = await this.db.sql.unsafe(inDay, [clickId, day[0], day[1]])
      if (r) return r
    }
    const [r] = await this.db.sql.unsafe(anyDay, [clickId])
    return r
  }

  /**
   * Retention (pg-partitions.ts): clicks waiting in the default partition are deleted as rows, up to `limit`
   * oldest first (SKIP LOCKED: two instances pruning at once take different rows); once it holds none due,
   * every day partition whose whole day is before `cutoff` is dropped. Resolves with the rows deleted plus
   * the dropped days' row count as Postgres last estimated it.
   */
  async prune(cutoff: number, limit: number): Promise<number> {
    await this.ready
    const r = await this.db.sql.unsafe(PRUNE_DEFAULT_SQL, [cutoff, limit])
    if (r.count >= limit) return r.count
    return r.count + (await dropDaysBefore(this.db.sql, cutoff)).rows
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

  /**
   * Creates the day partitions ahead (pg-partitions.ts): now, then hourly while the store runs (every instance
   * does; the database serialises them). A failure is logged and retried at the next hour: until the ahead
   * days run out clicks keep landing in their partitions, and after that in the default partition.
   */
  start(): void {
    const ensure = (drain: boolean) => ensurePartitions(this.db.sql, Date.now(), drain).then(() => {}, (err) => {
      log.error('tracking: creating the click partitions ahead failed', errorFields(err))
    })
    // Not draining the default partition at start: retention, which runs at start too, deletes its due rows first.
    this.ready = ensure(false)
    const timer = setInterval(() => {
      if (this.closed) clearInterval(timer)
      else this.ready = ensure(true)
    }, PARTITION_INTERVAL_MS)
    timer.unref?.()
  }

  /**
   * Counts committed clicks per UTC day; at ANALYZE_AFTER_CLICKS of a day this instance analyzes the day's
   * partition once (pg-partitions.ts says why), in the background: a failure is logged, autovacuum remains.
   */
  private countDays(clicks: readonly Click[]): void {
    for (const c of clicks) {
      const day = dayOf(c.createdAt)
      const n = (this.dayClicks.get(day) ?? 0) + 1
      this.dayClicks.set(day, n)
      if (n !== ANALYZE_AFTER_CLICKS) continue
      const run = analyzeDay(this.db.sql, day).catch((err) => {
        log.warn('tracking: analyzing a new day of clicks failed (autovacuum will)', errorFields(err))
      }).finally(() => this.maintenance.delete(run))
      this.maintenance.add(run)
      // Only the days in flight matter: yesterday's count is not needed once today's started.
      for (const d of this.dayClicks.keys()) if (d < day - DAY_MS) this.dayClicks.delete(d)
    }
  }

  /** Commits everything still pending, then refuses new clicks. */
  async stop(): Promise<void> {
    this.closed = true
    while (this.running.size > 0 || this.gathering) {
      this.flush()
      // commit() never rejects: a failed batch rejects its own waiters.
      if (this.running.size > 0) await Promise.race(this.running.values())
    }
    await Promise.all(this.maintenance)
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
    this.countDays(b.clicks)
    if (b.clicks.length > 0) this.events.committed('click.committed', { clicks: b.clicks, rows })
    b.resolve()
  }
}
