// HTTP surface of tracking: /c and /r (GET creates or continues a click, HEAD only previews) and the
// admin read of one click (the clicks.get verb). Handlers read the request, call the Tracker or the verb,
// and shape the response.
//
// /c and /r are Bun.serve routes of their own, not Elysia routes: on the hottest path Elysia's
// per-request context (set, redirect, status, a `server` getter) and response mapping cost as much as
// the rest of the handler's JavaScript, and none of it is used here. Elysia still serves everything else;
// outside its error handler these handlers answer an unexpected failure through the same internalError.
import { Elysia, t } from 'elysia'
import type { BunRequest, Server } from 'bun'
import type { AppContext, NativeRoutes } from '../context'
import { adminGuard } from '../http/admin-guard'
import { idParams, parseId } from '../http/collection'
import { SimulateInput, SimulateRecord } from './simulate'
import { CLICK_EXPORT_QUERY, flatQuery } from './export'
import { docQuery } from '../http/api-docs'
import { errorResponse, internalError } from '../http/errors'
import { clientIp, type SocketIp } from '../lib/ip'
import { isHttpsRequest } from '../http/https'
import { htmlPageHeaders } from '../http/security-headers'
import { adminActor, invoke } from '../lib/verb'
import { CapsQuery, type trackingVerbs } from './verbs'
import { CLICK_LIST_QUERY } from './timeline'
import type { Outcome, Tracker, Visitor } from './track'
import { CLICK_COOKIE, REFERRER_MAX, UA_MAX, clickCookie, crop, parseVisitQuery } from './visitor'

const JSON_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' }
const NOT_FOUND_BODY = JSON.stringify({ error: 'campaign not found' })
/** What a person sees on a dead link when no fallback URL is set; programs keep the JSON body. */
const NOT_FOUND_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">' +
  '<title>Link not found</title></head><body style="font-family:sans-serif;max-width:32em;margin:4em auto;padding:0 1em">' +
  '<h1>Link not found</h1><p>This link is not active. Please check the address or try again later.</p></body></html>'
/** Inline text and styles only: the page may load nothing. */
const HTML_HEADERS = htmlPageHeaders({ 'style-src': ["'unsafe-inline'"] })
const UNAVAILABLE_BODY = JSON.stringify({ error: 'temporarily unavailable' })

/** The `_svc_click` cookie that keeps a visitor's click (/c, /r, /lp). */
export function clickCookieHeader(ctx: AppContext, request: Request, clickId: string): string {
  const maxAge = ctx.settings.get('click_cookie_days') * 86400
  return `${CLICK_COOKIE}=${clickId}; Path=/; Max-Age=${maxAge}; SameSite=Lax${isHttpsRequest(ctx.config, request) ? '; Secure' : ''}`
}

/** A visitor as a request tells it (tracking links, hosted landings, lead forms): bounded strings only. */
export function readVisitor(request: Request, socketIp: SocketIp, trustProxy: boolean, withCookie: boolean): Visitor {
  const h = request.headers
  const ua = h.get('user-agent')
  const ref = h.get('referer')
  return {
    method: request.method,
    headers: h,
    query: parseVisitQuery(request.url),
    ip: clientIp(h, socketIp, trustProxy),
    userAgent: ua === null ? null : crop(ua, UA_MAX),
    referrer: ref === null ? null : crop(ref, REFERRER_MAX),
    cookieClickId: withCookie ? clickCookie(h.get('cookie')) : null,
  }
}

type Handler = (request: BunRequest<string>, server: Server<unknown>) => Response | Promise<Response>

