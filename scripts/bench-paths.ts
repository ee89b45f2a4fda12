// Targeting paths on the redirect (issue 28): GET /c of a campaign with 20 paths against a campaign with
// none, on one svc server in one run. Part of `npm run bench`; alone: `BENCH_ONLY=paths npm run bench` or
// `bun scripts/bench-paths.ts`.
//
// The traffic: 2 000 distinct addresses drawn at random from the shipped IP data's ten countries below,
// sent as X-Forwarded-For with SVC_TRUST_PROXY=1, so every click of both campaigns is looked up (country,
// ASN, connection); five Accept-Language values; a desktop Chrome; sub1=abc&sub2=banner-7.
// The 20 paths: the first 19 never match the traffic and all of them are evaluated for every click; the
// 20th holds and takes every visitor (checked: every click of the campaign has its path_id). Each path has
// 7 conditions: country (a list of 12), device, os, sub1 in a list, language, a negated ASN list and an
// ASN list / a time window of later today / sub2 by prefix. BENCH_PATHS_FAIL says where the 19 fail:
// `split` (default, a 20-country split as buyers write it): each path is country, device and sub1, and
// the visitor's country is in none of the 19 (19 conditions per click before the 20th); `mixed`: path i
// fails on its condition i mod 7 (country, device, os, sub1, language, ASN, the last one), 76 conditions
// per click; `last`: every path holds up to its 7th condition and fails there, 133 conditions per click
// (the worst a 20-path campaign of 7 conditions can do).
//
// Measured like (a)/(b) of bench.ts: warm-up, then BENCH_PATHS_ROUNDS (5) alternating rounds of
// BENCH_SECONDS (5) s at the peak, the order swapped each round; req/s ratio paths/none per round and its
// median. Then as many rounds paced at about half the no-path peak, where p99 is the request's own pauses
// rather than queueing: each side's median round by p99. Target: ratio >= 0.90; p99 within noise.
import { Database } from 'bun:sqlite'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { loadGeoIp } from '../src/lib/geoip'
import { freePort, killAll, runWrk, spawn, stopGracefully, svcCommand, waitHttp, type WrkResult } from './bench/lib'

const ROOT = resolve(import.meta.dir, '..')
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Math.max(1, Number(process.env.BENCH_PATHS_ROUNDS ?? 5))
const WARMUP = 2
const CONNECTIONS = 64
const OWNER = { email: 'bench@example.com', password: 'bench-password-0123' }
const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
const QUERY = '?sub1=abc&sub2=banner-7&utm_source=wrk'
const COUNTRIES = ['US', 'DE', 'GB', 'FR', 'ES', 'IT', 'NL', 'PL', 'BR', 'CA']
const OTHER_COUNTRIES = ['JP', 'KR', 'IN', 'ID', 'MX', 'TR', 'VN', 'TH', 'PH', 'AR']
const LANGUAGES = ['en', 'de', 'fr', 'es', 'pl', 'it', 'nl', 'pt']
const DISTINCT_IPS = 2000
const FAIL = process.env.BENCH_PATHS_FAIL === 'last' ? 'last' : process.env.BENCH_PATHS_FAIL === 'mixed' ? 'mixed' : 'split'

export interface PathsBench {
  results: Record<string, unknown>
  ok: boolean
  lines: string[]
}

/** Traffic addresses in COUNTRIES (as the shipped IP data places them) and the ASNs they belong to. */
async function trafficAddresses(): Promise<{ ips: string[]; asns: Set<number> }> {
  const geo = await loadGeoIp()
  let x = 2463534242
  const next = () => { x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0; return x }
  const ips: string[] = []
  const asns = new Set<number>()
  for (let tries = 0; ips.length < DISTINCT_IPS && tries < 5_000_000; tries++) {
    const a = next()
    const ip = `${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}`
    const place = geo.lookup(ip)
    if (!place?.country || !COUNTRIES.includes(place.country)) continue
    ips.push(ip)
    if (place.asn !== null) asns.add(place.asn)
  }
  if (ips.length < DISTINCT_IPS) throw new Error(`only ${ips.length} addresses of ${COUNTRIES.join(', ')} found in the IP data`)
  return { ips, asns }
}

