// npm run crash: svc loses nothing it acknowledged when it dies under load.
//
//   1. SIGKILL in the middle of redirect + postback load, restart on the same data dir:
//      every click_id a client received in a 302 exists (admin API GET /admin/api/clicks/:id and the
//      clicks table), every postback answered 200 OK has its conversion, every conversion its forward job
//      (pending or running, none failed or done: the source answers 503 meanwhile).
//   2. The same with SIGTERM: the process must exit 0 after "stopped cleanly" with no job left running,
//      and in-flight requests end as a 302 for a stored click, a 503, or a failed connection.
//   3. The source starts answering 200: every forward job ends done, none failed, and the source has
//      received a postback for every acknowledged conversion.
//
// Both engines: SQLite (svc.db in a temp data dir) and PostgreSQL (a throwaway cluster from
// scripts/bench/pg-cluster.ts with the durable settings: fsync, synchronous_commit, full_page_writes on;
// only svc is killed, the database keeps running, as a database on its own machine would).
//
//   npm run crash        both engines, SQLite first (Postgres is skipped with a note when its binaries are missing)
//   npm run crash:pg     Postgres only          CRASH_ENGINE=sqlite|postgres|both picks explicitly
//
// Server on core 0, this client on core 1 (taskset) when possible; Postgres on core 1 too (off svc's core).
// Exit code 1 on any loss. Results: .bench/crash.json (SQLite, as before) and .bench/crash-pg.json.
// bench.ts can run it too: `import { runCrashCheck } from './crash'` (see the function's comment).
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pgAvailable, startBenchCluster, type BenchCluster } from './bench/pg-cluster'
import { pgDb, sqliteDb, type EngineDb, type Engine } from './proof/engine-db'
import { startSourceListener, type SourceListener } from './proof/listener'
import { startLoad, type LoadStats } from './proof/load'
import { seedCampaign } from './proof/seed'
import { CAN_PIN, installCleanup, pinSelf, removeTempDir, ROOT, Svc, tempDir } from './proof/svc'

const SLUG = 'crash'
const CONCURRENCY = 64
const POSTBACK_EVERY = 8
/** The signal waits until at least this many postbacks were answered 200 OK (see loadThenSignal). */
const MIN_ACKED_POSTBACKS = 32

export interface PhaseResult {
  signal: 'SIGKILL' | 'SIGTERM'
  load_ms: number
  requests_in_flight_at_signal: number
  /** Forward attempts the source was answering when the signal was sent (they become retries). */
  forward_attempts_in_flight_at_signal: number
  /** How the clicks in flight when the signal was sent ended: a 302 (then stored), a 503, or a failed connection. */
  inflight_clicks_outcome: { clicks_302: number; other_status: Record<string, number>; socket_errors: number }
  /** Everything answered after the signal: the in-flight requests plus those sent until the process was gone. */
  after_signal: { clicks_302: number; clicks_other_status: Record<string, number>; click_socket_errors: number; postbacks_ok: number; postback_socket_errors: number }
  clicks_302: number
  clicks_other_status: Record<string, number>
  click_socket_errors: number
  postbacks_ok: number
  postbacks_unanswered: number
  postbacks_other_status: Record<string, number>
  exit_code: number | null
  exit_signal: string | null
  exit_ms: number
  /** SIGTERM only: svc printed "stopped cleanly". */
  stopped_cleanly: boolean | null
  /**
   * SIGTERM: attempts left `running` by the stopped process after its exit (must be 0; attempts orphaned by
   * the SIGKILL phase are not counted). SIGKILL: attempts the killed process left running (not a failure).
   */
  jobs_left_running: number | null
  /** Click rows the phase created minus 302s received (clicks committed whose 302 never arrived). */
  rows_minus_302: number
  clicks_missing_in_table: number
  clicks_missing_via_api: number
  /** Found by the API only on a retry after the first 404 (the lookup lagged behind the restart). */
  clicks_late_via_api: number
  conversions_missing: number
  conversions_wrong_click: number
  jobs_missing: number
  jobs_bad_status: Record<string, number>
}

