// The e-commerce webhook routes (spec §4): the raw body up to exactly 2 MB (413 past it, nothing
// processed), any content type, 401 for a bad signature (429 with retry-after once one address had 20 in a
// minute: http/refusal-throttle.ts), 200 for everything else the sender must not retry.
import { Elysia, t } from 'elysia'
import { errorResponse } from '../http/errors'
import { WEBHOOK_BODY_BYTES } from '../http/body-limit'
import { readBodyLimited } from '../http/raw-body'
import { RefusalThrottle } from '../http/refusal-throttle'
import type { WebhookReceiver, WebhookAnswer } from './webhooks'
import type { Delivery } from './senders/delivery'
import type { AppContext } from '../context'
import { appErrorResponse } from '../http/errors'
import { PublicCors } from '../http/public-cors'
import { AppError } from '../lib/errors'
import { clientIp, clientKey } from '../lib/ip'
import { RateLimiter } from '../lib/rate-limit'
import { clickCookie } from '../tracking'
import { ProviderError, type Checkout } from './checkout'
import { adminGuard } from '../http/admin-guard'
import { parseId } from '../http/collection'
import { adminActor, invoke } from '../lib/verb'
import type { manualOrderVerbs } from './manual'

/** Checkouts a minute per IP (each one creates a payment at the processor). */
export const CHECKOUTS_PER_MINUTE = 10

const json = (a: WebhookAnswer) => new Response(JSON.stringify(a.body), { status: a.status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } })

async function delivery(request: Request): Promise<Delivery | Response> {
  const body = await readBodyLimited(request, WEBHOOK_BODY_BYTES).catch(() => null)
  if (body === null) return errorResponse(413, `request body too large (at most ${WEBHOOK_BODY_BYTES} bytes)`, { connection: 'close' })
  return { headers: request.headers, body, query: new URL(request.url).searchParams }
}

/** POST /api/checkout: JSON {product_id, email?, click_id?} → {order_id, payment_intent, client_secret, amount, currency}. */
export function checkoutRoutes(ctx: AppContext, checkout: Checkout) {
  const cors = new PublicCors(ctx.settings)
  const limiter = new RateLimiter(CHECKOUTS_PER_MINUTE, 60_000)
  return new Elysia({ name: 'commerce-checkout' })
    .options('/api/checkout', ({ request }) => cors.preflight(request, 'POST'))
    .post('/api/checkout', async ({ request, server }) => {
      const headers = { ...cors.headers(request), 'cache-control': 'no-store' }
      const ip = clientIp(request.headers, server?.requestIP(request)?.address, ctx.config.trustProxy)
      const decision = limiter.hit(clientKey(ip) ?? ip)
      if (!decision.allowed) return errorResponse(429, 'too many requests', { ...headers, 'retry-after': String(decision.retryAfter) })
      let body: unknown
      try {
        body = JSON.parse(await request.text())
      } catch {
        return errorResponse(400, 'the body is not valid JSON', headers)
      }
      if (!body || typeof body !== 'object' || Array.isArray(body)) return errorResponse(400, 'the body must be a JSON object', headers)
      try {
        const answer = await checkout.start(body as Record<string, unknown>, clickCookie(request.headers.get('cookie')))
        return new Response(JSON.stringify(answer), { headers: { 'content-type': 'application/json', ...headers } })
      } catch (err) {
        if (err instanceof AppError) return appErrorResponse(err, headers)
        // The processor is down or refused: the buyer can try again; nothing was charged.
        if (err instanceof ProviderError) return errorResponse(502, err.message, headers)
        throw err
      }
    }, { parse: 'none', detail: { tags: ['commerce'], summary: 'Start a checkout: a pending order tied to the click and a payment intent at processor A' } })
}

/** POST /admin/api/orders/:id/refund {amount?}: the merchant's manual refund (see manual.ts). */
export function manualOrderRoutes(ctx: AppContext, verbs: ReturnType<typeof manualOrderVerbs>) {
  return new Elysia({ name: 'commerce-manual' })
    .use(adminGuard(ctx))
    .post('/admin/api/orders/:id/refund', ({ params, body, admin }) =>
      invoke(verbs.refund, adminActor(admin), { id: parseId(params.id, 'order'), amount: body?.amount }), {
      permission: 'commerce:write',
      body: t.Object({ amount: t.Optional(t.Number({ description: 'default: all that is left to refund' })) }),
      detail: { tags: ['commerce'], summary: verbs.refund.summary },
    })
    .post('/admin/api/orders/:id/resend-automation', ({ params, admin }) =>
      invoke(verbs.resendAutomation, adminActor(admin), { id: parseId(params.id, 'order') }), {
      permission: 'commerce:write', detail: { tags: ['commerce'], summary: verbs.resendAutomation.summary },
    })
}

