// Response headers that keep browsers from caching, sniffing or framing what svc answers.
//
// - Every /admin/ answer (JSON, CSV, errors, 404s alike): no caching (it is per user and may hold
//   secrets), no MIME sniffing, no framing (clickjacking), and a CSP that lets a JSON answer opened as a
//   page run nothing at all.
// - HTML pages get a CSP built by htmlPageHeaders(): nothing but what the page names may load.
// - Hosted landings and their assets get LANDING_CSP (a sandbox: an opaque origin).
// The hot paths /c, /r and /postback (Bun routes outside Elysia) never pass through here.
import { Elysia } from 'elysia'

/** Headers of every /admin/ answer. */
export const ADMIN_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
})

/**
 * The CSP of every hosted landing page and asset (/lp/<slug>, /lp/<slug>/<path>): a sandbox without
 * allow-same-origin, so a landing (whoever wrote its html or uploaded its scripts: a user holding only
 * landings:write, an agent token) runs in an opaque origin. Its requests carry `Origin: null`, the
 * browser does not send the SameSite=Lax admin session with them, it cannot read svc's answers without
 * CORS, and document.cookie / localStorage throw. Scripts, forms, popups (themselves sandboxed) and
 * top navigation on a click stay allowed: a landing's own scripts and lead form keep working.
 */
export const LANDING_CSP = 'sandbox allow-scripts allow-forms allow-popups allow-top-navigation-by-user-activation'

/** What an HTML page may load, by CSP directive (e.g. `{ 'script-src': ["'self'"] }`); the rest is 'none'. */
export type CspSources = Partial<Record<
  'script-src' | 'style-src' | 'img-src' | 'font-src' | 'connect-src' | 'worker-src' | 'form-action',
  readonly string[]
>>

/** A page's Content-Security-Policy: default-src 'none', never framed, no <base>, plus `allow`. */
export function contentSecurityPolicy(allow: CspSources = {}): string {
  const parts = ["default-src 'none'"]
  for (const [directive, sources] of Object.entries(allow)) if (sources?.length) parts.push(`${directive} ${sources.join(' ')}`)
  if (!allow['form-action']) parts.push("form-action 'none'")
  parts.push("frame-ancestors 'none'", "base-uri 'none'")
  return parts.join('; ')
}

/**
 * Headers for an HTML page svc serves (the API reference, an HTML 404 for browsers…): its CSP, no
 * sniffing, no framing. A page of inline text and styles only needs `{ 'style-src': ["'unsafe-inline'"] }`.
 */
export function htmlPageHeaders(allow: CspSources = {}, cache = 'no-store'): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': contentSecurityPolicy(allow),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'cache-control': cache,
  }
}

/** Index of the path in a request URL ("http://host/path…"), without parsing the URL. */
function pathStart(url: string): number {
  const scheme = url.indexOf('://')
  return url.indexOf('/', scheme === -1 ? 0 : scheme + 3)
}

export const isAdminPath = (url: string) => url.startsWith('/admin/', pathStart(url))

/** Adds ADMIN_HEADERS to every answer under /admin/, errors included. */
export const securityHeaders = new Elysia({ name: 'security-headers' }).onRequest(({ request, set }) => {
  if (isAdminPath(request.url)) Object.assign(set.headers, ADMIN_HEADERS)
})
