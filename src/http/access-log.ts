// The opt-in access log (SVC_LOG_REQUESTS=1): one line per request with method, path, status, duration
// and client address. Nothing here is installed when it is off, so the hot paths pay nothing: the Elysia
// hooks are not registered and the Bun routes of /c and /r are not wrapped.
// The query string is never logged (postback signatures, click data, tokens), nor any header or cookie.
import { Elysia } from 'elysia'
import type { Server } from 'bun'
import type { NativeRoutes } from '../context'
import { clientIp } from '../lib/ip'
import { log } from '../lib/log'

/** Long enough for any real route; a hostile 8 KB path is cropped. */
const MAX_PATH = 256

/** The path of an absolute request URL, without query string or fragment, cropped. */
export function requestPath(url: string): string {
  const start = url.indexOf('/', url.indexOf('://') + 3)
  if (start < 0) return '/'
  let end = url.length
  const q = url.indexOf('?', start)
  if (q >= 0) end = q
  const h = url.indexOf('#', start)
  if (h >= 0 && h < end) end = h
  return end - start > MAX_PATH ? `${url.slice(start, start + MAX_PATH)}…` : url.slice(start, end)
}

function logRequest(request: Request, status: number, startedAt: number, ip: string): void {
  log.info('request', {
    method: request.method,
    path: requestPath(request.url),
    status,
    ms: Math.round((performance.now() - startedAt) * 10) / 10,
    ip,
  })
}

/** The Bun routes (/c, /r, /postback and the other routes outside Elysia), each handler wrapped to log its answer. */
export function loggedNativeRoutes(routes: NativeRoutes, trustProxy: boolean): NativeRoutes {
  const out: NativeRoutes = {}
  for (const [path, methods] of Object.entries(routes)) {
    const wrapped: NativeRoutes[string] = {}
    for (const [method, handler] of Object.entries(methods) as Array<[keyof typeof methods, NonNullable<(typeof methods)['GET']>]>) {
      wrapped[method] = async (request, server) => {
        const startedAt = performance.now()
        const ip = clientIp(request.headers, () => server.requestIP(request)?.address, trustProxy)
        const response = await handler(request, server)
        logRequest(request, response.status, startedAt, ip)
        return response
      }
    }
    out[path] = wrapped
  }
  return out
}

/**
 * Every Elysia-served request (admin API, /healthz, unknown paths). The start time and client
 * address are taken when the request arrives; the line is written once the answer has been handed over.
 */
export function accessLogPlugin(trustProxy: boolean) {
  const arrivals = new WeakMap<Request, { startedAt: number; ip: string }>()
  return new Elysia({ name: 'access-log' })
    .onRequest(({ request, server }) => {
      arrivals.set(request, {
        startedAt: performance.now(),
        ip: clientIp(request.headers, (server as Server<unknown> | null)?.requestIP(request)?.address, trustProxy),
      })
    })
    .onAfterResponse({ as: 'global' }, ({ request, set, responseValue }) => {
      const arrival = arrivals.get(request)
      if (!arrival) return
      const status = responseValue instanceof Response ? responseValue.status : typeof set.status === 'number' ? set.status : 200
      logRequest(request, status, arrival.startedAt, arrival.ip)
    })
}
