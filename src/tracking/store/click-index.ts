// click_id → click row, without a random-key index on the redirect path.
//
// The redirect commits the click row alone (an append). Every committed click also goes into the tail, an
// in-memory table per bucket (click-id-table.ts) filled right after its commit and before its 302 leaves,
// so a lookup sees every click that was ever handed out. A bucket is a range of 65 536 consecutive click
// rows; once a bucket is full it is written to click_index in one pass, sorted by key, off the response
// path. The index is thus only ever appended to: about one page per 200 clicks, written once. (Writing
// chunks of 5 000 clicks into a bucket as they came meant random inserts into the bucket's ~500 pages, most
// of them rewritten by every chunk: ~16% of the redirect's CPU, measured.) Lookups check the tail, then the
// buckets newest first.
//
// Writing a bucket must not stall the redirects: the bucket's sort entries are filled as its clicks commit
// (building them from 65k click_ids at once took 10-40 ms), so a full bucket costs one sort (~3 ms) and then
// small slices of index rows, each on a turn of its own; a written bucket's tail is dropped as one map
// (deleting its 65k entries from a map shared by all buckets took 40-64 ms).
//
// The key is the first 32 bits of the click_id. A key may repeat inside a bucket (about once per two
// buckets), so a probe joins the click row and compares the whole click_id.
// At start the tail is reloaded from the clicks past the watermark, and full buckets still missing from
// click_index (a crash while writing one) are written.
import type { RawDb, RawStatement } from '../../db/client'
import type { Click } from './click'
import { ClickIdTable } from './click-id-table'
import { errorFields, log } from '../../lib/log'

/** Clicks per bucket. */
export const BUCKET_ROWS = 65_536
/**
 * Index rows per transaction while a bucket is written, one slice per event-loop turn: each is a pause of
 * the redirects. Measured at ~8k redirects/s paced: 8,192 rows took 7-30 ms; 2,048 rows 1.8-2.3 ms (a few
 * 4-6 ms); side by side on a loaded machine, 2,048 rows p50 2.8 / p90 5.2 ms against 512 rows p50 0.9 /
 * p90 1.2 ms. 128 commits per bucket instead of 32 cost well under a µs per click.
 */
export const INDEX_SLICE = 512

/** Marks an offset of TailBucket.entries without a click (never committed, or pruned). Sorts first. */
const NO_CLICK = -1

/** The clicks of one bucket not in click_index yet. */
interface TailBucket {
  bucket: number
  /** click_id → the row's offset in the bucket (no string per click: click-id-table.ts). */
  rows: ClickIdTable
  /** By offset in the bucket until the bucket is sorted for writing: key * 2^16 + offset (see bucketEntries), or NO_CLICK. */
  entries: Float64Array
  /** Set once entries are sorted (a pass started); from then on they are no longer by offset. */
  sorted: boolean
  /** Rows pruned after the sort: left out when the bucket's slices are written (this pass or a retried one). */
  pruned: Set<number>
}

/** The indexed part of a click_id: its first 8 hex digits (32 bits). */
export const clickKey = (clickId: string) => parseInt(clickId.slice(0, 8), 16)

export interface ClickIndexOptions {
  bucketRows?: number
  /** Writes full buckets inside noteCommitted instead of a slice per event-loop turn (offline bulk loads). */
  eager?: boolean
  onError?: (err: unknown) => void
}

export class ClickIndex {
  /** Every click not in click_index yet, by bucket, oldest bucket first. */
  private tail: TailBucket[] = []
  /** Highest click row known to the tail (committed through the store, or loaded at start). */
  private maxKnown = 0
  /** Every click row up to here is in click_index (or was pruned). */
  private indexedThrough: number
  /** Buckets present in click_index, newest first: lookups probe recent clicks first. */
  private buckets: number[] = []
  private writing = false
  private stopped = false
  private readonly bucketRows: number
  private readonly eager: boolean
  private readonly onError: (err: unknown) => void

  private readonly probe: RawStatement
  private readonly insert: RawStatement
  private readonly remove: RawStatement
  private readonly setWatermark: RawStatement
  private readonly since: RawStatement
  private readonly bucketList: RawStatement

