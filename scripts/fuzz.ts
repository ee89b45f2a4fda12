// npm run fuzz: hostile input against a real svc process (dist/svc when it is newer than the source, else
// `bun src/index.ts`) on loopback, seeded with a campaign and a few clicks.
//   FUZZ_N requests per public route and across the admin API (default 10000)
//   FUZZ_SEED the PRNG seed (default: random, printed) — the same seed replays the same requests
//   FUZZ_SLOWLORIS connections of the slow-header attack (default 1000), FUZZ_SLOWLORIS_SECONDS (default 10)
// Fails (exit 1) on any 5xx, on a server crash, or when /healthz takes over 100 ms during the attack.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, killAll, spawn, stopGracefully, svcCommand, waitHttp } from './bench/lib'
import { describeRequest, formatTally, PUBLIC_ROUTES, runFuzz } from './fuzz/run'
import { seedTargets } from './fuzz/seed'
import { slowloris } from './fuzz/slowloris'

const N = Number(process.env.FUZZ_N ?? 10_000)
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31))
const SLOW_CONNECTIONS = Number(process.env.FUZZ_SLOWLORIS ?? 1000)
const SLOW_SECONDS = Number(process.env.FUZZ_SLOWLORIS_SECONDS ?? 10)
const HEALTHZ_BUDGET_MS = 100
const root = join(import.meta.dir, '..')

const dataDir = mkdtempSync(join(tmpdir(), 'svc-fuzz-'))
const email = 'fuzz@example.com'
const password = 'fuzz-password-1'
let exitCode = 0

try {
  console.log(`fuzz: FUZZ_SEED=${SEED} FUZZ_N=${N} (replay with FUZZ_SEED=${SEED})`)
  const port = await freePort()
  const svc = svcCommand(root)
  const server = spawn([...svc.cmd, 'serve'], {
    SVC_DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port), SVC_SECRET: 'fuzz-master-secret-0123456789abcdef',
    SVC_ADMIN_EMAIL: email, SVC_ADMIN_PASSWORD: password, SVC_TRUST_PROXY: '1', NODE_ENV: 'production',
  })
  const base = new URL(`http://127.0.0.1:${port}`)
  await waitHttp(`${base.origin}/healthz`)
  console.log(`fuzz: server ${svc.label} on ${base.origin}, data ${dataDir}`)
  const targets = await seedTargets(base, email, password)
  const alive = () => server.exitCode === null && server.signalCode === null

  const t0 = performance.now()
  const tally = await runFuzz({ base, seed: SEED, targets, perRoute: N, admin: N, alive })
  const seconds = (performance.now() - t0) / 1000
  console.log(`\nfuzz: ${tally.total} requests in ${seconds.toFixed(1)} s (${PUBLIC_ROUTES.join(', ')}: ${N} each; admin: ${N})`)
  console.log(formatTally(tally))
  for (const r of tally.timeouts.slice(0, 5)) console.log(`  no answer within 10 s ← ${describeRequest(r)}`)
  if (!alive()) {
    console.error(`FAIL: the server exited during the run (code ${server.exitCode}, signal ${server.signalCode})`)
    exitCode = 1
  }
  if (tally.failures.length) {
    console.error(`FAIL: ${tally.failures.length} answers were 5xx; the first ones:`)
    for (const f of tally.failures.slice(0, 10)) console.error(`  ${f.outcome} ← ${describeRequest(f.request)}`)
    exitCode = 1
  }

  if (alive()) {
    console.log(`\nfuzz: slowloris, ${SLOW_CONNECTIONS} connections sending partial headers for ${SLOW_SECONDS} s …`)
    const s = await slowloris(base, SLOW_CONNECTIONS, SLOW_SECONDS)
    console.log(`slowloris: ${s.opened} opened, ${s.closedByServer} closed by the server; /healthz ${s.probes} probes, p50 ${s.p50Ms.toFixed(1)} ms, max ${s.maxMs.toFixed(1)} ms, ${s.failedProbes} failed`)
    if (s.failedProbes > 0 || !(s.maxMs <= HEALTHZ_BUDGET_MS)) {
      console.error(`FAIL: /healthz must answer 200 within ${HEALTHZ_BUDGET_MS} ms during the attack`)
      exitCode = 1
    }
    const after = await fetch(`${base.origin}/healthz`).then((r) => r.status).catch(() => 0)
    if (after !== 200) {
      console.error(`FAIL: /healthz answers ${after} after the run`)
      exitCode = 1
    }
  }
  if (alive()) {
    const code = await stopGracefully(server)
    if (code !== 0) {
      console.error(`FAIL: the server exited ${code} on SIGTERM`)
      exitCode = 1
    }
  } else exitCode = 1
  console.log(exitCode === 0 ? '\nfuzz: OK (no 5xx, no crash, /healthz within budget)' : '\nfuzz: FAILED')
} catch (err) {
  console.error('fuzz: could not run:', err)
  exitCode = 1
} finally {
  await killAll()
  rmSync(dataDir, { recursive: true, force: true })
}
process.exit(exitCode)
