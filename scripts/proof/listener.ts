// The traffic source's postback endpoint, as svc's forward jobs see it. It answers 503 (jobs stay
// pending and retry) or 200 (jobs finish), and remembers which click ids it answered 200 for.
import type { Server } from 'bun'

export interface SourceListener {
  /** Postback URL template for the source record. */
  readonly template: string
  /** 'fail': 503 after `failDelayMs` (so attempts are in flight when svc dies); 'ok': 200. */
  mode: 'fail' | 'ok'
  readonly received: { total: number; failed: number; ok: number }
  /** Requests being answered right now (a 503 takes `failDelayMs`). */
  readonly inflight: () => number
  /** click_id → number of 200 answers for it. */
  readonly okByClickId: Map<string, number>
  stop(): void
}

export function startSourceListener(mode: 'fail' | 'ok', failDelayMs = 20): SourceListener {
  const received = { total: 0, failed: 0, ok: 0 }
  const okByClickId = new Map<string, number>()
  const self: { mode: 'fail' | 'ok' } = { mode }
  let inflight = 0
  const server: Server<undefined> = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    development: false,
    async fetch(req) {
      received.total++
      if (self.mode === 'fail') {
        inflight++
        if (failDelayMs > 0) await Bun.sleep(failDelayMs)
        inflight--
        received.failed++
        return new Response('try later', { status: 503 })
      }
      received.ok++
      const cid = new URL(req.url).searchParams.get('cid') ?? ''
      okByClickId.set(cid, (okByClickId.get(cid) ?? 0) + 1)
      return new Response('ok')
    },
  })
  return {
    template: `http://127.0.0.1:${server.port}/pb?cid={click_id}&sum={payout}&status={status}&ext={external_id}`,
    get mode() {
      return self.mode
    },
    set mode(m) {
      self.mode = m
    },
    received,
    inflight: () => inflight,
    okByClickId,
    stop: () => void server.stop(true),
  }
}
