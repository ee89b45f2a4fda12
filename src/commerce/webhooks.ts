// The e-commerce receivers (spec §4, issue 11): ecom-a (the Shopify-shaped platform) and ecom-b (the
// WooCommerce-shaped one). Each checks its signature over the raw bytes, reads the order from the body
// (JSON, best effort), and runs the order's steps (orders.ts) in one transaction with the conversion they
// record. No HTTP here: routes.ts reads the request and answers what this returns.
import { hmacSha256Base64, safeEqual } from '../lib/crypto'
import { RateLimiter } from '../lib/rate-limit'
import { errorFields, log } from '../lib/log'
import type { SettingsStore } from '../settings/store'
import type { ConversionRecorder } from '../postback/record'
import type { ConversionTypes } from '../postback/conversion-types'
import { ecomAClick, ecomBClick } from './extract'
import { orderEventSteps, type OrderEffect, type OrderEvent, type StepResult } from './orders'
import type { CommerceStore, NewWebhookEvent, SignatureOutcome, WebhookSource } from './store/types'

/** What an event row keeps of the body, for a merchant reading why an order was not attributed. */
const PAYLOAD_KEPT = 64 * 1024

export interface Delivery {
  headers: Headers
  body: Uint8Array
  /** The request's query parameters (ecom-a's legacy ?key=). */
  query: URLSearchParams
}

export interface WebhookAnswer {
  status: 200 | 401
  /** `{ok:true, …}` or the error body. */
  body: Record<string, unknown>
}

/** Header names: ours first, then the platform's own (the same values; either is accepted). */
const ECOM_A = { signature: ['x-ecoma-hmac-sha256', 'x-shopify-hmac-sha256'], topic: ['x-ecoma-topic', 'x-shopify-topic'], id: ['x-ecoma-webhook-id', 'x-shopify-webhook-id'] }
const ECOM_B = { signature: ['x-ecomb-webhook-signature', 'x-wc-webhook-signature'], topic: ['x-ecomb-webhook-topic', 'x-wc-webhook-topic'] }

const header = (h: Headers, names: readonly string[]): string | null => {
  for (const n of names) {
    const v = h.get(n)
    if (v !== null && v !== '') return v
  }
  return null
}

/** base64(HMAC-SHA256(secret, raw body)) against the header, in constant time. */
function base64HmacMatches(secret: string, body: Uint8Array, given: string): boolean {
  return safeEqual(given.trim(), hmacSha256Base64(secret, body))
}

