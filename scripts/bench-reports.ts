// Report speed at scale: seeds 10 million clicks and 200 000 conversions over 90 days into a temp database,
// starts svc on it and times GET /admin/api/reports end to end (HTTP, JSON included).
//
//   bun scripts/bench-reports.ts            (alone)   or   import { benchReports } from './bench-reports'
//
// Cases (each: warm-up, then BENCH_REPORT_RUNS sequential requests; median, p95, min):
//   30-day report by campaign                      target < 50 ms
//   30-day two-level report campaign → landing     target < 200 ms
//   30-day report by day in Europe/Berlin          (information: daily rollups + the hours that cross local midnight)
//   30-day report by hour in Europe/Berlin         (information: hourly rollups only)
//   7-day report by device                         (information: a scan of raw clicks)
//   30-day report by country, by path              target < 50 ms (the targeting rollups, issue 28)
//   30-day two-level report campaign → path        target < 200 ms
// Baseline, measured in the same run: the 30-day campaign report computed by scanning raw clicks (the
// report service forced onto its raw path, in-process, after the server stopped) against the same
// report from the rollups, in-process too; the speed-up is their ratio.
//
// Seeding loads raw clicks through the click store's offline bulk load, one transaction per day: rows,
// click rollups and click_index buckets as the server writes them (the server starts with only the last,
// unfinished bucket in its tail); conversions go through the server's ConversionRollup hook (daily
// tables follow by trigger, as in production).
//
// BENCH_REPORT_ENGINE=postgres (or `npm run bench:reports:pg`): the same seed is then copied into a throwaway
// PostgreSQL cluster (fsync on) with `svc migrate --to`'s code, and the server and the baseline run on it.
//
// Knobs: BENCH_REPORT_CLICKS (10000000), BENCH_REPORT_CONVERSIONS (200000), BENCH_REPORT_DAYS (90),
// BENCH_REPORT_RUNS (20), BENCH_REPORT_BASELINE_RUNS (3), BENCH_KEEP=1 keeps the temp database,
// BENCH_REPORT_HOLD=1 pauses after the timed requests (data and Postgres cluster kept) until <data dir>/release exists,
// so the same state can be examined (EXPLAIN, other builds) before the baseline and the clean-up.
// Writes .bench/reports.json.
import { Database } from 'bun:sqlite'
import { closeSync, existsSync, fsyncSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { openDatabase, wrapBunDatabase } from '../src/db/client'
import { migrate } from '../src/db/migrate'
import { ConversionRollup } from '../src/postback/rollup'
import { parseReportRequest } from '../src/reports/params'
import { ReportQueries } from '../src/reports/queries'
import type { AnyDatabase } from '../src/db/engine'
import { ReportService } from '../src/reports/service'
import { newClick, type Click } from '../src/tracking/store/click'
import { ClickBulkLoad } from '../src/tracking/store/bulk-load'
import { freePort, killAll, spawn, stopGracefully, svcCommand, waitHttp } from './bench/lib'
import { startBenchCluster, type BenchCluster } from './bench/pg-cluster'
import { moveToPg } from '../src/db/move-to-pg'
import { openPg } from '../src/db/pg/client'

const ROOT = resolve(import.meta.dir, '..')
const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000
const SECRET = 'bench-master-secret-0123456789abcdef'
const OWNER = { email: 'bench@example.com', password: 'bench-password-1' }

export interface ReportsBenchOptions {
  clicks?: number
  conversions?: number
  days?: number
  runs?: number
  baselineRuns?: number
  keep?: boolean
  /** Where the server reads: the seeded SQLite file, or a copy of it in PostgreSQL. */
  engine?: 'sqlite' | 'postgres'
  log?: (line: string) => void
}

export interface Timing {
  name: string
  path: string
  runs: number
  median_ms: number
  p95_ms: number
  min_ms: number
  target_ms: number | null
  /** median / target: below 1 meets the target. */
  ratio_to_target: number | null
  rows: number
}

export interface ReportsBenchResult {
  date: string
  cpus: number
  bun: string
  engine: 'sqlite' | 'postgres'
  /** Postgres: seconds the copy from SQLite took (svc migrate --to). */
  copy_seconds: number | null
  svc: string
  pinned: boolean
  seed: { clicks: number; conversions: number; days: number; campaigns: number; seconds: { clicks: number; conversions: number; total: number }; db_mb: number }
  cases: Timing[]
  baseline: { name: string; raw_median_ms: number; rollup_median_ms: number; speedup: number; runs: number }
  met_targets: boolean
}

/** Deterministic PRNG (mulberry32): the same seed gives the same data set. */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const UAS: Array<[ua: string, device: string, os: string, browser: string]> = [
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', 'mobile', 'iOS', 'Safari'],
  ['Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36', 'mobile', 'Android', 'Chrome'],
  ['Mozilla/5.0 (Linux; Android 13; 2201117TY) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/112.0.5615.136 Mobile Safari/537.36', 'mobile', 'Android', 'Chrome'],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 'desktop', 'Windows', 'Chrome'],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15', 'desktop', 'macOS', 'Safari'],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:127.0) Gecko/20100101 Firefox/127.0', 'desktop', 'Windows', 'Firefox'],
  ['Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', 'tablet', 'iOS', 'Safari'],
]
const BOT_UA = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'
const REFERRERS = ['news.example', 'video.example', 'social.example', 'search.example', 'blog.example', 'games.example', 'apps.example', 'mail.example']

