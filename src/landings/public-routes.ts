// The public side of hosted landings: GET /lp/:slug (the page) and /lp/:slug/<path> (its assets), as Bun
// routes like /c and /r; POST /api/lead (spec §4, about 10 a minute per IP); /api/events (pixel.js page
// views, client.js custom events) and /api/cloak (cloak.js), about 30 a minute per IP together (spec §8,
// "tracking pixels"). CORS on the API routes from the cors_allowlist setting, preflight included.
import { Elysia } from 'elysia'
import type { BunRequest, Server } from 'bun'
import type { AppContext, NativeRoutes } from '../context'
import { AppError } from '../lib/errors'
import { appErrorResponse, errorResponse, internalError } from '../http/errors'
import { PublicCors } from '../http/public-cors'
import { landingRedirect } from '../http/origin'
import { LANDING_CSP } from '../http/security-headers'
import { EVENT_BODY_BYTES, LEAD_BODY_BYTES, tooLargeResponse } from '../http/body-limit'
import { BodyTooLarge, readBodyWithin } from '../http/raw-body'
import { clientIp, clientKey } from '../lib/ip'
import { RateLimiter } from '../lib/rate-limit'
import { SLUG } from '../lib/fields'
import { clickCookieHeader, readVisitor, type Tracker } from '../tracking'
import { infoPage } from '../http/info-page'
import type { LandingAssets } from './assets'
import type { LandingCapture } from './capture'
import type { FormTokens } from './form-token'
import { injectPixel, offerUrl, renderPage, type LandingPages } from './pages'

export const LEADS_PER_MINUTE = 10
export const PIXEL_HITS_PER_MINUTE = 30
/** A lead form, custom fields included, is a few KB; an event a few hundred bytes (body-limit.ts). */
const MAX_LEAD_BODY = LEAD_BODY_BYTES
const MAX_EVENT_BODY = EVENT_BODY_BYTES
/** The smallest transparent GIF: the answer to the image fallback of pixel.js. */
const GIF = Uint8Array.from(atob('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7'), (c) => c.charCodeAt(0))

const notFound = () => infoPage(404, 'Page not found', 'This page does not exist. Please check the address.')

type Handler = (request: BunRequest<string>, server: Server<unknown>) => Response | Promise<Response>