export interface CrashResult {
  ok: boolean
  /** The database svc ran on (absent in results written before Postgres was checked: SQLite). */
  engine?: Engine
  /** Postgres only: version and the durability settings the cluster reported. */
  postgres?: { version: string; settings: Record<string, string> }
  svc: string
  pinned: boolean
  phases: PhaseResult[]
  final: {
    conversions: number
    jobs: number
    jobs_done: number
    jobs_failed: number
    jobs_not_done_after_wait: number
    conversions_without_job: number
    acked_conversions_not_delivered: number
    /** Attempts the source answered (503 while failing, then 200). */
    source_requests: { total: number; failed: number; ok: number }
    seconds_to_drain: number
  }
  failures: string[]
  seconds: number
}

type Log = (line: string) => void

/** GET /admin/api/clicks/:id for every id, 32 at a time; ids answered 404 are retried 3 times over ~3 s. */
async function checkClicksViaApi(svc: Svc, ids: string[]): Promise<{ missing: string[]; late: number; otherStatus: number }> {
  let todo = ids
  let firstMisses = -1
  let otherStatus = 0
  for (let round = 0; round < 4 && todo.length > 0; round++) {
    if (round > 0) await Bun.sleep(1000)
    const misses: string[] = []
    let next = 0
    const worker = async () => {
      while (next < todo.length) {
        const id = todo[next++]!
        const r = await svc.api('GET', `/admin/api/clicks/${id}`)
        if (r.status === 200 && r.body?.click_id === id) continue
        if (r.status !== 404) otherStatus++
        misses.push(id)
      }
    }
    await Promise.all(Array.from({ length: 32 }, worker))
    if (firstMisses < 0) firstMisses = misses.length
    todo = misses
  }
  return { missing: todo, late: firstMisses - todo.length, otherStatus }
}

interface JobView { id: number; status: string; payload: { conversion_id?: number } }

async function jobsByConversion(svc: Svc): Promise<Map<number, JobView[]>> {
  const jobs = (await svc.listAll('/admin/api/jobs?kind=source_postback')) as JobView[]
  const map = new Map<number, JobView[]>()
  for (const j of jobs) {
    const cid = j.payload?.conversion_id
    if (typeof cid !== 'number') continue
    const list = map.get(cid) ?? []
    list.push(j)
    map.set(cid, list)
  }
  return map
}

