// Caps and auto-weights on the redirect (issue 29): GET /c of a campaign whose three offers all carry caps
// (a daily click cap per rotation entry in Europe/Berlin, and an offer-level conversion cap on one of them),
// with auto-weights on, against the same rotation with none of that, on one svc server in one run. Part of
// `npm run bench`; alone: `BENCH_ONLY=caps npm run bench` or `bun scripts/bench-caps.ts`.
//
// The caps are far from reached (limit 10^9): the cost measured is the one every click pays while a cap is
// counting (the check of each entry's counters, the pick among the entries still open, the count, and the
// cap_counters upsert in the click batch's transaction). Auto-weights run once before the rounds (the job
// the loop would run every refresh interval) so that the campaign routes by the weights it set.
// Measured like bench-paths.ts: warm-up, then BENCH_CAPS_ROUNDS (5) alternating rounds of BENCH_SECONDS (5) s
// at the peak, the order swapped each round; ratio capped/plain per round and its median. Target: >= 0.95.
import { Database } from 'bun:sqlite'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { freePort, killAll, runWrk, spawn, stopGracefully, svcCommand, waitHttp, type WrkResult } from './bench/lib'

const ROOT = resolve(import.meta.dir, '..')
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Math.max(1, Number(process.env.BENCH_CAPS_ROUNDS ?? 5))
const WARMUP = 2
const CONNECTIONS = 64
const OWNER = { email: 'bench@example.com', password: 'bench-password-0123' }
const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
const QUERY = '?sub1=abc&sub2=banner-7'
const BIG = 1_000_000_000

export interface CapsBench { results: Record<string, unknown>; ok: boolean; lines: string[] }

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const medianRound = (rounds: WrkResult[], by: 'rps' | 'p99ms') => [...rounds].sort((a, b) => a[by] - b[by])[Math.floor(rounds.length / 2)]!

