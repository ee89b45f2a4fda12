// WAL checkpoints off the request thread.
//
// Measured: with SQLite's autocheckpoint on the click writer's connection, a commit that crosses the WAL
// threshold copies the WAL into the database file and fsyncs it, on the thread serving redirects: a
// 40-50 ms pause every 1-2 s at half of the peak rate, the whole p99 of /c. A Worker thread with its own
// connection now runs PASSIVE checkpoints on a short timer, so the WAL stays small (a few MB) and the
// connections' autocheckpoint threshold (src/db/client.ts, commit.ts) is never reached. It stays set as
// a backstop: if this worker stops, the writers checkpoint by themselves as before, so the WAL is bounded
// either way. A checkpoint only copies committed pages, so a crash at any moment loses nothing.
import { log, errorFields } from '../../lib/log'

/** Between checkpoints: short enough that each copies little, long enough that the fsync is rare. */
export const CHECKPOINT_EVERY_MS = 100

export interface Checkpointer {
  /** Resolves once the worker's connection is closed (at most a second later). */
  stop(): Promise<void>
}

export function startCheckpointer(path: string, everyMs = CHECKPOINT_EVERY_MS): Checkpointer {
  // Bun only (Worker + bun:sqlite); elsewhere the autocheckpoint does the work as before.
  if (typeof Bun === 'undefined' || path === ':memory:' || path === '') return { stop: async () => {} }
  let worker: Worker | null = null
  try {
    // Inside dist/svc every module is bundled into the entry point at the bundle's root, and the worker entry
    // (scripts/build.ts) sits under its path relative to src/.
    const entry = import.meta.url.includes('$bunfs') ? './tracking/store/checkpoint-worker.ts' : './checkpoint-worker.ts'
    worker = new Worker(new URL(entry, import.meta.url).href)
    // The worker must not keep a stopping process alive.
    ;(worker as unknown as { unref(): void }).unref()
    worker.onerror = (e) => log.warn('tracking: the WAL checkpointer stopped; writers checkpoint themselves', { error: e.message })
    worker.postMessage({ path, everyMs })
  } catch (err) {
    log.warn('tracking: the WAL checkpointer did not start; writers checkpoint themselves', errorFields(err))
  }
  return {
    async stop() {
      const w = worker
      worker = null
      if (!w) return
      const { promise, resolve } = Promise.withResolvers<void>()
      const timer = setTimeout(resolve, 1000)
      w.onmessage = (e) => e.data === 'stopped' && resolve()
      w.postMessage('stop')
      await promise
      clearTimeout(timer)
      w.terminate()
    },
  }
}
