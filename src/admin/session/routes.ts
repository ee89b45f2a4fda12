import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { adminGuard, earlyCheck, requireJsonBody } from '../../http/admin-guard'
import { clientIp } from '../../lib/ip'
import { RateLimiter } from '../../lib/rate-limit'
import { rateLimited, unauthorized } from '../../lib/errors'
import { clearSessionCookie, issueSessionCookie } from './cookie'
import { errorSchema, okResponse } from '../../http/collection'
import { LoginBody, LoginResponse, Me, renderMe } from './model'

const tags = ['session']

/** Spec §8: 5 login attempts per 15 minutes per client IP. */
export const LOGIN_LIMIT = 5
export const LOGIN_WINDOW_MS = 15 * 60 * 1000

export const sessionRoutes = (ctx: AppContext) => {
  const limiter = new RateLimiter(LOGIN_LIMIT, LOGIN_WINDOW_MS)

  return new Elysia({ name: 'admin-session' })
    .use(adminGuard(ctx))
    .post('/admin/api/login', async ({ body, cookie, request }) => {
      const user = await ctx.users.authenticate(body.email, body.password)
      if (!user) throw unauthorized('invalid email or password')
      issueSessionCookie(ctx, cookie, request, user)
      return { ok: true as const, user: renderMe(user) }
    }, {
      // Counted before the body is even read: every attempt counts (spec §8 says "attempts"),
      // malformed ones included, and a limited client never reaches the password check.
      ...earlyCheck(({ request, server }) => {
        const ip = clientIp(request.headers, server?.requestIP(request)?.address, ctx.config.trustProxy)
        const decision = limiter.hit(`login:${ip}`)
        if (!decision.allowed) throw rateLimited(decision.retryAfter)
        requireJsonBody(request)
      }),
      body: LoginBody,
      response: { 200: LoginResponse, 401: errorSchema, 429: errorSchema },
      detail: {
        tags,
        summary: 'Sign in; sets the svc_admin_session cookie',
        description: `Rate limited to ${LOGIN_LIMIT} attempts per 15 minutes per client IP (429 with Retry-After).`,
        security: [],
      },
    })
    .post('/admin/api/logout', ({ admin, cookie, request }) => {
      // Revokes every session of the user, not just this cookie: copies replayed by scripts die too.
      ctx.users.revokeSessions(admin.id)
      clearSessionCookie(ctx, cookie, request)
      return { ok: true as const }
    }, { admin: true, response: okResponse, detail: { tags, summary: 'Sign out everywhere (revokes all sessions of the user)' } })
    .get('/admin/api/me', ({ admin }) => renderMe(admin), {
      admin: true,
      response: Me,
      detail: { tags, summary: 'The signed-in user and their effective permissions' },
    })
}
