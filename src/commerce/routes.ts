// The e-commerce webhook routes (spec §4): the raw body up to exactly 2 MB (413 past it, nothing
// processed), any content type, 401 for a bad signature, 200 for everything else the sender must not retry.
import { Elysia } from 'elysia'
import { errorResponse } from '../http/errors'
import { WEBHOOK_BODY_BYTES } from '../http/body-limit'
import { readBodyLimited } from '../http/raw-body'
import type { WebhookReceiver, Delivery, WebhookAnswer } from './webhooks'

const json = (a: WebhookAnswer) => new Response(JSON.stringify(a.body), { status: a.status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } })

async function delivery(request: Request): Promise<Delivery | Response> {
  const body = await readBodyLimited(request, WEBHOOK_BODY_BYTES).catch(() => null)
  if (body === null) return errorResponse(413, `request body too large (at most ${WEBHOOK_BODY_BYTES} bytes)`, { connection: 'close' })
  return { headers: request.headers, body, query: new URL(request.url).searchParams }
}

export function commerceWebhookRoutes(receiver: WebhookReceiver) {
  return new Elysia({ name: 'commerce-webhooks' })
    .post('/webhook/ecom-a', async ({ request }) => {
      const d = await delivery(request)
      return d instanceof Response ? d : json(await receiver.ecomA(d))
    }, { parse: 'none', detail: { tags: ['webhooks'], summary: 'E-commerce platform A orders (X-EcomA-Hmac-SHA256 or X-Shopify-Hmac-Sha256; legacy ?key=)' } })
    .post('/webhook/ecom-b', async ({ request }) => {
      const d = await delivery(request)
      return d instanceof Response ? d : json(await receiver.ecomB(d))
    }, { parse: 'none', detail: { tags: ['webhooks'], summary: 'E-commerce platform B orders (X-EcomB-Webhook-Signature or X-WC-Webhook-Signature); its save-time ping gets 200' } })
    .post('/webhook/pay-a-ecom', async ({ request }) => {
      const d = await delivery(request)
      return d instanceof Response ? d : json(await receiver.payAEcom(d))
    }, { parse: 'none', detail: { tags: ['webhooks'], summary: 'Payment processor A, legacy global endpoint (PayA-Signature with pay_a_ecom_webhook_secret)' } })
}
