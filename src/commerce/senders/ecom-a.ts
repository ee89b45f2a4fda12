// ecom-a, the Shopify-shaped store platform (spec §4; docs/commerce.md): how a delivery is verified and read.
import { hmacSha256, safeEqual } from '../../lib/crypto'
import { normalizeClickId } from '../../lib/click-id'
import type { SettingsStore } from '../../context'
import type { OrderEffect } from '../orders'
import type { SignatureOutcome } from '../store/types'
import { asSent, crop, currencyOf, decimalReader, emailOf, entryValue, header, jsonObject, text, UUID_PATTERN, type Obj } from '../parse'
import type { Delivery, Reading } from './delivery'

/** Header names: ours first, then the platform's own (the same values; either is accepted). */
export const ECOM_A_HEADERS = {
  signature: ['x-ecoma-hmac-sha256', 'x-shopify-hmac-sha256'],
  topic: ['x-ecoma-topic', 'x-shopify-topic'],
  id: ['x-ecoma-webhook-id', 'x-shopify-webhook-id'],
} as const

/** Order totals: decimal strings (or numbers) of at most 12 integer digits. */
const money = decimalReader(12, false)

const LEGACY_KEY_REFUSED = 'the legacy ?key= is refused while ecom_a_webhook_secret is set: deliveries must be signed (X-EcomA-Hmac-SHA256)'

/**
 * HMAC-SHA256(secret, raw body) as base64 (the platform's own) or lowercase hex (spec §5 leaves the encoding
 * open). Both are compared, each in constant time, so timing tells nothing about which one matched.
 */
function hmacMatches(secret: string, body: Uint8Array, given: string): boolean {
  const mac = hmacSha256(secret, body)
  const base64 = safeEqual(given.trim(), mac.toString('base64'))
  const hex = safeEqual(given.trim(), mac.toString('hex'))
  return base64 || hex
}

/**
 * The HMAC header when one is sent (setting ecom_a_webhook_secret); the legacy ?key= (ecom_a_webhook_key)
 * otherwise, only while no HMAC secret is set (once it is set the platform signs, and a guessable key is no
 * way in), and never from an address over its limit of refusals. `why`: the refusal's message when it is
 * not the plain "invalid signature".
 */
export function verifyEcomA(d: Delivery, settings: SettingsStore): { signature: SignatureOutcome; why?: string } {
  const given = header(d.headers, ECOM_A_HEADERS.signature)
  if (given !== null) {
    const secret = settings.get('ecom_a_webhook_secret')
    return { signature: secret && hmacMatches(secret, d.body, given) ? 'valid' : 'invalid' }
  }
  const key = d.query.get('key')
  if (key === null) return { signature: 'missing' }
  if (settings.get('ecom_a_webhook_secret')) return { signature: 'invalid', why: LEGACY_KEY_REFUSED }
  if (d.throttled) return { signature: 'invalid' }
  const expected = settings.get('ecom_a_webhook_key')
  return { signature: expected && safeEqual(key, expected) ? 'legacy_key' : 'invalid' }
}

/** The topic, stored with the delivery even when it is refused. */
export const ecomATopic = (h: Headers) => crop(header(h, ECOM_A_HEADERS.topic), 100)

/**
 * Topics: orders/create and orders/paid count, orders/cancelled reverses, orders/fulfilled and orders/updated
 * update; others are ignored. A delivery is its webhook id, else the order id and topic.
 */
export function readEcomA(d: Delivery): Reading {
  const topic = ecomATopic(d.headers)
  const eventId = crop(header(d.headers, ECOM_A_HEADERS.id), 200)
  const order = jsonObject(d.body)
  if (!order) return { kind: 'ignored', topic, eventId, why: 'the body is not a JSON object' }
  const externalId = text(order.id)
  if (!externalId) return { kind: 'ignored', topic, eventId, why: 'the order has no id' }
  const effect: OrderEffect = topic === 'orders/create' || topic === 'orders/paid' ? 'count'
    : topic === 'orders/cancelled' ? 'reverse'
      : topic === 'orders/fulfilled' || topic === 'orders/updated' ? 'update' : 'ignore'
  const status = effect === 'reverse' ? 'cancelled' : topic === 'orders/paid' ? 'paid' : topic === 'orders/fulfilled' ? 'fulfilled'
    : text(order.financial_status) ?? 'open'
  const email = text(order.email) ?? text((order.customer as Obj | undefined)?.email)
  return {
    kind: 'order', topic, eventId, dedupKey: eventId ?? `${externalId}:${topic ?? ''}`, orderExternalId: externalId,
    change: {
      effect,
      order: {
        externalId: externalId.slice(0, 200), status, currency: currencyOf(order.currency), total: money(order.total_price),
        email: emailOf(email), clickId: ecomAClick(order)?.clickId ?? null,
      },
    },
  }
}

// Where the click id hides in an order: each source tried in the spec's order, the first that yields a valid
// click id (a UUID) winning.

export type EcomAClickSource = 'note_attributes' | 'landing_site' | 'referring_site' | 'tags'

const URL_PARAMS = ['_svc_click', 'click_id', 'ref'] as const
/** `_svc_click:<uuid>`, `svc_click=<uuid>`, `svc:<uuid>` or a bare UUID as a whole tag. */
const TAG = new RegExp(`^(?:(?:_?svc_click|svc)\\s*[:=]\\s*)?(${UUID_PATTERN})$`, 'i')

/** The first of `_svc_click`, `click_id`, `ref` in a URL's query that is a click id (relative URLs too). */
function fromUrl(value: unknown): string | null {
  const s = asSent(value)
  if (!s) return null
  const url = URL.parse(s, 'http://relative.invalid/')
  if (!url) return null
  for (const p of URL_PARAMS) {
    const id = normalizeClickId(url.searchParams.get(p))
    if (id) return id
  }
  return null
}

function fromTags(value: unknown): string | null {
  const tags = Array.isArray(value) ? value.map(asSent) : (asSent(value) ?? '').split(',')
  for (const t of tags) {
    const m = t ? TAG.exec(t.trim()) : null
    const id = m ? normalizeClickId(m[1]!) : null
    if (id) return id
  }
  return null
}

/** note_attributes `_svc_click`, then landing_site, then referring_site parameters, then tags. */
export function ecomAClick(order: Obj): { clickId: string; from: EcomAClickSource } | null {
  const note = normalizeClickId(entryValue(order.note_attributes, 'name', 'value', '_svc_click'))
  if (note) return { clickId: note, from: 'note_attributes' }
  const landing = fromUrl(order.landing_site)
  if (landing) return { clickId: landing, from: 'landing_site' }
  const referring = fromUrl(order.referring_site)
  if (referring) return { clickId: referring, from: 'referring_site' }
  const tag = fromTags(order.tags)
  return tag ? { clickId: tag, from: 'tags' } : null
}
