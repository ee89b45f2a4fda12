// GET /postback: rate limit, then the verb; the answer is `OK` unless the signature fails (spec §4 rules 1-2).
// Every answer, errors included, carries the CORS headers of the allowlist so a browser can read it.
import { Elysia } from 'elysia'
import type { AppContext } from '../context'
import { clientIp } from '../lib/ip'
import { RateLimiter, type RateLimit } from '../lib/rate-limit'
import { errorResponse } from '../http/errors'
import { PublicCors } from '../http/public-cors'
import type { PostbackBatcher } from './batch'

/** Spec §8. */
const LIMIT_PER_MINUTE = 600

export function postbackRoutes(ctx: AppContext, batcher: PostbackBatcher) {
  const limiter: RateLimit = new RateLimiter(LIMIT_PER_MINUTE, 60_000)
  const cors = new PublicCors(ctx.settings)
  return new Elysia({ name: 'postback-receiver' })
    .options('/postback', ({ request }) => cors.preflight(request, 'GET'))
    .get('/postback', async ({ request, server }) => {
      const corsHeaders = cors.headers(request)
      const ip = clientIp(request.headers, server?.requestIP(request)?.address, ctx.config.trustProxy)
      const decision = limiter.hit(ip)
      if (!decision.allowed) {
        return errorResponse(429, 'too many requests', { ...corsHeaders, 'retry-after': String(decision.retryAfter) })
      }
      const url = request.url
      const q = url.indexOf('?')
      const outcome = await batcher.submit(q < 0 ? '' : url.slice(q + 1), ip)
      if (outcome.kind === 'unauthorized') return errorResponse(401, 'invalid signature', corsHeaders)
      // Deliberately the same answer whether or not a conversion was recorded (rule 2).
      return new Response('OK', { headers: { 'content-type': 'text/plain; charset=utf-8', ...corsHeaders } })
    })
}