/** Visitor countries, most traffic from the first few (the share falls off like 1/rank). */
const COUNTRIES = [
  'US', 'DE', 'GB', 'FR', 'BR', 'IN', 'CA', 'IT', 'ES', 'MX', 'RU', 'PL', 'NL', 'AU', 'JP', 'TR', 'ID', 'KR', 'SE', 'AR',
  'BE', 'CH', 'AT', 'NO', 'DK', 'FI', 'PT', 'CZ', 'RO', 'HU', 'GR', 'UA', 'ZA', 'NG', 'EG', 'TH', 'VN', 'PH', 'MY', 'SG',
  'CL', 'CO', 'PE', 'IE', 'NZ', 'IL', 'SA', 'AE', 'PK', 'BD',
]
/** Targeting paths per campaign; a click takes one of them or (40 %) the default rotation. */
const PATHS_PER_CAMPAIGN = 4

interface CampaignSeed {
  id: number
  /** campaign_paths ids of this campaign. */
  paths: number[]
  sourceId: number
  offers: number[]
  landings: number[]
  costModel: 'none' | 'cpc' | 'param'
  cpc: number
}

function seedCatalog(db: Database, rnd: () => number, now: number): { campaigns: CampaignSeed[]; payouts: Map<number, number> } {
  const payouts = new Map<number, number>()
  const campaigns: CampaignSeed[] = []
  db.transaction(() => {
    for (let i = 1; i <= 50; i++) db.run('INSERT INTO sources (name, postback_url, created_at, updated_at) VALUES (?, NULL, ?, ?)', [`Source ${i}`, now, now])
    for (let i = 1; i <= 100; i++) {
      const payout = Math.round((1 + rnd() * 59) * 100) / 100
      payouts.set(i, payout)
      db.run('INSERT INTO offers (name, slug, url, payout, currency, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
        `Offer ${i}`, `offer-${i}`, `https://advertiser.example/${i}?c={click_id}`, payout, 'USD', now, now,
      ])
    }
    for (let i = 1; i <= 60; i++) {
      db.run('INSERT INTO landings (name, slug, url, created_at, updated_at) VALUES (?, ?, ?, ?, ?)', [`Landing ${i}`, `landing-${i}`, `https://lp.example/${i}?c={click_id}`, now, now])
    }
    for (let i = 1; i <= 50; i++) {
      const costModel = (['cpc', 'param', 'none'] as const)[i % 3]!
      const cpc = costModel === 'cpc' ? Math.round((0.005 + rnd() * 0.045) * 1000) / 1000 : 0
      db.run(
        'INSERT INTO campaigns (name, slug, source_id, external_id, active, cost_model, cpc, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?)',
        [`Campaign ${i}`, `campaign-${i}`, i, `ext-${i}`, costModel, cpc, now, now],
      )
      const pick = (n: number, pool: number) => {
        const set = new Set<number>()
        while (set.size < n) set.add(1 + Math.floor(rnd() * pool))
        return [...set]
      }
      const offers = pick(1 + Math.floor(rnd() * 3), 100)
      const landings = pick(Math.floor(rnd() * 3), 60)
      for (const o of offers) db.run('INSERT INTO campaign_offers (campaign_id, offer_id, weight) VALUES (?, ?, 100)', [i, o])
      for (const l of landings) db.run('INSERT INTO campaign_landings (campaign_id, landing_id, weight) VALUES (?, ?, 100)', [i, l])
      const paths: number[] = []
      for (let p = 0; p < PATHS_PER_CAMPAIGN; p++) {
        const row = db.query("INSERT INTO campaign_paths (campaign_id, position, name, action) VALUES (?, ?, ?, 'rotation') RETURNING id")
          .get(i, p, `Path ${p + 1} of campaign ${i}`) as { id: number }
        db.run('INSERT INTO path_offers (path_id, offer_id, weight) VALUES (?, ?, 100)', [row.id, offers[0]!])
        paths.push(row.id)
      }
      campaigns.push({ id: i, paths, sourceId: i, offers, landings, costModel, cpc })
    }
  })()
  return { campaigns, payouts }
}

