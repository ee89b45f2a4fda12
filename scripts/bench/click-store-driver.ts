// Child process of scripts/bench-pg.ts: drives a click store's group commit directly, no HTTP. `callers`
// concurrent loops each append one click and await its commit, then the next (as `callers` open
// connections would), for `seconds` (each caller finishes the click it is waiting for). Prints one JSON
// line: clicks committed, rows/s and batch sizes.
//
//   bun click-store-driver.ts sqlite <file.db>      <seconds> <callers>
//   bun click-store-driver.ts postgres <postgres://…> <seconds> <callers>
//
// Runs from source (it imports the stores), pinned by the caller like the server is.
import { openDatabase } from '../../src/db/client'
import { migrate } from '../../src/db/migrate'
import { openPg } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import { EventBus } from '../../src/lib/event-bus'
import { newClick, type Click } from '../../src/tracking/store/click'
import { createClickStore } from '../../src/tracking/store/click-store'

const [engine, target, secondsArg, callersArg] = process.argv.slice(2)
const SECONDS = Number(secondsArg)
const CALLERS = Number(callersArg)
if ((engine !== 'sqlite' && engine !== 'postgres') || !target || !(SECONDS > 0) || !(CALLERS > 0)) {
  console.error('usage: click-store-driver.ts sqlite|postgres <path|url> <seconds> <callers>')
  process.exit(2)
}

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36'
let seq = 0
/** A click shaped like the redirect's: subs, params, device fields, a fresh UUID. One campaign and hour. */
const click = (): Click =>
  newClick({
    clickId: crypto.randomUUID(), campaignId: 1, sourceId: 1, offerId: 1, createdAt: Date.now(),
    ip: `198.51.100.${++seq % 250}`, userAgent: UA, sub1: 'abc', sub2: 'banner-7',
    params: '{"utm_source":"bench","utm_campaign":"bench"}', isUnique: seq % 3 === 0,
    deviceType: 'desktop', os: 'Linux', browser: 'Chrome',
  })

const events = new EventBus()
const batches: number[] = []
events.on('click.committed', 'after-commit', 'bench', (p) => void batches.push(p.clicks.length))

const db = engine === 'sqlite' ? await openDatabase(target) : await openPg(target)
if (db.engine === 'sqlite') migrate(db)
else await migratePg(db)
const store = createClickStore(db, events)
store.start()

/** Clicks committed and the seconds it took (until the last caller's last commit). */
async function drive(seconds: number): Promise<{ n: number; seconds: number }> {
  let n = 0
  const t0 = performance.now()
  const until = t0 + seconds * 1000
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (performance.now() < until) {
        await store.append(click())
        n++
      }
    }),
  )
  return { n, seconds: (performance.now() - t0) / 1000 }
}

await drive(Math.min(1, SECONDS)) // warm-up: JIT, prepared statements, the pool's connections
batches.length = 0
const { n: N, seconds } = await drive(SECONDS)
const sorted = [...batches].sort((a, b) => a - b)
await store.stop()
await db.close()
console.log(
  JSON.stringify({
    engine, n: N, callers: CALLERS, seconds,
    rows_per_s: Math.round(N / seconds),
    commits: batches.length,
    batch_mean: Math.round(N / Math.max(1, batches.length)),
    batch_median: sorted[Math.floor(sorted.length / 2)] ?? 0,
    batch_max: sorted[sorted.length - 1] ?? 0,
  }),
)
process.exit(0)
