import { Elysia } from 'elysia'
import type { AppContext } from '../context'
import { invalid, forbidden, unauthorized } from '../lib/errors'
import { can, canSome, missingSomeSection, SECTIONS, type AdminUser, type PermissionRef, type Section, type Action } from '../lib/permissions'
import { SESSION_COOKIE } from '../auth'
import { cookieValue } from '../lib/cookies'
import { clientIp } from '../lib/ip'
import { bearerOf } from '../agent/tokens'
import { resourceOfPath } from '../agent/scopes'
import { isDashboardOrigin } from './origin'

function parseRef(ref: PermissionRef): [Section, Action] {
  const [section, action] = ref.split(':') as [Section, Action]
  if (!(SECTIONS as readonly string[]).includes(section) || (action !== 'read' && action !== 'write')) {
    throw new Error(`bad permission reference "${ref}"`)
  }
  return [section, action]
}


/**
 * Admin bodies must be JSON. A cross-origin page can send text/plain or form bodies without a CORS
 * preflight; demanding application/json forces one, and /admin/api answers no CORS, so it fails.
 * (The first line of defence is refuseCrossSiteWrite below; this one stays for browsers that send neither
 * Origin nor Sec-Fetch-Site.)
 */
export function requireJsonBody(request: Request) {
  const type = request.headers.get('content-type')
  if (type === null) return
  const mime = type.split(';')[0]!.trim().toLowerCase()
  if (mime !== 'application/json') throw invalid('request body must be JSON (content-type: application/json)')
}