/** Load for 2-3 s (random, so the signal lands at a different point each run; longer until 32 postbacks were acknowledged), then the signal. */
async function loadThenSignal(svc: Svc, listener: SourceListener, signal: 'SIGKILL' | 'SIGTERM', tidPrefix: string, log: Log) {
  const load = startLoad({ base: svc.base, slug: SLUG, concurrency: CONCURRENCY, postbackEvery: POSTBACK_EVERY, tidPrefix, keepIds: true })
  const t0 = performance.now()
  await Bun.sleep(2000 + Math.floor(Math.random() * 1000))
  // A slow or busy machine may not have acknowledged a postback yet: load on (up to 20 s more) until some
  // were, so that the signal always lands on conversions and forward jobs too, not only on clicks.
  const until = performance.now() + 20_000
  while (load.stats.postbacksOk < MIN_ACKED_POSTBACKS && performance.now() < until) await Bun.sleep(100)
  const loadMs = Math.round(performance.now() - t0)
  const s = load.stats
  const inflight = s.inflight
  const forwarding = listener.inflight()
  const at = { c302: s.clicks302, other: { ...s.clicksOther }, sock: s.clickSocketErrors, pbOk: s.postbacksOk, pbSock: s.postbackSocketErrors }
  log(`  ${signal} after ${loadMs} ms of load: ${s.clicks302} 302s so far, ${inflight} requests and ${forwarding} forward attempts in flight`)
  // The loops keep sending until the process is gone, so requests that arrive during a graceful drain are tested too.
  load.mark()
  const exit = await svc.kill(signal)
  const stats = await load.stop()
  const m = stats.markedInflight
  const inflightOutcome = { clicks_302: m.clicks302, other_status: m.other, socket_errors: m.socketErrors }
  const otherAfter: Record<string, number> = {}
  for (const [k, v] of Object.entries(stats.clicksOther)) if (v - (at.other[k] ?? 0) > 0) otherAfter[k] = v - (at.other[k] ?? 0)
  const after = {
    clicks_302: stats.clicks302 - at.c302,
    clicks_other_status: otherAfter,
    click_socket_errors: stats.clickSocketErrors - at.sock,
    postbacks_ok: stats.postbacksOk - at.pbOk,
    postback_socket_errors: stats.postbackSocketErrors - at.pbSock,
  }
  log(
    `  clicks in flight at the signal ended as: ${m.clicks302} × 302, ${JSON.stringify(m.other)} other, ${m.socketErrors} failed connections; ` +
      `all answers after the signal: ${after.clicks_302} × 302, ${JSON.stringify(otherAfter)} other, ${after.click_socket_errors} failed connections; exit after ${exit.ms} ms`,
  )
  return { stats, loadMs, inflight, forwarding, inflightOutcome, after, exit }
}

function phaseBase(signal: 'SIGKILL' | 'SIGTERM', run: Awaited<ReturnType<typeof loadThenSignal>>): PhaseResult {
  const s: LoadStats = run.stats
  return {
    signal,
    load_ms: run.loadMs,
    requests_in_flight_at_signal: run.inflight,
    forward_attempts_in_flight_at_signal: run.forwarding,
    inflight_clicks_outcome: run.inflightOutcome,
    after_signal: run.after,
    clicks_302: s.clicks302,
    clicks_other_status: s.clicksOther,
    click_socket_errors: s.clickSocketErrors,
    postbacks_ok: s.postbacksOk,
    postbacks_unanswered: s.postbackSocketErrors,
    postbacks_other_status: s.postbacksOther,
    exit_code: run.exit.code,
    exit_signal: run.exit.signal,
    exit_ms: run.exit.ms,
    stopped_cleanly: null,
    jobs_left_running: null,
    rows_minus_302: 0,
    clicks_missing_in_table: 0,
    clicks_missing_via_api: 0,
    clicks_late_via_api: 0,
    conversions_missing: 0,
    conversions_wrong_click: 0,
    jobs_missing: 0,
    jobs_bad_status: {},
  }
}