/** Traffic per UTC hour: an evening peak, quieter nights, a little day-to-day noise. */
function hourlyCounts(total: number, hours: number, start: number, rnd: () => number): number[] {
  const w: number[] = []
  let sum = 0
  for (let h = 0; h < hours; h++) {
    const hod = new Date(start + h * HOUR_MS).getUTCHours()
    const day = Math.floor(h / 24)
    const x = (1 + 0.75 * Math.cos((2 * Math.PI * (hod - 20)) / 24)) * (0.85 + 0.3 * ((day * 7919) % 101) / 100) * (0.95 + 0.1 * rnd())
    w.push(x)
    sum += x
  }
  const counts = w.map((x) => Math.floor((x / sum) * total))
  let rest = total - counts.reduce((a, b) => a + b, 0)
  for (let i = counts.length - 1; rest > 0; i--, rest--) counts[i]!++
  return counts
}

function seed(dbPath: string, o: Required<Pick<ReportsBenchOptions, 'clicks' | 'conversions' | 'days'>>, log: (s: string) => void) {
  const rnd = prng(20261121)
  const db = new Database(dbPath, { strict: true })
  db.run('PRAGMA journal_mode = OFF')
  db.run('PRAGMA synchronous = OFF')
  db.run('PRAGMA cache_size = -262144')
  const raw = wrapBunDatabase(db)
  const end = Math.floor(Date.now() / HOUR_MS) * HOUR_MS
  const start = end - o.days * DAY_MS
  const { campaigns, payouts } = seedCatalog(db, rnd, Date.now())

  // Campaign traffic shares: a few big campaigns, a long tail (Zipf-like), through a lookup table.
  const shares = campaigns.map((_, i) => 1 / Math.pow(i + 1, 0.8))
  const shareSum = shares.reduce((a, b) => a + b, 0)
  const table: CampaignSeed[] = []
  campaigns.forEach((c, i) => {
    for (let k = 0; k < Math.round((shares[i]! / shareSum) * 4096); k++) table.push(c)
  })
  const ips = Array.from({ length: 50_000 }, (_, i) => `${11 + (i % 200)}.${(i * 7) % 256}.${(i * 13) % 256}.${(i * 31) % 254 + 1}`)
  const subs1 = Array.from({ length: 500 }, (_, i) => `zone${i}`)
  const subs2 = Array.from({ length: 30 }, (_, i) => `creative-${i}`)
  // Country by rank (1/rank shares) through a lookup table; 2 % unknown.
  const countryTable: Array<string | null> = []
  COUNTRIES.forEach((c, i) => {
    for (let k = 0; k < Math.max(1, Math.round(4096 / (i + 1) / 4.5)); k++) countryTable.push(c)
  })
  for (let k = 0; k < countryTable.length / 50; k++) countryTable.push(null)

  const load = new ClickBulkLoad(wrapBunDatabase(db))
  const counts = hourlyCounts(o.clicks, o.days * 24, start, rnd)
  const t0 = performance.now()
  for (let day = 0; day < o.days; day++) {
    const clicks: Click[] = []
    for (let h = day * 24; h < day * 24 + 24; h++) {
      const hourStart = start + h * HOUR_MS
      const times = Array.from({ length: counts[h]! }, () => hourStart + Math.floor(rnd() * HOUR_MS)).sort((a, b) => a - b)
      for (const createdAt of times) {
        const c = table[Math.floor(rnd() * table.length)]!
        const offer = c.offers[Math.floor(rnd() * c.offers.length)]!
        const landing = c.landings.length ? c.landings[Math.floor(rnd() * c.landings.length)]! : null
        const r = rnd()
        const bot = r < 0.03
        const excluded = !bot && r < 0.031
        const unique = !bot && !excluded && rnd() < 0.65
        const cost = bot ? 0 : c.costModel === 'cpc' ? c.cpc : c.costModel === 'param' ? Math.round(rnd() * 80) / 1000 : 0
        const ua = UAS[Math.floor(rnd() * UAS.length)]!
        const ref = rnd() < 0.3 ? null : REFERRERS[Math.floor(rnd() * REFERRERS.length)]!
        clicks.push(newClick({
          clickId: crypto.randomUUID(), campaignId: c.id, sourceId: c.sourceId, offerId: offer, landingId: landing,
          ip: ips[Math.floor(rnd() * ips.length)]!, userAgent: bot ? BOT_UA : ua[0], referrer: ref ? `https://${ref}/page` : null,
          sub1: subs1[Math.floor(rnd() * subs1.length)]!, sub2: subs2[Math.floor(rnd() * subs2.length)]!,
          botReason: bot ? 'bot_user_agent' : null, excluded, isUnique: unique, cost,
          deviceType: bot ? null : ua[1], os: bot ? null : ua[2], browser: bot ? null : ua[3], referrerDomain: ref, createdAt,
          country: countryTable[Math.floor(rnd() * countryTable.length)]!,
          pathId: rnd() < 0.4 ? null : c.paths[Math.floor(rnd() * c.paths.length)]!,
        }))
      }
    }
    load.add(clicks)
    if ((day + 1) % 15 === 0) log(`  seeded ${day + 1}/${o.days} days of clicks (${((performance.now() - t0) / 1000).toFixed(0)} s)`)
  }
  const clickSeconds = (performance.now() - t0) / 1000
  const last = db.query('SELECT id, click_id, created_at FROM clicks ORDER BY id DESC LIMIT 1').get() as { id: number; click_id: string; created_at: number }

  // Conversions: random clicks, converting minutes to days later, in date order like real postbacks.
  const t1 = performance.now()
  const byId = db.prepare('SELECT id, click_id, campaign_id, source_id, offer_id, landing_id, country, path_id, excluded, created_at FROM clicks WHERE id = ?')
  const TYPES: Array<[slug: string, status: string, share: number]> = [
    ['sale', 'approved', 0.5], ['lead', 'pending', 0.25], ['trial', 'trial', 0.08], ['install', 'install', 0.07], ['reject', 'rejected', 0.06], ['chargeback', 'chargeback', 0.04],
  ]
  const convs: Array<{ click: any; type: string; status: string; revenue: number; date: number }> = []
  for (let i = 0; i < o.conversions; i++) {
    const click = byId.get(1 + Math.floor(rnd() * last.id)) as any
    let x = rnd()
    let t = TYPES[0]!
    for (const ty of TYPES) {
      if (x < ty[2]) {
        t = ty
        break
      }
      x -= ty[2]
    }
    const payout = payouts.get(click.offer_id) ?? 10
    const amount = Math.round(payout * (t[0] === 'lead' ? 0.2 : 0.8 + 0.4 * rnd()) * 100) / 100
    // Refunds come with either sign from different advertisers.
    const revenue = t[0] === 'chargeback' && rnd() < 0.5 ? -amount : t[0] === 'reject' ? 0 : amount
    const date = Math.min(click.created_at + Math.floor(-Math.log(1 - rnd()) * 6 * HOUR_MS), end - 1)
    convs.push({ click, type: t[0], status: t[1], revenue, date })
  }
  convs.sort((a, b) => a.date - b.date)
  const insertConv = db.prepare(
    'INSERT INTO conversions (click_row_id, click_created_at, click_id, campaign_id, source_id, offer_id, landing_id, country, path_id, type, status, ' +
      "revenue, currency, transaction_id, date, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'USD', ?, ?, ?)",
  )
  const hook = new ConversionRollup(raw)
  db.transaction(() => {
    convs.forEach((v, i) => {
      const c = v.click
      insertConv.run(c.id, c.created_at, c.click_id, c.campaign_id, c.source_id, c.offer_id, c.landing_id, c.country, c.path_id, v.type, v.status, v.revenue, `tx-${i}`, v.date, v.date)
    })
    hook.addAll(convs.map(({ click: c, ...v }) => ({
      campaignId: c.campaign_id, sourceId: c.source_id, offerId: c.offer_id, landingId: c.landing_id, country: c.country, pathId: c.path_id,
      type: { slug: v.type }, revenue: v.revenue, date: v.date, excluded: c.excluded === 1,
    })))
  })()
  const convSeconds = (performance.now() - t1) / 1000
  db.run('PRAGMA journal_mode = WAL')
  db.close()
  // Flush the gigabytes just written, so the kernel's write-back does not compete with the timed requests.
  const fd = openSync(dbPath, 'r+')
  fsyncSync(fd)
  closeSync(fd)
  return { clickSeconds, convSeconds, campaigns: campaigns.length }
}

