// The customer account routes (public, spec §4/§5/§8): the magic-link request (about 10 a minute per IP,
// an IPv6 client counted by its /64 as login and /api/lead do; CORS from the cors_allowlist setting,
// preflight included), the link itself, the session's own data, and the page a signed-in customer lands on.
import { Elysia } from 'elysia'
import type { AppContext } from '../context'
import { errorResponse } from '../http/errors'
import { isHttpsRequest } from '../http/https'
import { PublicCors } from '../http/public-cors'
import { cookieValue } from '../lib/cookies'
import { clientIp, clientKey } from '../lib/ip'
import { RateLimiter } from '../lib/rate-limit'
import { iso } from '../lib/time'
import { CUSTOMER_COOKIE, CUSTOMER_SESSION_S, LANDING, type CustomerAccounts } from './account'
import { page } from './pages'

export const MAGIC_LINKS_PER_MINUTE = 10

/** The signed-in customer's orders and subscriptions, newest first (the commerce feature's). */
export interface CustomerCommerce {
  orders(email: string): Promise<Array<Record<string, unknown>>>
  subscriptions(email: string): Promise<Array<Record<string, unknown>>>
}

export function accountRoutes(ctx: AppContext, accounts: CustomerAccounts, commerce?: CustomerCommerce) {
  const cors = new PublicCors(ctx.settings)
  const limiter = new RateLimiter(MAGIC_LINKS_PER_MINUTE, 60_000)
  const json = (request: Request, body: unknown, status = 200, extra: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...cors.headers(request), ...extra } })
  const signedIn = (request: Request) => accounts.customerOf(cookieValue(request.headers.get('cookie'), CUSTOMER_COOKIE))
  const cookie = (request: Request, value: string, maxAge: number) =>
    `${CUSTOMER_COOKIE}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${isHttpsRequest(ctx.config, request) ? '; Secure' : ''}`
  const base = (request: Request) => new URL(request.url).origin

  return new Elysia({ name: 'customer-accounts' })
    .options('/api/account/magic-link', ({ request }) => cors.preflight(request, 'POST'))
    .options('/api/account/me', ({ request }) => cors.preflight(request, 'GET'))
    .options('/api/account/orders', ({ request }) => cors.preflight(request, 'GET'))
    .options('/api/account/subscriptions', ({ request }) => cors.preflight(request, 'GET'))
    .options('/api/account/logout', ({ request }) => cors.preflight(request, 'POST'))
    .post('/api/account/magic-link', async ({ request, body, server }) => {
      const ip = clientIp(request.headers, server?.requestIP(request)?.address, ctx.config.trustProxy)
      const requester = clientKey(ip) ?? ip
      const decision = limiter.hit(requester)
      if (!decision.allowed) return errorResponse(429, 'too many requests', { ...cors.headers(request), 'retry-after': String(decision.retryAfter) })
      const b = (body ?? {}) as { email?: unknown; redirect?: unknown }
      try {
        await accounts.requestLink({ email: b.email, redirect: b.redirect }, base(request), requester)
      } catch (err) {
        if ((err as { code?: string }).code === 'invalid') return json(request, { error: (err as Error).message }, 400)
        throw err
      }
      return json(request, { ok: true })
    }, { detail: { tags: ['account'], summary: 'Mail a single-use sign-in link (15 minutes) to a known address; always {"ok":true} for a valid request' } })
    .get('/api/account/verify', async ({ request, query }) => {
      const token = typeof query.token === 'string' ? query.token : ''
      const r = await accounts.consume(token)
      if (!r.ok) {
        if (r.reason === 'used') return page(410, 'Link already used', 'This sign-in link was already used. Ask for a new one.')
        if (r.reason === 'expired') return page(410, 'Link expired', 'This sign-in link has expired (they work for 15 minutes). Ask for a new one.')
        return page(404, 'Link not valid', 'This sign-in link is not valid. Copy the whole link from the email, or ask for a new one.')
      }
      const session = accounts.sessions.sign(r.customer.id, r.customer.sessionEpoch)
      return new Response(null, {
        status: 302,
        headers: { location: accounts.landingOf(r.redirect), 'set-cookie': cookie(request, session.value, CUSTOMER_SESSION_S), 'cache-control': 'no-store' },
      })
    }, { detail: { tags: ['account'], summary: 'The link of the mail: signs the customer in (cookie svc_customer_session) and redirects' } })
    .get(LANDING, async ({ request }) => {
      const customer = await signedIn(request)
      return customer
        ? page(200, 'Signed in', `You are signed in as ${customer.email}.`)
        : page(401, 'Not signed in', 'Open the sign-in link from your email to sign in.')
    }, { detail: { hide: true } })
    .get('/api/account/me', async ({ request }) => {
      const c = await signedIn(request)
      if (!c) return json(request, { error: 'not signed in' }, 401)
      return json(request, { id: c.id, email: c.email, created_at: iso(c.createdAt), last_login_at: c.lastLoginAt === null ? null : iso(c.lastLoginAt) })
    }, { detail: { tags: ['account'], summary: 'The signed-in customer' } })
    // Filled by native commerce (a later issue); the shape is the collections' own.
    .get('/api/account/orders', async ({ request }) => {
      const c = await signedIn(request)
      if (!c) return json(request, { error: 'not signed in' }, 401)
      return json(request, { items: commerce ? await commerce.orders(c.email) : [], next_cursor: null })
    },
      { detail: { tags: ['account'], summary: "The customer's orders (empty until native commerce)" } })
    .get('/api/account/subscriptions', async ({ request }) => {
      const c = await signedIn(request)
      if (!c) return json(request, { error: 'not signed in' }, 401)
      return json(request, { items: commerce ? await commerce.subscriptions(c.email) : [], next_cursor: null })
    },
      { detail: { tags: ['account'], summary: "The customer's subscriptions (empty until native commerce)" } })
    .post('/api/account/logout', async ({ request }) => {
      const c = await signedIn(request)
      if (c) await accounts.logout(c) // every copy of the cookie stops working
      return json(request, { ok: true }, 200, { 'set-cookie': cookie(request, '', 0) })
    }, { parse: 'none', detail: { tags: ['account'], summary: 'Sign out everywhere' } })
}
