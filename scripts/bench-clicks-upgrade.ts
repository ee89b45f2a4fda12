// What the upgrade to day-partitioned clicks (drizzle-pg/0033_clicks_by_day.sql) costs, and whether clicks
// wait while retention drops a day (docs/postgres.md). On a throwaway DURABLE cluster (scripts/bench/pg-cluster.ts):
//   1. a database migrated up to 0032, BENCH_ROWS clicks (default 1,000,000) over BENCH_DAYS days (default 30),
//      v4 click ids, realistic row widths; VACUUM ANALYZE, CHECKPOINT;
//   2. times migratePg running 0033 and 0034 (the start-up migrations every instance waits for), and 0034's
//      share alone: its hash index on click_id built again over every partition (REINDEX);
//   3. appends clicks through the store (batches of 20, as /c under light load) for 3 s, then again for 3 s
//      while retention drops the oldest days: batch latency p50 / p99 / max of both.
// Usage: bun scripts/bench-clicks-upgrade.ts   (BENCH_ROWS=2000000 BENCH_DAYS=60 to vary)
import { SQL } from 'bun'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execSync } from 'node:child_process'
import { readMigrationFiles } from 'drizzle-orm/migrator'
import { openPg } from '../src/db/pg/client'
import { migratePg } from '../src/db/pg/migrate'
import { EventBus } from '../src/lib/event-bus'
import { newClick } from '../src/tracking/store/click'
import { createClickStore } from '../src/tracking/store/click-store'
import { dayOf, DAY_MS, dropDaysBefore, newPgClickId } from '../src/tracking/store/pg-partitions'
import { startBenchCluster } from './bench/pg-cluster'

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000)
const DAYS = Number(process.env.BENCH_DAYS ?? 30)