/** Ten AS numbers none of the traffic comes from. */
function foreignAsns(used: Set<number>, from: number): number[] {
  const out: number[] = []
  for (let n = from; out.length < 10; n += 7) if (!used.has(n)) out.push(n)
  return out
}

const hhmm = (h: number) => `${String(h % 24).padStart(2, '0')}:00`

/** The 20 paths: 19 that fail only on their last condition, then one that takes everyone. */
function paths(asns: Set<number>, offers: number[]): unknown[] {
  const hour = new Date().getUTCHours()
  const holds = (i: number) => [
    { type: 'country', values: [...COUNTRIES, OTHER_COUNTRIES[i % 10]!, OTHER_COUNTRIES[(i + 3) % 10]!] },
    { type: 'device', values: ['desktop', 'mobile', 'tablet'] },
    { type: 'os', values: ['Windows', 'macOS', 'Android', 'iOS', 'Linux'] },
    { type: 'param', name: 'sub1', op: 'in', values: ['abc', 'def', 'ghi', `s${i}`] },
    { type: 'language', values: LANGUAGES },
    { type: 'asn', negate: true, values: foreignAsns(asns, 64512 + i * 100) },
  ]
  // In place of holds(i)[k]: a condition the traffic never meets (desktop Chrome on Windows, sub1=abc).
  const failsAt = (i: number, k: number) => [
    { type: 'country', values: OTHER_COUNTRIES },
    { type: 'device', values: ['mobile', 'tablet'] },
    { type: 'os', values: ['Android', 'iOS'], version: { op: 'gte', value: 12 } },
    { type: 'param', name: 'sub1', op: 'in', values: ['x1', 'x2', `s${i}`] },
    { type: 'language', values: ['ja', 'ko', 'zh'] },
    { type: 'asn', values: foreignAsns(asns, 3_000_000_000 + i * 100) },
  ][k]!
  const fails = (i: number) => [
    { type: 'asn', values: foreignAsns(asns, 4_200_000_000 + i * 100) },
    // Three to five hours from now (UTC): never during the bench.
    { type: 'time', tz: 'UTC', from: hhmm(hour + 3), to: hhmm(hour + 5) },
    { type: 'param', name: 'sub2', op: 'prefix', values: ['fb_', 'ig_', 'tt_'] },
  ][i % 3]!
  const rotation = (i: number) => ({ type: 'rotation', offers: [{ offer_id: offers[i % offers.length]!, weight: 100 }] })
  const conditions = (i: number): unknown[] => {
    if (FAIL === 'split') return [failsAt(i, 0), holds(i)[1], holds(i)[3]]
    const k = FAIL === 'last' ? 6 : i % 7
    return k === 6 ? [...holds(i), fails(i)] : [...holds(i).map((c, j): unknown => (j === k ? failsAt(i, k) : c)), fails(i)]
  }
  const out: unknown[] = Array.from({ length: 19 }, (_, i) => ({ name: `path ${i + 1}`, conditions: conditions(i), action: rotation(i) }))
  out.push({ name: 'everyone else', conditions: [...holds(19), { type: 'time', tz: 'Europe/Berlin', days: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] }], action: rotation(0) })
  return out
}

