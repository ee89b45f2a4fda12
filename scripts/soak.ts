// npm run soak: sustained redirect + postback load for SOAK_SECONDS (default 180) with the server's
// memory sampled every 5 s from /proc/<pid>/status.
//
// Load: 64 client loops, each GET /c/<slug> (302) and after every 10th click a GET /postback for the
// click it just received (so 10 redirects : 1 postback; each postback → a conversion → a forward job
// to a local source that answers 200). Server pinned to core 0, this client to core 1 (taskset).
//
// Pass conditions (exit 1 otherwise):
//   - errors = 0: every /c answered 302 with a click_id, every /postback 200 OK, no socket error;
//   - click rows = 302s received, conversions = postbacks acknowledged, no postback_errors row,
//     every forward job done and delivered; SIGTERM at the end exits 0;
//   - memory: see RSS_BOUND below. Result in .bench/soak.json.
import { mkdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { killAll } from './bench/lib'
import { dbPath, scalar } from './proof/db'
import { startSourceListener } from './proof/listener'
import { errorCount, Histogram, startLoad } from './proof/load'
import { seedCampaign } from './proof/seed'
import { CAN_PIN, installCleanup, pinSelf, removeTempDir, ROOT, Svc, tempDir } from './proof/svc'

const SECONDS = Number(process.env.SOAK_SECONDS ?? 180)
const WARMUP = Number(process.env.SOAK_WARMUP_SECONDS ?? 15)
const SAMPLE_MS = 5000
const CONCURRENCY = 64
const POSTBACK_EVERY = 10
const SLUG = 'soak'
/** How long the forward jobs left at the end of the load may take to finish. */
const DRAIN_LIMIT_MS = 300_000

/**
 * The memory bound: end RSS ≤ start RSS + 64 MB, where start = median of the first three samples after
 * the warm-up (t = 0, 5, 10 s) and end = median of the last three. Medians because a single sample
 * swings by ±25 MB with the garbage collector's timing (measured). Why 64 MB: after the warm-up the JIT,
 * Elysia's compiled routes, the routing cache and the pools exist; what may still grow legitimately is
 * SQLite's page cache (cache_size -65536 = at most 64 MB per connection, filling as the database grows)
 * and allocator slack. A leak of 100 bytes per request would exceed it within the ~2M requests of a
 * default run.
 */
const RSS_BOUND_MB = Number(process.env.SOAK_RSS_BOUND_MB ?? 64)

interface Sample {
  t_s: number
  rss_mb: number
  anon_mb: number
  file_mb: number
  clicks_302: number
  postbacks_ok: number
  errors: number
  clicks_per_s: number
  p99_ms: number
  /** Diagnostic: click rows not yet in click_index (null when that table does not exist). */
  unindexed: number | null
  /** Forward jobs pending or running (outbound backlog). */
  jobs_open: number
}

const mb = (kb: number) => Math.round((kb / 1024) * 10) / 10

function fileMb(path: string): number {
  try {
    return Math.round((statSync(path).size / 1048576) * 10) / 10
  } catch {
    return 0
  }
}

/**
 * Click rows past the click index's watermark (max clicks.id − indexed_through), or null when the schema
 * has no click index. Only a diagnostic: it stays below two buckets (131 072 rows) unless a backlog builds.
 */
function unindexed(dataDir: string): number | null {
  try {
    return scalar(dataDir, 'SELECT (SELECT coalesce(max(id), 0) FROM clicks) - (SELECT coalesce(max(indexed_through), 0) FROM click_index_state) AS n')
  } catch {
    return null
  }
}

const openJobs = (dataDir: string) => scalar(dataDir, "SELECT count(*) AS n FROM jobs WHERE status IN ('pending', 'running')")

async function main(): Promise<number> {
  if (!Number.isFinite(SECONDS) || SECONDS < 10) throw new Error('SOAK_SECONDS must be a number of seconds >= 10')
  installCleanup()
  const pinned = CAN_PIN && pinSelf(1)
  const dataDir = tempDir('svc-soak-')
  const listener = startSourceListener('ok')
  const failures: string[] = []
  const samples: Sample[] = []
  try {
    const svc = await Svc.start(dataDir)
    await seedCampaign(svc, SLUG, listener.template)
    console.log(
      `soak: svc = ${svc.label} (pid ${svc.pid}), ${CONCURRENCY} client loops, ${POSTBACK_EVERY}:1 redirects:postbacks, ` +
        `warm-up ${WARMUP} s, then ${SECONDS} s; ${pinned ? 'server on core 0, client on core 1' : 'not pinned'}`,
    )
    const load = startLoad({ base: svc.base, slug: SLUG, concurrency: CONCURRENCY, postbackEvery: POSTBACK_EVERY, tidPrefix: 'soak', keepIds: false })
    const s = load.stats
    // The first sample's rate and p99 cover the warm-up.
    let prevHist = new Uint32Array(s.clickLatency.buckets.length)
    let prev302 = 0
    let prevT = performance.now()
    await Bun.sleep(WARMUP * 1000)
    const t0 = performance.now()
    const startCounts = { clicks: s.clicks302, postbacks: s.postbacksOk }
    const take = (): Sample => {
      const st = svc.status()
      if (!st) throw new Error(`svc (pid ${svc.pid}) is gone:\n${svc.log().slice(-2000)}`)
      const now = performance.now()
      const hist = s.clickLatency.buckets.slice()
      const sample: Sample = {
        t_s: Math.round((now - t0) / 100) / 10,
        rss_mb: mb(st.rssKb),
        anon_mb: mb(st.anonKb),
        file_mb: mb(st.fileKb),
        clicks_302: s.clicks302,
        postbacks_ok: s.postbacksOk,
        errors: errorCount(s),
        clicks_per_s: Math.round(((s.clicks302 - prev302) * 1000) / Math.max(1, now - prevT)),
        p99_ms: Histogram.percentile(hist, 0.99, prevHist),
        unindexed: unindexed(dataDir),
        jobs_open: openJobs(dataDir),
      }
      prevHist = hist
      prev302 = s.clicks302
      prevT = now
      samples.push(sample)
      console.log(
        `  t=${String(sample.t_s).padStart(5)} s  RSS ${String(sample.rss_mb).padStart(6)} MB (anon ${sample.anon_mb}, file ${sample.file_mb})  ` +
          `${String(sample.clicks_per_s).padStart(6)} clicks/s  p99 ${sample.p99_ms} ms  302s ${sample.clicks_302}  errors ${sample.errors}` +
          `  jobs open ${sample.jobs_open}` + (sample.unindexed === null ? '' : `  unindexed ${sample.unindexed}`),
      )
      return sample
    }

    const start = take()
    const until = t0 + SECONDS * 1000
    for (let i = 1; i * SAMPLE_MS < SECONDS * 1000; i++) {
      await Bun.sleep(Math.max(0, t0 + i * SAMPLE_MS - performance.now()))
      take()
    }
    await Bun.sleep(Math.max(0, until - performance.now()))
    const end = take()
    const elapsed = (performance.now() - t0) / 1000
    const measured = { clicks: s.clicks302 - startCounts.clicks, postbacks: s.postbacksOk - startCounts.postbacks }
    const stats = await load.stop()
    const errors = errorCount(stats)

    // Every forward job finishes (the source answers 200), then the books must balance.
    const drainStart = performance.now()
    let open = openJobs(dataDir)
    while (open !== 0 && performance.now() - drainStart < DRAIN_LIMIT_MS) {
      await Bun.sleep(1000)
      open = openJobs(dataDir)
      console.log(`  draining forward jobs: ${open} open after ${((performance.now() - drainStart) / 1000).toFixed(0)} s`)
    }
    const drainSeconds = Math.round((performance.now() - drainStart) / 100) / 10
    await Bun.sleep(SAMPLE_MS)
    const idle = svc.status()
    const clickRows = scalar(dataDir, 'SELECT count(*) AS n FROM clicks')
    const conversions = scalar(dataDir, 'SELECT count(*) AS n FROM conversions')
    const postbackErrors = scalar(dataDir, 'SELECT count(*) AS n FROM postback_errors')
    const jobsDone = scalar(dataDir, "SELECT count(*) AS n FROM jobs WHERE status = 'done'")
    const jobsFailed = scalar(dataDir, "SELECT count(*) AS n FROM jobs WHERE status = 'failed'")
    const files = { db_mb: fileMb(dbPath(dataDir)), wal_mb: fileMb(dbPath(dataDir) + '-wal') }
    const stop = await svc.kill('SIGTERM')

    const maxRss = Math.max(...samples.map((x) => x.rss_mb))
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    const startRss = median(samples.slice(0, 3).map((x) => x.rss_mb))
    const endRss = median(samples.slice(-3).map((x) => x.rss_mb))
    const growth = Math.round((endRss - startRss) * 10) / 10
    const withinBound = endRss <= startRss + RSS_BOUND_MB
    const p50 = Histogram.percentile(stats.clickLatency.buckets, 0.5)
    const p99 = Histogram.percentile(stats.clickLatency.buckets, 0.99)

    if (errors > 0) failures.push(`${errors} errors: ${JSON.stringify({ clicksOther: stats.clicksOther, clickSocketErrors: stats.clickSocketErrors, clicksNoId: stats.clicksNoId, postbacksOther: stats.postbacksOther, postbackSocketErrors: stats.postbackSocketErrors })}; e.g. ${stats.errorSamples.join(' | ')}`)
    if (!withinBound) failures.push(`RSS grew from ${startRss} MB to ${endRss} MB (+${growth} MB), bound is +${RSS_BOUND_MB} MB`)
    if (clickRows !== stats.clicks302) failures.push(`click rows ${clickRows} != 302s received ${stats.clicks302}`)
    if (conversions !== stats.postbacksOk) failures.push(`conversions ${conversions} != postbacks acknowledged ${stats.postbacksOk}`)
    if (postbackErrors !== 0) failures.push(`${postbackErrors} postbacks recorded as errors (postback_errors rows)`)
    if (open !== 0 || jobsFailed !== 0 || jobsDone !== conversions) failures.push(`forward jobs: ${jobsDone} done, ${jobsFailed} failed, ${open} still open, for ${conversions} conversions`)
    if (listener.received.ok !== jobsDone) failures.push(`the source received ${listener.received.ok} postbacks for ${jobsDone} done jobs`)
    if (stop.code !== 0) failures.push(`SIGTERM at the end: exit code ${stop.code} (signal ${stop.signal})`)

    const result = {
      date: new Date().toISOString(),
      ok: failures.length === 0,
      svc: svc.label,
      bun: Bun.version,
      pinned,
      seconds: SECONDS,
      warmup_seconds: WARMUP,
      connections: CONCURRENCY,
      redirects_per_postback: POSTBACK_EVERY,
      rss_mb: { start: startRss, max: maxRss, end: endRss, growth, first_sample: start.rss_mb, last_sample: end.rss_mb, bound: `end <= start + ${RSS_BOUND_MB} MB (medians of the first and last three samples)`, within_bound: withinBound, idle_after_load: idle ? mb(idle.rssKb) : null, hwm: idle ? mb(idle.hwmKb) : null },
      throughput: {
        clicks_per_s: Math.round(measured.clicks / elapsed),
        postbacks_per_s: Math.round(measured.postbacks / elapsed),
        click_p50_ms: p50,
        click_p99_ms: p99,
      },
      totals: {
        clicks_302: stats.clicks302,
        click_rows: clickRows,
        postbacks_ok: stats.postbacksOk,
        conversions,
        postback_errors: postbackErrors,
        jobs_done: jobsDone,
        jobs_failed: jobsFailed,
        source_received: listener.received.ok,
      },
      errors,
      error_detail: { clicks_other: stats.clicksOther, click_socket_errors: stats.clickSocketErrors, clicks_no_id: stats.clicksNoId, postbacks_other: stats.postbacksOther, postback_socket_errors: stats.postbackSocketErrors, samples: stats.errorSamples },
      files,
      sigterm_exit: stop,
      jobs_drain_seconds_after_load: drainSeconds,
      samples,
      failures,
    }
    mkdirSync(join(ROOT, '.bench'), { recursive: true })
    writeFileSync(join(ROOT, '.bench', 'soak.json'), JSON.stringify(result, null, 2) + '\n')

    console.log(
      `\nRSS: start ${startRss} MB, max ${maxRss} MB, end ${endRss} MB (${growth >= 0 ? '+' : ''}${growth} MB; start/end = medians of the first/last ` +
        `three samples; bound: end <= start + ${RSS_BOUND_MB} MB → ${withinBound ? 'OK' : 'EXCEEDED'}); after the load and the job drain ${result.rss_mb.idle_after_load} MB`,
    )
    console.log(
      `throughput: ${result.throughput.clicks_per_s} clicks/s + ${result.throughput.postbacks_per_s} postbacks/s over ${elapsed.toFixed(0)} s; ` +
        `click latency p50 ${p50} ms, p99 ${p99} ms`,
    )
    console.log(
      `totals: ${stats.clicks302} 302s = ${clickRows} click rows; ${stats.postbacksOk} postbacks OK = ${conversions} conversions; ` +
        `${jobsDone} forward jobs done (${drainSeconds} s to drain after the load), ${jobsFailed} failed; errors ${errors}; database ${files.db_mb} MB + WAL ${files.wal_mb} MB; SIGTERM exit ${stop.code} in ${stop.ms} ms`,
    )
    console.log('result written to .bench/soak.json')
  } catch (err) {
    failures.push(`soak aborted: ${(err as Error)?.stack ?? err}`)
  } finally {
    listener.stop()
    await killAll()
    removeTempDir(dataDir)
  }
  if (failures.length) {
    console.error('\nFAIL:')
    for (const f of failures) console.error(`  - ${f}`)
    return 1
  }
  console.log('PASS')
  return 0
}

process.exit(await main())