/** Bun routes for /c/:slug and /r/:slug, with and without a trailing slash. */
export function trackingLinkRoutes(ctx: AppContext, tracker: Tracker): NativeRoutes {
  const { trustProxy } = ctx.config

  const visitor = (request: Request, server: Server<unknown>, withCookie: boolean): Visitor =>
    readVisitor(request, () => server.requestIP(request)?.address, trustProxy, withCookie)

  const respond = (o: Outcome, request: Request): Response => {
    if (o.kind === 'redirect') {
      const headers: Record<string, string> = { location: o.location, 'cache-control': 'no-store' }
      if (o.clickId) headers['set-cookie'] = clickCookieHeader(ctx, request, o.clickId)
      return new Response(null, { status: 302, headers })
    }
    if (o.kind === 'not-found') {
      const page = request.headers.get('accept')?.includes('text/html')
      return page ? new Response(NOT_FOUND_PAGE, { status: 404, headers: HTML_HEADERS }) : new Response(NOT_FOUND_BODY, { status: 404, headers: JSON_HEADERS })
    }
    return new Response(UNAVAILABLE_BODY, { status: 503, headers: { ...JSON_HEADERS, 'retry-after': '1' } })
  }

  // Not async: a new click's answer is one .then on its commit (see Tracker.click).
  const respondOr500 = (o: Outcome, request: Request): Response => {
    try {
      return respond(o, request)
    } catch (err) {
      return internalError(request, err)
    }
  }
  const answer = (request: Request, o: Outcome | Promise<Outcome>): Response | Promise<Response> =>
    o instanceof Promise ? o.then((x) => respondOr500(x, request), (err) => internalError(request, err)) : respond(o, request)
  const click: Handler = (request, server) => {
    try {
      return answer(request, tracker.click(request.params.slug!, visitor(request, server, false)))
    } catch (err) {
      return internalError(request, err)
    }
  }
  const redirect: Handler = (request, server) => {
    try {
      return answer(request, tracker.redirect(request.params.slug!, visitor(request, server, true)))
    } catch (err) {
      return internalError(request, err)
    }
  }
  // Link checkers and previews send HEAD: answer where a visitor would go, record nothing, set no cookie.
  const preview = (step: 'c' | 'r'): Handler => (request, server) => {
    try {
      const ready = tracker.ready()
      if (ready) {
        return ready.then(
          () => respond(tracker.preview(request.params.slug!, visitor(request, server, false), step), request),
          (err) => internalError(request, err),
        )
      }
      return respond(tracker.preview(request.params.slug!, visitor(request, server, false), step), request)
    } catch (err) {
      return internalError(request, err)
    }
  }

  // `/c/spring/` is the same link as `/c/spring`. Elysia renames every serve route that ends in "/" to the
  // path without it (removeTrailingPath in its Bun adapter), so a '/c/:slug/' key never reached Bun and the
  // slashed link fell through to Elysia's 404. A wildcard key survives the renaming; it also matches deeper
  // paths (`/c/spring/x`), which are not tracking links and get the 404 Elysia would give them.
  const slashed = (h: Handler): Handler => (request, server) => {
    const path = new URL(request.url).pathname // "/c/<slug>/": the only "/" after the prefix is the last character
    return path.indexOf('/', 3) === path.length - 1 ? h(request, server) : errorResponse(404, 'not found')
  }
  const c = { GET: click, HEAD: preview('c') }
  const r = { GET: redirect, HEAD: preview('r') }
  const cSlash = { GET: slashed(click), HEAD: slashed(preview('c')) }
  const rSlash = { GET: slashed(redirect), HEAD: slashed(preview('r')) }
  return { '/c/:slug': c, '/c/:slug/*': cSlash, '/r/:slug': r, '/r/:slug/*': rSlash }
}

/** GET /admin/api/caps: the ids of the query as numbers (anything else is left for the verb's schema to refuse). */
function capsQuery(query: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...query }
  for (const k of ['offer_id', 'campaign_id']) if (typeof out[k] === 'string' && /^\d{1,9}$/.test(out[k] as string)) out[k] = Number(out[k])
  return out
}

export function trackingAdminRoutes(ctx: AppContext, verbs: ReturnType<typeof trackingVerbs>) {
  return new Elysia({ name: 'tracking-admin' })
    .use(adminGuard(ctx))
    // A static segment: Elysia's router takes it before :click_id (a UUID, never "export").
    .get('/admin/api/clicks/export', async ({ admin, query }) => (await invoke(verbs.export, adminActor(admin), flatQuery(query))).toResponse(), {
      permission: 'conversions:read',
      query: docQuery(CLICK_EXPORT_QUERY),
      detail: { tags: ['clicks'], summary: verbs.export.summary },
    })
    .get('/admin/api/clicks', ({ admin, query }) => invoke(verbs.list, adminActor(admin), flatQuery(query)), {
      permission: 'conversions:read',
      query: docQuery(CLICK_LIST_QUERY),
      detail: { tags: ['clicks'], summary: verbs.list.summary },
    })
    .get('/admin/api/clicks/:click_id', ({ admin, params }) => invoke(verbs.get, adminActor(admin), { click_id: params.click_id }), {
      permission: 'conversions:read',
    })
    .get('/admin/api/clicks/:click_id/timeline', ({ admin, params }) => invoke(verbs.timeline, adminActor(admin), { click_id: params.click_id }), {
      permission: 'conversions:read',
      detail: { tags: ['clicks'], summary: verbs.timeline.summary },
    })
    .get('/admin/api/caps', ({ admin, query }) => invoke(verbs.caps, adminActor(admin), capsQuery(query)), {
      permission: 'campaigns:read',
      query: docQuery(CapsQuery),
      detail: { tags: ['offers'], summary: verbs.caps.summary },
    })
    .post('/admin/api/campaigns/:id/simulate', ({ admin, params, body }) =>
      invoke(verbs.simulate, adminActor(admin), { ...(body as typeof SimulateInput.static), id: parseId(params.id, 'campaign') }) as never, {
      permission: 'campaigns:read',
      params: idParams,
      body: t.Omit(SimulateInput, ['id']),
      response: { 200: SimulateRecord },
      detail: { tags: ['campaigns'], summary: verbs.simulate.summary },
    })
}
