// Child process of gc-pacer.test.ts: the pacer in a process of its own, so that no other test's servers,
// timers or threads make it busy. Prints the collection counts after each phase as one JSON line.
import { startGcPacer } from '../../src/lib/gc-pacer'

/** Keeps the CPU busy and allocating for `ms`, yielding to timers every ~5 ms as a loaded server does. */
async function busyFor(ms: number): Promise<void> {
  const until = performance.now() + ms
  let sink: unknown[] = []
  while (performance.now() < until) {
    const slice = performance.now() + 5
    while (performance.now() < slice) sink.push({ at: performance.now(), label: `request ${sink.length}` })
    sink = []
    await new Promise((r) => setTimeout(r, 0))
  }
}

const pace = Number(process.argv[2] ?? 20)
await Bun.sleep(300) // start-up work (module loading, compilation threads) is over
const pacer = startGcPacer(pace)!
await Bun.sleep(300)
const idle = pacer.collections
await busyFor(400)
const busy = pacer.collections
await Bun.sleep(250) // the first idle ticks may still see the busy spell and the compiler threads after it
const settled = pacer.collections
await Bun.sleep(600) // 30 ticks of 20 ms
const idleAgain = pacer.collections
pacer.stop()
await busyFor(200)
console.log(JSON.stringify({ idle, busy, settled, idleAgain, stopped: pacer.collections }))
