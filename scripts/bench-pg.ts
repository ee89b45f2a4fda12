// npm run bench:pg (also the last HTTP part of `npm run bench` unless BENCH_SKIP_PG=1): svc on PostgreSQL
// beside svc on SQLite, measured in ONE run on this machine, so that the figures can be compared. Each
// figure is the median of BENCH_PG_ROUNDS rounds (3), the engines alternating round by round, so a noisy
// moment of this shared machine moves one round, not the verdict. The issue-31 targets end the output
// (block "targets", PASS/FAIL per target) and .bench/results-pg.json (key "targets").
//
//   (p1)  GET /c/:slug, one instance per engine, at its peak (wrk -c64)  → req/s, p50/p99; Postgres / SQLite
//   (p1') the same, PACED at half of Postgres' peak, both engines at the same offered rate → p99 (tail
//         latency without queueing; each connection pauses between requests, as `npm run bench` paces)
//   (p2)  GET /c/:slug, TWO instances on one Postgres against ONE, with Postgres alone on its core
//   (p3)  GET /postback for existing clicks, SQLite and Postgres in alternating pairs (S P, P S, S P …)
//   (p4)  the click store's group commit driven directly (no HTTP) from many concurrent callers → rows/s
//   The report target (30 days by campaign over 10M clicks, p95 < 50 ms) is `npm run bench:reports:pg`;
//   nothing lost on a crash is `npm run crash` (both engines) or `npm run crash:pg`.
//
// Placement (2 cores; taskset): every svc process on core 0, Postgres on core 1 (BENCH_PG_CORE).
//   (p1), (p1'), (p3): wrk on core 1 beside Postgres, as in `npm run bench` (svc's core is svc's alone, so
//       SQLite, which does its database work inside svc, is measured as before).
//   (p2): Postgres ALONE on core 1, as a database on its own machine; svc instances AND wrk on core 0. The
//       ×1 rounds of (p2) run with this placement too, so the ratio compares like with like; wrk's own CPU
//       is printed (it takes the same share from svc in both), and so is what svc and Postgres used.
//
// Knobs (environment):
//   BENCH_PG_SECONDS (5)        seconds per measured round      BENCH_PG_ROUNDS (3)   rounds per case
//   BENCH_PG_STORE_SECONDS (3)  seconds per click-store round   BENCH_PG_CORE (1)     Postgres' core
//   BENCH_PG_STRICT=1           exit 1 when a target FAILs too (default: only on wrong row counts / statuses)
//   BENCH_PG_OPTS="-c k=v …"    more options for the throwaway cluster (an experiment; printed with the figures)
// Defaults take about 3-4 minutes (203 s on this 2-core machine under load). Figures: .bench/results-pg.json.
//
// The cluster is a throwaway one (scripts/bench/pg-cluster.ts) with fsync, synchronous_commit and
// full_page_writes ON: durable, product settings. It is stopped and deleted at the end.
import { Database } from 'bun:sqlite'
import type { Subprocess } from 'bun'
import { SQL } from 'bun'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fmtCpu, measureCpu, type CpuUse } from './bench/cpu'
import { freePort, killAll, runWrk, spawn, stopGracefully, svcCommand, waitHttp, type WrkResult } from './bench/lib'
import { EXTRA_OPTIONS, pgAvailable, startBenchCluster, type BenchCluster } from './bench/pg-cluster'

const ROOT = resolve(import.meta.dir, '..')
const SECONDS = Number(process.env.BENCH_PG_SECONDS ?? 5)
const ROUNDS = Math.max(1, Number(process.env.BENCH_PG_ROUNDS ?? 3))
const STORE_SECONDS = Number(process.env.BENCH_PG_STORE_SECONDS ?? 3)
const STORE_CALLERS = [64, 1024]
const STRICT = process.env.BENCH_PG_STRICT === '1'
/** The issue-31 targets (ratios against SQLite in the same run; Postgres durable). */
export const TARGETS = { redirectRatio: 0.6, pacedP99Ms: 10, postbackRatio: 0.5, twoInstancesRatio: 1 } as const
const WARMUP = 2
const CONNECTIONS = 64
const SECRET = 'bench-master-secret-0123456789abcdef'
const OWNER = { email: 'bench@example.com', password: 'bench-password-0123' }
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36'
const CLICK_PATH = '/c/bench?sub1=abc&sub2=banner-7&utm_source=wrk&utm_campaign=bench'

