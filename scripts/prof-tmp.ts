// temporary profiling harness (not committed)
import { Database } from 'bun:sqlite'
import { mkdtempSync, writeFileSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { freePort, runWrk, spawn, stopGracefully, waitHttp } from './bench/lib'
const ROOT = resolve(import.meta.dir, '..')
const MODE = process.env.MODE ?? 'postback'
const PROF = process.env.PROF === '1'
const dataDir = mkdtempSync(join(tmpdir(), 'svc-prof-'))
const dbPath = join(dataDir, 'svc.db')
const env = { SVC_DATA_DIR: dataDir, SVC_SECRET: 'bench-master-secret-0123456789abcdef', HOST: '127.0.0.1', NODE_ENV: 'production', SVC_TRUST_PROXY: '1' }
const m = spawn([process.execPath, join(ROOT, 'src/index.ts'), 'migrate'], env); await m.exited
const db = new Database(dbPath); const now = Date.now()
db.run("INSERT INTO sources (name, postback_url, created_at, updated_at) VALUES ('s', NULL, ?, ?)", [now, now])
db.run("INSERT INTO offers (name, slug, url, payout, currency, created_at, updated_at) VALUES ('o', 'o', 'https://offer.example/go?click_id={click_id}&src={source_id}&s1={sub1}', 1, 'USD', ?, ?)", [now, now])
db.run("INSERT INTO campaigns (name, slug, source_id, external_id, active, created_at, updated_at) VALUES ('bench', 'bench', 1, 'ext-1', 1, ?, ?)", [now, now])
db.run('INSERT INTO campaign_offers (campaign_id, offer_id, weight) VALUES (1, 1, 100)'); if (process.env.DROPIDX) db.run('DROP INDEX ' + process.env.DROPIDX); db.close()
const port = await freePort()
const profArgs = [...(PROF ? ['--cpu-prof-md', '--cpu-prof-dir=/tmp/prof'] : []), ...(process.env.STALL ? ['--preload', '/tmp/stall.ts'] : []), ...(process.env.MEM ? ['--preload', '/tmp/mem.ts'] : []), ...(process.env.SMOL ? ['--smol'] : []), ...(process.env.GCAGG ? ['--preload', '/tmp/gcagg.ts'] : []), ...(process.env.RENICE ? ['--preload', '/tmp/renice.ts'] : []), ...(process.env.THREADS ? ['--preload', '/tmp/threads.ts'] : [])]
const p = spawn(['taskset', '-c', '0', process.execPath, ...profArgs, join(ROOT, 'src/index.ts'), 'serve'], { ...env, PORT: String(port), ...(process.env.GCLOG ? { BUN_JSC_logGC: '1' } : {}) })
await waitHttp(`http://127.0.0.1:${port}/healthz`)
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36'
const wrk = (url: string, s: number, script: string, e?: Record<string, string>) => runWrk({ url, seconds: s, connections: 64, script: join(ROOT, 'scripts/bench', script), headers: { 'User-Agent': UA }, env: e, pin: ['taskset', '-c', '1'] })
const curl = `http://127.0.0.1:${port}/c/bench?sub1=abc&sub2=banner-7&utm_source=wrk&utm_campaign=bench`
const S = Number(process.env.S ?? 8)
if (MODE === 'click') {
  await wrk(curl, 2, 'status.lua')
  const r = await wrk(curl, S, 'status.lua', process.env.DELAY ? { BENCH_DELAY_MS: process.env.DELAY } : undefined)
  console.log('click', Math.round(r.rps), r.p50ms, r.p99ms)
} else {
  await wrk(curl, 3, 'status.lua'); await Bun.sleep(300)
  const rdb = new Database(dbPath, { readonly: true })
  const ids = (rdb.query('SELECT click_id FROM clicks ORDER BY id DESC LIMIT 20000').all() as any[]).map((x) => x.click_id); rdb.close()
  const idsFile = join(dataDir, 'ids.txt'); writeFileSync(idsFile, ids.join('\n') + '\n')
  const purl = `http://127.0.0.1:${port}/postback`
  await wrk(purl, 2, 'postback.lua', { BENCH_IDS: idsFile })
  const r = await wrk(purl, S, 'postback.lua', { BENCH_IDS: idsFile })
  console.log('postback', Math.round(r.rps), r.p50ms, r.p99ms, r.n2xx, r.other)
}
await stopGracefully(p)
console.log('data', dataDir)