  constructor(private readonly raw: RawDb, opts: ClickIndexOptions = {}) {
    this.bucketRows = opts.bucketRows ?? BUCKET_ROWS
    this.eager = opts.eager ?? false
    // Offsets inside a bucket are packed into 16 bits (bucketEntries).
    if (!(this.bucketRows >= 1 && this.bucketRows <= 65536)) throw new RangeError('bucketRows must be 1..65536')
    this.onError = opts.onError ?? ((e) => log.error('tracking: click indexing failed', errorFields(e)))
    // The click's own id is checked through a scalar subquery, not a JOIN to clicks: the same rows, but
    // measured at ~3 µs per probe against ~14 µs for the JOIN (SQLite 3.54 under bun:sqlite).
    this.probe = raw.prepare(
      'SELECT i.click_row FROM click_index i WHERE i.bucket = $bucket AND i.key = $key ' +
        'AND (SELECT click_id FROM clicks WHERE id = i.click_row) = $clickId',
    )
    this.insert = raw.prepare('INSERT OR IGNORE INTO click_index (bucket, key, click_row) VALUES ($bucket, $key, $row)')
    this.remove = raw.prepare('DELETE FROM click_index WHERE bucket = $bucket AND key = $key AND click_row = $row')
    this.setWatermark = raw.prepare(
      'INSERT INTO click_index_state (id, indexed_through) VALUES (1, $through) ' +
        'ON CONFLICT (id) DO UPDATE SET indexed_through = excluded.indexed_through',
    )
    this.since = raw.prepare('SELECT id, click_id FROM clicks WHERE id > $after ORDER BY id')
    // Distinct buckets by repeated index seeks, not a scan of the whole index.
    this.bucketList = raw.prepare(
      'WITH RECURSIVE b(x) AS (SELECT max(bucket) FROM click_index ' +
        'UNION ALL SELECT (SELECT max(bucket) FROM click_index WHERE bucket < b.x) FROM b WHERE b.x IS NOT NULL) ' +
        'SELECT x FROM b WHERE x IS NOT NULL',
    )
    this.indexedThrough = readWatermark(raw)
    this.maxKnown = this.indexedThrough
    this.refreshBuckets()
    this.loadTail()
  }

  private bucketOf(clickRow: number): number {
    return Math.floor(clickRow / this.bucketRows)
  }

  /** Re-reads the buckets present in click_index (after a prune removed old ones). */
  private refreshBuckets(): void {
    this.buckets = (this.bucketList.all() as Array<{ x: number }>).map((r) => r.x)
  }

  /** Row id of a committed click; `clickId` must be a normalised (lower-case) UUID. */
  lookup(clickId: string): number | undefined {
    for (let i = this.tail.length - 1; i >= 0; i--) {
      const t = this.tail[i]!
      const offset = t.rows.get(clickId)
      if (offset !== undefined) return t.bucket * this.bucketRows + offset
    }
    const key = clickKey(clickId)
    for (const bucket of this.buckets) {
      const hit = this.probe.get({ bucket, key, clickId }) as { click_row: number } | undefined
      if (hit) return hit.click_row
    }
    return undefined
  }

  /** Called by the store after clicks committed and before their responses are released. */
  noteCommitted(clicks: ReadonlyArray<Pick<Click, 'clickId'>>, rows: readonly number[]): void {
    this.addToTail(clicks, rows)
    const last = rows[rows.length - 1]
    if (last !== undefined && last > this.maxKnown) this.maxKnown = last
    if (this.eager) this.indexFullBuckets()
    else this.scheduleFullBuckets()
  }

  /** Deletes the click_index entries of pruned clicks; runs inside the store's prune transaction. */
  deleteEntries(gone: ReadonlyArray<{ row: number; clickId: string }>): void {
    for (const g of gone) this.remove.run({ bucket: this.bucketOf(g.row), key: clickKey(g.clickId), row: g.row })
  }

  /** After a prune committed: the clicks leave the tail too (so no bucket pass indexes them), emptied buckets the list. */
  forget(gone: ReadonlyArray<{ row: number; clickId: string }>): void {
    for (const g of gone) {
      const bucket = this.bucketOf(g.row)
      const t = this.tail.find((x) => x.bucket === bucket)
      if (!t?.rows.delete(g.clickId)) continue
      // Until its bucket is sorted for writing a click's entry sits at its offset. A sorted bucket (being
      // written, or a pass that failed and will be retried) skips the row when it writes instead: never a
      // scan of the bucket per click, and never a write into the sorted order.
      if (t.sorted) t.pruned.add(g.row)
      else t.entries[g.row - bucket * this.bucketRows] = NO_CLICK
    }
    this.refreshBuckets()
  }

  get unindexed(): number {
    let n = 0
    for (const t of this.tail) n += t.rows.size
    return n
  }

  get watermark(): number {
    return this.indexedThrough
  }

  /** Writes every full bucket now, in one go (start-up, tests). */
  indexFullBuckets(): void {
    for (let b = this.nextBucket(); this.isFull(b); b++) {
      const entries = this.bucketEntries(b)
      for (let from = 0; from < entries.length || from === 0; from += INDEX_SLICE) this.writeSlice(b, entries, from)
    }
  }

  start(): void {
    this.stopped = false
    this.safely(() => this.indexFullBuckets())
  }

  /** Abandons a bucket pass in progress (the database is closing); the next start writes it again. */
  stop(): void {
    this.stopped = true
  }

