// The SQLite click store: every read and write of clicks, click_index and the click rollups goes through here.
//
//   append   a new click, group-committed with the other clicks of this event-loop turn (the redirect)
//   amend    a stored click's change (offer/landing, landing view/click-through, bot flag), committed with the same batch
//   import   clicks from elsewhere (seeds, imports), committed now, through the same commit as append
//   find / record / rowOf   lookups by click_id, through the click index (tail first, then buckets)
//   prune    one chunk of retention: old clicks and their index entries
//
// Whichever way a click comes in, its rollups are written in its commit's transaction, it enters the
// index's tail before anyone hears of it, and click.committed is emitted once per commit (after-commit;
// the commit runs on the store's own connection, so there is no in-transaction phase to join).
import type { RawDb, RawStatement } from '../../db/client'
import type { AnyDatabase } from '../../db/engine'
import type { EventBus } from '../../lib/event-bus'
import {
  CLICK_FIELDS, CONTINUE_FIELDS, selectList, type Click, type ContinuableClick, type StoredClick,
} from './click'
import { ClickIndex } from './click-index'
import type { ClickAmend } from './commit'
import { ClickWriter } from './group-commit'
import { startCheckpointer, type Checkpointer } from './checkpointer'
import type { ClickCosts, ClickRange, ClickStore, UniqueClick } from './types'
import { PgClickStore } from './pg-click-store'

export { WriterUnavailable } from './group-commit'
export type { ClickStore, UniqueClick } from './types'

export class SqliteClickStore implements ClickStore {
  private readonly index: ClickIndex
  private readonly writer: ClickWriter
  private readonly continuable: RawStatement
  private readonly full: RawStatement
  private readonly oldest: RawStatement
  private readonly remove: RawStatement
  private readonly uniques: RawStatement
  private checkpointer: Checkpointer | null = null
  /** The export's reads, prepared on the first export (all clicks, one campaign's). */
  private exportReads: [all: RawStatement, ofCampaign: RawStatement] | null = null

  /** `raw`: the shared connection (reads, prunes); `path`: the database file the writer opens its own connection on. */
  constructor(private readonly raw: RawDb, private readonly path: string, private readonly events: EventBus) {
    // Reloads the clicks past the index watermark into its tail before anything can look them up.
    this.index = new ClickIndex(raw)
    this.writer = new ClickWriter(path, this.committed)
    this.continuable = raw.prepare(`SELECT id AS row, ${selectList(CONTINUE_FIELDS)} FROM clicks WHERE id = $row`)
    this.full = raw.prepare(`SELECT id AS row, ${selectList(CLICK_FIELDS)} FROM clicks WHERE id = $row`)
    // Oldest first through the created_at index: each chunk is the next slice of the table's old end.
    this.oldest = raw.prepare('SELECT id AS row, click_id AS clickId FROM clicks WHERE created_at < $cutoff ORDER BY created_at LIMIT $limit')
    this.remove = raw.prepare('DELETE FROM clicks WHERE id = $row')
    this.uniques = raw.prepare(
      `SELECT ${selectList(['campaignId', 'ip', 'userAgent', 'createdAt'])} FROM clicks ` +
        'WHERE created_at >= $since AND is_unique = 1 ORDER BY created_at',
    )
  }

  /** Resolves once the click is committed; rejects (WriterUnavailable or the commit's error) when it was not. */
  append(click: Click): Promise<void> {
    try {
      return this.writer.insert(click)
    } catch (err) {
      return Promise.reject(err)
    }
  }

  /** Moves a stored click to another offer/landing (rollups follow); committed with the current batch. */
  repoint(row: number, offerId: number, landingId: number | null): Promise<void> {
    return this.amend({ row, offerId, landingId })
  }

  /** Changes a stored click, rollups following; committed with the current batch. */
  amend(a: ClickAmend): Promise<void> {
    try {
      return this.writer.amend(a)
    } catch (err) {
      return Promise.reject(err)
    }
  }

  /**
   * Commits clicks now, rollups included, and makes them findable: seeds, imports. Synchronous on SQLite
   * (test seeds call it from plain functions); returns their row ids.
   */
  import(clicks: readonly Click[]): number[] {
    return this.writer.commitNow(clicks)
  }

  settle(): void {
    this.writer.settle()
  }