function parseJson(body: Uint8Array): Record<string, unknown> | null {
  try {
    const v = JSON.parse(new TextDecoder('utf-8', { fatal: false }).decode(body)) as unknown
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null
  } catch {
    return null
  }
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' ? String(v) : null)
/** Money as the platforms send it (decimal strings, or numbers): a finite number, else 0. */
function money(v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d{1,12}(\.\d{1,8})?$/.test(v.trim()) ? Number(v.trim()) : NaN
  return Number.isFinite(n) ? n : 0
}
const currencyOf = (v: unknown): string | null => {
  const c = text(v)
  return c && /^[A-Za-z]{3}$/.test(c) ? c.toUpperCase() : null
}
const crop = (s: string | null, n: number) => (s === null ? null : s.slice(0, n))

export class WebhookReceiver {
  /** Refused deliveries are stored for the merchant, but a stranger's flood of them is not: 120 a minute in all. */
  private readonly refusals = new RateLimiter(120, 60_000)

  constructor(private readonly deps: {
    store: CommerceStore
    recorder: ConversionRecorder
    types: ConversionTypes
    settings: SettingsStore
  }) {}

  /** POST /webhook/ecom-a */
  async ecomA(d: Delivery, now = Date.now()): Promise<WebhookAnswer> {
    const signature = this.ecomASignature(d)
    const topic = crop(header(d.headers, ECOM_A.topic), 100)
    const payload = this.payloadOf(d.body)
    if (signature === 'invalid' || signature === 'missing') return this.refuse('ecom-a', signature, topic, now)
    const order = parseJson(d.body)
    const eventId = crop(header(d.headers, ECOM_A.id), 200)
    if (!order) return this.ignore('ecom-a', signature, topic, eventId, payload, 'the body is not a JSON object', now)
    const externalId = text(order.id)
    if (!externalId) return this.ignore('ecom-a', signature, topic, eventId, payload, 'the order has no id', now)
    const effect: OrderEffect = topic === 'orders/create' || topic === 'orders/paid' ? 'count'
      : topic === 'orders/cancelled' ? 'reverse'
        : topic === 'orders/fulfilled' || topic === 'orders/updated' ? 'update' : 'ignore'
    const status = effect === 'reverse' ? 'cancelled' : topic === 'orders/paid' ? 'paid' : topic === 'orders/fulfilled' ? 'fulfilled'
      : text(order.financial_status) ?? 'open'
    const email = text(order.email) ?? text((order.customer as Record<string, unknown> | undefined)?.email)
    return this.run({
      delivery: this.delivery('ecom-a', signature, topic, eventId, eventId ?? `${externalId}:${topic ?? ''}`, externalId, payload, now),
      effect,
      order: {
        externalId: externalId.slice(0, 200), status, currency: currencyOf(order.currency), total: money(order.total_price),
        email: crop(email, 254), clickId: ecomAClick(order)?.clickId ?? null,
      },
    })
  }

  /** POST /webhook/ecom-b */
  async ecomB(d: Delivery, now = Date.now()): Promise<WebhookAnswer> {
    const given = header(d.headers, ECOM_B.signature)
    const raw = new TextDecoder().decode(d.body.subarray(0, 64))
    // The platform's ping when a webhook is saved: unsigned `webhook_id=N`; it must get exactly 200.
    if (given === null && /^webhook_id=\d{1,12}$/.test(raw.trim()) && d.body.length < 64) {
      return this.ignore('ecom-b', 'ping', null, null, raw.trim(), 'the platform\'s ping when a webhook is saved', now)
    }
    const secret = this.deps.settings.get('ecom_b_webhook_secret')
    const signature: SignatureOutcome = given === null ? 'missing' : secret && base64HmacMatches(secret, d.body, given) ? 'valid' : 'invalid'
    const topic = crop(header(d.headers, ECOM_B.topic), 100)
    const payload = this.payloadOf(d.body)
    if (signature !== 'valid') return this.refuse('ecom-b', signature, topic, now)
    const order = parseJson(d.body)
    if (!order) return this.ignore('ecom-b', signature, topic, null, payload, 'the body is not a JSON object', now)
    const externalId = text(order.id)
    if (!externalId) return this.ignore('ecom-b', signature, topic, null, payload, 'the order has no id', now)
    const status = (text(order.status) ?? 'pending').toLowerCase()
    const effect: OrderEffect = topic === 'order.deleted' ? 'ignore'
      : status === 'processing' || status === 'completed' ? 'count'
        : status === 'cancelled' || status === 'refunded' || status === 'failed' ? 'reverse' : 'update'
    const email = text((order.billing as Record<string, unknown> | undefined)?.email)
    return this.run({
      // No event id on this platform: one delivery per order, topic and status (a retry repeats all three).
      delivery: this.delivery('ecom-b', signature, topic, null, `${externalId}:${topic ?? ''}:${status}`, externalId, payload, now),
      effect,
      order: {
        externalId: externalId.slice(0, 200), status: status.slice(0, 40), currency: currencyOf(order.currency), total: money(order.total),
        email: crop(email, 254), clickId: ecomBClick(order)?.clickId ?? null,
      },
    })
  }

  /** ecom-a: the HMAC header when one is sent; the legacy ?key= otherwise. */
  private ecomASignature(d: Delivery): SignatureOutcome {
    const given = header(d.headers, ECOM_A.signature)
    if (given !== null) {
      const secret = this.deps.settings.get('ecom_a_webhook_secret')
      return secret && base64HmacMatches(secret, d.body, given) ? 'valid' : 'invalid'
    }
    const key = d.query.get('key')
    if (key === null) return 'missing'
    const expected = this.deps.settings.get('ecom_a_webhook_key')
    return expected && safeEqual(key, expected) ? 'legacy_key' : 'invalid'
  }

  private payloadOf(body: Uint8Array): string {
    // Cut on a byte count, decoded leniently: a split character becomes U+FFFD, never an exception. No NULs
    // (Postgres text cannot hold them).
    return new TextDecoder('utf-8', { fatal: false }).decode(body.subarray(0, PAYLOAD_KEPT)).replace(/\u0000/g, '')
  }

  private delivery(source: WebhookSource, signature: SignatureOutcome, topic: string | null, externalId: string | null, dedupKey: string | null,
    orderExternalId: string | null, payload: string, now: number): NewWebhookEvent {
    return {
      source, externalId, dedupKey: crop(dedupKey, 300), topic, orderExternalId: crop(orderExternalId, 200), signature, outcome: 'recorded', error: null,
      payload, receivedAt: now,
    }
  }

  /** Stored without the body: an unsigned stranger's bytes are not kept. */
  private async refuse(source: WebhookSource, signature: SignatureOutcome, topic: string | null, now: number): Promise<WebhookAnswer> {
    if (this.refusals.hit('all', now).allowed) await this.deps.store.recordRefused({
      ...this.delivery(source, signature, topic, null, null, null, '', now), payload: null, outcome: 'rejected',
      error: signature === 'missing' ? 'no signature' : 'invalid signature',
    })
    return { status: 401, body: { error: signature === 'missing' ? 'missing signature' : 'invalid signature' } }
  }

  private async ignore(source: WebhookSource, signature: SignatureOutcome, topic: string | null, eventId: string | null, payload: string, why: string, now: number): Promise<WebhookAnswer> {
    await this.deps.store.recordRefused({ ...this.delivery(source, signature, topic, eventId, null, null, payload, now), outcome: 'ignored', error: why })
    return { status: 200, body: { ok: true, outcome: 'ignored' } }
  }

  /** The order's steps and their conversion in one transaction; a failure is stored (outcome error) and thrown (→ 500: the sender retries). */
  private async run(e: OrderEvent): Promise<WebhookAnswer> {
    const { recorder, store, types } = this.deps
    const orderTypes = { sale: types.resolve('sale'), reversal: types.resolve('chargeback') }
    let r: StepResult
    try {
      r = await recorder.within((record, q, tx) => orderEventSteps(store.in(tx), q, record, orderTypes, e))
    } catch (err) {
      log.error('commerce: a webhook event could not be processed (the sender will retry)', { source: e.delivery.source, topic: e.delivery.topic, ...errorFields(err) })
      await store.recordRefused({ ...e.delivery, dedupKey: null, outcome: 'error', error: String(errorFields(err).error ?? 'error').slice(0, 500) }).catch(() => {})
      throw err
    }
    return { status: 200, body: { ok: true, outcome: r.outcome, ...(r.duplicate ? { duplicate: true } : {}) } }
  }
}
