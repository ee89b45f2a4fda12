// HTTP surface of tracking: /c and /r (GET creates or continues a click, HEAD only previews) and the
// admin read of one click. Handlers read the request, call the Tracker, and shape the response.
import { Elysia } from 'elysia'
import type { Server } from 'bun'
import type { AppContext } from '../context'
import { adminGuard } from '../http/admin-guard'
import { clientIp } from '../lib/ip'
import { isHttpsRequest } from '../http/https'
import { getClickOrThrow } from './get-click'
import type { ClickQueries } from './queries'
import type { Outcome, Tracker, Visitor } from './track'
import { CLICK_COOKIE, REFERRER_MAX, UA_MAX, clickCookie, crop, parseVisitQuery } from './visitor'

const JSON_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' }
const NOT_FOUND_BODY = JSON.stringify({ error: 'campaign not found' })
const UNAVAILABLE_BODY = JSON.stringify({ error: 'temporarily unavailable' })

export function trackingRoutes(ctx: AppContext, tracker: Tracker, clicks: ClickQueries) {
  const { trustProxy } = ctx.config

  const visitor = (request: Request, server: Server<unknown> | null, withCookie: boolean): Visitor => {
    const h = request.headers
    const ua = h.get('user-agent')
    const ref = h.get('referer')
    return {
      method: request.method,
      headers: h,
      query: parseVisitQuery(request.url),
      ip: clientIp(h, server?.requestIP(request)?.address, trustProxy),
      userAgent: ua === null ? null : crop(ua, UA_MAX),
      referrer: ref === null ? null : crop(ref, REFERRER_MAX),
      cookieClickId: withCookie ? clickCookie(h.get('cookie')) : null,
    }
  }


  const respond = (o: Outcome, request: Request | null): Response => {
    if (o.kind === 'redirect') {
      const headers: Record<string, string> = { location: o.location, 'cache-control': 'no-store' }
      if (o.clickId && request) {
        const maxAge = ctx.settings.get('click_cookie_days') * 86400
        headers['set-cookie'] =
          `${CLICK_COOKIE}=${o.clickId}; Path=/; Max-Age=${maxAge}; SameSite=Lax${isHttpsRequest(ctx.config, request) ? '; Secure' : ''}`
      }
      return new Response(null, { status: 302, headers })
    }
    if (o.kind === 'not-found') return new Response(NOT_FOUND_BODY, { status: 404, headers: JSON_HEADERS })
    return new Response(UNAVAILABLE_BODY, { status: 503, headers: { ...JSON_HEADERS, 'retry-after': '1' } })
  }

  const publicRoutes = new Elysia({ name: 'tracking-public' })
    .get('/c/:slug', async ({ params, request, server }) =>
      respond(await tracker.click(params.slug, visitor(request, server, false)), request))
    .get('/r/:slug', async ({ params, request, server }) =>
      respond(await tracker.redirect(params.slug, visitor(request, server, true)), request))
    // Link checkers and previews send HEAD: answer where a visitor would go, record nothing, set no cookie.
    .head('/c/:slug', ({ params, request, server }) =>
      respond(tracker.preview(params.slug, visitor(request, server, false), 'c'), null))
    .head('/r/:slug', ({ params, request, server }) =>
      respond(tracker.preview(params.slug, visitor(request, server, false), 'r'), null))

  const adminRoutes = new Elysia({ name: 'tracking-admin' })
    .use(adminGuard(ctx))
    .get('/admin/api/clicks/:click_id', ({ params }) => getClickOrThrow(clicks, params.click_id), {
      permission: 'conversions:read',
    })

  return new Elysia({ name: 'tracking' }).use(publicRoutes).use(adminRoutes)
}
