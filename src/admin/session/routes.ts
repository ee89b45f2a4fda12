import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { adminGuard, earlyCheck, refuseCrossSiteWrite, requireJsonBody, type HookContext } from '../../http/admin-guard'
import { clientIp } from '../../lib/ip'
import { LOGIN_LIMIT, LoginLimits } from './login-limit'
import { rateLimited, unauthorized } from '../../lib/errors'
import { clearSessionCookie, issueSessionCookie } from './cookie'
import { errorSchema, okResponse } from '../../http/collection'
import { LoginBody, LoginResponse, Me, renderMe } from './model'

const tags = ['session']

export const sessionRoutes = (ctx: AppContext) => {
  const limits = new LoginLimits()
  const ipOf = (request: Request, server: HookContext['server']) =>
    clientIp(request.headers, server?.requestIP(request)?.address, ctx.config.trustProxy)

  return new Elysia({ name: 'admin-session' })
    .use(adminGuard(ctx))
    .post('/admin/api/login', async ({ body, cookie, request, server }) => {
      const attempt = limits.begin(ipOf(request, server), body.email)
      if (!('succeeded' in attempt)) throw rateLimited(attempt.retryAfter)
      const user = await ctx.users.authenticate(body.email, body.password)
      if (!user) throw unauthorized('invalid email or password') // counted as a failure by begin()
      attempt.succeeded()
      issueSessionCookie(ctx, cookie, request, user)
      return { ok: true as const, user: renderMe(user, ctx.settings.get('time_zone')) }
    }, {
      // An address over its failures is refused before the body is even read; the attempt itself is
      // counted in the handler, once the body is known to be well-formed (see login-limit.ts).
      ...earlyCheck(({ request, server }) => {
        // Login CSRF: another site's page must not sign the browser in to an account of its choosing.
        refuseCrossSiteWrite(ctx.config, request)
        const decision = limits.checkAddress(ipOf(request, server))
        if (!decision.allowed) throw rateLimited(decision.retryAfter)
        requireJsonBody(request)
      }),
      body: LoginBody,
      response: { 200: LoginResponse, 401: errorSchema, 403: errorSchema, 429: errorSchema },
      detail: {
        tags,
        summary: 'Sign in; sets the svc_admin_session cookie',
        description:
          `Failed attempts are limited to ${LOGIN_LIMIT} per sliding 15 minutes per client IP (IPv6: per /64), and per account by a ` +
          'backoff after 5 failures in a row (1 s, doubling, at most 15 minutes); 429 with Retry-After. Successful logins and malformed bodies do not count.',
        security: [],
      },
    })
    .post('/admin/api/logout', async ({ admin, cookie, request }) => {
      // Revokes every session of the user, not just this cookie: copies replayed by scripts die too.
      await ctx.users.revokeSessions(admin.id)
      clearSessionCookie(ctx, cookie, request)
      return { ok: true as const }
    }, { admin: true, response: okResponse, detail: { tags, summary: 'Sign out everywhere (revokes all sessions of the user)' } })
    .get('/admin/api/me', ({ admin }) => renderMe(admin, ctx.settings.get('time_zone')), {
      admin: true,
      response: Me,
      detail: { tags, summary: 'The signed-in user and their effective permissions' },
    })
}