/** The body of a file upload route (a CSV import): text/csv or text/plain, never JSON by accident. */
export function requireCsvBody(request: Request) {
  const mime = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  if (mime !== 'text/csv' && mime !== 'text/plain') throw invalid('request body must be a CSV file (content-type: text/csv)')
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS'])

export const CROSS_SITE_REFUSED = "cross-site request refused: a browser may send admin writes with the session cookie only from the dashboard's own origin"

/** Whether the request carries a body (a declared non-zero length, or a chunked one). */
function hasBody(request: Request): boolean {
  const length = request.headers.get('content-length')
  if (length !== null) return length.trim() !== '0'
  return request.headers.has('transfer-encoding')
}

/**
 * CSRF, for writes (any method but GET, HEAD, OPTIONS) authenticated by the session cookie. Browsers say
 * where a request comes from, and a page cannot forge it: `Sec-Fetch-Site` (every current browser) and
 * `Origin` (on every POST, PUT, PATCH, DELETE). A write is refused (403) when
 *  - Sec-Fetch-Site is present and is not `same-origin` (cross-site, same-site: a sibling subdomain, none), or
 *  - Origin is present and is not the dashboard's own (http/origin.ts isDashboardOrigin), `null` included:
 *    a sandboxed landing page (opaque origin), a data: URL or a redirect from elsewhere sends `null`.
 * A request with neither header is not a browser's (a script replaying the cookie with curl: CONTRACT §2,
 * "Scripts replay the cookie"), and is accepted with any content type, or none, on a bodiless write.
 * Bodies that are sent must still be what the route reads (JSON: requireJsonBody; CSV: requireCsvBody).
 * Bearer tokens are not sent by browsers on their own, so they need none of this. Reads are not refused:
 * a cross-site page can make the browser send a GET but cannot read the answer (/admin/api answers no CORS).
 */
export function refuseCrossSiteWrite(config: AppContext['config'], request: Request): void {
  if (READS.has(request.method)) return
  const site = request.headers.get('sec-fetch-site')
  if (site !== null && site.trim().toLowerCase() !== 'same-origin') throw forbidden(CROSS_SITE_REFUSED)
  const origin = request.headers.get('origin')
  if (origin !== null && !isDashboardOrigin(config, request, origin)) throw forbidden(CROSS_SITE_REFUSED)
}

/** The body check of a JSON route's write: a body that is sent must be JSON; a bodiless write may say anything. */
function requireJsonWrite(request: Request): void {
  if (hasBody(request)) requireJsonBody(request)
}

/**
 * The signed-in admin of a request: a valid, unexpired, unrevoked session cookie of an existing user, or 401.
 * Async (the users store may be a network database): callers must await it, or its 401 is lost.
 */
export async function authenticateAdmin(ctx: AppContext, request: Request, socketIp: string | null = null): Promise<AdminUser> {
  // An agent token (issue 12) instead of a session: its scopes decide, per resource of the path.
  const bearer = bearerOf(request)
  if (bearer !== null) return ctx.agents.authenticateRest(request, bearer, clientIp(request.headers, socketIp, ctx.config.trustProxy))
  const claims = ctx.sessions.verify(cookieValue(request.headers.get('cookie'), SESSION_COOKIE))
  const user = claims ? await ctx.users.findById(claims.userId) : null
  if (!claims || !user || user.sessionEpoch !== claims.epoch) throw unauthorized()
  return user
}

type Phase = 'parse' | 'transform'
/** The part of Elysia's hook context a check may use. */
export interface HookContext {
  request: Request
  server: { requestIP(request: Request): { address: string } | null } | null
}

/** The scope an agent token needs for this request: the path's resource with the route's action. */
function requireScope(admin: AdminUser, request: Request, action: Action): void {
  const resource = resourceOfPath(new URL(request.url).pathname)
  const scope = `${resource}:${action}`
  if (!resource || !admin.agent!.scopes.has(scope)) throw forbidden(`missing scope ${resource ? scope : '(this path is not for agent tokens)'}`)
}

/** Returned from a parse hook, it stands in for the body so Elysia skips parsing; never validated (see below). */
const BODY_SKIPPED = Object.freeze({})

/**
 * Runs `check` as early as Elysia allows: in the parse hook (before the body is read) when the method
 * has a body, else in the transform hook; both come before schema validation.
 * Elysia turns anything thrown in a parse hook into a generic 400 ParseError, so a parse-time failure
 * is recorded, body parsing is skipped, and the error is rethrown from transform with its own status.
 * The check may be async (the session lookup is); both hooks are declared `async` because Elysia awaits
 * a transform hook only when it recognises it as async, and an unawaited rejection would let the request through.
 */
export function earlyCheck(check: (c: HookContext, phase: Phase) => void | Promise<void>, readBody?: (request: Request) => Promise<unknown>) {
  const outcome = new WeakMap<Request, { error: unknown } | null>()
  return {
    parse: async (c: HookContext) => {
      const { request } = c
      try {
        await check(c, 'parse')
        outcome.set(request, null)
      } catch (error) {
        outcome.set(request, { error })
        return BODY_SKIPPED
      }
      // A body type Elysia does not parse itself (a CSV file): read here, only once the check passed.
      if (readBody) return readBody(request)
    },
    transform: async (c: HookContext) => {
      const seen = outcome.get(c.request)
      if (seen) throw seen.error
      if (seen === undefined) await check(c, 'transform')
    },
  }
}

/**
 * Admin auth as Elysia macros (spec §5): `{ admin: true }` needs a valid session cookie or agent token (401 otherwise);
 * `{ permission: 'campaigns:write' }` also needs that section permission (403 otherwise);
 * `{ someSection: 'write' }` needs that action in some section, for records that carry their own (jobs);
 * `{ csvUpload: 'email:write' }` is `permission` for a route whose body is a CSV file.
 * Both resolve `admin` (the signed-in AdminUser) into the handler context.
 *
 * The check runs before body parsing and schema validation (earlyCheck), so a stranger or an
 * unprivileged user gets 401/403, never a 400 that describes the route's schema.
 * An agent token (`Authorization: Bearer svc_ap_…`) passes by the scope of the path's resource
 * (agent/scopes.ts) instead of the macro's section, and counts in the token's default rate bucket.
 */
export function adminGuard(ctx: AppContext) {
  // One lookup per request, however many hooks ask (the promise is shared, its 401 included).
  const seen = new WeakMap<Request, Promise<AdminUser>>()
  const authenticate = (request: Request, server?: HookContext['server']): Promise<AdminUser> => {
    let user = seen.get(request)
    if (!user) seen.set(request, (user = authenticateAdmin(ctx, request, server?.requestIP(request)?.address ?? null)))
    return user
  }
  const authorize = async (request: Request, section: Section, action: Action, server?: HookContext['server']): Promise<AdminUser> => {
    const admin = await authenticate(request, server)
    if (admin.agent) requireScope(admin, request, action)
    else if (!can(admin, section, action)) throw forbidden(`missing permission ${section}:${action}`)
    return admin
  }

  /** For records that carry their own section (jobs): a permission in some section lets the request in. */
  const authorizeSome = async (request: Request, action: Action, server?: HookContext['server']): Promise<AdminUser> => {
    const admin = await authenticate(request, server)
    if (admin.agent) requireScope(admin, request, action)
    else if (!canSome(admin, action)) throw forbidden(missingSomeSection(action))
    return admin
  }

  /** The audit row of an agent token's request, once answered (nothing for a session). */
  const audited = { afterResponse: ({ request, set, body }: { request: Request; set: { status?: number | string }; body: unknown }) =>
    ctx.agents.restAnswered(request, typeof set.status === 'number' ? set.status : 200, body) }

  return new Elysia({ name: 'admin-guard' }).macro({
    admin: {
      ...earlyCheck(async ({ request, server }, phase) => {
        const admin = await authenticate(request, server)
        if (!admin.agent) refuseCrossSiteWrite(ctx.config, request)
        if (phase === 'parse') requireJsonWrite(request)
      }),
      resolve: async ({ request, server }) => ({ admin: await authenticate(request, server) }),
      ...audited,
    },
    /** `{ someSection: 'read' }`: the verb then checks the section of the record itself. */
    someSection: (action: Action) => ({
      ...earlyCheck(async ({ request, server }, phase) => {
        const admin = await authorizeSome(request, action, server)
        if (!admin.agent) refuseCrossSiteWrite(ctx.config, request)
        if (phase === 'parse') requireJsonWrite(request)
      }),
      resolve: async ({ request, server }: HookContext) => ({ admin: await authorizeSome(request, action, server) }),
      ...audited,
    }),
    /** `{ csvUpload: 'email:write' }`: as permission, for a route whose body is a CSV file. */
    csvUpload: (ref: PermissionRef) => {
      const [section, action] = parseRef(ref)
      return {
        ...earlyCheck(async ({ request, server }, phase) => {
          const admin = await authorize(request, section, action, server)
          if (!admin.agent) refuseCrossSiteWrite(ctx.config, request)
          if (phase === 'parse') requireCsvBody(request)
        }, (request) => request.text()),
        resolve: async ({ request, server }: HookContext) => ({ admin: await authorize(request, section, action, server) }),
        ...audited,
      }
    },
    permission: (ref: PermissionRef) => {
      const [section, action] = parseRef(ref)
      return {
        ...earlyCheck(async ({ request, server }, phase) => {
          const admin = await authorize(request, section, action, server)
          if (!admin.agent) refuseCrossSiteWrite(ctx.config, request)
          if (phase === 'parse') requireJsonWrite(request)
        }),
        resolve: async ({ request, server }: HookContext) => ({ admin: await authorize(request, section, action, server) }),
        ...audited,
      }
    },
  })
}
