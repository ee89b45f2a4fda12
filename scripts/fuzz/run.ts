// Drives the generator against a running server: `perRoute` requests to each public route and `admin`
// across the admin API, a few at a time, and tallies the answers by route and status.
import { adminRequest, publicRequest, type FuzzRequest, type FuzzTargets } from './generate'
import { Rng } from './prng'
import { send, type Outcome } from './send'

export const PUBLIC_ROUTES = [
  '/c', '/r', '/postback', '/healthz', '/email/unsubscribe', '/api/account', '/webhook/mail', '/lp', '/api/lead', '/api/events', '/api/cloak', '/webhook/ecom', '/webhook/pay', '/api/checkout', '/mcp',
] as const

export interface FuzzTally {
  /** route → outcome → count */
  counts: Record<string, Record<string, number>>
  /** Every 5xx, with the request that caused it (kept for replay). */
  failures: Array<{ request: FuzzRequest; outcome: Outcome }>
  /** Requests the server did not answer within the client's timeout (reported, not a failure by themselves). */
  timeouts: FuzzRequest[]
  total: number
}

export interface FuzzPlan {
  base: URL
  seed: number
  targets: FuzzTargets
  perRoute: number
  admin: number
  concurrency?: number
  /** Called after each batch; return false to stop early (the server died). */
  alive?: () => boolean
}

export async function runFuzz(plan: FuzzPlan): Promise<FuzzTally> {
  const rng = new Rng(plan.seed)
  const tally: FuzzTally = { counts: {}, failures: [], timeouts: [], total: 0 }
  const jobs: Array<() => FuzzRequest> = []
  for (const route of PUBLIC_ROUTES) for (let i = 0; i < plan.perRoute; i++) jobs.push(() => publicRequest(rng, route, plan.targets))
  for (let i = 0; i < plan.admin; i++) jobs.push(() => adminRequest(rng, plan.targets))

  // Requests are generated in order from one Rng (so a seed replays them), then sent a few at a time.
  const concurrency = plan.concurrency ?? 16
  let next = 0
  const worker = async () => {
    while (next < jobs.length) {
      if (plan.alive && !plan.alive()) return
      const request = jobs[next++]!()
      const outcome = await send(plan.base, request)
      // Bun's HTTP parser, not svc, answers a request line that is not HTTP/1.1 (a control byte in the
      // target, a non-token method) with 505; tallied apart, it is the only 5xx allowed.
      const key = request.brokenRequestLine && outcome === 505 ? '505-bun-parser' : String(outcome)
      const byRoute = (tally.counts[request.route] ??= {})
      byRoute[key] = (byRoute[key] ?? 0) + 1
      tally.total++
      if (typeof outcome === 'number' && outcome >= 500 && key === String(outcome)) tally.failures.push({ request, outcome })
      if (outcome === 'timeout') tally.timeouts.push(request)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return tally
}

/** `route  status:count …` lines, statuses sorted. */
export function formatTally(t: FuzzTally): string {
  return Object.entries(t.counts)
    .map(([route, byStatus]) => `${route.padEnd(9)} ${Object.entries(byStatus).sort(([a], [b]) => a.localeCompare(b)).map(([s, n]) => `${s}:${n}`).join('  ')}`)
    .join('\n')
}

/** A failing request, short enough to read and exact enough to replay. */
export function describeRequest(r: FuzzRequest): string {
  const body = r.body === undefined ? '' : ` body(${r.body.length})=${JSON.stringify(String(r.body).slice(0, 200))}`
  return `${JSON.stringify(r.method)} ${JSON.stringify(r.target.slice(0, 300))} headers=${JSON.stringify(r.headers.map(([k, v]) => [k, v.slice(0, 80)]))}${body}`
}