const canPin = !!Bun.which('taskset') && cpus().length >= 2
const PIN_SVC = canPin ? ['taskset', '-c', '0'] : []
const PIN_CORE1 = canPin ? ['taskset', '-c', '1'] : [] // wrk, except in (p2)
/** BENCH_PG_CORE=0 puts Postgres on svc's core instead (the placement experiment in docs/performance.md). */
const PG_CORE = process.env.BENCH_PG_CORE ?? '1'
const PIN_PG = canPin ? ['taskset', '-c', PG_CORE] : []

export interface PgRow {
  name: string
  rps: number
  p50ms: number
  p99ms: number
  note: string
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const pick = <T>(rounds: T[], by: (r: T) => number): T => [...rounds].sort((a, b) => by(a) - by(b))[Math.floor(rounds.length / 2)]!
const sum = <T>(xs: T[], f: (x: T) => number) => xs.reduce((n, x) => n + f(x), 0)
const fmt = (n: number, d = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }) : '-')
const pct = (a: number, b: number) => `${((a / b) * 100).toFixed(0)} %`

/** Logs in as the owner and makes the bench campaign through the admin API: the same rows on either engine. */
async function seedCampaign(base: string): Promise<void> {
  const login = await fetch(`${base}/admin/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(OWNER) })
  if (login.status !== 200) throw new Error(`login on ${base}: ${login.status} ${await login.text()}`)
  const cookie = login.headers.getSetCookie().find((c) => c.startsWith('svc_admin_session='))!.split(';')[0]!
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${base}/admin/api/${path}`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) })
    const text = await r.text()
    if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${text}`)
    return JSON.parse(text) as { id: number }
  }
  const source = await post('sources', { name: 'bench source', postback_url: null })
  const offer = await post('offers', { name: 'bench offer', slug: 'bench-offer', url: 'https://offer.example/go?click_id={click_id}&src={source_id}&s1={sub1}', payout: 1 })
  await post('campaigns', { name: 'bench', slug: 'bench', source_id: source.id, offer_id: offer.id, external_id: 'ext-1' })
}

/** Until `url` answers 302 (another instance learns of the campaign through LISTEN/NOTIFY). */
async function waitRedirect(url: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const r = await fetch(url, { redirect: 'manual', headers: { 'user-agent': UA } })
    await r.arrayBuffer()
    if (r.status === 302) return
    if (Date.now() > until) throw new Error(`${url} answered ${r.status}, not 302, for ${timeoutMs} ms`)
    await Bun.sleep(50)
  }
}

export interface Target {
  id: string
  target: string
  value: number
  pass: boolean
  figures: string
}

interface Round {
  runs: WrkResult[]
  cpu: CpuUse
}
const rps = (r: Round) => sum(r.runs, (x) => x.rps)

export async function benchPg(): Promise<{ rows: PgRow[]; results: Record<string, unknown>; ok: boolean; targets: Target[] }> {
  const avail = pgAvailable()
  if (!avail.ok) throw new Error(avail.why)
  const svc = svcCommand(ROOT)
  if (svc.label !== 'dist/svc') console.warn('note: dist/svc is missing or older than the sources; benchmarking from source (npm run build first to measure the binary)')
  if (!canPin) console.warn('warning: taskset or a second core is missing; nothing is pinned (numbers will be noisy)')
  const t0 = Date.now()
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-pg-sqlite-'))
  const dbPath = join(dataDir, 'svc.db')
  let cluster: BenchCluster | null = null
  let pgSql: SQL | null = null
  const rows: PgRow[] = []
  const results: Record<string, unknown> = {}
  let ok = true
  const targets: Target[] = []
  const wrk = (url: string, seconds: number, script: string, connections = CONNECTIONS, env?: Record<string, string>, pin = PIN_CORE1) =>
    runWrk({ url, seconds, connections, script: join(ROOT, 'scripts', 'bench', script), headers: { 'User-Agent': UA }, env, pin })

  try {
    console.log(`(p0) throwaway PostgreSQL cluster on ${canPin ? `core ${PG_CORE}` : 'any core'} …`)
    cluster = await startBenchCluster(PIN_PG)
    const pg = cluster
    const s = pg.settings
    const durability = `fsync=${s.fsync}, synchronous_commit=${s.synchronous_commit}, full_page_writes=${s.full_page_writes}, wal_sync_method=${s.wal_sync_method}, shared_buffers=${s.shared_buffers}, huge pages ${s.huge_pages_in_use === 'yes' ? 'in use' : 'not in use'}`
    console.log(`     PostgreSQL ${pg.version}; ${durability} (durable: every commit waits for its WAL flush)`)
    const pgUrl = await pg.createDatabase('svc_bench')
    pgSql = new SQL(pgUrl, { max: 1 })
    const sqliteEnv = { SVC_DATA_DIR: dataDir, SVC_SECRET: SECRET, HOST: '127.0.0.1', NODE_ENV: 'production', SVC_ADMIN_EMAIL: OWNER.email, SVC_ADMIN_PASSWORD: OWNER.password }
    const { SVC_DATA_DIR: _, ...common } = sqliteEnv
    const pgEnv = { ...common, SVC_DATABASE_URL: pgUrl } // Postgres mode keeps nothing in a data directory
    for (const env of [sqliteEnv, pgEnv]) {
      const m = spawn([...svc.cmd, 'migrate'], env)
      if ((await m.exited) !== 0) throw new Error('svc migrate failed')
    }
    const start = async (env: Record<string, string | undefined>, extra: Record<string, string> = {}) => {
      const port = await freePort()
      const p = spawn([...PIN_SVC, ...svc.cmd, 'serve'], { ...env, ...extra, PORT: String(port) })
      const base = `http://127.0.0.1:${port}`
      await waitHttp(`${base}/healthz`)
      return { p, base }
    }
    const countSqlite = (table: string) => {
      const db = new Database(dbPath, { readonly: true })
      try {
        return (db.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n // constant table names
      } finally {
        db.close()
      }
    }
    const countPg = async (table: 'clicks' | 'conversions') =>
      Number((table === 'clicks' ? await pgSql!`SELECT count(*)::int AS n FROM clicks` : await pgSql!`SELECT count(*)::int AS n FROM conversions`)[0].n)

    // ---- (p1), (p1'), (p2): the redirect --------------------------------------------------------------
    let S = await start(sqliteEnv)
    let A = await start(pgEnv)
    await seedCampaign(S.base)
    await seedCampaign(A.base)
    const B = await start(pgEnv)
    await waitRedirect(`${B.base}${CLICK_PATH}`)
    const cpuGroups = (procs: Subprocess[]) => ({ svc: () => procs.map((p) => p.pid), postgres: () => pg.pids() })
    console.log(`(p1) GET /c/:slug (${svc.label}), one instance: SQLite and Postgres in alternating rounds; warm-up ${WARMUP}s each, then ${ROUNDS} rounds of ${SECONDS}s …`)
    await wrk(`${S.base}${CLICK_PATH}`, WARMUP, 'status.lua')
    await wrk(`${A.base}${CLICK_PATH}`, WARMUP, 'status.lua')
    await wrk(`${B.base}${CLICK_PATH}`, WARMUP, 'status.lua')
    await Bun.sleep(300) // the warm-ups' last in-flight clicks commit
    const sqliteBefore = countSqlite('clicks')
    const pgBefore = await countPg('clicks')
    /**
     * One round against `urls` (one wrk per instance at once; two instances: half the connections each, so
     * the offered concurrency is the same). `pin`: wrk's core. wrk's CPU comes from its rusage.
     */
    const one = async (procs: Subprocess[], urls: string[], opts: { pin?: string[]; delayMs?: number; seconds?: number } = {}): Promise<Round> => {
      const done = measureCpu(cpuGroups(procs))
      const t = performance.now()
      const env = opts.delayMs ? { BENCH_DELAY_MS: String(opts.delayMs) } : undefined
      const runs = await Promise.all(urls.map((u) => wrk(`${u}${CLICK_PATH}`, opts.seconds ?? SECONDS, 'status.lua', CONNECTIONS / urls.length, env, opts.pin)))
      const cpu = done()
      cpu.groups.wrk = sum(runs, (r) => r.cpuSeconds ?? NaN) / ((performance.now() - t) / 1000)
      return { runs, cpu }
    }
    const sqliteRounds: Round[] = []
    const pg1Rounds: Round[] = []
    for (let i = 0; i < ROUNDS; i++) {
      sqliteRounds.push(await one([S.p], [S.base]))
      pg1Rounds.push(await one([A.p], [A.base]))
      console.log(`  round ${i + 1}: SQLite ${fmt(rps(sqliteRounds[i]!))}, Postgres ${fmt(rps(pg1Rounds[i]!))} req/s (${pct(rps(pg1Rounds[i]!), rps(sqliteRounds[i]!))})`)
    }
    const sq = pick(sqliteRounds, rps)
    const p1 = pick(pg1Rounds, rps)
    const ratio1 = median(pg1Rounds.map((r, i) => rps(r) / rps(sqliteRounds[i]!)))

    // (p1') Paced at half of Postgres' median peak: 64 connections, each waiting `delayMs` after each answer.
    // The pause is the whole cycle minus a paced request's own time, taken from a short calibration run
    // (the peak's p50 is queueing, which a paced request does not see); the rate reached is printed beside
    // its share of the peak. The calibration's clicks and 302s count in the row check below.
    const halfPeak = rps(p1) / 2
    const cycleMs = (CONNECTIONS / halfPeak) * 1000
    const calibration = await one([A.p], [A.base], { delayMs: Math.max(1, Math.round(cycleMs - 1)), seconds: WARMUP })
    const delayMs = Math.max(1, Math.round(cycleMs - calibration.runs[0]!.p50ms))
    console.log(`(p1') paced: ${CONNECTIONS} connections, ${delayMs} ms between a connection's requests (≈ half of Postgres' peak, ${fmt(halfPeak)} req/s), both engines, ${ROUNDS} alternating rounds of ${SECONDS}s …`)
    const pacedSqlite: Round[] = []
    const pacedPg: Round[] = []
    for (let i = 0; i < ROUNDS; i++) {
      pacedSqlite.push(await one([S.p], [S.base], { delayMs }))
      pacedPg.push(await one([A.p], [A.base], { delayMs }))
      console.log(`  round ${i + 1}: p99 SQLite ${pacedSqlite[i]!.runs[0]!.p99ms} ms, Postgres ${pacedPg[i]!.runs[0]!.p99ms} ms (${fmt(rps(pacedPg[i]!))} req/s)`)
    }
    const p99 = (r: Round) => Math.max(...r.runs.map((x) => x.p99ms))
    const pacedSq = pick(pacedSqlite, p99)
    const pacedP = pick(pacedPg, p99)

    // (p2) Postgres alone on its core: svc instances and wrk share core 0. ×1 and ×2 alternate.
    const PIN_P2 = PIN_SVC
    const p2Place = canPin ? `Postgres alone on core ${PG_CORE}; svc instance(s) and wrk on core 0` : 'not pinned'
    console.log(`(p2) GET /c/:slug, Postgres ×1 vs ×2 (${p2Place}), ${ROUNDS} alternating rounds of ${SECONDS}s …`)
    const p2Warmup = await one([A.p], [A.base], { pin: PIN_P2, seconds: WARMUP }) // its 302s count in the row check
    const pg1bRounds: Round[] = []
    const pg2Rounds: Round[] = []
    for (let i = 0; i < ROUNDS; i++) {
      pg1bRounds.push(await one([A.p], [A.base], { pin: PIN_P2 }))
      pg2Rounds.push(await one([A.p, B.p], [A.base, B.base], { pin: PIN_P2 }))
      console.log(
        `  round ${i + 1}: Postgres ×1 ${fmt(rps(pg1bRounds[i]!))}, ×2 ${fmt(rps(pg2Rounds[i]!))} (${pg2Rounds[i]!.runs.map((r) => fmt(r.rps)).join(' + ')}) req/s; ` +
          `CPU ×1 ${fmtCpu(pg1bRounds[i]!.cpu)}; ×2 ${fmtCpu(pg2Rounds[i]!.cpu)}`,
      )
    }
    const p1b = pick(pg1bRounds, rps)
    const p2 = pick(pg2Rounds, rps)
    const ratio2 = median(pg2Rounds.map((r, i) => rps(r) / rps(pg1bRounds[i]!)))

    // SIGTERM: each instance commits its pending clicks before it exits.
    const codes = await Promise.all([stopGracefully(S.p), stopGracefully(A.p), stopGracefully(B.p)])
    const rowCheck = (created: number, rounds: Round[]) => {
      const runs = rounds.flatMap((r) => r.runs)
      const n302 = sum(runs, (r) => r.n302)
      const excess = created - n302
      // A request in flight when wrk stops is committed but its 302 is never counted: at most one per connection.
      const good = sum(runs, (r) => r.other + r.n2xx) === 0 && excess >= 0 && excess <= CONNECTIONS * rounds.length
      if (!good) ok = false
      return { created, n302, excess, good, text: `rows ${fmt(created)} vs 302s ${fmt(n302)} (+${excess} in flight) ${good ? 'OK' : 'MISMATCH'}` }
    }
    const sqliteCheck = rowCheck(countSqlite('clicks') - sqliteBefore, [...sqliteRounds, ...pacedSqlite])
    const pgCheck = rowCheck((await countPg('clicks')) - pgBefore, [...pg1Rounds, calibration, ...pacedPg, p2Warmup, ...pg1bRounds, ...pg2Rounds])
    const measuredRound = (r: Round) => ({
      rps: Math.round(rps(r)),
      instances: r.runs.map((x) => ({ rps: Math.round(x.rps), p50ms: x.p50ms, p99ms: x.p99ms, n302: x.n302, other: x.other, socket_errors: x.socketErrors })),
      cpu: r.cpu,
    })
    const roundsRps = (rs: Round[]) => rs.map((r) => Math.round(rps(r)))
    results.redirect = {
      sqlite: { median: measuredRound(sq), rounds_rps: roundsRps(sqliteRounds), rows: sqliteCheck },
      postgres_1: { median: measuredRound(p1), rounds_rps: roundsRps(pg1Rounds) },
      postgres_rows: pgCheck,
      pg1_to_sqlite_median_ratio: Number(ratio1.toFixed(3)),
      paced: {
        delay_ms: delayMs, half_of_pg_peak_rps: Math.round(halfPeak), calibration_p50_ms: calibration.runs[0]!.p50ms,
        sqlite: { median: measuredRound(pacedSq), rounds_p99_ms: pacedSqlite.map(p99) },
        postgres: { median: measuredRound(pacedP), rounds_p99_ms: pacedPg.map(p99) },
      },
      two_instances: {
        placement: p2Place,
        postgres_1: { median: measuredRound(p1b), rounds_rps: roundsRps(pg1bRounds) },
        postgres_2: { median: measuredRound(p2), rounds_rps: roundsRps(pg2Rounds) },
        pg2_to_pg1_median_ratio: Number(ratio2.toFixed(3)),
      },
      // Kept for readers of older results: the ×2 rounds and their ratio, now measured as in (p2).
      postgres_2: { median: measuredRound(p2), rounds_rps: roundsRps(pg2Rounds) },
      pg2_to_pg1_median_ratio: Number(ratio2.toFixed(3)),
      exit_codes_after_sigterm: codes,
    }
    rows.push({ name: 'SQLite /c', rps: rps(sq), p50ms: sq.runs[0]!.p50ms, p99ms: sq.runs[0]!.p99ms, note: `median of ${ROUNDS} (${roundsRps(sqliteRounds).map((x) => fmt(x)).join(' / ')}); ${sqliteCheck.text}; CPU ${fmtCpu(sq.cpu)}` })
    rows.push({ name: 'Postgres /c, 1 instance', rps: rps(p1), p50ms: p1.runs[0]!.p50ms, p99ms: p1.runs[0]!.p99ms, note: `median of ${ROUNDS} (${roundsRps(pg1Rounds).map((x) => fmt(x)).join(' / ')}); ${pct(ratio1, 1)} of SQLite (median of per-round ratios); CPU ${fmtCpu(p1.cpu)}` })
    rows.push({ name: 'SQLite /c, paced', rps: rps(pacedSq), p50ms: pacedSq.runs[0]!.p50ms, p99ms: pacedSq.runs[0]!.p99ms, note: `${delayMs} ms pause per connection (the next row's pace); median p99 of ${ROUNDS} (${pacedSqlite.map(p99).join(' / ')} ms)` })
    rows.push({ name: 'Postgres /c, paced', rps: rps(pacedP), p50ms: pacedP.runs[0]!.p50ms, p99ms: pacedP.runs[0]!.p99ms, note: `≈ half of its peak (${pct(rps(pacedP), rps(p1))} reached); median p99 of ${ROUNDS} (${pacedPg.map(p99).join(' / ')} ms); CPU ${fmtCpu(pacedP.cpu)}` })
    rows.push({ name: 'Postgres /c, 1 inst. (p2)', rps: rps(p1b), p50ms: p1b.runs[0]!.p50ms, p99ms: p1b.runs[0]!.p99ms, note: `${p2Place}; median of ${ROUNDS} (${roundsRps(pg1bRounds).map((x) => fmt(x)).join(' / ')}); CPU ${fmtCpu(p1b.cpu)}` })
    rows.push({
      name: 'Postgres /c, 2 instances',
      rps: rps(p2),
      p50ms: Math.max(...p2.runs.map((r) => r.p50ms)),
      p99ms: Math.max(...p2.runs.map((r) => r.p99ms)),
      note: `sum of ${p2.runs.map((r) => fmt(r.rps)).join(' + ')}; p99 ${p2.runs.map((r) => `${r.p99ms.toFixed(1)}`).join(' / ')} ms; ` +
        `${ratio2.toFixed(2)}× one instance (median of per-round ratios); same placement; CPU ${fmtCpu(p2.cpu)}; Postgres rows (all Postgres /c rounds): ${pgCheck.text}`,
    })

    // ---- (p3): the postback ----------------------------------------------------------------------------
    // Trust-proxy on, so each request comes from its own X-Forwarded-For address (the per-IP limit is not measured).
    S = await start(sqliteEnv, { SVC_TRUST_PROXY: '1' })
    A = await start(pgEnv, { SVC_TRUST_PROXY: '1' })
    const sqliteIds = join(dataDir, 'ids-sqlite.txt')
    const pgIds = join(dataDir, 'ids-pg.txt')
    {
      const db = new Database(dbPath, { readonly: true })
      const ids = (db.query('SELECT click_id FROM clicks ORDER BY id DESC LIMIT 20000').all() as Array<{ click_id: string }>).map((x) => x.click_id)
      db.close()
      writeFileSync(sqliteIds, ids.join('\n') + '\n')
      const pids = (await pgSql`SELECT click_id FROM clicks ORDER BY id DESC LIMIT 20000`) as Array<{ click_id: string }>
      writeFileSync(pgIds, pids.map((x) => x.click_id).join('\n') + '\n')
    }
    const order = Array.from({ length: ROUNDS }, (_, i) => (i % 2 === 0 ? 'S P' : 'P S')).join(' ')
    console.log(`(p3) GET /postback, SQLite and Postgres in ${ROUNDS} alternating pairs (${order}) of ${SECONDS}s …`)
    const pb = (base: string, ids: string, seconds: number) => wrk(`${base}/postback`, seconds, 'postback.lua', CONNECTIONS, { BENCH_IDS: ids })
    await pb(S.base, sqliteIds, WARMUP)
    await pb(A.base, pgIds, WARMUP)
    await Bun.sleep(300)
    const convSqlite0 = countSqlite('conversions')
    const convPg0 = await countPg('conversions')
    const pbSqlite: Round[] = []
    const pbPg: Round[] = []
    const pbRound = async (p: Subprocess, base: string, ids: string): Promise<Round> => {
      const done = measureCpu(cpuGroups([p]))
      const t = performance.now()
      const r = await pb(base, ids, SECONDS)
      const cpu = done()
      cpu.groups.wrk = (r.cpuSeconds ?? NaN) / ((performance.now() - t) / 1000)
      return { runs: [r], cpu }
    }
    for (let i = 0; i < ROUNDS; i++) {
      for (const engine of i % 2 === 0 ? (['sqlite', 'pg'] as const) : (['pg', 'sqlite'] as const)) {
        if (engine === 'sqlite') pbSqlite.push(await pbRound(S.p, S.base, sqliteIds))
        else pbPg.push(await pbRound(A.p, A.base, pgIds))
      }
      console.log(`  pair ${i + 1}: SQLite ${fmt(rps(pbSqlite[i]!))}, Postgres ${fmt(rps(pbPg[i]!))} req/s (${pct(rps(pbPg[i]!), rps(pbSqlite[i]!))})`)
    }
    await Promise.all([stopGracefully(S.p), stopGracefully(A.p)])
    const convSqlite = countSqlite('conversions') - convSqlite0
    const convPg = (await countPg('conversions')) - convPg0
    const pbSq = pick(pbSqlite, rps)
    const pbP = pick(pbPg, rps)
    const pbRatio = median(pbPg.map((r, i) => rps(r) / rps(pbSqlite[i]!)))
    const pbNote = (rs: Round[], conv: number) => {
      const runs = rs.flatMap((r) => r.runs)
      const bad = sum(runs, (r) => r.other)
      if (bad > 0) ok = false
      return `median of ${rs.length} (${rs.map((r) => fmt(rps(r))).join(' / ')}); 2xx ${fmt(sum(runs, (r) => r.n2xx))}, other ${bad}; conversions +${fmt(conv)}`
    }
    results.postback = {
      order,
      sqlite: { median: measuredRound(pbSq), rounds: pbSqlite.map(measuredRound), conversions_created: convSqlite },
      postgres: { median: measuredRound(pbP), rounds: pbPg.map(measuredRound), conversions_created: convPg },
      pg_to_sqlite_ratio: Number(pbRatio.toFixed(3)),
    }
    rows.push({ name: 'SQLite /postback', rps: rps(pbSq), p50ms: pbSq.runs[0]!.p50ms, p99ms: pbSq.runs[0]!.p99ms, note: `${pbNote(pbSqlite, convSqlite)}; CPU ${fmtCpu(pbSq.cpu)}` })
    rows.push({ name: 'Postgres /postback', rps: rps(pbP), p50ms: pbP.runs[0]!.p50ms, p99ms: pbP.runs[0]!.p99ms, note: `${pct(pbRatio, 1)} of SQLite (median of per-pair ratios); ${pbNote(pbPg, convPg)}; CPU ${fmtCpu(pbP.cpu)}` })

    // ---- targets (issue 31) ------------------------------------------------------------------------------
    targets.push(
      {
        id: 'redirect_ratio', target: `/c one instance >= ${TARGETS.redirectRatio * 100}% of SQLite`, value: Number(ratio1.toFixed(3)), pass: ratio1 >= TARGETS.redirectRatio,
        figures: `${pct(ratio1, 1)}: Postgres ${fmt(rps(p1))} vs SQLite ${fmt(rps(sq))} req/s; p99 at peak ${p1.runs[0]!.p99ms} vs ${sq.runs[0]!.p99ms} ms`,
      },
      {
        id: 'redirect_p99_half_peak', target: `/c p99 at half of Postgres' peak < ${TARGETS.pacedP99Ms} ms`, value: p99(pacedP), pass: p99(pacedP) < TARGETS.pacedP99Ms,
        figures: `${p99(pacedP)} ms at ${fmt(rps(pacedP))} req/s (${pct(rps(pacedP), rps(p1))} of its peak); SQLite ${p99(pacedSq)} ms at the same pace`,
      },
      {
        id: 'postback_ratio', target: `/postback >= ${TARGETS.postbackRatio * 100}% of SQLite`, value: Number(pbRatio.toFixed(3)), pass: pbRatio >= TARGETS.postbackRatio,
        figures: `${pct(pbRatio, 1)}: Postgres ${fmt(rps(pbP))} vs SQLite ${fmt(rps(pbSq))} req/s (medians; ratio = median of ${ROUNDS} pairs)`,
      },
      {
        id: 'two_instances', target: 'two instances on one Postgres > one', value: Number(ratio2.toFixed(3)), pass: ratio2 > TARGETS.twoInstancesRatio,
        figures: `${ratio2.toFixed(2)}×: ${fmt(rps(p2))} vs ${fmt(rps(p1b))} req/s; ${p2Place}; CPU ×2: ${fmtCpu(p2.cpu)}`,
      },
    )

    // ---- (p4): the click stores' group commit, no HTTP --------------------------------------------------
    console.log(`(p4) click store group commit, ${STORE_CALLERS.join(' and ')} concurrent callers, ${STORE_SECONDS}s each (from source) …`)
    const storeUrl = await pg.createDatabase('svc_store')
    const store: Record<string, unknown> = {}
    for (const callers of STORE_CALLERS) {
      const pair: Record<string, { rows_per_s: number; n: number; commits: number; batch_mean: number; cpu: CpuUse }> = {}
      for (const engine of ['sqlite', 'postgres'] as const) {
        const target = engine === 'sqlite' ? join(dataDir, `store-${callers}.db`) : storeUrl
        const p = Bun.spawn([...PIN_SVC, process.execPath, join(ROOT, 'scripts', 'bench', 'click-store-driver.ts'), engine, target, String(STORE_SECONDS), String(callers)], { stdout: 'pipe', stderr: 'inherit' })
        // Over the whole child (start and warm-up included): CPU shares, not exact per-click costs. The
        // driver's own time comes from its rusage, as it has exited by the time the round is read.
        const t = performance.now()
        const done = measureCpu({ postgres: () => pg.pids() })
        const out = await new Response(p.stdout).text()
        if ((await p.exited) !== 0) throw new Error(`click-store-driver ${engine} failed`)
        const pgCpu = done()
        const own = Number(p.resourceUsage()?.cpuTime.total ?? NaN) / 1e6 / ((performance.now() - t) / 1000)
        const cpu: CpuUse = { groups: { svc: own, postgres: pgCpu.groups.postgres! }, cores: pgCpu.cores }
        pair[engine] = { ...JSON.parse(out.trim().split('\n').pop()!), cpu }
      }
      const r = pair.postgres!.rows_per_s / pair.sqlite!.rows_per_s
      store[`callers_${callers}`] = { ...pair, pg_to_sqlite_ratio: Number(r.toFixed(3)) }
      for (const engine of ['sqlite', 'postgres'] as const) {
        const x = pair[engine]!
        rows.push({
          name: `${engine === 'sqlite' ? 'SQLite' : 'Postgres'} store, ${callers} callers`,
          rps: x.rows_per_s, p50ms: NaN, p99ms: NaN,
          note: `rows/s; ${fmt(x.n)} clicks in ${fmt(x.commits)} commits (mean ${fmt(x.batch_mean)} per commit)` +
            (engine === 'postgres' ? `; ${pct(r, 1)} of SQLite` : '') + `; CPU ${fmtCpu(x.cpu)}`,
        })
      }
    }
    results.store = store
    results.setup = {
      svc: svc.label, bun: Bun.version, postgres: pg.version, settings: pg.settings, pinned: canPin,
      placement: canPin
        ? `svc (every instance) and the store driver on core 0; Postgres on core ${PG_CORE}; wrk on core 1 in (p1), (p1'), (p3) and on core 0 in (p2), leaving Postgres its core alone`
        : 'not pinned',
      seconds: SECONDS, rounds: ROUNDS, connections: CONNECTIONS, store_seconds: STORE_SECONDS,
    }
  } finally {
    await killAll()
    await pgSql?.close().catch(() => {})
    cluster?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
  results.seconds_total = Math.round((Date.now() - t0) / 1000)
  results.targets = targets

  const st = results.setup as { postgres: string }
  console.log(
    `\nPostgres beside SQLite, one run: wrk -t1 -c${CONNECTIONS} -d${SECONDS}s --latency (two instances: two wrk -c${CONNECTIONS / 2} at once); ` +
      `${canPin ? `svc on core 0, Postgres on core ${PG_CORE}, wrk on core 1 except in (p2) where it is on core 0 so that Postgres has its core alone` : 'not pinned'}; ` +
      `bun ${Bun.version}; svc: ${svc.label}; PostgreSQL ${st.postgres} with fsync and synchronous_commit ON${EXTRA_OPTIONS ? ` and ${EXTRA_OPTIONS}` : ''}; medians of ${ROUNDS} rounds.\n` +
      'This machine is shared and noisy: compare the ratios, not absolute figures across runs. CPU: cores used by svc / Postgres / wrk; cores busy (all processes).\n',
  )
  printPgTable(rows)
  printTargets(targets)
  console.log(`\nPostgres part took ${results.seconds_total} s`)
  return { rows, results, ok, targets }
}

