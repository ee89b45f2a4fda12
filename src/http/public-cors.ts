// CORS for the public endpoints (/postback now; /api/lead and /api/account/* later), driven by the
// cors_allowlist setting (spec §5). /admin/api/* gets none at all.
//
// Not @elysiajs/cors: its hooks run on onRequest for the whole app, so even mounted inside one feature it
// stamped CORS headers on /admin/api responses and on the /c redirects, and answered admin preflights
// (verified with elysia 1.4.30 / @elysiajs/cors 1.4.2). Public routes call this explicitly instead.
import type { SettingsStore } from '../context'

const PREFLIGHT_MAX_AGE = '600'

export interface PublicCorsOptions {
  /**
   * Also answer `Origin: null` (with `access-control-allow-origin: null`), whatever cors_allowlist says.
   * For the landing API only (/api/lead, /api/events, /api/cloak): hosted landings are served sandboxed
   * (an opaque origin, see landings/public-routes.ts), so their own pixel.js, client.js and cloak.js send
   * `Origin: null` and must read the answer ({ok, redirect_url}, {bot, redirect_url}). That is harmless:
   * these endpoints take no credentials (never access-control-allow-credentials, and no cookie decides
   * who may call them), anyone can already post to them and read the answer with curl, and the answer
   * holds only what the caller sent or the public /r link of its own click. What `null` opens is reading
   * those answers from any sandboxed page or data: URL, which learns nothing it could not learn directly.
   */
  opaqueOrigins?: boolean
}

export class PublicCors {
  constructor(private readonly settings: SettingsStore, private readonly options: PublicCorsOptions = {}) {}

  /** The origin to echo for this request, or null when it is not on the allowlist (or sent none). */
  private allowedOrigin(request: Request): string | null {
    const origin = request.headers.get('origin')
    if (!origin) return null
    if (origin === 'null' && this.options.opaqueOrigins) return 'null'
    const list = this.settings.get('cors_allowlist')
    if (list.length === 0) return null
    if (list.includes('*')) return '*'
    return list.includes(origin) ? origin : null
  }

  /** Headers for an actual response of a public endpoint. `Vary: Origin` always, so caches keep answers apart. */
  headers(request: Request): Record<string, string> {
    const origin = this.allowedOrigin(request)
    return origin ? { 'access-control-allow-origin': origin, vary: 'Origin' } : { vary: 'Origin' }
  }

  /** Answer to an OPTIONS preflight; a disallowed origin gets 204 without CORS headers, so the browser stops. */
  preflight(request: Request, methods: string): Response {
    const origin = this.allowedOrigin(request)
    if (!origin) return new Response(null, { status: 204, headers: { vary: 'Origin' } })
    return new Response(null, {
      status: 204,
      headers: {
        'access-control-allow-origin': origin,
        'access-control-allow-methods': methods,
        'access-control-allow-headers': 'content-type',
        'access-control-max-age': PREFLIGHT_MAX_AGE,
        vary: 'Origin',
      },
    })
  }
}