export function landingPageRoutes(ctx: AppContext, deps: { pages: LandingPages; tracker: Tracker; tokens: FormTokens; assets: LandingAssets }): NativeRoutes {
  const { pages, tracker, tokens, assets } = deps
  // Links on a landing page (pixel.js, offer_url) point at the landing hostname when there is one.
  const publicUrl = ctx.config.landingOrigin ?? ctx.config.publicUrl
  const pixelSrc = `${publicUrl ?? ''}/pixel.js`

  const servePage = async (request: BunRequest<string>, server: Server<unknown>, slug: string): Promise<Response> => {
    // Not a slug a landing can have (a NUL, a path trick…): not found, without asking the database.
    if (!SLUG.test(slug)) return notFound()
    const page = await pages.get(slug)
    if (!page || page.parts === null) return notFound()
    const headers: Record<string, string> = {
      'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff',
      'referrer-policy': 'strict-origin-when-cross-origin',
      // Sandboxed: whatever its html says, the page runs in an opaque origin, never as the admin.
      'content-security-policy': LANDING_CSP,
    }
    // Link checkers and previews: the page exists; no click is made.
    if (request.method === 'HEAD') return new Response(null, { headers })
    const v = readVisitor(request, () => server.requestIP(request)?.address, ctx.config.trustProxy, true)
    const visit = await tracker.landingVisit(page.id, v, v.query.params?.campaign ?? null)
    if (visit.kind === 'unavailable') {
      return infoPage(503, 'Temporarily unavailable', 'Please try again in a moment.')
    }
    const click = visit.kind === 'click' ? visit.click : null
    const route = visit.kind === 'click' ? visit.route : null
    if (click) {
      headers['set-cookie'] = clickCookieHeader(ctx, request, click.clickId)
      // A new click that traffic quality flagged goes where the campaign sends bots, like /c.
      const bot = visit.kind === 'click' && visit.created && click.botReason && route ? tracker.botLocation(route, click) : null
      if (bot) return new Response(null, { status: 302, headers: { location: bot, 'cache-control': 'no-store', 'set-cookie': headers['set-cookie'] } })
    }
    const html = renderPage(page, { click, route, landingId: page.id, query: v.query.params, offerUrl: offerUrl(publicUrl, route, click?.clickId ?? null) })
    const body = injectPixel(html, pixelSrc, { clickId: click?.clickId ?? null, landingId: page.id, campaignId: route?.id ?? null, formToken: tokens.issue(page.id, Date.now(), click?.clickId ?? null) })
    return new Response(body, { headers })
  }

  const guarded = (h: Handler): Handler => async (request, server) => {
    try {
      return await h(request, server)
    } catch (err) {
      return internalError(request, err)
    }
  }
  /** With SVC_LANDING_ORIGIN, /lp asked on another host (the dashboard's) goes there: landings never run beside the admin. */
  const elsewhere = (request: Request): Response | null => {
    const to = landingRedirect(ctx.config, request)
    return to === null ? null : new Response(null, { status: 302, headers: { location: to, 'cache-control': 'no-store' } })
  }
  /** An asset's answer, sandboxed like the page (an SVG keeps its stricter CSP) and readable from the page's opaque origin. */
  const sandboxed = (res: Response): Response => {
    if (res.status === 200) {
      if (!res.headers.has('content-security-policy')) res.headers.set('content-security-policy', LANDING_CSP)
      // Fonts, module scripts and fetch() are CORS requests from the sandboxed page (Origin: null). The
      // asset is public and sent without credentials: any origin may read it.
      res.headers.set('access-control-allow-origin', '*')
    }
    return res
  }
  const lp: Handler = (request, server) => elsewhere(request) ?? servePage(request, server, request.params.slug!)
  // /lp/<slug>/ is the page; /lp/<slug>/<path> one of its assets.
  const lpDeep: Handler = async (request, server) => {
    const away = elsewhere(request)
    if (away) return away
    const path = new URL(request.url).pathname
    const rest = path.slice(path.indexOf('/', 4) + 1)
    if (rest === '') return servePage(request, server, request.params.slug!)
    if (!SLUG.test(request.params.slug!)) return notFound()
    // respond() decodes the path once and checks it.
    return sandboxed(await assets.respond(request.params.slug!, rest, request))
  }
  return {
    '/lp/:slug': { GET: guarded(lp), HEAD: guarded(lp) },
    '/lp/:slug/*': { GET: guarded(lpDeep), HEAD: guarded(lpDeep) },
  }
}

/** A lead has 6 fields of its own and at most 50 custom ones; no body of these endpoints needs more. */
export const MAX_BODY_FIELDS = 100

/**
 * The body of a form post or a JSON request as one object of fields (the first of a repeated field wins).
 * The bytes are counted as they stream (a chunked body has no Content-Length): past `max`, BodyTooLarge
 * (413) and nothing is parsed; more than MAX_BODY_FIELDS fields or parts is refused (400).
 */
async function readFields(request: Request, max: number, jsonOnly = false): Promise<Record<string, unknown>> {
  // The client went away or broke the body mid-way: nothing to record.
  const bytes = await readBodyWithin(request, max, () => new AppError('invalid', 'the request body could not be read'))
  const original = request.headers.get('content-type') ?? ''
  const type = original.split(';')[0]!.trim().toLowerCase()
  const tooMany = () => new AppError('invalid', `the body has more than ${MAX_BODY_FIELDS} fields`)
  const collect = (entries: Iterable<[string, unknown]>) => {
    const out: Record<string, unknown> = {}
    let n = 0
    for (const [k, v] of entries) {
      if (++n > MAX_BODY_FIELDS) throw tooMany()
      if (!(k in out) && typeof v === 'string') out[k] = v
    }
    return out
  }
  if (type === 'multipart/form-data' && !jsonOnly) {
    let form: FormData
    try {
      // Parsed from the bounded bytes, never from the request's stream.
      form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': original } }).formData()
    } catch {
      throw new AppError('invalid', 'the form body could not be read')
    }
    return collect(form.entries())
  }
  // As request.text() read it: invalid UTF-8 becomes U+FFFD.
  const text = new TextDecoder().decode(bytes)
  if (type === 'application/x-www-form-urlencoded' && !jsonOnly) return collect(new URLSearchParams(text))
  // JSON, and sendBeacon's text/plain carrying JSON (a simple request: no preflight).
  if (type === 'application/json' || type === 'text/plain' || jsonOnly) {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      throw new AppError('invalid', 'the body is not valid JSON')
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new AppError('invalid', 'the body must be a JSON object')
    if (Object.keys(parsed).length > MAX_BODY_FIELDS) throw tooMany()
    return parsed as Record<string, unknown>
  }
  throw new AppError('invalid', 'content-type: send application/x-www-form-urlencoded, multipart/form-data or application/json')
}

