// The schedule of a retention setting (N days, 0 = keep forever): deletes rows older than N days, a chunk per
// call, off the request path, once at start and then hourly. What is deleted is the caller's: raw clicks
// (tracking), visitor events (landings), audit rows (agent), stored webhook deliveries (commerce).
import { errorFields, log } from './log'

const DAY_MS = 86_400_000
const HOUR_MS = 3_600_000
/** Rows per transaction: keeps the write lock (which the redirect's click commits wait for) short. */
export const RETENTION_CHUNK = 5000

export interface RetentionOptions {
  /** Current setting value in days; 0 disables pruning. */
  days: () => number
  intervalMs?: number
  now?: () => number
  onError?: (err: unknown) => void
}

/** The store's side of retention: deletes one chunk of rows created before `cutoff`, resolves with how many. */
export interface Prunable {
  prune(cutoff: number, limit: number): Promise<number>
}

export class Retention {
  private timer: ReturnType<typeof setTimeout> | null = null
  private running: Promise<number> | null = null
  private again = false
  private stopped = false

  constructor(private readonly rows: Prunable, private readonly opts: RetentionOptions) {}

  /** Runs once now, then every intervalMs (hourly by default). */
  start(): void {
    this.stopped = false
    this.schedule(0)
  }

  /** Stops the timer and waits for a run in progress to finish its current chunk. */
  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    await this.running?.catch(() => 0)
  }

  /** Starts a run soon (the setting changed); a run already in progress runs once more afterwards. */
  kick(): void {
    if (this.stopped) return
    if (this.running) this.again = true
    else this.schedule(0)
  }

  /** Prunes everything due now (errors are reported, not thrown); resolves with the number of rows deleted. */
  run(): Promise<number> {
    if (this.running) return this.running
    const p = this.prune()
      .catch((err) => {
        ;(this.opts.onError ?? ((e) => log.error('retention failed', errorFields(e))))(err)
        return 0
      })
      .finally(() => {
        this.running = null
        const next = this.again ? 0 : (this.opts.intervalMs ?? HOUR_MS)
        this.again = false
        this.schedule(next)
      })
    this.running = p
    return p
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return
    if (this.timer) clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.timer = null
      void this.run()
    }, delayMs)
    this.timer.unref?.()
  }

  private async prune(): Promise<number> {
    const days = this.opts.days()
    if (days <= 0) return 0
    const cutoff = (this.opts.now ?? Date.now)() - days * DAY_MS
    let deleted = 0
    while (!this.stopped) {
      const n = await this.rows.prune(cutoff, RETENTION_CHUNK)
      deleted += n
      if (n < RETENTION_CHUNK) break
      // Let redirects, click commits and indexing run between chunks.
      await new Promise((r) => setTimeout(r, 5))
    }
    return deleted
  }
}
