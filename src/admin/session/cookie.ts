import type { Cookie } from 'elysia'
import type { AppContext } from '../../context'
import type { AdminUser } from '../../lib/permissions'
import { SESSION_COOKIE } from '../../auth'
import { isHttpsRequest } from '../../http/https'

type Jar = Record<string, Cookie<unknown>>


/**
 * Elysia's own cookie signing is not used: it answers 400 on a bad signature where the spec wants 401,
 * so the value is signed and verified by SessionSigner.
 */
export function issueSessionCookie(ctx: AppContext, jar: Jar, request: Request, user: Pick<AdminUser, 'id' | 'sessionEpoch'>) {
  jar[SESSION_COOKIE]!.set({
    value: ctx.sessions.sign(user.id, user.sessionEpoch).value,
    httpOnly: true,
    sameSite: 'lax',
    secure: isHttpsRequest(ctx.config, request),
    path: '/',
    maxAge: ctx.sessions.ttlSeconds,
  })
}

export function clearSessionCookie(ctx: AppContext, jar: Jar, request: Request) {
  jar[SESSION_COOKIE]!.set({ value: '', httpOnly: true, sameSite: 'lax', secure: isHttpsRequest(ctx.config, request), path: '/', maxAge: 0 })
}