/** After the restart: the phase's clicks, conversions and jobs are all there. */
async function verifyPhase(svc: Svc, db: EngineDb, p: PhaseResult, stats: LoadStats, rowsBefore: number, failures: string[], log: Log) {
  const tag = p.signal
  const table = await db.clickIds()
  const notInTable = stats.ids.filter((id) => !table.has(id))
  p.clicks_missing_in_table = notInTable.length
  p.rows_minus_302 = table.size - rowsBefore - stats.clicks302
  if (notInTable.length) failures.push(`${tag}: ${notInTable.length} click_ids received in a 302 are not in the clicks table (e.g. ${notInTable[0]})`)
  if (p.rows_minus_302 < 0) failures.push(`${tag}: fewer click rows (${table.size - rowsBefore}) than 302s received (${stats.clicks302})`)

  const api = await checkClicksViaApi(svc, stats.ids)
  p.clicks_missing_via_api = api.missing.length
  p.clicks_late_via_api = api.late
  if (api.missing.length) failures.push(`${tag}: ${api.missing.length} click_ids received in a 302 answer 404 at GET /admin/api/clicks/:id (e.g. ${api.missing[0]})`)
  if (api.late) failures.push(`${tag}: ${api.late} click_ids answered 404 right after the restart and 200 only later`)
  if (api.otherStatus) failures.push(`${tag}: ${api.otherStatus} click lookups answered neither 200 nor 404`)

  const conversions = await db.conversionsByTid()
  const jobs = await jobsByConversion(svc)
  for (const { tid, clickId } of stats.acked) {
    const c = conversions.get(tid)
    if (!c) {
      p.conversions_missing++
      continue
    }
    if (c.click_id !== clickId) p.conversions_wrong_click++
    const js = jobs.get(c.id) ?? []
    if (js.length === 0) p.jobs_missing++
    // The source answers 503 until the end, so a job can only be waiting (pending) or in an attempt (running).
    for (const j of js) if (j.status !== 'pending' && j.status !== 'running') p.jobs_bad_status[j.status] = (p.jobs_bad_status[j.status] ?? 0) + 1
  }
  if (stats.acked.length === 0) failures.push(`${tag}: no postback was acknowledged before the signal, so conversions and jobs went unchecked`)
  if (p.conversions_missing) failures.push(`${tag}: ${p.conversions_missing} postbacks answered 200 OK have no conversion`)
  if (p.conversions_wrong_click) failures.push(`${tag}: ${p.conversions_wrong_click} conversions point at another click than the postback named`)
  if (p.jobs_missing) failures.push(`${tag}: ${p.jobs_missing} acknowledged conversions have no forward job`)
  if (Object.keys(p.jobs_bad_status).length) failures.push(`${tag}: forward jobs in unexpected states ${JSON.stringify(p.jobs_bad_status)}`)
  log(
    `  verified after restart: ${stats.ids.length} clicks (table: ${notInTable.length} missing; API: ${api.missing.length} missing, ${api.late} late), ` +
      `${stats.acked.length} conversions (${p.conversions_missing} missing), their jobs (${p.jobs_missing} missing)`,
  )
}

/**
 * Runs the whole check (about 30-60 s). Returns the result; never exits the process.
 * `engine` defaults to SQLite; 'postgres' starts (and deletes) its own throwaway cluster.
 *
 * From bench.ts:  const crash = await runCrashCheck(); results.crash = crash; if (!crash.ok) process.exitCode = 1
 */
