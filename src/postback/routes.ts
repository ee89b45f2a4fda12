// GET /postback: rate limit, then the verb; the answer is `OK` unless the signature fails (spec §4 rules 1-2).
// Every answer, errors included, carries the CORS headers of the allowlist so a browser can read it.
//
// A Bun route of its own, outside Elysia, like /c and /r (tracking/routes.ts): on this hot path Elysia's
// per-request context and response mapping were measurable work that nothing here uses. What Elysia's
// global hooks did for it is done here: the declared-body limit (oversizedBody) and the 500 with a request
// id (internalError). Its OpenAPI description is docs.ts. HEAD is answered like GET, as Elysia did.
import type { BunRequest, Server } from 'bun'
import type { AppContext, NativeRoutes } from '../context'
import { clientIp } from '../lib/ip'
import { RateLimiter, type RateLimit } from '../lib/rate-limit'
import { errorResponse, internalError } from '../http/errors'
import { oversizedBody } from '../http/body-limit'
import { PublicCors } from '../http/public-cors'
import { POSTBACK_LIMIT_PER_MINUTE } from './docs'
import type { PostbackOutcome } from './receive'

const OK_HEADERS = { 'content-type': 'text/plain; charset=utf-8' }

/** The batcher of either engine: `submit` resolves once the postback's effects are committed. */
export interface PostbackSubmitter {
  submit(rawQuery: string, ip: string): Promise<PostbackOutcome>
}

export function postbackRoutes(ctx: AppContext, batcher: PostbackSubmitter): NativeRoutes {
  const limiter: RateLimit = new RateLimiter(POSTBACK_LIMIT_PER_MINUTE, 60_000)
  const cors = new PublicCors(ctx.settings)
  const { trustProxy } = ctx.config

  // Not async (as /c): one Promise per postback, its batch's, and one .then on it.
  const receive = (request: BunRequest<string>, server: Server<unknown>): Response | Promise<Response> => {
    try {
      const refused = oversizedBody(request)
      if (refused) return refused
      const corsHeaders = cors.headers(request)
      const ip = clientIp(request.headers, () => server.requestIP(request)?.address, trustProxy)
      const decision = limiter.hit(ip)
      if (!decision.allowed) {
        return errorResponse(429, 'too many requests', { ...corsHeaders, 'retry-after': String(decision.retryAfter) })
      }
      const url = request.url
      const q = url.indexOf('?')
      return batcher.submit(q < 0 ? '' : url.slice(q + 1), ip).then((outcome) => {
        try {
          if (outcome.kind === 'unauthorized') return errorResponse(401, 'invalid signature', corsHeaders)
          // Deliberately the same answer whether or not a conversion was recorded (rule 2).
          return new Response('OK', { headers: { ...OK_HEADERS, ...corsHeaders } })
        } catch (err) {
          return internalError(request, err)
        }
      }, (err) => internalError(request, err))
    } catch (err) {
      return internalError(request, err)
    }
  }
  return { '/postback': { GET: receive, HEAD: receive, OPTIONS: (request) => cors.preflight(request, 'GET') } }
}