/**
 * The /webhook/* 401 throttle (http/refusal-throttle.ts) as the commerce receivers use it: a delivery is tagged
 * with its address and whether that address is over its refusals. A valid signature always counts (it is checked
 * first), except on pay-b, whose check is a call to the provider's API: an address over the limit gets 429 there
 * before anything is asked (the provider retries). The legacy ?key= is not even compared from such an address.
 */
class DeliveryThrottle {
  private readonly throttle: RefusalThrottle
  constructor(trustProxy: boolean) {
    this.throttle = new RefusalThrottle(trustProxy)
  }

  /** The delivery tagged with its address, and whether that address is over its limit already. */
  tag(request: Request, server: { requestIP(r: Request): { address: string } | null } | null, d: Delivery): Delivery {
    const client = this.throttle.clientOf(request, server)
    return { ...d, client, throttled: this.throttle.over(client) }
  }

  /** A 401 counts; past the limit it becomes a 429. Anything else goes out as it is. */
  answer(d: Delivery, a: WebhookAnswer): Response {
    return a.status === 401 ? this.throttle.refused(d.client ?? 'unknown', json(a)) : json(a)
  }

  /** pay-b: an address over its limit is not verified at all. */
  refusedUpfront(d: Delivery): Response | null {
    return d.throttled ? this.throttle.tooMany(d.client ?? 'unknown') : null
  }
}

export function commerceWebhookRoutes(ctx: AppContext, receiver: WebhookReceiver) {
  const throttle = new DeliveryThrottle(ctx.config.trustProxy)
  /** The raw body (a 413 past 2 MB), tagged with its address for the throttle. */
  const take = async (request: Request, server: Parameters<DeliveryThrottle['tag']>[1]): Promise<Delivery | Response> => {
    const raw = await delivery(request)
    return raw instanceof Response ? raw : throttle.tag(request, server, raw)
  }
  return new Elysia({ name: 'commerce-webhooks' })
    .post('/webhook/ecom-a', async ({ request, server }) => {
      const d = await take(request, server)
      if (d instanceof Response) return d
      return throttle.answer(d, await receiver.ecomA(d))
    }, { parse: 'none', detail: { tags: ['webhooks'], summary: 'E-commerce platform A orders (X-EcomA-Hmac-SHA256 or X-Shopify-Hmac-Sha256: HMAC-SHA256 of the raw body, base64 or lowercase hex; legacy ?key= only while no HMAC secret is set)' } })
    .post('/webhook/ecom-b', async ({ request, server }) => {
      const d = await take(request, server)
      if (d instanceof Response) return d
      return throttle.answer(d, await receiver.ecomB(d))
    }, { parse: 'none', detail: { tags: ['webhooks'], summary: 'E-commerce platform B orders (X-EcomB-Webhook-Signature or X-WC-Webhook-Signature); its save-time ping gets 200' } })
    .post('/webhook/pay-a-ecom', async ({ request, server }) => {
      const d = await take(request, server)
      if (d instanceof Response) return d
      return throttle.answer(d, await receiver.payAEcom(d))
    }, { parse: 'none', detail: { tags: ['webhooks'], summary: 'Payment processor A, legacy global endpoint (PayA-Signature with pay_a_ecom_webhook_secret)' } })
    .post('/webhook/pay-a/:account_id', async ({ request, params, server }) => {
      const d = await take(request, server)
      if (d instanceof Response) return d
      const a = await receiver.payAAccount(params.account_id, d)
      return a === 'not-found' ? errorResponse(404, 'payment account not found') : throttle.answer(d, a)
    }, { parse: 'none', detail: { tags: ['webhooks'], summary: "Payment processor A, per payment account (PayA-Signature with the account's signing secret)" } })
    .post('/webhook/pay-b/:account_id', async ({ request, params, server }) => {
      const d = await take(request, server)
      if (d instanceof Response) return d
      const early = throttle.refusedUpfront(d)
      if (early) return early
      const a = await receiver.payBAccount(params.account_id, d)
      if (a === 'not-found') return errorResponse(404, 'payment account not found')
      // Not a 401: that would tell the sender the event is forged. 503: it retries.
      if (a === 'unavailable') return errorResponse(503, "the payment processor's verification API is unavailable; retry later", { 'retry-after': '60' })
      return throttle.answer(d, a)
    }, { parse: 'none', detail: { tags: ['webhooks'], summary: "Payment processor B, per payment account (verified by the provider's verification API; a body repeating a key is refused, 400)" } })
}
