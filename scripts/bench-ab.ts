// npm run bench:ab -- before=path/to/old/svc after=dist/svc: /postback of two builds of svc on SQLite,
// side by side in one run, so that a change's cost on the hot path is a ratio measured on the same
// machine at the same time (this machine is too noisy for figures taken minutes apart).
//
// Each build gets its own data directory, one campaign whose offer has an active email trigger
// (BENCH_AB_TRIGGER=0 leaves it out; a build without triggers answers 404 to that request and runs
// without), 3 s of redirects for click ids, then rounds of `wrk` on /postback in alternating order.
// Output: req/s per round, the per-round ratio second/first with its median, and each side's p99.
// BENCH_AB_PATH=c measures the tracked redirect GET /c/bench instead (every answer a 302).
// BENCH_AB_TOGETHER=1 loads both servers at once (wrk -c32 on each) instead of one after the other: they
// share core 0, the scheduler gives each half of it, and the ratio of their req/s is the inverse ratio of
// their CPU cost per request, with this machine's drift cancelled within each round. Measured A/A (one
// build on both sides): /c rounds 1.005-1.025, where one-after-the-other rounds of one build differ by up
// to ±30 %; /postback rounds 0.99-1.09 (its forward jobs and triggers run behind the load). The side
// loaded second gains up to ~2.5 % by itself: run both orders.
//
// BENCH_AB_ENGINE=postgres runs both builds on one throwaway Postgres cluster (durable settings, pinned to
// core 1 beside wrk, as `npm run bench:pg` places it), a database each. BENCH_AB_FORWARD=1 gives the source
// a postback URL (a listener in this script answering 200), so every conversion also enqueues its forward
// job and the job loop delivers it behind the load, as with real traffic sources. It then also prints, per
// build, the forwards the source received during the rounds and how long after them the last one arrived
// (every conversion forwarded once; both builds drain at once, on the same core).
//
// BENCH_PG_STATEMENTS=1 (with Postgres) ends with each build's ten statements that took Postgres the most time
// (pg_stat_statements: calls, total ms): how a change moved the database's work, statement by statement.
//
// Placement as in `npm run bench`: the servers on core 0, wrk on core 1. The first-started server has
// been seen to do better than the second even for two copies of one binary, so run it both ways round.
import { Database } from 'bun:sqlite'
import { SQL } from 'bun'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { freePort, runWrk, spawn, stopGracefully, waitHttp } from './bench/lib'
import { startBenchCluster } from './bench/pg-cluster'

const ROOT = resolve(import.meta.dir, '..')
const builds = process.argv.slice(2).map((a) => a.split('=') as [string, string])
if (builds.length !== 2 || builds.some(([l, p]) => !l || !p)) {
  console.error('usage: bun scripts/bench-ab.ts first=path/to/svc second=path/to/svc')
  process.exit(2)
}
const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 6)
const SECONDS = Number(process.env.BENCH_AB_SECONDS ?? 5)
const TRIGGER = process.env.BENCH_AB_TRIGGER !== '0'
/** What the rounds measure: `postback` (default), or `c` for the tracked redirect GET /c/bench. */
const TARGET = process.env.BENCH_AB_PATH === 'c' ? 'c' : 'postback'
const TOGETHER = process.env.BENCH_AB_TOGETHER === '1'
const POSTGRES = process.env.BENCH_AB_ENGINE === 'postgres'
const FORWARD = process.env.BENCH_AB_FORWARD === '1'
const OWNER = { email: 'bench@example.com', password: 'bench-password-0123' }
const canPin = !!Bun.which('taskset') && cpus().length >= 2
const PIN_SVC = canPin ? ['taskset', '-c', '0'] : []
const PIN_WRK = canPin ? ['taskset', '-c', '1'] : []
const script = (name: string) => join(ROOT, 'scripts', 'bench', name)

interface Side { label: string; base: string; ids: string; dir: string; pgUrl: string | null }

const procs: ReturnType<typeof spawn>[] = []
const sides: Side[] = []
const cluster = POSTGRES ? await startBenchCluster(PIN_WRK) : null
// The traffic source's postback endpoint (BENCH_AB_FORWARD=1).
const forwardedBy = new Map<string, number>()
const source = FORWARD
  ? Bun.serve({
      port: 0, hostname: '127.0.0.1',
      fetch: (req) => {
        const side = new URL(req.url).searchParams.get('side') ?? '?'
        forwardedBy.set(side, (forwardedBy.get(side) ?? 0) + 1)
        return new Response('ok')
      },
    })
  : null
