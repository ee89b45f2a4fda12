// GET /postback: rate limit, then the verb; the answer is `OK` unless the signature fails (spec §4 rules 1-2).
import { Elysia } from 'elysia'
import type { AppContext } from '../context'
import { clientIp } from '../lib/ip'
import { RateLimiter } from '../lib/rate-limit'
import { tooManyRequests, unauthorized } from '../lib/errors'
import type { PostbackReceiver } from './receive'

/** Spec §8. */
const LIMIT_PER_MINUTE = 600
const OK_HEADERS = { 'content-type': 'text/plain; charset=utf-8' }

export function postbackRoutes(ctx: AppContext, receiver: PostbackReceiver) {
  const limiter = new RateLimiter(LIMIT_PER_MINUTE, 60_000)
  return new Elysia({ name: 'postback-receiver' }).get('/postback', ({ request, server }) => {
    const ip = clientIp(request.headers, server?.requestIP(request)?.address, ctx.config.trustProxy)
    const decision = limiter.hit(ip)
    if (!decision.allowed) throw tooManyRequests(decision.retryAfter)
    const url = request.url
    const q = url.indexOf('?')
    const outcome = receiver.receive(q < 0 ? '' : url.slice(q + 1), ip)
    if (outcome.kind === 'unauthorized') throw unauthorized('invalid signature')
    // Deliberately the same answer whether or not a conversion was recorded (rule 2).
    return new Response('OK', { headers: OK_HEADERS })
  })
}