  costs(): ClickCosts {
    return this.writer.costs()
  }

  /** Row id of a committed click; `clickId` must be a lower-case UUID. Sees every click ever handed out. */
  rowOf(clickId: string): number | undefined {
    return this.index.lookup(clickId)
  }

  /** What continuing a click needs (attribution, subs, row). */
  find(clickId: string): ContinuableClick | undefined {
    const row = this.index.lookup(clickId)
    return row === undefined ? undefined : (this.continuable.get({ row }) as ContinuableClick | undefined)
  }

  /** The whole stored click. */
  record(clickId: string): StoredClick | undefined {
    const row = this.index.lookup(clickId)
    if (row === undefined) return undefined
    const c = this.full.get({ row }) as (Omit<StoredClick, 'excluded' | 'isUnique'> & { excluded: number | boolean; isUnique: number | boolean }) | undefined
    if (!c) return undefined
    // Flags are stored as 0/1.
    c.excluded = c.excluded === 1
    c.isUnique = c.isUnique === 1
    return c as StoredClick
  }

  /**
   * Deletes up to `limit` clicks created before `cutoff` (oldest first) with their click_index entries,
   * in one short transaction; resolves with how many went. Rollups are never touched: reports keep their
   * totals. Row ids are AUTOINCREMENT, never reused.
   */
  async prune(cutoff: number, limit: number): Promise<number> {
    // A click is counted into the targeting rollups before its row can go (targeting-fold.ts).
    this.writer.settle()
    const gone = this.raw.transaction(() => {
      const rows = this.oldest.all({ cutoff, limit }) as Array<{ row: number; clickId: string }>
      for (const r of rows) this.remove.run({ row: r.row })
      this.index.deleteEntries(rows)
      return rows
    })()
    if (gone.length > 0) this.index.forget(gone)
    return gone.length
  }

  /** Unique clicks created since `since`, oldest first. */
  recentUniques(since: number): UniqueClick[] {
    return this.uniques.all({ since }) as UniqueClick[]
  }

  /**
   * One page of an export: the lower bound moves up with the cursor, so each page starts in the
   * created_at index (or campaign_id, created_at) where the last one ended; rows are index order (created_at, id).
   */
  clicksAfter(range: ClickRange, createdAt: number, row: number, limit: number): StoredClick[] {
    const sql = (campaign: string) =>
      `SELECT id AS row, ${selectList(CLICK_FIELDS)} FROM clicks WHERE ${campaign}created_at >= $lo AND created_at < $to ` +
      'AND (created_at > $at OR id > $row) ORDER BY created_at, id LIMIT $limit'
    this.exportReads ??= [this.raw.prepare(sql('')), this.raw.prepare(sql('campaign_id = $campaign AND '))]
    const [all, ofCampaign] = this.exportReads
    const lo = Math.max(range.from, createdAt)
    const rows = range.campaignId === undefined
      ? all.all({ lo, to: range.to, at: createdAt, row, limit })
      : ofCampaign.all({ campaign: range.campaignId, lo, to: range.to, at: createdAt, row, limit })
    for (const c of rows as Array<{ excluded: unknown; isUnique: unknown }>) {
      c.excluded = c.excluded === 1
      c.isUnique = c.isUnique === 1
    }
    return rows as StoredClick[]
  }

  /** Writes the full buckets still missing from click_index (a crash while writing one, a migrated database); starts the WAL checkpointer. */
  start(): void {
    this.index.start()
    this.checkpointer ??= startCheckpointer(this.path)
  }

  /** Commits what is pending (graceful shutdown), then refuses new clicks. */
  async stop(): Promise<void> {
    await this.writer.stop()
    this.index.stop()
    await this.checkpointer?.stop()
    this.checkpointer = null
  }

  private readonly committed = (clicks: readonly Click[], rows: readonly number[]): void => {
    this.index.noteCommitted(clicks, rows)
    this.events.committed('click.committed', { clicks, rows })
  }
}

/** Picks the click store for the engine: this one (one process, synchronous lookups, click index) or
 *  PgClickStore (any number of instances on one database, async lookups through the click_id index). */
export function createClickStore(db: AnyDatabase, events: EventBus): ClickStore {
  return db.engine === 'postgres' ? new PgClickStore(db, events) : new SqliteClickStore(db.raw, db.path, events)
}
