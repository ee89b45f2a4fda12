// npm run bench:mcp: what the agent API costs on top of the REST API, side by side in one run. Each round
// runs `wrk` for a few seconds against GET /admin/api/campaigns with a session cookie, then with a bearer
// token (token lookup, rate bucket, audit row), then against POST /mcp
// tools/call list_campaigns with another (same verb, same rows; the MCP side adds the JSON-RPC envelope, a
// fresh SDK server per request and the awaited audit row). Output: req/s and p99 per round, and the median
// ratio MCP / REST. The server runs on core 0 and wrk on core 1 when taskset is available.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { freePort, killAll, runWrk, spawn, stopGracefully, svcCommand, waitHttp } from './bench/lib'

const ROOT = resolve(import.meta.dir, '..')
const ROUNDS = Number(process.env.BENCH_MCP_ROUNDS ?? 3)
const SECONDS = Number(process.env.BENCH_MCP_SECONDS ?? 4)
const CONNECTIONS = Number(process.env.BENCH_MCP_CONNECTIONS ?? 16)
const OWNER = { email: 'bench@example.com', password: 'bench-password-0123' }
const canPin = !!Bun.which('taskset') && cpus().length >= 2
const PIN_SVC = canPin ? ['taskset', '-c', '0'] : []
const PIN_WRK = canPin ? ['taskset', '-c', '1'] : []

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-mcp-'))
const port = await freePort()
const base = `http://127.0.0.1:${port}`
const svc = svcCommand(ROOT)
const server = spawn([...PIN_SVC, ...svc.cmd, 'serve'], {
  HOST: '127.0.0.1', PORT: String(port), SVC_DATA_DIR: join(dir, 'data'), SVC_ADMIN_EMAIL: OWNER.email, SVC_ADMIN_PASSWORD: OWNER.password,
  NODE_ENV: 'production',
})
try {
  await waitHttp(`${base}/healthz`)
  const login = await fetch(`${base}/admin/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(OWNER) })
  const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${base}${path}`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) })
    if (r.status !== 201) throw new Error(`${path}: ${r.status} ${await r.text()}`)
    return r.json() as Promise<any>
  }
  const source = await post('/admin/api/sources', { name: 'Bench source' })
  const offer = await post('/admin/api/offers', { name: 'Bench offer', slug: 'bench-offer', url: 'https://offer.example/?c={click_id}' })
  for (let i = 0; i < 20; i++) await post('/admin/api/campaigns', { name: `Bench ${i}`, slug: `bench-${i}`, source_id: source.id, offer_id: offer.id })
  // One token per side, each far above what a round can spend, so no request meets a rate limit.
  const limits = { default: 100000, ai: 10 }
  const rest = await post('/admin/api/tokens', { name: 'bench-rest', scopes: ['campaigns:read'], rate_limits: limits })
  const mcp = await post('/admin/api/tokens', { name: 'bench-mcp', scopes: ['campaigns:read'], rate_limits: limits })

  // Each side's request, then the status counter every bench script shares (a non-2xx answer fails the run).
  const counter = readFileSync(join(ROOT, 'scripts/bench/status.lua'), 'utf8')
  const restLua = join(dir, 'rest.lua')
  writeFileSync(restLua, `wrk.method = "GET"\nwrk.headers["authorization"] = "Bearer ${rest.token}"\n${counter}`)
  const sessionLua = join(dir, 'session.lua')
  writeFileSync(sessionLua, `wrk.method = "GET"\nwrk.headers["cookie"] = "${cookie}"\n${counter}`)
  const mcpLua = join(dir, 'mcp.lua')
  const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_campaigns', arguments: {} } })
  writeFileSync(mcpLua, [
    'wrk.method = "POST"',
    `wrk.body = ${JSON.stringify(call)}`,
    `wrk.headers["authorization"] = "Bearer ${mcp.token}"`,
    'wrk.headers["content-type"] = "application/json"',
    'wrk.headers["accept"] = "application/json, text/event-stream"',
    'wrk.headers["mcp-protocol-version"] = "2025-11-25"',
    counter,
  ].join('\n'))

  // Both answers carry the same 20 campaigns (checked once, so the comparison is of equal work).
  const check = await fetch(`${base}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${mcp.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: call })
  const items = ((await check.json()) as any).result.structuredContent.items
  if (items.length !== 20) throw new Error(`list_campaigns answered ${items.length} campaigns`)

  console.log(`svc: ${svc.label}; ${ROUNDS} rounds of ${SECONDS} s per side, ${CONNECTIONS} connections${canPin ? '; server on core 0, wrk on core 1' : ''}`)
  const ratios: number[] = []
  for (let round = 1; round <= ROUNDS; round++) {
    const c = await runWrk({ url: `${base}/admin/api/campaigns`, seconds: SECONDS, connections: CONNECTIONS, script: sessionLua, pin: PIN_WRK })
    const r = await runWrk({ url: `${base}/admin/api/campaigns`, seconds: SECONDS, connections: CONNECTIONS, script: restLua, pin: PIN_WRK })
    const m = await runWrk({ url: `${base}/mcp`, seconds: SECONDS, connections: CONNECTIONS, script: mcpLua, pin: PIN_WRK })
    if (!(c.other === 0 && r.other === 0 && m.other === 0)) throw new Error(`non-2xx answers: rest ${r.other}, mcp ${m.other}`)
    ratios.push(m.rps / r.rps)
    console.log(`round ${round}: REST with a session ${c.rps.toFixed(0)} req/s (p99 ${c.p99ms.toFixed(1)} ms) | REST with a token ${r.rps.toFixed(0)} req/s (p99 ${r.p99ms.toFixed(1)} ms) | MCP ${m.rps.toFixed(0)} req/s (p99 ${m.p99ms.toFixed(1)} ms) | MCP/REST ${(m.rps / r.rps).toFixed(2)}`)
  }
  ratios.sort((a, b) => a - b)
  console.log(`median MCP/REST throughput: ${ratios[Math.floor(ratios.length / 2)]!.toFixed(2)}`)
} finally {
  await stopGracefully(server)
  await killAll()
  rmSync(dir, { recursive: true, force: true })
}
