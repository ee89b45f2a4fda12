// Split-test read cost at scale (issue 29): one campaign with BENCH_SPLIT_CLICKS (1,000,000) clicks over the last
// BENCH_SPLIT_DAYS (7) days on BENCH_SPLIT_OFFERS (3) offers, 3 % of them converted, in a temp SQLite database (or
// a throwaway Postgres database with BENCH_SPLIT_ENGINE=postgres). Times, in-process, the store's two reads
// (clicks per entry, conversions per entry) and the whole split test (reads + 20,000-draw model), each
// BENCH_SPLIT_RUNS (5) times after a warm-up: median and max. The model alone is timed too.
//
//   bun scripts/bench-split-test.ts
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../src/db/client'
import { migrate } from '../src/db/migrate'
import { openPg } from '../src/db/pg/client'
import { migratePg } from '../src/db/pg/migrate'
import type { AnyDatabase } from '../src/db/engine'
import { OptimisationStore } from '../src/optimisation/store'
import { splitTest } from '../src/optimisation/analysis'
import { analyse, DEFAULT_RULES } from '../src/optimisation/stats'

const CLICKS = Number(process.env.BENCH_SPLIT_CLICKS ?? 1_000_000)
const DAYS = Number(process.env.BENCH_SPLIT_DAYS ?? 7)
const OFFERS = Number(process.env.BENCH_SPLIT_OFFERS ?? 3)
const RUNS = Number(process.env.BENCH_SPLIT_RUNS ?? 5)
const ENGINE = process.env.BENCH_SPLIT_ENGINE === 'postgres' ? 'postgres' : 'sqlite'
const now = Date.now()
const span = DAYS * 86_400_000

async function seed(): Promise<{ database: AnyDatabase; done: () => Promise<void> }> {
  // One text for both engines: ids 1..OFFERS, the clicks spread evenly over the window, every 33rd converted.
  const ddl = [
    `INSERT INTO offers (id, name, slug, url, payout, currency, created_at, updated_at) SELECT g, 'o' || g, 'o' || g, 'https://x.example/', 2, 'USD', ${now}, ${now} FROM GEN`,
    `INSERT INTO campaigns (id, name, slug, created_at, updated_at) VALUES (1, 'c', 'c', ${now}, ${now})`,
    `INSERT INTO campaign_offers (campaign_id, offer_id, weight, position) SELECT 1, g, 100, g FROM GEN`,
  ]
  if (ENGINE === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-split-'))
    const db = await openDatabase(join(dir, 'svc.db'))
    migrate(db)
    const gen = (n: number) => `(WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < ${n}) SELECT g FROM s)`
    for (const q of ddl) db.raw.exec(q.replace('FROM GEN', `FROM ${gen(OFFERS)}`))
    const t = performance.now()
    db.raw.exec(`INSERT INTO clicks (click_id, campaign_id, offer_id, created_at) SELECT printf('%036d', g), 1, 1 + g % ${OFFERS},
      ${now - span} + g * ${Math.floor(span / CLICKS)} FROM ${gen(CLICKS)}`)
    db.raw.exec(`INSERT INTO conversions (click_row_id, click_created_at, click_id, campaign_id, offer_id, type, revenue, currency, date, created_at)
      SELECT id, created_at, click_id, 1, offer_id, 'sale', 2, 'USD', created_at + 60000, created_at + 60000 FROM clicks WHERE id % 33 = 0`)
    console.log(`seeded ${CLICKS} clicks in ${((performance.now() - t) / 1000).toFixed(1)} s (sqlite)`)
    return { database: db as AnyDatabase, done: async () => { db.close(); rmSync(dir, { recursive: true, force: true }) } }
  }
  const { freshPgUrl } = await import('../test/helpers/pg')
  const db = await openPg(await freshPgUrl())
  await migratePg(db)
  const run = (q: string) => db.sql.unsafe(q)
  for (const q of ddl) await run(q.replace('FROM GEN', `FROM generate_series(1, ${OFFERS}) g`))
  const t = performance.now()
  await run(`INSERT INTO clicks (click_id, campaign_id, offer_id, created_at) SELECT lpad(g::text, 36, '0'), 1, 1 + g % ${OFFERS},
    ${now - span} + g * ${Math.floor(span / CLICKS)} FROM generate_series(1, ${CLICKS}) g`)
  await run(`INSERT INTO conversions (click_row_id, click_created_at, click_id, campaign_id, offer_id, type, revenue, currency, date, created_at)
    SELECT id, created_at, click_id, 1, offer_id, 'sale', 2, 'USD', created_at + 60000, created_at + 60000 FROM clicks WHERE id % 33 = 0`)
  await run('ANALYZE')
  console.log(`seeded ${CLICKS} clicks in ${((performance.now() - t) / 1000).toFixed(1)} s (postgres)`)
  return { database: db as AnyDatabase, done: () => db.close() }
}

async function time(name: string, f: () => Promise<unknown> | unknown): Promise<void> {
  await f()
  const ms: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now()
    await f()
    ms.push(performance.now() - t)
  }
  ms.sort((a, b) => a - b)
  console.log(`${name.padEnd(44)} median ${ms[Math.floor(ms.length / 2)]!.toFixed(1)} ms   max ${ms[ms.length - 1]!.toFixed(1)} ms`)
}

const { database, done } = await seed()
const store = new OptimisationStore(database)
const ref = { campaignId: 1, pathId: null, kind: 'offers' as const }
const w = { from: now - span - 1, to: now + 1 }
const rows = await store.clicks(ref, w.from, w.to)
console.log('clicks per offer:', rows.map((r) => `${r.id}: ${r.clicks}`).join(', '))
await time(`clicks per entry (${DAYS} d window)`, () => store.clicks(ref, w.from, w.to))
await time(`conversions per entry (${DAYS} d window)`, () => store.conversions(ref, w.from, w.to))
await time('whole split test (reads + 20,000 draws)', () => splitTest(store, ref, w, { metric: 'cr', currency: null, rules: DEFAULT_RULES, costCurrency: 'USD' }))
const data = rows.map((r) => ({ id: r.id, clicks: r.clicks, conversions: Math.floor(r.clicks / 33), revenue: 2 * Math.floor(r.clicks / 33), revenueSq: 4 * Math.floor(r.clicks / 33) }))
await time(`model alone, ${OFFERS} entries, CR + EPC`, () => analyse(data, { metric: 'cr', epc: true }))
await done()
