// A one-off measurement behind docs/postgres-tuning.md (not part of `npm run bench:pg`): how many server
// connections one svc instance holds on Postgres under redirect + postback load, and how many of the
// rollup rows' UPDATEs were HOT (heap-only) with the default fillfactor.
//
//   bun scripts/bench/pg-conns.ts [seconds=5]
import { SQL } from 'bun'
import { join, resolve } from 'node:path'
import { freePort, killAll, runWrk, spawn, stopGracefully, svcCommand, waitHttp } from './lib'
import { startBenchCluster } from './pg-cluster'

const ROOT = resolve(import.meta.dir, '..', '..')
const SECONDS = Number(process.argv[2] ?? 5)
const OWNER = { email: 'bench@example.com', password: 'bench-password-0123' }
const cluster = await startBenchCluster([])
try {
  const url = await cluster.createDatabase('svc_conns')
  const svc = svcCommand(ROOT)
  const env = { SVC_SECRET: 'bench-master-secret-0123456789abcdef', HOST: '127.0.0.1', NODE_ENV: 'production', SVC_ADMIN_EMAIL: OWNER.email, SVC_ADMIN_PASSWORD: OWNER.password, SVC_DATABASE_URL: url }
  const port = await freePort()
  const p = spawn([...svc.cmd, 'serve'], { ...env, PORT: String(port) })
  const base = `http://127.0.0.1:${port}`
  await waitHttp(`${base}/healthz`)
  const login = await fetch(`${base}/admin/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(OWNER) })
  const cookie = login.headers.getSetCookie().find((c) => c.startsWith('svc_admin_session='))!.split(';')[0]!
  const post = async (path: string, body: unknown) => (await (await fetch(`${base}/admin/api/${path}`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as { id: number }
  const source = await post('sources', { name: 's', postback_url: null })
  const offer = await post('offers', { name: 'o', slug: 'o', url: 'https://offer.example/?c={click_id}', payout: 1 })
  await post('campaigns', { name: 'bench', slug: 'bench', source_id: source.id, offer_id: offer.id, external_id: 'x' })
  const admin = new SQL(url, { max: 1 })
  const conns = async () => Number((await admin`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = 'svc_conns' AND pid <> pg_backend_pid()`)[0].n)
  const idle = await conns()
  let peak = 0
  const sampler = setInterval(() => void conns().then((n) => (peak = Math.max(peak, n))), 100)
  await runWrk({ url: `${base}/c/bench`, seconds: SECONDS, connections: 64, script: join(ROOT, 'scripts', 'bench', 'status.lua'), pin: [] })
  clearInterval(sampler)
  const hot = await admin`SELECT relname, n_tup_upd::int AS upd, n_tup_hot_upd::int AS hot, n_dead_tup::int AS dead FROM pg_stat_user_tables WHERE relname LIKE '%stats%' AND n_tup_upd > 0 ORDER BY relname`
  const fill = await admin`SELECT relname, reloptions FROM pg_class WHERE relname LIKE '%stats%' AND relkind IN ('r', 'p') AND reloptions IS NOT NULL`
  console.log(JSON.stringify({ svc: svc.label, connections_idle: idle, connections_peak_under_load: peak, rollup_updates: hot, reloptions: fill }, null, 1))
  await admin.close()
  await stopGracefully(p)
} finally {
  await killAll()
  cluster.stop()
}