export async function benchCaps(): Promise<CapsBench> {
  const canPin = !!Bun.which('taskset') && cpus().length >= 2
  const PIN_SERVER = canPin ? ['taskset', '-c', '0'] : []
  const PIN_WRK = canPin ? ['taskset', '-c', '1'] : []
  const svc = svcCommand(ROOT)
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-caps-'))
  const lines: string[] = []
  const say = (s: string) => { console.log(s); lines.push(s) }
  let p: ReturnType<typeof spawn> | null = null
  try {
    // 2,000 distinct visitors (private addresses: no IP data lookups on either side).
    const ipsFile = join(dataDir, 'ips.txt')
    writeFileSync(ipsFile, Array.from({ length: 2000 }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`).join('\n') + '\n')
    const env = {
      SVC_DATA_DIR: dataDir, SVC_SECRET: 'bench-master-secret-0123456789abcdef', HOST: '127.0.0.1', NODE_ENV: 'production',
      SVC_TRUST_PROXY: '1', SVC_ADMIN_EMAIL: OWNER.email, SVC_ADMIN_PASSWORD: OWNER.password,
    }
    if ((await spawn([...svc.cmd, 'migrate'], env).exited) !== 0) throw new Error('svc migrate failed')
    const port = await freePort()
    p = spawn([...PIN_SERVER, ...svc.cmd, 'serve'], { ...env, PORT: String(port) })
    const base = `http://127.0.0.1:${port}`
    await waitHttp(`${base}/healthz`)
    const login = await fetch(`${base}/admin/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(OWNER) })
    if (login.status !== 200) throw new Error(`login: ${login.status} ${await login.text()}`)
    const cookie = login.headers.getSetCookie().find((c) => c.startsWith('svc_admin_session='))!.split(';')[0]!
    const call = async (method: string, path: string, body: unknown, want: number): Promise<any> => {
      const r = await fetch(`${base}/admin/api/${path}`, { method, headers: { cookie, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
      if (r.status !== want) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`)
      return r.json()
    }
    const url = (host: string) => `https://${host}.offer.example/go?click_id={click_id}&s1={sub1}`
    // Each campaign its own three offers: an offer's cap applies in every campaign that sends to it.
    const make = async (prefix: string, capped: boolean) => {
      const out: any[] = []
      for (const [i, name] of ['a', 'b', 'c'].entries()) {
        const cap = capped && i === 0 ? { cap: { metric: 'conversions', limit: BIG } } : {}
        out.push(await call('POST', 'offers', { name: `${prefix} ${name}`, slug: `${prefix}-${name}`, url: url(name), payout: 1, ...cap }, 201))
      }
      return out.map((o, i) => ({
        offer_id: o.id, weight: [50, 30, 20][i], ...(capped ? { cap: { metric: 'clicks', limit: BIG, time_zone: 'Europe/Berlin' } } : {}),
      }))
    }
    const plain = await call('POST', 'campaigns', { name: 'plain', slug: 'plain', offers: await make('plain', false) }, 201)
    const capped = await call('POST', 'campaigns', { name: 'capped', slug: 'capped', offers: await make('capped', true) }, 201)
    const auto = await enableAutoWeights(call, capped.id)
    say(`(q) GET /c: three capped offers${auto ? ' with auto-weights on' : ''} vs the same rotation uncapped, one server (${svc.label}): warm-up ${WARMUP}s each, then ${ROUNDS} alternating rounds of ${SECONDS}s …`)

    const wrk = (slug: string, seconds: number) => runWrk({
      url: `${base}/c/${slug}${QUERY}`, seconds, connections: CONNECTIONS, script: join(ROOT, 'scripts', 'bench', 'geo-click.lua'),
      headers: { 'User-Agent': UA }, env: { BENCH_IPS: ipsFile, BENCH_DELAY_MS: '0' }, pin: PIN_WRK,
    })
    await wrk('plain', WARMUP)
    await wrk('capped', WARMUP)
    const peak = { plain: [] as WrkResult[], capped: [] as WrkResult[] }
    for (let r = 0; r < ROUNDS; r++) {
      for (const side of r % 2 === 0 ? (['plain', 'capped'] as const) : (['capped', 'plain'] as const)) peak[side].push(await wrk(side, SECONDS))
      say(`  round ${r + 1}: plain ${Math.round(peak.plain[r]!.rps)} req/s (p99 ${peak.plain[r]!.p99ms} ms), capped ${Math.round(peak.capped[r]!.rps)} req/s (p99 ${peak.capped[r]!.p99ms} ms): ${(peak.capped[r]!.rps / peak.plain[r]!.rps).toFixed(3)}`)
    }
    const caps = await (await fetch(`${base}/admin/api/caps?campaign_id=${capped.id}`, { headers: { cookie } })).json() as { caps: Array<{ count: number }> }
    await Bun.sleep(300)
    const code = await stopGracefully(p)
    const db = new Database(join(dataDir, 'svc.db'), { readonly: true })
    const n = (sql: string, ...args: Array<number | string>) => (db.query(sql).get(...args) as { n: number }).n
    const clicksCapped = n('SELECT count(*) AS n FROM clicks WHERE campaign_id = ?', capped.id)
    const counted = n(`SELECT coalesce(sum(clicks), 0) AS n FROM cap_counters WHERE cap LIKE ?`, `c${capped.id}p0o%`)
    db.close()

    const ratios = peak.plain.map((x, i) => peak.capped[i]!.rps / x.rps)
    const ratio = median(ratios)
    const bad = [...peak.plain, ...peak.capped].reduce((s, r) => s + r.other + r.n2xx, 0)
    // Every click of the capped campaign was counted once, in memory and in cap_counters.
    const consistent = bad === 0 && counted === clicksCapped && caps.caps.reduce((s, c) => s + c.count, 0) >= clicksCapped - 1
    const results = {
      seconds: SECONDS, rounds: ROUNDS, connections: CONNECTIONS, pinned: canPin, svc: svc.label, auto_weights: auto,
      plain: { rps: Math.round(medianRound(peak.plain, 'rps').rps), p99ms: medianRound(peak.plain, 'p99ms').p99ms, rounds_rps: peak.plain.map((r) => Math.round(r.rps)) },
      capped: { rps: Math.round(medianRound(peak.capped, 'rps').rps), p99ms: medianRound(peak.capped, 'p99ms').p99ms, rounds_rps: peak.capped.map((r) => Math.round(r.rps)) },
      ratio: Number(ratio.toFixed(3)), ratios: ratios.map((r) => Number(r.toFixed(3))),
      clicks: { capped: clicksCapped, counted_in_cap_counters: counted }, consistent, exit_code_after_sigterm: code,
    }
    say('')
    say(`/c, plain rotation       ${String(results.plain.rps).padStart(9)} req/s  p99 ${results.plain.p99ms.toFixed(2)} ms`)
    say(`/c, caps${auto ? ' + auto-weights' : ''}        ${String(results.capped.rps).padStart(9)} req/s  p99 ${results.capped.p99ms.toFixed(2)} ms  ratio ${ratio.toFixed(3)} (per round ${ratios.map((r) => r.toFixed(3)).join(' ')})`)
    say(`clicks of the capped campaign ${clicksCapped}, counted in cap_counters ${counted} ${consistent ? 'OK' : 'MISMATCH'}`)
    say(`target: ratio >= 0.95 ${ratio >= 0.95 ? 'MET' : 'NOT MET'}`)
    return { results, ok: consistent && ratio >= 0.95, lines }
  } finally {
    if (p && p.exitCode === null && p.signalCode === null) await stopGracefully(p)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/**
 * Auto-weights on for the campaign's offers (its first run is due at once): resolves once the campaign routes by
 * the weights it set (every offer entry has an auto_weight), so the rounds measure a campaign under auto-weights.
 */
async function enableAutoWeights(call: (m: string, p: string, b: unknown, w: number) => Promise<any>, campaignId: number): Promise<boolean> {
  await call('PUT', `campaigns/${campaignId}/auto-weights`, {
    path_id: null, kind: 'offers', enabled: true, metric: 'cr', floor_pct: 5, min_clicks: 0, window_hours: 24, refresh_minutes: 60,
  }, 200)
  for (const until = Date.now() + 15_000; Date.now() < until; await Bun.sleep(200)) {
    const campaign = await fetchJson(call, campaignId)
    if (campaign.offers.every((o: { auto_weight: number | null }) => o.auto_weight !== null)) return true
  }
  throw new Error('auto-weights did not set the weights within 15 s')
}

const fetchJson = (call: (m: string, p: string, b: unknown, w: number) => Promise<any>, id: number) => call('GET', `campaigns/${id}`, undefined, 200)

if (import.meta.main) {
  benchCaps().then(async (r) => {
    await killAll()
    if (!r.ok) process.exitCode = 1
  }, async (err) => {
    console.error('bench-caps failed:', err instanceof Error ? err.message : err)
    await killAll()
    process.exit(1)
  })
}