function stats(samples: number[]): { median: number; p95: number; min: number } {
  const s = [...samples].sort((a, b) => a - b)
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!
  return { median: round(at(0.5)), p95: round(at(0.95)), min: round(s[0]!) }
}
const round = (x: number) => Math.round(x * 100) / 100

const pad = (n: number, w = 2) => String(n).padStart(w, '0')
const ymd = (ms: number) => {
  const d = new Date(ms)
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`
}

/** Temp data dirs of runs in progress, removed by the signal handler too (a seeded database is gigabytes). */
const liveDirs = new Set<string>()

export async function benchReports(opts: ReportsBenchOptions = {}): Promise<ReportsBenchResult> {
  const o = {
    clicks: opts.clicks ?? Number(process.env.BENCH_REPORT_CLICKS ?? 10_000_000),
    conversions: opts.conversions ?? Number(process.env.BENCH_REPORT_CONVERSIONS ?? 200_000),
    days: opts.days ?? Number(process.env.BENCH_REPORT_DAYS ?? 90),
    runs: opts.runs ?? Number(process.env.BENCH_REPORT_RUNS ?? 20),
    baselineRuns: opts.baselineRuns ?? Number(process.env.BENCH_REPORT_BASELINE_RUNS ?? 3),
    keep: opts.keep ?? process.env.BENCH_KEEP === '1',
    engine: opts.engine ?? (process.env.BENCH_REPORT_ENGINE === 'postgres' ? 'postgres' as const : 'sqlite' as const),
  }
  const log = opts.log ?? ((s: string) => console.log(s))
  const canPin = !!Bun.which('taskset') && cpus().length >= 2
  const pinServer = canPin ? ['taskset', '-c', '0'] : []
  const svc = svcCommand(ROOT)
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-reports-'))
  const dbPath = join(dataDir, 'svc.db')
  if (!o.keep) liveDirs.add(dataDir)
  let server: ReturnType<typeof spawn> | null = null
  let cluster: BenchCluster | null = null
  try {
    log(`reports bench: seeding ${o.clicks.toLocaleString('en')} clicks and ${o.conversions.toLocaleString('en')} conversions over ${o.days} days into ${dataDir}`)
    const tSeed = performance.now()
    const database = await openDatabase(dbPath)
    migrate(database)
    database.close()
    const seeded = seed(dbPath, o, log)
    const seedSeconds = (performance.now() - tSeed) / 1000
    const dbMb = Math.round(statSync(dbPath).size / 1e6)
    log(`  clicks ${seeded.clickSeconds.toFixed(1)} s, conversions ${seeded.convSeconds.toFixed(1)} s, total ${seedSeconds.toFixed(1)} s; database ${dbMb} MB`)

    // Postgres: the same data, copied the way an operator moves (svc migrate --to); Postgres on core 1.
    let url: string | null = null
    let copySeconds: number | null = null
    if (o.engine === 'postgres') {
      cluster = await startBenchCluster(canPin ? ['taskset', '-c', '1'] : [])
      url = await cluster.createDatabase('svc_reports')
      const tCopy = performance.now()
      await moveToPg({ dataDir, dbPath, url, env: { SVC_SECRET: SECRET }, out: (line) => log(`  ${line}`) })
      copySeconds = (performance.now() - tCopy) / 1000
      log(`  copied into PostgreSQL ${cluster.version} (fsync=${cluster.settings.fsync}) in ${copySeconds.toFixed(1)} s`)
    }

    // The timed requests go through a real server (pinned to core 0 when possible; this client runs elsewhere).
    const port = await freePort()
    const env = { ...(url ? { SVC_DATABASE_URL: url } : {}), SVC_DATA_DIR: dataDir, SVC_SECRET: SECRET, HOST: '127.0.0.1', PORT: String(port), NODE_ENV: 'production', SVC_ADMIN_EMAIL: OWNER.email, SVC_ADMIN_PASSWORD: OWNER.password }
    server = spawn([...pinServer, ...svc.cmd, 'serve'], env)
    const running = server
    const base = `http://127.0.0.1:${port}`
    await waitHttp(`${base}/healthz`, 60_000)
    const login = await fetch(`${base}/admin/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(OWNER) })
    const cookie = login.headers.getSetCookie().find((c) => c.startsWith('svc_admin_session='))?.split(';')[0]
    if (login.status !== 200 || !cookie) throw new Error(`login failed: ${login.status}`)

    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS
    const week = `from=${ymd(today - 6 * DAY_MS)}&to=${ymd(today + DAY_MS)}`
    const cases: Array<{ name: string; path: string; target: number | null }> = [
      { name: '30 days by campaign', path: '/admin/api/reports?group_by=campaign', target: 50 },
      { name: '30 days campaign → landing', path: '/admin/api/reports?group_by=campaign,landing', target: 200 },
      { name: '30 days by day, Europe/Berlin', path: '/admin/api/reports?group_by=day&tz=Europe/Berlin', target: null },
      { name: '30 days by hour, Europe/Berlin', path: '/admin/api/reports?group_by=hour&tz=Europe/Berlin&limit=1000', target: null },
      { name: '7 days by device (raw scan)', path: `/admin/api/reports?group_by=device&${week}`, target: null },
      // The targeting rollups (issue 28), side by side with the campaign report above.
      { name: '30 days by country', path: '/admin/api/reports?group_by=country', target: 50 },
      { name: '30 days by path', path: '/admin/api/reports?group_by=path', target: 50 },
      { name: '30 days campaign → path', path: '/admin/api/reports?group_by=campaign,path', target: 200 },
    ]
    const timings: Timing[] = []
    // Postgres: what autovacuum does meanwhile (on the fresh copy it vacuums and analyzes every table, clicks
    // included, on the database's core): sampled after each case, printed beside the timings.
    const watch = url ? await openPg(url, { max: 1 }) : null
    const vacuuming: string[] = []
    if (watch) {
      // The server's start-up work on the database (folding striped rollup rows, partitions ahead, retention)
      // runs beside the first case otherwise: wait until no other statement is active (at most 120 s), say what ran.
      const seen = new Set<string>()
      const t0 = performance.now()
      for (let quiet = 0; quiet < 5 && performance.now() - t0 < 120_000;) {
        const active = await watch.sql`SELECT left(query, 60) AS q FROM pg_stat_activity
          WHERE state = 'active' AND pid <> pg_backend_pid() AND backend_type = 'client backend'` as Array<{ q: string }>
        for (const a of active) seen.add(a.q.replace(/\s+/g, ' '))
        quiet = active.length === 0 ? quiet + 1 : 0
        await Bun.sleep(200)
      }
      log(`server start-up work on the database settled in ${((performance.now() - t0) / 1000).toFixed(1)} s${seen.size ? `: ${[...seen].join(' | ')}` : ''}`)
    }
    for (const c of cases) {
      const once = async () => {
        const t = performance.now()
        const res = await fetch(base + c.path, { headers: { cookie } }).catch((err) => {
          throw running.exitCode !== null || running.signalCode !== null
            ? new Error(`the server exited during "${c.name}" (exit code ${running.exitCode}, signal ${running.signalCode})`)
            : err
        })
        const body = (await res.json()) as { rows?: unknown[]; error?: string }
        const ms = performance.now() - t
        if (res.status !== 200) throw new Error(`${c.path}: ${res.status} ${body.error}`)
        return { ms, rows: body.rows?.length ?? 0 }
      }
      const runs = c.target === null && c.path.includes('device') ? Math.min(o.runs, 10) : o.runs
      for (let i = 0; i < 3; i++) await once()
      const samples: number[] = []
      let rows = 0
      for (let i = 0; i < runs; i++) {
        const r = await once()
        samples.push(r.ms)
        rows = r.rows
      }
      const s = stats(samples)
      if (process.env.BENCH_REPORT_SAMPLES === '1') log(`${c.name}: ${samples.map((x) => x.toFixed(1)).join(' ')}`)
      if (watch) {
        const rows = await watch.sql`SELECT query FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'` as Array<{ query: string }>
        vacuuming.push(`${c.name}: ${rows.map((r) => r.query.replace(/^autovacuum: /, '')).join(', ') || 'none'}`)
      }
      timings.push({
        name: c.name, path: c.path, runs, median_ms: s.median, p95_ms: s.p95, min_ms: s.min, target_ms: c.target,
        ratio_to_target: c.target ? round(s.median / c.target) : null, rows,
      })
    }
    await stopGracefully(running)
    await watch?.close()
    if (vacuuming.length) log(`autovacuum at the end of each case: ${vacuuming.join('; ')}`)
    if (process.env.BENCH_REPORT_HOLD === '1') {
      // Investigation aid: keep the seeded data (and the Postgres cluster) until <dataDir>/release exists.
      log(`holding: data ${dataDir}${url ? `, ${url}, cluster ${cluster!.data}` : ''}; touch ${join(dataDir, 'release')} to go on`)
      while (!existsSync(join(dataDir, 'release'))) await Bun.sleep(1000)
    }

    // Baseline: the same 30-day campaign report, from raw clicks versus from rollups, in this process.
    const pgdb = url ? await openPg(url) : null
    const db = pgdb ? null : new Database(dbPath, { readonly: true, strict: true })
    const queries = ReportQueries.of(pgdb ?? ({ engine: 'sqlite', raw: wrapBunDatabase(db!) } as unknown as AnyDatabase))
    const service = new ReportService(queries)
    const req = parseReportRequest({ group_by: 'campaign' })
    const time = async (raw: boolean, n: number) => {
      await service.run(req, { raw })
      const samples: number[] = []
      for (let i = 0; i < n; i++) {
        const t = performance.now()
        await service.run(req, { raw })
        samples.push(performance.now() - t)
      }
      return stats(samples).median
    }
    const rollupMs = await time(false, o.runs)
    const rawMs = await time(true, o.baselineRuns)
    db?.close()
    await pgdb?.close()

    const result: ReportsBenchResult = {
      date: new Date().toISOString(),
      cpus: cpus().length,
      bun: Bun.version,
      engine: o.engine,
      copy_seconds: copySeconds === null ? null : round(copySeconds),
      svc: svc.label,
      pinned: canPin,
      seed: {
        clicks: o.clicks, conversions: o.conversions, days: o.days, campaigns: seeded.campaigns,
        seconds: { clicks: round(seeded.clickSeconds), conversions: round(seeded.convSeconds), total: round(seedSeconds) }, db_mb: dbMb,
      },
      cases: timings,
      baseline: { name: '30 days by campaign, in-process: raw clicks vs rollups', raw_median_ms: round(rawMs), rollup_median_ms: round(rollupMs), speedup: Math.round(rawMs / rollupMs), runs: o.baselineRuns },
      met_targets: timings.every((t) => t.ratio_to_target === null || t.ratio_to_target < 1),
    }
    printResult(result, log)
    mkdirSync(join(ROOT, '.bench'), { recursive: true })
    const file = o.engine === 'postgres' ? 'reports-pg.json' : 'reports.json'
    writeFileSync(join(ROOT, '.bench', file), JSON.stringify(result, null, 2) + '\n')
    log(`results written to .bench/${file}`)
    return result
  } finally {
    // Only this run's server: a caller (scripts/bench.ts) may have children of its own.
    if (server && server.exitCode === null && server.signalCode === null) await stopGracefully(server, 5000)
    cluster?.stop()
    if (o.keep) log(`kept ${dataDir}`)
    else rmSync(dataDir, { recursive: true, force: true })
    liveDirs.delete(dataDir)
  }
}

