// click_id → click row, without a random-key index on the redirect path.
//
// The redirect commits the click row alone (an append). Committed-but-not-yet-indexed clicks live in
// `tail`, an in-memory map filled right after each commit and before any 302 leaves, so a lookup sees
// every click that was ever handed out. Later, off the response path, each chunk of new clicks is
// copied into click_index, sorted by (bucket, click_id) so a chunk shares pages instead of dirtying one
// random page per click, and added to the hourly rollups in the same transaction (click-rollup.ts).
// A bucket is a range of 65 536 consecutive click rows, not a day: a day bucket of a busy day grew to
// thousands of leaf pages, and a chunk then dirtied nearly one page per click again (measured).
// At start the index catches up with whatever a crash left unindexed.
import type { RawDb, RawStatement } from '../db/client'
import { ClickRollup, ROLLUP_COLUMNS, type RollupClick } from './click-rollup'

/** Rows per indexing transaction: large enough to share pages, small enough to pause the loop ~10 ms. */
export const INDEX_CHUNK = 5000
/** An idle server still indexes its tail this often. */
const IDLE_INDEX_MS = 1000

/** Clicks per bucket: a bucket's B-tree region stays ~700 leaf pages, which one chunk walks once. */
export const BUCKET_ROWS = 65_536
export const bucketOf = (clickRow: number) => Math.floor(clickRow / BUCKET_ROWS)

export class ClickIndex {
  private readonly tail = new Map<string, number>()
  /** Buckets present in click_index, newest first: lookups probe recent clicks first. */
  private buckets: number[] = []
  private scheduled = false
  private timer: ReturnType<typeof setInterval> | null = null

  private readonly probe: RawStatement
  private readonly pending: RawStatement
  private readonly insert: RawStatement
  private readonly watermark: RawStatement
  private readonly bucketList: RawStatement
  private readonly rollup: ClickRollup

  constructor(private readonly raw: RawDb, private readonly onError: (err: unknown) => void = (e) => console.error('[tracking] click indexing failed:', e)) {
    this.probe = raw.prepare('SELECT click_row FROM click_index WHERE bucket = $bucket AND click_id = $clickId')
    this.pending = raw.prepare(`SELECT id, click_id, ${ROLLUP_COLUMNS} FROM clicks WHERE id > $after ORDER BY id LIMIT $limit`)
    this.rollup = new ClickRollup(raw)
    this.insert = raw.prepare('INSERT OR IGNORE INTO click_index (click_row, bucket, click_id) VALUES ($row, $bucket, $clickId)')
    this.watermark = raw.prepare('SELECT coalesce(max(click_row), 0) AS w FROM click_index')
    // Distinct days by repeated index seeks, not a scan of the whole index.
    this.bucketList = raw.prepare(
      'WITH RECURSIVE b(x) AS (SELECT max(bucket) FROM click_index ' +
        'UNION ALL SELECT (SELECT max(bucket) FROM click_index WHERE bucket < b.x) FROM b WHERE b.x IS NOT NULL) ' +
        'SELECT x FROM b WHERE x IS NOT NULL',
    )
    this.refreshBuckets()
  }

  /** Re-reads the days present in click_index (after retention removed old ones). */
  refreshBuckets(): void {
    this.buckets = (this.bucketList.all() as Array<{ x: number }>).map((r) => r.x)
  }

  /** Row id of a committed click; `clickId` must be a normalised (lower-case) UUID. */
  lookup(clickId: string): number | undefined {
    const fromTail = this.tail.get(clickId)
    if (fromTail !== undefined) return fromTail
    for (const bucket of this.buckets) {
      const hit = this.probe.get({ bucket, clickId }) as { click_row: number } | undefined
      if (hit) return hit.click_row
    }
    return undefined
  }

  /** Called by the click writer after a batch committed and before its responses are released. */
  noteCommitted(clickIds: readonly string[], rowIds: readonly number[]): void {
    for (let i = 0; i < clickIds.length; i++) this.tail.set(clickIds[i]!, rowIds[i]!)
    if (this.tail.size >= INDEX_CHUNK && !this.scheduled) {
      this.scheduled = true
      setImmediate(this.runScheduled)
    }
  }

  get unindexed(): number {
    return this.tail.size
  }

  /** Indexes everything committed so far (start-up catch-up, shutdown, before exact reads). */
  indexAll(): void {
    while (this.indexChunk() === INDEX_CHUNK) { /* keep going */ }
  }

  start(): void {
    this.indexAll()
    this.timer = setInterval(() => {
      if (this.tail.size > 0) this.safely(() => this.indexAll())
    }, IDLE_INDEX_MS)
    this.timer.unref?.()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    this.safely(() => this.indexAll())
  }

  private readonly runScheduled = () => {
    this.scheduled = false
    const n = this.safely(() => this.indexChunk()) ?? 0
    // More waiting: yield to the event loop between chunks so responses keep flowing.
    if (n === INDEX_CHUNK || this.tail.size >= INDEX_CHUNK) {
      this.scheduled = true
      setImmediate(this.runScheduled)
    }
  }

  /** Indexes up to INDEX_CHUNK rows past the watermark in one transaction; returns how many. */
  private indexChunk(): number {
    const after = (this.watermark.get() as { w: number }).w
    const rows = this.pending.all({ after, limit: INDEX_CHUNK }) as Array<RollupClick & { id: number; click_id: string }>
    if (rows.length === 0) return 0
    const keyed = rows.map((r) => ({ row: r.id, bucket: bucketOf(r.id), clickId: r.click_id }))
    // Sorted by the index key, the chunk walks the B-tree region of its bucket once.
    keyed.sort((a, b) => a.bucket - b.bucket || (a.clickId < b.clickId ? -1 : a.clickId > b.clickId ? 1 : 0))
    // Index and rollups move together: a click is counted exactly when it becomes indexed.
    this.raw.transaction(() => {
      for (const k of keyed) this.insert.run(k)
      this.rollup.apply(rows)
    })()
    for (const k of keyed) {
      if (this.tail.get(k.clickId) === k.row) this.tail.delete(k.clickId)
      if (!this.buckets.includes(k.bucket)) this.buckets = [...this.buckets, k.bucket].sort((a, b) => b - a)
    }
    return rows.length
  }

  private safely<T>(fn: () => T): T | undefined {
    try {
      return fn()
    } catch (err) {
      // Indexing is retried on the next run; lookups keep working from the tail meanwhile.
      this.onError(err)
      return undefined
    }
  }
}