  /** Every click past the watermark into the tail: those committed since the last full bucket, or behind the store's back (a crash). */
  private loadTail(): void {
    const rows = this.since.all({ after: this.maxKnown }) as Array<{ id: number; click_id: string }>
    this.addToTail(
      rows.map((r) => ({ clickId: r.click_id })),
      rows.map((r) => r.id),
    )
    if (rows.length > 0) this.maxKnown = rows[rows.length - 1]!.id
  }

  /** On the redirect's path: a table entry and the click's sort entry, so a full bucket needs only its sort. */
  private addToTail(clicks: ReadonlyArray<Pick<Click, 'clickId'>>, rows: readonly number[]): void {
    let t = this.tail[this.tail.length - 1]
    for (let i = 0; i < clicks.length; i++) {
      const row = rows[i]!
      const bucket = this.bucketOf(row)
      if (t?.bucket !== bucket) t = this.tailBucket(bucket)
      const clickId = clicks[i]!.clickId
      const offset = row - bucket * this.bucketRows
      t.rows.set(clickId, offset)
      t.entries[offset] = clickKey(clickId) * 65536 + offset
    }
  }

  private tailBucket(bucket: number): TailBucket {
    const found = this.tail.find((x) => x.bucket === bucket)
    if (found) return found
    const t: TailBucket = { bucket, rows: new ClickIdTable(this.bucketRows), entries: new Float64Array(this.bucketRows).fill(NO_CLICK), sorted: false, pruned: new Set() }
    this.tail = [...this.tail, t].sort((a, b) => a.bucket - b.bucket)
    return t
  }

  private nextBucket(): number {
    return this.bucketOf(this.indexedThrough + 1)
  }

  /** A bucket is full once a later row exists: row ids only grow, so none of its rows can still come. */
  private isFull(bucket: number): boolean {
    return this.maxKnown >= (bucket + 1) * this.bucketRows
  }

  private scheduleFullBuckets(): void {
    if (this.writing || this.stopped || !this.isFull(this.nextBucket())) return
    this.writing = true
    const bucket = this.nextBucket()
    // The sort now, then one slice per event-loop turn, so responses keep flowing while a bucket is written.
    const entries = this.safely(() => this.bucketEntries(bucket))
    if (!entries) {
      this.writing = false
      return
    }
    const step = (from: number) => {
      if (this.stopped) {
        this.writing = false
        return
      }
      const ok = this.safely(() => this.writeSlice(bucket, entries, from)) !== undefined
      if (ok && from + INDEX_SLICE < entries.length) {
        setImmediate(step, from + INDEX_SLICE)
        return
      }
      this.writing = false
      if (ok) this.scheduleFullBuckets()
    }
    setImmediate(step, 0)
  }

  /**
   * The bucket's clicks from the tail, sorted by (key, row). Each entry is key * 2^16 + the row's offset
   * in the bucket, a 48-bit integer exact in a double, so a native typed-array sort does the work.
   */
  private bucketEntries(bucket: number): Float64Array {
    const t = this.tail.find((x) => x.bucket === bucket)
    if (!t) return new Float64Array(0)
    // Sorted in place (once: a retried pass reuses the order): the rows map keeps answering lookups
    // until the bucket is written.
    if (!t.sorted) t.entries.sort()
    t.sorted = true
    const sorted = t.entries
    let first = 0
    while (first < sorted.length && sorted[first] === NO_CLICK) first++
    return sorted.subarray(first)
  }

  /** Writes entries[from, from + INDEX_SLICE); the last slice also moves the watermark and empties the tail. */
  private writeSlice(bucket: number, entries: Float64Array, from: number): true {
    const lo = bucket * this.bucketRows
    const to = Math.min(entries.length, from + INDEX_SLICE)
    const last = to >= entries.length
    const through = lo + this.bucketRows - 1
    const pruned = this.tail.find((t) => t.bucket === bucket)?.pruned
    this.raw.transaction(() => {
      for (let i = from; i < to; i++) {
        const v = entries[i]!
        if (v === NO_CLICK) continue
        const offset = v % 65536
        if (!pruned?.size || !pruned.has(lo + offset)) this.insert.run({ bucket, key: (v - offset) / 65536, row: lo + offset })
      }
      if (last) this.setWatermark.run({ through })
    })()
    if (last) {
      this.indexedThrough = through
      this.tail = this.tail.filter((t) => t.bucket > bucket)
      if (entries.length > 0 && !this.buckets.includes(bucket)) this.buckets = [...this.buckets, bucket].sort((a, b) => b - a)
    }
    return true
  }

  private safely<T>(fn: () => T): T | undefined {
    try {
      return fn()
    } catch (err) {
      // Retried with the next commit; lookups keep working from the tail meanwhile.
      this.onError(err)
      return undefined
    }
  }
}

/** Every click row up to the returned one is in click_index (or was pruned). */
export function readWatermark(raw: RawDb): number {
  const r = raw.prepare('SELECT indexed_through AS w FROM click_index_state WHERE id = 1').get() as { w: number } | undefined
  return r?.w ?? 0
}