function printResult(r: ReportsBenchResult, log: (s: string) => void): void {
  log(`\nGET /admin/api/reports over HTTP on ${r.engine === 'postgres' ? 'PostgreSQL' : 'SQLite'}, ${r.seed.clicks.toLocaleString('en')} clicks / ${r.seed.conversions.toLocaleString('en')} conversions / ${r.seed.days} days; ` +
    `server ${r.pinned ? 'on core 0' : 'not pinned'}; bun ${r.bun}; svc: ${r.svc}\n`)
  log(`${'case'.padEnd(32)} ${'median'.padStart(8)} ${'p95'.padStart(8)} ${'min'.padStart(8)} ${'target'.padStart(7)} ${'ratio'.padStart(6)}  rows`)
  for (const t of r.cases) {
    log(`${t.name.padEnd(32)} ${t.median_ms.toFixed(1).padStart(8)} ${t.p95_ms.toFixed(1).padStart(8)} ${t.min_ms.toFixed(1).padStart(8)} ` +
      `${(t.target_ms ? `<${t.target_ms}` : '-').padStart(7)} ${(t.ratio_to_target?.toFixed(2) ?? '-').padStart(6)}  ${t.rows}`)
  }
  log(`\nbaseline (${r.baseline.name}): raw ${r.baseline.raw_median_ms.toFixed(0)} ms vs rollups ${r.baseline.rollup_median_ms.toFixed(2)} ms → ${r.baseline.speedup}x faster`)
  log(`seeding: clicks ${r.seed.seconds.clicks} s, conversions ${r.seed.seconds.conversions} s, total ${r.seed.seconds.total} s (${r.seed.db_mb} MB)`)
  if (!r.met_targets) log('BELOW TARGET: a report missed its target (median)')
}

if (import.meta.main) {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () =>
      void killAll().then(() => {
        for (const d of liveDirs) rmSync(d, { recursive: true, force: true })
        process.exit(130)
      }),
    )
  }
  benchReports()
    .then((r) => {
      if (!r.met_targets) process.exitCode = 1
    })
    .catch(async (err) => {
      console.error('reports bench failed:', err instanceof Error ? err.stack : err)
      await killAll()
      process.exit(1)
    })
}
