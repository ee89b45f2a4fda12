// Origins of a request, for the admin API's cross-site refusal (http/admin-guard.ts) and the landing
// hostname (SVC_LANDING_ORIGIN, landings/public-routes.ts).
import type { Config } from '../config'

type OriginConfig = Pick<Config, 'publicUrl' | 'landingOrigin' | 'trustProxy'>

const firstEntry = (v: string | null) => (v === null ? '' : v.split(',')[0]!.trim())

/** A serialized origin ("https://a.example", default port dropped), or null for "null" and anything unparsable. */
export function normalizeOrigin(raw: string | null | undefined): string | null {
  if (!raw) return null
  const u = URL.parse(raw)
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || !u.host) return null
  return u.origin
}

/**
 * The origin the client addressed: the request URL's scheme and Host; behind a trusted proxy
 * (SVC_TRUST_PROXY) the first X-Forwarded-Proto and X-Forwarded-Host entries win when present.
 */
export function requestOrigin(config: Pick<Config, 'trustProxy'>, request: Request): string | null {
  const url = URL.parse(request.url)
  if (!url) return null
  let proto = url.protocol.slice(0, -1)
  let host = url.host
  if (config.trustProxy) {
    const fp = firstEntry(request.headers.get('x-forwarded-proto')).toLowerCase()
    if (fp === 'http' || fp === 'https') proto = fp
    const fh = firstEntry(request.headers.get('x-forwarded-host'))
    if (fh) host = fh
  }
  return normalizeOrigin(`${proto}://${host}`)
}

/** The host (name and port, as in a Host header) of `origin`. */
const hostOf = (origin: string | null) => (origin === null ? null : URL.parse(origin)?.host.toLowerCase() ?? null)

/**
 * Whether `origin` (a browser's Origin header) is the dashboard's own:
 *  - SVC_PUBLIC_URL's origin, when set (the address the operator gave; it survives proxies that rewrite Host);
 *  - the request's own origin (requestOrigin), unless that is the landing host (SVC_LANDING_ORIGIN, when it
 *    differs from SVC_PUBLIC_URL): a page served by svc on the very host it calls. A foreign page cannot
 *    make the two agree: the browser writes Host from the URL it calls and Origin from the page it runs, and
 *    a page on a rebinding name sends that name in both, but the browser has no admin cookie for that name.
 * "null" (sandboxed landings, data: URLs, redirects across origins) is never the dashboard's.
 */
export function isDashboardOrigin(config: OriginConfig, request: Request, origin: string): boolean {
  const o = normalizeOrigin(origin)
  if (o === null) return false
  const pub = normalizeOrigin(config.publicUrl)
  if (pub !== null && o === pub) return true
  if (o !== requestOrigin(config, request)) return false
  return config.landingOrigin === null || config.landingOrigin === pub || o !== config.landingOrigin
}

/**
 * Where an /lp request must go instead, when SVC_LANDING_ORIGIN is set and the request arrived on another
 * host: the same path and query on the landing origin. Null when it is already there (or none is set).
 * The hosts are compared, not the schemes: without SVC_TRUST_PROXY a TLS-terminating proxy makes every
 * request look like http, and comparing schemes would then redirect forever.
 */
export function landingRedirect(config: Pick<Config, 'landingOrigin' | 'trustProxy'>, request: Request): string | null {
  if (config.landingOrigin === null) return null
  const own = hostOf(requestOrigin(config, request))
  if (own !== null && own === hostOf(config.landingOrigin)) return null
  const url = URL.parse(request.url)
  return `${config.landingOrigin}${url ? url.pathname + url.search : '/'}`
}
