// Slow-header attack: `connections` loopback sockets each send a request line and then one header line at a
// time, never finishing the headers. Meanwhile /healthz is timed on fresh connections. Bounded in time.
import { connect, type Socket } from 'node:net'

export interface SlowlorisResult {
  opened: number
  /** Sockets the server had closed by the end. */
  closedByServer: number
  probes: number
  failedProbes: number
  maxMs: number
  p50Ms: number
}

export async function slowloris(base: URL, connections: number, seconds: number): Promise<SlowlorisResult> {
  const sockets: Socket[] = []
  let closedByServer = 0
  let stopping = false
  for (let i = 0; i < connections; i++) {
    const s = connect({ host: base.hostname, port: Number(base.port) })
    s.on('error', () => {})
    s.on('close', () => { if (!stopping) closedByServer++ })
    s.on('connect', () => s.write(`GET /healthz HTTP/1.1\r\nhost: ${base.host}\r\n`))
    sockets.push(s)
    if (i % 100 === 99) await Bun.sleep(10)
  }
  const drip = setInterval(() => {
    for (const s of sockets) if (!s.destroyed) s.write(`x-${Math.random().toString(36).slice(2, 8)}: a\r\n`)
  }, 1000)

  const times: number[] = []
  let failed = 0
  const until = Date.now() + seconds * 1000
  while (Date.now() < until) {
    const t0 = performance.now()
    try {
      const res = await fetch(`${base.origin}/healthz`, { headers: { connection: 'close' }, signal: AbortSignal.timeout(2000), keepalive: false } as RequestInit)
      await res.arrayBuffer()
      if (res.status !== 200) failed++
    } catch {
      failed++
    }
    times.push(performance.now() - t0)
    await Bun.sleep(100)
  }
  clearInterval(drip)
  stopping = true
  for (const s of sockets) s.destroy()
  times.sort((a, b) => a - b)
  return {
    opened: sockets.length,
    closedByServer,
    probes: times.length,
    failedProbes: failed,
    maxMs: times[times.length - 1] ?? NaN,
    p50Ms: times[Math.floor(times.length / 2)] ?? NaN,
  }
}