const cluster = await startBenchCluster([])
const dir = mkdtempSync(join(tmpdir(), 'svc-upgrade-'))
try {
  console.log(`uptime: ${execSync('uptime').toString().trim()}`)
  console.log(`PostgreSQL ${cluster.version}; ${Object.entries(cluster.settings).map(([k, v]) => `${k}=${v}`).join(' ')}`)
  const url = await cluster.createDatabase('upgrade')
  // Up to 0032: the migration files without 0033, bookkept as migratePg does, so migratePg then runs 0033 alone.
  cpSync(join(import.meta.dir, '../drizzle-pg'), dir, { recursive: true })
  const journal = JSON.parse(readFileSync(join(dir, 'meta/_journal.json'), 'utf8'))
  journal.entries = journal.entries.filter((e: { tag: string }) => e.tag < '0033')
  writeFileSync(join(dir, 'meta/_journal.json'), JSON.stringify(journal))
  const sql = new SQL(url, { max: 1 })
  await sql.begin(async (tx) => {
    await tx.unsafe('CREATE SCHEMA "drizzle"')
    await tx.unsafe('CREATE TABLE "drizzle"."__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)')
    for (const m of readMigrationFiles({ migrationsFolder: dir })) {
      for (const stmt of m.sql) if (stmt.trim()) await tx.unsafe(stmt)
      await tx`INSERT INTO "drizzle"."__drizzle_migrations" (hash, created_at) VALUES (${m.hash}, ${m.folderMillis})`
    }
  })
  const now = Date.now()
  let t = performance.now()
  await sql.unsafe(`
    INSERT INTO clicks (click_id, campaign_id, source_id, offer_id, landing_id, ip, user_agent, referrer, sub1, sub2, sub3,
      params, is_unique, cost, device_type, os, browser, referrer_domain, country, asn, as_org, connection, language,
      os_version, browser_version, created_at)
    SELECT gen_random_uuid()::text, 1 + g % 20, 1 + g % 5, 1 + g % 40, 1 + g % 10, '203.0.113.' || (g % 250),
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36',
      'https://news.example.com/article/' || g, 'sub-' || (g % 1000), 'zone' || (g % 97), NULL,
      '{"utm_source":"fb","utm_campaign":"c' || (g % 50) || '"}', g % 2, 0.01, 'mobile', 'Android', 'Chrome', 'news.example.com',
      'DE', 3320, 'Deutsche Telekom AG', 'residential', 'de', '14', '126',
      ${now} - (g::int8 * ${DAYS * DAY_MS} / ${ROWS})
    FROM generate_series(1, ${ROWS}) AS g`)
  await sql.unsafe('VACUUM ANALYZE clicks')
  await sql.unsafe('CHECKPOINT')
  const [size] = await sql`SELECT pg_size_pretty(pg_total_relation_size('clicks')) AS total, pg_size_pretty(pg_relation_size('clicks')) AS heap`
  console.log(`${ROWS} clicks over ${DAYS} days written in ${((performance.now() - t) / 1000).toFixed(1)} s: table ${size.heap}, with indexes ${size.total}`)

  const db = await openPg(url)
  t = performance.now()
  const ran = await migratePg(db)
  const took = (performance.now() - t) / 1000
  const [after] = await db.sql`SELECT pg_size_pretty(sum(pg_total_relation_size(inhrelid))) AS total, count(*)::int AS parts FROM pg_inherits WHERE inhparent = 'public.clicks'::regclass`
  console.log(`upgrade (0033 and 0034, ${ran} migrations): ${took.toFixed(1)} s = ${(took / (ROWS / 1e6)).toFixed(1)} s per million rows; ${after.parts} partitions, ${after.total} with indexes`)
  t = performance.now()
  await db.sql.unsafe('REINDEX INDEX clicks_click_id_idx')
  const hash = (performance.now() - t) / 1000
  const [idx] = await db.sql`SELECT pg_size_pretty(sum(pg_relation_size(i.indexrelid))) AS size FROM pg_inherits p JOIN pg_index i ON i.indrelid = p.inhrelid JOIN pg_class c ON c.oid = i.indexrelid WHERE p.inhparent = 'public.clicks'::regclass AND c.relname LIKE '%click_id_idx'`
  console.log(`0034's share (the click_id hash index of every partition built again): ${hash.toFixed(1)} s = ${(hash / (ROWS / 1e6)).toFixed(1)} s per million rows; ${idx.size}`)
  console.log(`uptime: ${execSync('uptime').toString().trim()}`)

  // Clicks arriving while retention drops days.
  const store = createClickStore(db, new EventBus())
  const appendFor = async (ms: number, during?: () => Promise<unknown>) => {
    const waits: number[] = []
    const end = performance.now() + ms
    const side = during?.()
    while (performance.now() < end) {
      const at = Date.now()
      const batch = Array.from({ length: 20 }, () => newClick({ clickId: newPgClickId(at), campaignId: 1, createdAt: at }))
      const s = performance.now()
      await Promise.all(batch.map((c) => store.append(c)))
      waits.push(performance.now() - s)
    }
    const sideResult = await side
    waits.sort((a, b) => a - b)
    const q = (p: number) => waits[Math.min(waits.length - 1, Math.floor(waits.length * p))]!.toFixed(1)
    return { line: `${waits.length} batches: p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${waits.at(-1)!.toFixed(1)} ms`, sideResult }
  }
  console.log(`appends alone:          ${(await appendFor(3000)).line}`)
  const cutoff = dayOf(now) - (DAYS - 10) * DAY_MS
  let dropMs = 0
  const r = await appendFor(3000, async () => {
    const s = performance.now()
    const res = await dropDaysBefore(db.sql, cutoff)
    dropMs = performance.now() - s
    return res
  })
  console.log(`appends during the drop: ${r.line}; the drop: ${JSON.stringify(r.sideResult)} in ${dropMs.toFixed(0)} ms`)
  console.log(`uptime: ${execSync('uptime').toString().trim()}`)
  await store.stop()
  await db.close()
  await sql.close()
} finally {
  cluster.stop()
  rmSync(dir, { recursive: true, force: true })
}