export async function runCrashCheck(opts: { log?: Log; engine?: Engine } = {}): Promise<CrashResult> {
  const log = opts.log ?? ((l: string) => console.log(l))
  const engine: Engine = opts.engine ?? 'sqlite'
  installCleanup()
  const t0 = performance.now()
  const failures: string[] = []
  const phases: PhaseResult[] = []
  // Postgres mode keeps nothing in it, but the server's log file lives there on both engines.
  const dataDir = tempDir('svc-crash-')
  const listener: SourceListener = startSourceListener('fail')
  let svc: Svc | null = null
  let label = '?'
  let cluster: BenchCluster | null = null
  let db: EngineDb | null = null
  let pgInfo: CrashResult['postgres']
  let extraEnv: Record<string, string> = {}
  const final: CrashResult['final'] = {
    conversions: 0, jobs: 0, jobs_done: 0, jobs_failed: 0, jobs_not_done_after_wait: 0, conversions_without_job: 0,
    acked_conversions_not_delivered: 0, source_requests: listener.received, seconds_to_drain: 0,
  }
  try {
    if (engine === 'postgres') {
      cluster = await startBenchCluster(CAN_PIN ? ['taskset', '-c', '1'] : [])
      const url = await cluster.createDatabase('svc_crash')
      pgInfo = { version: cluster.version, settings: cluster.settings }
      extraEnv = { SVC_DATABASE_URL: url } // svc serve migrates the empty database itself
      db = pgDb(url)
      const s = cluster.settings
      log(`crash check on PostgreSQL ${cluster.version} (fsync=${s.fsync}, synchronous_commit=${s.synchronous_commit}, full_page_writes=${s.full_page_writes}); only svc is killed`)
    } else {
      db = sqliteDb(dataDir)
    }
    const start = () => Svc.start(dataDir, extraEnv)
    svc = await start()
    label = svc.label
    log(`crash check (${engine}): svc = ${label}, data dir ${dataDir}, ${CONCURRENCY} client loops, a postback after every ${POSTBACK_EVERY}th click`)
    await seedCampaign(svc, SLUG, listener.template)

    // 1. SIGKILL
    log('phase 1: SIGKILL under load')
    const kill = await loadThenSignal(svc, listener, 'SIGKILL', 'kill', log)
    const p1 = phaseBase('SIGKILL', kill)
    phases.push(p1)
    if (p1.exit_signal !== 'SIGKILL') failures.push(`SIGKILL: the process ended with code ${p1.exit_code} / signal ${p1.exit_signal}`)
    // Attempts the killed process held. SQLite's next start returns them to pending; on Postgres (shared by
    // instances) they stay running until their lease expires (timeout + 30 s), so phase 2 must not count them
    // as left behind by the clean stop. A re-claimed job has a higher attempt number and counts again.
    const orphaned = await db.runningAttempts()
    p1.jobs_left_running = orphaned.size
    log(`  attempts left running by the killed process: ${orphaned.size}${engine === 'postgres' ? ' (claimed again when their lease expires)' : ''}`)
    svc = await start()
    await verifyPhase(svc, db, p1, kill.stats, 0, failures, log)
    const rowsAfter1 = await db.count('clicks')

    // 2. SIGTERM
    log('phase 2: SIGTERM under load')
    const term = await loadThenSignal(svc, listener, 'SIGTERM', 'term', log)
    const p2 = phaseBase('SIGTERM', term)
    phases.push(p2)
    p2.stopped_cleanly = svc.log().includes('stopped cleanly')
    p2.jobs_left_running = [...(await db.runningAttempts())].filter((a) => !orphaned.has(a)).length
    if (p2.exit_code !== 0) failures.push(`SIGTERM: exit code ${p2.exit_code} (signal ${p2.exit_signal}), expected 0`)
    if (!p2.stopped_cleanly) failures.push('SIGTERM: svc did not print "stopped cleanly"')
    if (p2.jobs_left_running !== 0) failures.push(`SIGTERM: ${p2.jobs_left_running} jobs left in state running after a clean stop`)
    log(`  exit code ${p2.exit_code} after ${p2.exit_ms} ms, stopped cleanly: ${p2.stopped_cleanly}, jobs left running: ${p2.jobs_left_running}`)
    svc = await start()
    await verifyPhase(svc, db, p2, term.stats, rowsAfter1, failures, log)
    // Phase 1's clicks must also have survived the second stop.
    const table = await db.clickIds()
    const lost1 = kill.stats.ids.filter((id) => !table.has(id)).length
    if (lost1) failures.push(`after the second restart ${lost1} clicks of phase 1 are missing`)

    // 3. The source recovers: every job must end done.
    log('phase 3: the source answers 200; waiting for every forward job to finish')
    listener.mode = 'ok'
    const t3 = performance.now()
    let pendingJobs = -1
    for (let i = 0; i < 600; i++) {
      const pending = (await svc.listAll('/admin/api/jobs?status=pending')).length + (await svc.listAll('/admin/api/jobs?status=running')).length
      pendingJobs = pending
      if (pending === 0) break
      await Bun.sleep(100)
    }
    final.seconds_to_drain = Number(((performance.now() - t3) / 1000).toFixed(1))
    const allJobs = (await svc.listAll('/admin/api/jobs?kind=source_postback')) as JobView[]
    const conversions = await db.conversionsByTid()
    final.conversions = await db.count('conversions')
    final.jobs = allJobs.length
    final.jobs_done = allJobs.filter((j) => j.status === 'done').length
    final.jobs_failed = allJobs.filter((j) => j.status === 'failed').length
    final.jobs_not_done_after_wait = allJobs.length - final.jobs_done
    const withJob = new Set(allJobs.map((j) => j.payload?.conversion_id))
    final.conversions_without_job = [...conversions.values()].filter((c) => !withJob.has(c.id)).length
    final.acked_conversions_not_delivered = [...kill.stats.acked, ...term.stats.acked].filter((a) => !listener.okByClickId.has(a.clickId)).length
    if (pendingJobs !== 0) failures.push(`${pendingJobs} forward jobs still pending/running after 60 s with the source answering 200`)
    if (final.jobs_failed) failures.push(`${final.jobs_failed} forward jobs failed`)
    if (final.conversions_without_job) failures.push(`${final.conversions_without_job} conversions have no forward job`)
    if (final.acked_conversions_not_delivered) failures.push(`${final.acked_conversions_not_delivered} acknowledged conversions were never delivered to the source`)
    log(`  ${final.jobs_done}/${final.jobs} jobs done in ${final.seconds_to_drain} s, ${final.jobs_failed} failed; source saw ${listener.received.total} requests (${listener.received.failed} answered 503)`)

    const stop = await svc.kill('SIGTERM')
    if (stop.code !== 0) failures.push(`final SIGTERM: exit code ${stop.code}`)
    for (const p of phases) {
      const errs = Object.keys(p.postbacks_other_status).length
      if (errs) failures.push(`${p.signal}: postbacks answered with unexpected statuses ${JSON.stringify(p.postbacks_other_status)}`)
    }
    // Before the signal no request may fail: any non-302 click while the server was up is a defect,
    // except 503 in the SIGTERM phase (the writer is stopping: no click handed out, nothing lost).
    const badClicks1 = Object.entries(p1.clicks_other_status)
    if (badClicks1.length) failures.push(`SIGKILL phase: clicks answered ${JSON.stringify(p1.clicks_other_status)}`)
    const badClicks2 = Object.entries(p2.clicks_other_status).filter(([s]) => s !== '503')
    if (badClicks2.length) failures.push(`SIGTERM phase: clicks answered ${JSON.stringify(p2.clicks_other_status)}`)
  } catch (err) {
    failures.push(`crash check aborted: ${(err as Error)?.stack ?? err}`)
    if (svc) log(`svc log tail:\n${svc.log().slice(-3000)}`)
  } finally {
    listener.stop()
    // Only this check's own server: bench.ts may call this function and owns its other children.
    if (svc?.alive) await svc.kill('SIGKILL')
    await db?.close().catch(() => {})
    cluster?.stop()
    removeTempDir(dataDir)
  }
  return {
    ok: failures.length === 0,
    engine,
    ...(pgInfo ? { postgres: pgInfo } : {}),
    svc: label,
    pinned: CAN_PIN,
    phases,
    final,
    failures,
    seconds: Number(((performance.now() - t0) / 1000).toFixed(1)),
  }
}