export function landingApiRoutes(ctx: AppContext, capture: LandingCapture) {
  // Origin: null too: the landing's own scripts run in the sandbox's opaque origin (see PublicCorsOptions).
  const cors = new PublicCors(ctx.settings, { opaqueOrigins: true })
  const leads = new RateLimiter(LEADS_PER_MINUTE, 60_000)
  const pixels = new RateLimiter(PIXEL_HITS_PER_MINUTE, 60_000)
  const ipOf = (request: Request, server: Server<unknown> | null) => clientIp(request.headers, server?.requestIP(request)?.address, ctx.config.trustProxy)
  const json = (request: Request, body: unknown, status = 200) =>
    new Response(body === null ? null : JSON.stringify(body), {
      status, headers: { ...(body === null ? {} : { 'content-type': 'application/json' }), 'cache-control': 'no-store', ...cors.headers(request) },
    })
  /** Rate limit, then `run`; an AppError is answered with the CORS headers, so the page's script can read it. */
  const answer = async (request: Request, ip: string, limiter: RateLimiter, run: () => Promise<Response>): Promise<Response> => {
    const decision = limiter.hit(clientKey(ip) ?? ip)
    if (!decision.allowed) return errorResponse(429, 'too many requests', { ...cors.headers(request), 'retry-after': String(decision.retryAfter), 'cache-control': 'no-store' })
    try {
      return await run()
    } catch (err) {
      if (err instanceof AppError) return appErrorResponse(err, { ...cors.headers(request), 'cache-control': 'no-store' })
      if (err instanceof BodyTooLarge) return tooLargeResponse(err.limit, { ...cors.headers(request), 'cache-control': 'no-store' })
      throw err
    }
  }

  return new Elysia({ name: 'landing-api' })
    .options('/api/lead', ({ request }) => cors.preflight(request, 'POST'))
    .options('/api/events', ({ request }) => cors.preflight(request, 'GET, POST'))
    .options('/api/cloak', ({ request }) => cors.preflight(request, 'POST'))
    .post('/api/lead', ({ request, server }) => {
      const ip = ipOf(request, server)
      return answer(request, ip, leads, async () => {
        const body = await readFields(request, MAX_LEAD_BODY)
        const visitor = readVisitor(request, server?.requestIP(request)?.address, ctx.config.trustProxy, true)
        return json(request, await capture.lead(body, visitor))
      })
    }, { parse: 'none', detail: { tags: ['landings'], summary: 'A lead form: {"ok":true,"redirect_url":"/r/…"} continuing the click to the landing\'s offer' } })
    .post('/api/events', ({ request, server }) => {
      const ip = ipOf(request, server)
      return answer(request, ip, pixels, async () => {
        await capture.event(await readFields(request, MAX_EVENT_BODY, true), ip)
        return json(request, null, 204)
      })
    }, { parse: 'none', detail: { tags: ['landings'], summary: 'A page view (pixel.js) or a custom event (client.js): JSON {name, click_id, landing_id, url, props, token}; attached to the click only with the page\'s token for that click and landing' } })
    .get('/api/events', ({ request, server, query }) => {
      const ip = ipOf(request, server)
      return answer(request, ip, pixels, async () => {
        const q = query as Record<string, string | string[] | undefined>
        const one = (k: string) => (Array.isArray(q[k]) ? q[k]![0] : q[k])
        await capture.event({ name: one('name'), click_id: one('click_id'), landing_id: one('landing_id'), url: one('url'), token: one('token') }, ip)
        return new Response(GIF, { headers: { 'content-type': 'image/gif', 'cache-control': 'no-store', ...cors.headers(request) } })
      })
    }, { detail: { tags: ['landings'], summary: 'The image fallback of pixel.js: the same event as query parameters; answers a 1×1 GIF' } })
    .post('/api/cloak', ({ request, server }) => {
      const ip = ipOf(request, server)
      return answer(request, ip, pixels, async () => json(request, await capture.botSignals(await readFields(request, MAX_EVENT_BODY, true), ip)))
    }, { parse: 'none', detail: { tags: ['landings'], summary: 'cloak.js bot signals {click_id, landing_id, signals, token}: {"bot":true,"reason":"cloak:…","redirect_url":…} or {"bot":false}; the click is flagged only with the page\'s token for that click and landing' } })
}
