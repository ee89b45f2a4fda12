// GET /postback: rate limit, then the verb; the answer is `OK` unless the signature fails (spec §4 rules 1-2).
// Every answer, errors included, carries the CORS headers of the allowlist so a browser can read it.
import { Elysia } from 'elysia'
import type { AppContext } from '../context'
import { clientIp } from '../lib/ip'
import { RateLimiter, type RateLimit } from '../lib/rate-limit'
import { errorResponse } from '../http/errors'
import { PublicCors } from '../http/public-cors'
import { CANONICAL, DEFAULT_ALIASES } from './aliases'
import type { PostbackOutcome } from './receive'

/** Spec §8. */
const LIMIT_PER_MINUTE = 600

const PARAMETER_NOTES: Record<(typeof CANONICAL)[number], string> = {
  subid: 'the click_id handed out by /c (needed to match a click); cid is accepted last',
  status: 'received status, mapped to a conversion type through the status map',
  payout: 'revenue of the conversion (default: the offer payout)',
  tid: "the advertiser's transaction id",
  date: 'conversion time: ISO 8601, epoch seconds or milliseconds (default now)',
  sig: 'HMAC signature; required only when the postback_secret setting is set',
  email: 'buyer email',
}
const errorBody = { 'application/json': { schema: { type: 'object', properties: { error: { type: 'string' } } } } }

/** OpenAPI description: each parameter under its first default name, its other names listed. */
const postbackDocs = {
  tags: ['public'],
  summary: 'Conversion postback (advertiser → svc)',
  description: 'All data in the query string. Each parameter is accepted under any of its names (priority order; '
    + 'PUT /admin/api/postback-aliases changes them). The answer is the same whether or not a conversion was recorded.',
  security: [],
  parameters: CANONICAL.map((name) => ({
    name: DEFAULT_ALIASES[name][0],
    in: 'query',
    required: false,
    description: `${PARAMETER_NOTES[name]}. Also accepted as: ${DEFAULT_ALIASES[name].slice(1).join(', ') || '(no other name)'}`,
    schema: { type: 'string' },
  })),
  responses: {
    200: { description: 'accepted (recorded or not)', content: { 'text/plain': { schema: { type: 'string', example: 'OK' } } } },
    401: { description: 'postback_secret is set and sig is missing or wrong', content: errorBody },
    429: { description: `more than ${LIMIT_PER_MINUTE} postbacks in a minute from this IP`, headers: { 'Retry-After': { schema: { type: 'integer' } } }, content: errorBody },
  },
}

/** The batcher of either engine: `submit` resolves once the postback's effects are committed. */
export interface PostbackSubmitter {
  submit(rawQuery: string, ip: string): Promise<PostbackOutcome>
}

export function postbackRoutes(ctx: AppContext, batcher: PostbackSubmitter) {
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
    }, { detail: postbackDocs as never })
}