export function printCrashSummary(r: CrashResult): void {
  const row = (cols: Array<string | number>, widths: number[]) => cols.map((c, i) => String(c).padEnd(widths[i]!)).join('  ')
  const w = [8, 7, 26, 9, 16, 18, 10, 9]
  console.log('\n' + row(['signal', '302s', 'in flight → 302/other/fail', 'pb OK', 'exit', 'lost clicks tbl/API', 'lost conv', 'lost jobs'], w))
  for (const p of r.phases) {
    const o = p.inflight_clicks_outcome
    const other = Object.values(o.other_status).reduce((a, b) => a + b, 0)
    const exit = p.exit_signal ?? `code ${p.exit_code}, ${p.exit_ms} ms`
    console.log(row([
      p.signal, p.clicks_302, `${p.requests_in_flight_at_signal} → ${o.clicks_302}/${other}/${o.socket_errors}`, p.postbacks_ok, exit,
      `${p.clicks_missing_in_table} / ${p.clicks_missing_via_api}`, p.conversions_missing, p.jobs_missing,
    ], w))
  }
  const f = r.final
  console.log(
    `\nforward jobs: ${f.jobs} for ${f.conversions} conversions, ${f.jobs_done} done, ${f.jobs_failed} failed, ` +
      `${f.conversions_without_job} conversions without a job, ${f.acked_conversions_not_delivered} acknowledged conversions not delivered; drained in ${f.seconds_to_drain} s`,
  )
  const lost = r.phases.reduce((a, p) => a + p.clicks_missing_in_table + p.clicks_missing_via_api + p.conversions_missing + p.jobs_missing, 0) + f.jobs_failed + f.conversions_without_job
  const engine = r.engine === 'postgres' ? `PostgreSQL ${r.postgres?.version ?? ''}${r.pinned ? ' (database on core 1)' : ''}` : 'SQLite'
  const lostConv = r.phases.reduce((a, p) => a + p.conversions_missing, 0)
  const lostClicks = r.phases.reduce((a, p) => a + Math.max(p.clicks_missing_in_table, p.clicks_missing_via_api), 0)
  const lostJobs = r.phases.reduce((a, p) => a + p.jobs_missing, 0) + f.jobs_failed + f.conversions_without_job
  console.log(`lost = ${lost} (clicks ${lostClicks}, conversions ${lostConv}, jobs ${lostJobs}); engine = ${engine}; svc = ${r.svc}; ${r.pinned ? 'server on core 0, client on core 1' : 'not pinned'}; ${r.seconds} s`)
  if (r.failures.length) {
    console.error(`\nFAIL (${r.engine ?? 'sqlite'}):`)
    for (const f of r.failures) console.error(`  - ${f}`)
  } else {
    console.log(`PASS (${r.engine ?? 'sqlite'}): nothing acknowledged was lost`)
  }
}

