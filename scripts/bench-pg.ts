// npm run bench:pg (also the last HTTP part of `npm run bench` unless BENCH_SKIP_PG=1): svc on PostgreSQL
// beside svc on SQLite, measured in ONE run on this machine, so that the figures can be compared:
//
//   (p1) GET /c/:slug, one svc instance per engine          → req/s, p50/p99, click rows = 302s
//   (p2) GET /c/:slug, TWO svc instances on one database    → summed req/s, each instance's p99
//   (p3) GET /postback for existing clicks, per engine      → req/s, p99, conversions created
//   (p4) the click store's group commit driven directly (no HTTP) from many concurrent callers → rows/s
//
// Placement (2 cores): every svc process on core 0, as in `npm run bench`; Postgres and wrk share core 1.
// Postgres gets a core of its own rather than svc's, as it would have a machine of its own in production:
// the figures say what one svc core does against a database elsewhere, and the CPU columns say whether
// core 1 (Postgres + wrk) ever became the limit. SQLite does its database work inside svc, on core 0.
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
import { pgAvailable, startBenchCluster, type BenchCluster } from './bench/pg-cluster'

const ROOT = resolve(import.meta.dir, '..')
const SECONDS = Number(process.env.BENCH_PG_SECONDS ?? 5)
const ROUNDS = Math.max(1, Number(process.env.BENCH_PG_ROUNDS ?? 3))
const STORE_SECONDS = Number(process.env.BENCH_PG_STORE_SECONDS ?? 3)
const STORE_CALLERS = [64, 1024]
const WARMUP = 2
const CONNECTIONS = 64
const SECRET = 'bench-master-secret-0123456789abcdef'
const OWNER = { email: 'bench@example.com', password: 'bench-password-0123' }
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36'
const CLICK_PATH = '/c/bench?sub1=abc&sub2=banner-7&utm_source=wrk&utm_campaign=bench'

const canPin = !!Bun.which('taskset') && cpus().length >= 2
const PIN_SVC = canPin ? ['taskset', '-c', '0'] : []
const PIN_CORE1 = canPin ? ['taskset', '-c', '1'] : [] // wrk
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

interface Round {
  runs: WrkResult[]
  cpu: CpuUse
}
const rps = (r: Round) => sum(r.runs, (x) => x.rps)