function medianRound(rounds: WrkResult[], by: 'rps' | 'p99ms'): WrkResult {
  return [...rounds].sort((a, b) => a[by] - b[by])[Math.floor(rounds.length / 2)]!
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

export async function benchPaths(): Promise<PathsBench> {
  const canPin = !!Bun.which('taskset') && cpus().length >= 2
  const PIN_SERVER = canPin ? ['taskset', '-c', '0'] : []
  const PIN_WRK = canPin ? ['taskset', '-c', '1'] : []
  const svc = svcCommand(ROOT)
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-paths-'))
  const lines: string[] = []
  const say = (s: string) => { console.log(s); lines.push(s) }
  let p: ReturnType<typeof spawn> | null = null
  try {
    const { ips, asns } = await trafficAddresses()
    const ipsFile = join(dataDir, 'ips.txt')
    writeFileSync(ipsFile, ips.join('\n') + '\n')
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
    const post = async (path: string, body: unknown): Promise<any> => {
      const r = await fetch(`${base}/admin/api/${path}`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) })
      if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${await r.text()}`)
      return r.json()
    }
    const source = await post('sources', { name: 'bench source', postback_url: null })
    const url = (host: string) => `https://${host}.offer.example/go?click_id={click_id}&src={source_id}&s1={sub1}`
    const offer = await post('offers', { name: 'bench offer', slug: 'bench-offer', url: url('default'), payout: 1 })
    const pathOffers = [await post('offers', { name: 'path a', slug: 'path-a', url: url('path-a'), payout: 1 }), await post('offers', { name: 'path b', slug: 'path-b', url: url('path-b'), payout: 1 })]
    const plain = await post('campaigns', { name: 'no paths', slug: 'plain', source_id: source.id, offers: [{ offer_id: offer.id }] })
    const targeted = await post('campaigns', {
      name: '20 paths', slug: 'paths', source_id: source.id, offers: [{ offer_id: offer.id }], paths: paths(asns, pathOffers.map((o) => o.id)),
    })
    const lastPath: number = targeted.paths[19].id

    // Probe: the 20th path takes the visitor (so the 19 before it were all evaluated and failed).
    const probe = await fetch(`${base}/c/paths${QUERY}`, { redirect: 'manual', headers: { 'user-agent': UA, 'x-forwarded-for': ips[0]!, 'accept-language': 'en-US' } })
    await probe.arrayBuffer()
    const host = probe.status === 302 ? new URL(probe.headers.get('location')!).host : String(probe.status)
    if (host !== 'path-a.offer.example') throw new Error(`the probe click of the 20-path campaign went to ${host}, not the 20th path's offer`)

    const wrk = (slug: string, seconds: number, delayMs = 0) => runWrk({
      url: `${base}/c/${slug}${QUERY}`, seconds, connections: CONNECTIONS, script: join(ROOT, 'scripts', 'bench', 'geo-click.lua'),
      headers: { 'User-Agent': UA }, env: { BENCH_IPS: ipsFile, BENCH_DELAY_MS: String(delayMs) }, pin: PIN_WRK,
    })
    say(`(p) GET /c: 20 targeting paths (the 19 first fail: ${FAIL}) vs none, one server (${svc.label}), ${ips.length} addresses looked up: warm-up ${WARMUP}s each, then ${ROUNDS} alternating rounds of ${SECONDS}s …`)
    await wrk('plain', WARMUP)
    await wrk('paths', WARMUP)
    const peak = { plain: [] as WrkResult[], paths: [] as WrkResult[] }
    const paced = { plain: [] as WrkResult[], paths: [] as WrkResult[] }
    const order = (r: number) => (r % 2 === 0 ? (['plain', 'paths'] as const) : (['paths', 'plain'] as const))
    for (let r = 0; r < ROUNDS; r++) {
      for (const side of order(r)) peak[side].push(await wrk(side, SECONDS))
      say(`  round ${r + 1}: none ${Math.round(peak.plain[r]!.rps)} req/s (p99 ${peak.plain[r]!.p99ms} ms), 20 paths ${Math.round(peak.paths[r]!.rps)} req/s (p99 ${peak.paths[r]!.p99ms} ms): ${(peak.paths[r]!.rps / peak.plain[r]!.rps).toFixed(3)}`)
    }
    const plainPeak = medianRound(peak.plain, 'rps')
    const delayMs = Math.max(1, Math.round((CONNECTIONS / (plainPeak.rps / 2)) * 1000 - plainPeak.p50ms))
    say(`  paced: ${delayMs} ms between a connection's requests (about half the no-path peak), ${ROUNDS} alternating rounds …`)
    for (let r = 0; r < ROUNDS; r++) {
      for (const side of order(r)) paced[side].push(await wrk(side, SECONDS, delayMs))
      say(`  round ${r + 1}: none p99 ${paced.plain[r]!.p99ms} ms, 20 paths p99 ${paced.paths[r]!.p99ms} ms`)
    }
    await Bun.sleep(300)
    const code = await stopGracefully(p)

    const db = new Database(join(dataDir, 'svc.db'), { readonly: true })
    const n = (sql: string, ...args: number[]) => (db.query(sql).get(...args) as { n: number }).n
    const rowsPlain = n('SELECT count(*) AS n FROM clicks WHERE campaign_id = ?', plain.id)
    const rowsPaths = n('SELECT count(*) AS n FROM clicks WHERE campaign_id = ?', targeted.id)
    const rowsLastPath = n('SELECT count(*) AS n FROM clicks WHERE campaign_id = ? AND path_id = ?', targeted.id, lastPath)
    const countries = n('SELECT count(*) AS n FROM clicks WHERE campaign_id = ? AND country IS NULL', targeted.id)
    db.close()

    const ratios = peak.plain.map((x, i) => peak.paths[i]!.rps / x.rps)
    const ratio = median(ratios)
    const p99 = (rounds: WrkResult[]) => rounds.map((r) => r.p99ms)
    const pacedPlain = medianRound(paced.plain, 'p99ms')
    const pacedPaths = medianRound(paced.paths, 'p99ms')
    // "Within noise": the 20-path median p99 is no higher than the worst round of the no-path side itself.
    const p99Ok = pacedPaths.p99ms <= Math.max(...p99(paced.plain)) && medianRound(peak.paths, 'p99ms').p99ms <= Math.max(...p99(peak.plain))
    const bad = (rs: WrkResult[]) => rs.reduce((s, r) => s + r.other + r.n2xx, 0)
    const consistent = bad([...peak.plain, ...peak.paths, ...paced.plain, ...paced.paths]) === 0 && rowsLastPath === rowsPaths && countries === 0
    const results = {
      fail: FAIL, seconds: SECONDS, rounds: ROUNDS, connections: CONNECTIONS, addresses: ips.length, pinned: canPin, svc: svc.label,
      none: { rps: Math.round(plainPeak.rps), p99ms: medianRound(peak.plain, 'p99ms').p99ms, rounds_rps: peak.plain.map((r) => Math.round(r.rps)), rounds_p99_ms: p99(peak.plain) },
      paths20: { rps: Math.round(medianRound(peak.paths, 'rps').rps), p99ms: medianRound(peak.paths, 'p99ms').p99ms, rounds_rps: peak.paths.map((r) => Math.round(r.rps)), rounds_p99_ms: p99(peak.paths) },
      ratio: Number(ratio.toFixed(3)), ratios: ratios.map((r) => Number(r.toFixed(3))),
      paced: { delay_ms: delayMs, none_p99_ms: pacedPlain.p99ms, paths20_p99_ms: pacedPaths.p99ms, none_rounds_p99_ms: p99(paced.plain), paths20_rounds_p99_ms: p99(paced.paths) },
      clicks: { none: rowsPlain, paths20: rowsPaths, paths20_on_last_path: rowsLastPath, paths20_without_country: countries },
      consistent, p99_within_noise: p99Ok, exit_code_after_sigterm: code,
    }
    say('')
    say(`case                      req/s   p99 ms  paced p99 ms  notes`)
    say(`/c, no paths          ${String(results.none.rps).padStart(9)} ${results.none.p99ms.toFixed(2).padStart(8)} ${pacedPlain.p99ms.toFixed(2).padStart(13)}  median of ${ROUNDS} rounds (paced p99 per round ${p99(paced.plain).join(' / ')})`)
    say(`/c, 20 paths          ${String(results.paths20.rps).padStart(9)} ${results.paths20.p99ms.toFixed(2).padStart(8)} ${pacedPaths.p99ms.toFixed(2).padStart(13)}  ratio ${ratio.toFixed(3)} (per round ${ratios.map((r) => r.toFixed(3)).join(' ')}; paced p99 per round ${p99(paced.paths).join(' / ')})`)
    say(`clicks: none ${rowsPlain}, 20 paths ${rowsPaths} (${rowsLastPath} on the 20th path; ${countries} without a country) ${consistent ? 'OK' : 'MISMATCH'}`)
    say(`target: ratio >= 0.90 ${ratio >= 0.9 ? 'MET' : 'NOT MET'}; p99 within noise ${p99Ok ? 'MET' : 'NOT MET'}`)
    return { results, ok: consistent && ratio >= 0.9, lines }
  } finally {
    if (p && p.exitCode === null && p.signalCode === null) await stopGracefully(p)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  benchPaths().then(async (r) => {
    await killAll()
    if (!r.ok) process.exitCode = 1
  }, async (err) => {
    console.error('bench-paths failed:', err instanceof Error ? err.message : err)
    await killAll()
    process.exit(1)
  })
}