const forwarded = (label: string) => forwardedBy.get(label) ?? 0
try {
  for (const [label, bin] of builds) {
    const dir = mkdtempSync(join(tmpdir(), `svc-bench-ab-${label}-`))
    const pgUrl = cluster ? await cluster.createDatabase(`svc_ab_${label.replace(/\W/g, '_')}`) : null
    const env = {
      ...(pgUrl ? { SVC_DATABASE_URL: pgUrl } : { SVC_DATA_DIR: dir }),
      SVC_SECRET: 'bench-master-secret-0123456789abcdef', HOST: '127.0.0.1', NODE_ENV: 'production', SVC_ADMIN_EMAIL: OWNER.email, SVC_ADMIN_PASSWORD: OWNER.password, SVC_TRUST_PROXY: '1',
      ...(FORWARD ? { SVC_OUTBOUND_ALLOW_PRIVATE: '1' } : {}),
    }
    if ((await spawn([bin, 'migrate'], env).exited) !== 0) throw new Error(`${label}: svc migrate failed`)
    const port = await freePort()
    procs.push(spawn([...PIN_SVC, bin, 'serve'], { ...env, PORT: String(port) }))
    const base = `http://127.0.0.1:${port}`
    await waitHttp(`${base}/healthz`)
    const login = await fetch(`${base}/admin/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(OWNER) })
    const cookie = login.headers.getSetCookie().find((c) => c.startsWith('svc_admin_session='))!.split(';')[0]!
    const post = async (path: string, body: unknown) =>
      (await (await fetch(`${base}/admin/api/${path}`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as { id?: number }
    const src = await post('sources', { name: 's', postback_url: source ? `http://127.0.0.1:${source.port}/pb?c={click_id}&p={payout}&side=${encodeURIComponent(label)}` : null })
    const offer = await post('offers', { name: 'o', slug: 'o', url: 'https://offer.example/go?click_id={click_id}', payout: 1 })
    await post('campaigns', { name: 'bench', slug: 'bench', source_id: src.id, offer_id: offer.id })
    if (TRIGGER) {
      const list = await post('email-lists', { name: 'buyers' })
      const trigger = list.id ? await post('email-triggers', { offer_id: offer.id, target_list_id: list.id }) : {}
      console.log(`${label}: ${trigger.id ? 'an active email trigger on the offer' : 'no email triggers in this build'}`)
    }
    await runWrk({ url: `${base}/c/bench`, seconds: 3, connections: 64, script: script('status.lua'), pin: PIN_WRK })
    await Bun.sleep(500)
    let ids: string[]
    if (pgUrl) {
      const pg = new SQL(pgUrl, { max: 1 })
      ids = ((await pg`SELECT click_id FROM clicks ORDER BY id DESC LIMIT 20000`) as Array<{ click_id: string }>).map((x) => x.click_id)
      await pg.close()
    } else {
      const db = new Database(join(dir, 'svc.db'), { readonly: true })
      ids = (db.query('SELECT click_id FROM clicks ORDER BY id DESC LIMIT 20000').all() as Array<{ click_id: string }>).map((x) => x.click_id)
      db.close()
    }
    const file = join(dir, 'ids.txt')
    writeFileSync(file, ids.join('\n') + '\n')
    sides.push({ label, base, ids: file, dir, pgUrl })
  }
  const connections = TOGETHER ? 32 : 64
  const pb = (s: Side, seconds: number) => TARGET === 'c'
    ? runWrk({ url: `${s.base}/c/bench`, seconds, connections, script: script('status.lua'), pin: PIN_WRK })
    : runWrk({ url: `${s.base}/postback`, seconds, connections, script: script('postback.lua'), env: { BENCH_IDS: s.ids }, pin: PIN_WRK })
  console.log(`measuring ${TARGET === 'c' ? 'GET /c/bench' : 'GET /postback'} on ${POSTGRES ? 'Postgres' : 'SQLite'}${FORWARD ? ', every conversion forwarded to the source' : ''}, ${ROUNDS} rounds of ${SECONDS} s${TOGETHER ? ', both servers loaded at once' : ''}`)
  for (const s of sides) await pb(s, 2) // warm-up
  const forwardedBefore = new Map(sides.map((s) => [s.label, forwarded(s.label)]))
  const rps: Record<string, number[]> = {}
  const p99: Record<string, number[]> = {}
  const note = (s: Side, w: Awaited<ReturnType<typeof pb>>) => {
    ;(rps[s.label] ??= []).push(Math.round(w.rps))
    ;(p99[s.label] ??= []).push(w.p99ms)
    if (w.other) console.log(`  ${s.label}: ${w.other} answers that were not ${TARGET === 'c' ? '302' : '2xx'}`)
  }
  for (let r = 0; r < ROUNDS; r++) {
    if (TOGETHER) {
      const ws = await Promise.all(sides.map((s) => pb(s, SECONDS)))
      sides.forEach((s, i) => note(s, ws[i]!))
    } else {
      for (const s of r % 2 ? [...sides].reverse() : sides) note(s, await pb(s, SECONDS))
    }
    console.log(`round ${r + 1}: ${sides.map((s) => `${s.label} ${rps[s.label]!.at(-1)!.toLocaleString('en-US')}`).join(', ')} req/s`)
  }
  const [a, b] = sides.map((s) => rps[s.label]!)
  const ratios = a!.map((x, i) => b![i]! / x).sort((x, y) => x - y)
  console.log(`${sides[1]!.label}/${sides[0]!.label} per round: ${ratios.map((r) => r.toFixed(3)).join(' ')}; median ${ratios[Math.floor(ratios.length / 2)]!.toFixed(3)}`)
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!
  for (const s of sides) console.log(`${s.label}: p99 per round ${p99[s.label]!.map((x) => x.toFixed(1)).join(' / ')} ms; median ${median(p99[s.label]!).toFixed(1)} ms`)
  if (source) {
    // Each side's conversions, all of which are forwarded; then wait (up to 120 s) for the last forward.
    const conversions = async (s: Side): Promise<number> => {
      if (s.pgUrl) {
        const q = new SQL(s.pgUrl, { max: 1 })
        try {
          return Number((await q`SELECT count(*)::int AS n FROM conversions`)[0].n)
        } finally {
          await q.close()
        }
      }
      const db = new Database(join(s.dir, 'svc.db'), { readonly: true })
      try {
        return (db.query('SELECT count(*) AS n FROM conversions').get() as { n: number }).n
      } finally {
        db.close()
      }
    }
    const atEnd = new Map(sides.map((s) => [s.label, forwarded(s.label)]))
    const t0 = performance.now()
    const want = new Map<string, number>()
    for (const s of sides) want.set(s.label, await conversions(s))
    const drained = new Map<string, number>()
    while (drained.size < sides.length && performance.now() - t0 < 120_000) {
      for (const s of sides) if (!drained.has(s.label) && forwarded(s.label) >= want.get(s.label)!) drained.set(s.label, performance.now() - t0)
      await Bun.sleep(50)
    }
    for (const s of sides) {
      const during = atEnd.get(s.label)! - forwardedBefore.get(s.label)!
      const left = want.get(s.label)! - atEnd.get(s.label)!
      const d = drained.get(s.label)
      console.log(`${s.label}: forwards received during the rounds ${during.toLocaleString('en-US')}; ${left.toLocaleString('en-US')} of ${want.get(s.label)!.toLocaleString('en-US')} conversions still to forward at their end, ${d === undefined ? `not all forwarded within 120 s (${forwarded(s.label).toLocaleString('en-US')})` : `the last forwarded ${(d / 1000).toFixed(1)} s later`}`)
    }
  }
  if (cluster && process.env.BENCH_PG_STATEMENTS === '1') {
    for (const s of sides) {
      const q = new SQL(`postgres://svc@${cluster.host}:${cluster.port}/svc_ab_${s.label.replace(/\W/g, '_')}`, { max: 1 })
      try {
        await q.unsafe('CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
        const top = await q.unsafe(`SELECT calls, round(total_exec_time::numeric, 1) AS ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 100) AS text
          FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY total_exec_time DESC LIMIT 10`)
        console.log(`${s.label}: Postgres' top statements (calls, total ms, statement)`)
        for (const r of top as Array<{ calls: unknown; ms: unknown; text: string }>) console.log(`  ${r.calls}\t${r.ms}\t${r.text}`)
      } finally {
        await q.close()
      }
    }
  }
} finally {
  source?.stop(true)
  for (const p of procs) await stopGracefully(p)
  cluster?.stop()
  for (const s of sides) rmSync(s.dir, { recursive: true, force: true })
}