/** The issue-31 verdicts, one line each, plus where the targets measured elsewhere are measured. */
export function printTargets(targets: Target[]): void {
  console.log(`\ntargets (issue 31; Postgres durable; ratios within this run, medians of ${ROUNDS} rounds):`)
  for (const t of targets) console.log(`  ${t.pass ? 'PASS' : 'FAIL'}  ${t.target.padEnd(46)} ${t.figures}`)
  console.log(`  ----  ${'30-day report by campaign, 10M clicks: p95 < 50 ms'.padEnd(46)} measured by \`npm run bench:reports:pg\``)
  console.log(`  ----  ${'nothing acknowledged lost (crash check)'.padEnd(46)} measured by \`npm run crash:pg\` (\`npm run crash\`: both engines)`)
}

export function printPgTable(rows: PgRow[]): void {
  console.log(`${'case'.padEnd(30)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}  notes`)
  for (const r of rows) {
    console.log(`${r.name.padEnd(30)} ${fmt(r.rps).padStart(9)} ${fmt(r.p50ms, 2).padStart(8)} ${fmt(r.p99ms, 2).padStart(8)}  ${r.note}`)
  }
}

if (import.meta.main) {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => void killAll().then(() => process.exit(130))) // 'exit' stops the cluster
  }
  if (!Bun.which('wrk')) {
    console.error('wrk is not installed (Debian/Ubuntu: apt-get install -y wrk; macOS: brew install wrk)')
    process.exit(1)
  }
  try {
    const { results, ok, targets } = await benchPg()
    mkdirSync(join(ROOT, '.bench'), { recursive: true })
    writeFileSync(join(ROOT, '.bench', 'results-pg.json'), JSON.stringify({ date: new Date().toISOString(), ...results }, null, 2) + '\n')
    console.log('results written to .bench/results-pg.json')
    if (!ok) {
      console.error('FAIL: click rows do not match the 302s (or wrk saw answers other than 302 / 2xx)')
      process.exitCode = 1
    }
    const missed = targets.filter((t) => !t.pass)
    if (STRICT && missed.length) {
      console.error(`FAIL (BENCH_PG_STRICT=1): targets missed: ${missed.map((t) => t.id).join(', ')}`)
      process.exitCode = 1
    }
  } catch (err) {
    console.error('bench:pg failed:', err instanceof Error ? err.message : err)
    await killAll()
    process.exit(1)
  }
}