/** CRASH_ENGINE: sqlite | postgres | both (default both; Postgres skipped with a note when not installed). */
function enginesToRun(): Engine[] {
  const want = (process.env.CRASH_ENGINE ?? 'both').toLowerCase()
  if (want !== 'sqlite' && want !== 'postgres' && want !== 'both') {
    console.error(`CRASH_ENGINE must be sqlite, postgres or both (got ${want})`)
    process.exit(2)
  }
  const pg = pgAvailable()
  if (want === 'postgres' && !pg.ok) {
    console.error(pg.why)
    process.exit(1)
  }
  if (want === 'sqlite') return ['sqlite']
  if (want === 'postgres') return ['postgres']
  if (!pg.ok) console.warn(`note: the Postgres crash check is skipped: ${pg.why}`)
  return pg.ok ? ['sqlite', 'postgres'] : ['sqlite']
}

if (import.meta.main) {
  const engines = enginesToRun()
  pinSelf(1)
  mkdirSync(join(ROOT, '.bench'), { recursive: true })
  const verdicts: string[] = []
  for (const engine of engines) {
    if (engines.length > 1) console.log(`\n==== ${engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'} ====`)
    const r = await runCrashCheck({ engine })
    printCrashSummary(r)
    const file = engine === 'sqlite' ? 'crash.json' : 'crash-pg.json'
    writeFileSync(join(ROOT, '.bench', file), JSON.stringify({ date: new Date().toISOString(), bun: Bun.version, ...r }, null, 2) + '\n')
    console.log(`result written to .bench/${file}`)
    verdicts.push(`${engine}: ${r.ok ? 'PASS' : 'FAIL'}`)
    if (!r.ok) process.exitCode = 1
  }
  if (engines.length > 1) console.log(`\ncrash check: ${verdicts.join(', ')}`)
  process.exit(process.exitCode ?? 0)
}
