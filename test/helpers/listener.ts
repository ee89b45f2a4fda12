// A local HTTP listener that records what svc sends out (postbacks to sources, provider calls).
export interface Received {
  method: string
  url: URL
  headers: Headers
  body: string
  at: number
}

export interface Listener {
  base: string
  received: Received[]
  /** Resolves when `n` requests have arrived (rejects after timeoutMs). */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>
  stop(): void
}

/** `respond` decides each answer (default 200 "ok"); it sees the requests received so far. */
export function startListener(respond?: (req: Received, count: number) => Response | Promise<Response>): Listener {
  const received: Received[] = []
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    reusePort: false,
    async fetch(request) {
      const r: Received = { method: request.method, url: new URL(request.url), headers: request.headers, body: await request.text(), at: Date.now() }
      received.push(r)
      return respond ? respond(r, received.length) : new Response('ok')
    },
  })
  return {
    base: `http://127.0.0.1:${server.port}`,
    received,
    async waitFor(n, timeoutMs = 8000) {
      const until = Date.now() + timeoutMs
      while (received.length < n) {
        if (Date.now() > until) throw new Error(`listener: expected ${n} requests, got ${received.length}`)
        await Bun.sleep(20)
      }
      return received
    },
    stop: () => server.stop(true),
  }
}
