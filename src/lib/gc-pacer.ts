// Young-generation (eden) collections at a steady pace while the server is busy.
//
// Why: JavaScriptCore starts an eden collection only once ~20 MB were allocated since the last one, and a
// finished request keeps its native memory (request, headers, response, their strings) until the
// collector has found it dead. At ~30k redirects/s the RSS therefore swung with the collector's schedule:
// 176-212 MB in the 180 s soak. An eden collection every 50 ms while the process is busy costs ~0.7 ms of
// the 50 (it finds little alive: the requests in flight). With the heap fixes that came with it, the soak
// peaked at 140 MB, throughput and p99 no worse (docs/performance.md, "Session 7"). JSC's own knobs are
// read from the environment before any JavaScript runs, so svc cannot set them for itself; this it can.
//
// Idle, a tick only reads the process's CPU time: nothing is collected and nothing else is done.
import { edenGC } from 'bun:jsc'

export interface GcPacer {
  /** Eden collections this pacer started. */
  readonly collections: number
  stop(): void
}

/** A tick collects when the process spent at least this share of the tick's wall time on the CPU. */
const BUSY_SHARE = 0.1

const cpuMicros = () => {
  const u = process.cpuUsage()
  return u.user + u.system
}

/** Starts the pacer (one per process: `svc serve`); `paceMs` 0 turns it off (null). */
export function startGcPacer(paceMs: number): GcPacer | null {
  if (paceMs <= 0) return null
  const busyMicros = paceMs * 1000 * BUSY_SHARE
  let lastCpu = cpuMicros()
  let collections = 0
  const timer = setInterval(() => {
    const cpu = cpuMicros()
    const busy = cpu - lastCpu >= busyMicros
    if (busy) {
      edenGC()
      collections++
    }
    // Read after the collection, so its own CPU time never counts as the next tick's work.
    lastCpu = busy ? cpuMicros() : cpu
  }, paceMs)
  timer.unref() // never what keeps the process alive
  return {
    get collections() {
      return collections
    },
    stop: () => clearInterval(timer),
  }
}