export async function benchPg(): Promise<{ rows: PgRow[]; results: Record<string, unknown>; ok: boolean }> {
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
  const wrk = (url: string, seconds: number, script: string, connections = CONNECTIONS, env?: Record<string, string>) =>
    runWrk({ url, seconds, connections, script: join(ROOT, 'scripts', 'bench', script), headers: { 'User-Agent': UA }, env, pin: PIN_CORE1 })

  try {
    console.log(`(p0) throwaway PostgreSQL cluster on ${canPin ? `core ${PG_CORE}` : 'any core'} …`)
    cluster = await startBenchCluster(PIN_PG)
    const pg = cluster
    const s = pg.settings
    const durability = `fsync=${s.fsync}, synchronous_commit=${s.synchronous_commit}, full_page_writes=${s.full_page_writes}, wal_sync_method=${s.wal_sync_method}, shared_buffers=${s.shared_buffers}`
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

    // ---- (p1) + (p2): the redirect --------------------------------------------------------------------
    let S = await start(sqliteEnv)
    let A = await start(pgEnv)
    await seedCampaign(S.base)
    await seedCampaign(A.base)
    const B = await start(pgEnv)
    await waitRedirect(`${B.base}${CLICK_PATH}`)
    const cpuGroups = (procs: Subprocess[]) => ({ svc: () => procs.map((p) => p.pid), postgres: () => pg.pids() })
    console.log(`(p1)+(p2) GET /c/:slug (${svc.label}): SQLite, Postgres ×1, Postgres ×2 in alternating rounds; warm-up ${WARMUP}s each, then ${ROUNDS} rounds of ${SECONDS}s …`)
    await wrk(`${S.base}${CLICK_PATH}`, WARMUP, 'status.lua')
    await wrk(`${A.base}${CLICK_PATH}`, WARMUP, 'status.lua')
    await wrk(`${B.base}${CLICK_PATH}`, WARMUP, 'status.lua')
    await Bun.sleep(300) // the warm-ups' last in-flight clicks commit
    const sqliteBefore = countSqlite('clicks')
    const pgBefore = await countPg('clicks')
    const one = async (procs: Subprocess[], urls: string[]): Promise<Round> => {
      const done = measureCpu(cpuGroups(procs))
      // Two instances: one wrk per instance at once, half the connections each, so the total offered
      // concurrency (64) is the same as for one instance.
      const runs = await Promise.all(urls.map((u) => wrk(`${u}${CLICK_PATH}`, SECONDS, 'status.lua', CONNECTIONS / urls.length)))
      return { runs, cpu: done() }
    }
    const sqliteRounds: Round[] = []
    const pg1Rounds: Round[] = []
    const pg2Rounds: Round[] = []
    for (let i = 0; i < ROUNDS; i++) {
      sqliteRounds.push(await one([S.p], [S.base]))
      pg1Rounds.push(await one([A.p], [A.base]))
      pg2Rounds.push(await one([A.p, B.p], [A.base, B.base]))
      console.log(
        `  round ${i + 1}: SQLite ${fmt(rps(sqliteRounds[i]!))}, Postgres ×1 ${fmt(rps(pg1Rounds[i]!))}, ` +
          `Postgres ×2 ${fmt(rps(pg2Rounds[i]!))} (${pg2Rounds[i]!.runs.map((r) => fmt(r.rps)).join(' + ')}) req/s`,
      )
    }
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
    const sqliteCheck = rowCheck(countSqlite('clicks') - sqliteBefore, sqliteRounds)
    const pgCheck = rowCheck((await countPg('clicks')) - pgBefore, [...pg1Rounds, ...pg2Rounds])
    const sq = pick(sqliteRounds, rps)
    const p1 = pick(pg1Rounds, rps)
    const p2 = pick(pg2Rounds, rps)
    const ratio1 = median(pg1Rounds.map((r, i) => rps(r) / rps(sqliteRounds[i]!)))
    const ratio2 = median(pg2Rounds.map((r, i) => rps(r) / rps(pg1Rounds[i]!)))
    const measuredRound = (r: Round) => ({
      rps: Math.round(rps(r)),
      instances: r.runs.map((x) => ({ rps: Math.round(x.rps), p50ms: x.p50ms, p99ms: x.p99ms, n302: x.n302, other: x.other, socket_errors: x.socketErrors })),
      cpu: r.cpu,
    })
    results.redirect = {
      sqlite: { median: measuredRound(sq), rounds_rps: sqliteRounds.map((r) => Math.round(rps(r))), rows: sqliteCheck },
      postgres_1: { median: measuredRound(p1), rounds_rps: pg1Rounds.map((r) => Math.round(rps(r))) },
      postgres_2: { median: measuredRound(p2), rounds_rps: pg2Rounds.map((r) => Math.round(rps(r))) },
      postgres_rows: pgCheck,
      pg1_to_sqlite_median_ratio: Number(ratio1.toFixed(3)),
      pg2_to_pg1_median_ratio: Number(ratio2.toFixed(3)),
      exit_codes_after_sigterm: codes,
    }
    rows.push({ name: 'SQLite /c', rps: rps(sq), p50ms: sq.runs[0]!.p50ms, p99ms: sq.runs[0]!.p99ms, note: `median of ${ROUNDS}; ${sqliteCheck.text}; CPU ${fmtCpu(sq.cpu)}` })
    rows.push({ name: 'Postgres /c, 1 instance', rps: rps(p1), p50ms: p1.runs[0]!.p50ms, p99ms: p1.runs[0]!.p99ms, note: `median of ${ROUNDS}; ${pct(ratio1, 1)} of SQLite (median of per-round ratios); CPU ${fmtCpu(p1.cpu)}` })
    rows.push({
      name: 'Postgres /c, 2 instances',
      rps: rps(p2),
      p50ms: Math.max(...p2.runs.map((r) => r.p50ms)),
      p99ms: Math.max(...p2.runs.map((r) => r.p99ms)),
      note: `sum of ${p2.runs.map((r) => fmt(r.rps)).join(' + ')}; p99 ${p2.runs.map((r) => `${r.p99ms.toFixed(1)}`).join(' / ')} ms; ` +
        `${pct(ratio2, 1)} of 1 instance; both on core 0; Postgres rows (×1 and ×2 rounds): ${pgCheck.text}; CPU ${fmtCpu(p2.cpu)}`,
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
    console.log(`(p3) GET /postback, SQLite and Postgres in ABBA rounds of ${SECONDS}s …`)
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
      const r = await pb(base, ids, SECONDS)
      return { runs: [r], cpu: done() }
    }
    for (const engine of ['sqlite', 'pg', 'pg', 'sqlite'] as const) {
      if (engine === 'sqlite') pbSqlite.push(await pbRound(S.p, S.base, sqliteIds))
      else pbPg.push(await pbRound(A.p, A.base, pgIds))
    }
    console.log(`  SQLite ${pbSqlite.map((r) => fmt(rps(r))).join(', ')}; Postgres ${pbPg.map((r) => fmt(rps(r))).join(', ')} req/s`)
    await Promise.all([stopGracefully(S.p), stopGracefully(A.p)])
    const convSqlite = countSqlite('conversions') - convSqlite0
    const convPg = (await countPg('conversions')) - convPg0
    // Two rounds each: the better one is shown (its p99 with it), the ratio is of the two engines' means.
    const best = (rs: Round[]) => rs.reduce((a, b) => (rps(b) > rps(a) ? b : a))
    const bestSqlite = best(pbSqlite)
    const bestPg = best(pbPg)
    const pbRatio = sum(pbPg, rps) / sum(pbSqlite, rps)
    const pbNote = (rs: Round[], conv: number) => {
      const runs = rs.flatMap((r) => r.runs)
      const bad = sum(runs, (r) => r.other)
      if (bad > 0) ok = false
      return `rounds ${rs.map((r) => fmt(rps(r))).join(' / ')}; 2xx ${fmt(sum(runs, (r) => r.n2xx))}, other ${bad}; conversions +${fmt(conv)}`
    }
    results.postback = {
      sqlite: { rounds: pbSqlite.map(measuredRound), conversions_created: convSqlite },
      postgres: { rounds: pbPg.map(measuredRound), conversions_created: convPg },
      pg_to_sqlite_ratio: Number(pbRatio.toFixed(3)),
    }
    rows.push({ name: 'SQLite /postback', rps: rps(bestSqlite), p50ms: bestSqlite.runs[0]!.p50ms, p99ms: bestSqlite.runs[0]!.p99ms, note: `${pbNote(pbSqlite, convSqlite)}; CPU ${fmtCpu(bestSqlite.cpu)}` })
    rows.push({ name: 'Postgres /postback', rps: rps(bestPg), p50ms: bestPg.runs[0]!.p50ms, p99ms: bestPg.runs[0]!.p99ms, note: `${pct(pbRatio, 1)} of SQLite (both rounds); ${pbNote(pbPg, convPg)}; CPU ${fmtCpu(bestPg.cpu)}` })

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
      placement: canPin ? `svc (every instance) and the store driver on core 0; wrk on core 1; Postgres on core ${PG_CORE}` : 'not pinned',
      seconds: SECONDS, rounds: ROUNDS, connections: CONNECTIONS, store_seconds: STORE_SECONDS,
    }
  } finally {
    await killAll()
    await pgSql?.close().catch(() => {})
    cluster?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
  results.seconds_total = Math.round((Date.now() - t0) / 1000)

  const st = results.setup as { postgres: string }
  console.log(
    `\nPostgres beside SQLite, one run: wrk -t1 -c${CONNECTIONS} -d${SECONDS}s --latency (two instances: two wrk -c${CONNECTIONS / 2} at once); ` +
      `${canPin ? `svc on core 0, wrk on core 1, Postgres on core ${PG_CORE}` : 'not pinned'}; bun ${Bun.version}; svc: ${svc.label}; PostgreSQL ${st.postgres} with fsync and synchronous_commit ON.\n` +
      'This machine is shared and noisy: compare the ratios, not absolute figures across runs. CPU: cores used by svc / Postgres; cores busy (all processes).\n',
  )
  printPgTable(rows)
  console.log(`\nPostgres part took ${results.seconds_total} s`)
  return { rows, results, ok }
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
    const { results, ok } = await benchPg()
    mkdirSync(join(ROOT, '.bench'), { recursive: true })
    writeFileSync(join(ROOT, '.bench', 'results-pg.json'), JSON.stringify({ date: new Date().toISOString(), ...results }, null, 2) + '\n')
    console.log('results written to .bench/results-pg.json')
    if (!ok) {
      console.error('FAIL: click rows do not match the 302s (or wrk saw answers other than 302 / 2xx)')
      process.exitCode = 1
    }
  } catch (err) {
    console.error('bench:pg failed:', err instanceof Error ? err.message : err)
    await killAll()
    process.exit(1)
  }
}
