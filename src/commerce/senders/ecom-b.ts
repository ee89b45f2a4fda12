// ecom-b, the WooCommerce-shaped store platform (spec §4; docs/commerce.md): how a delivery is verified and read.
import { hmacSha256Base64, safeEqual } from '../../lib/crypto'
import { normalizeClickId } from '../../lib/click-id'
import type { SettingsStore } from '../../context'
import type { OrderEffect } from '../orders'
import type { SignatureOutcome } from '../store/types'
import { asSent, crop, currencyOf, decimalReader, emailOf, entryValue, header, jsonObject, text, UUID_PATTERN, type Obj } from '../parse'
import type { Delivery, Reading } from './delivery'

/** Header names: ours first, then the platform's own (the same values; either is accepted). */
export const ECOM_B_HEADERS = {
  signature: ['x-ecomb-webhook-signature', 'x-wc-webhook-signature'],
  topic: ['x-ecomb-webhook-topic', 'x-wc-webhook-topic'],
} as const

/** Order totals: decimal strings (or numbers) of at most 12 integer digits. */
const money = decimalReader(12, false)

/**
 * The platform's ping when a webhook is saved: unsigned `webhook_id=N`, which must get exactly 200. Its text
 * (what is stored of it), or null when the delivery is not one.
 */
export function ecomBPing(d: Delivery): string | null {
  if (header(d.headers, ECOM_B_HEADERS.signature) !== null || d.body.length >= 64) return null
  const raw = new TextDecoder().decode(d.body).trim()
  return /^webhook_id=\d{1,12}$/.test(raw) ? raw : null
}

/** base64(HMAC-SHA256(setting ecom_b_webhook_secret, raw body)) against the header, in constant time. */
export function verifyEcomB(d: Delivery, settings: SettingsStore): SignatureOutcome {
  const given = header(d.headers, ECOM_B_HEADERS.signature)
  if (given === null) return 'missing'
  const secret = settings.get('ecom_b_webhook_secret')
  return secret && safeEqual(given.trim(), hmacSha256Base64(secret, d.body)) ? 'valid' : 'invalid'
}

/** The topic, stored with the delivery even when it is refused. */
export const ecomBTopic = (h: Headers) => crop(header(h, ECOM_B_HEADERS.topic), 100)

/**
 * The order's status decides: processing and completed count; cancelled, refunded and failed reverse; others
 * update (order.deleted is ignored). No event id on this platform: a delivery is the order, topic and status
 * (a retry repeats all three).
 */
export function readEcomB(d: Delivery): Reading {
  const topic = ecomBTopic(d.headers)
  const order = jsonObject(d.body)
  if (!order) return { kind: 'ignored', topic, eventId: null, why: 'the body is not a JSON object' }
  const externalId = text(order.id)
  if (!externalId) return { kind: 'ignored', topic, eventId: null, why: 'the order has no id' }
  const status = (text(order.status) ?? 'pending').toLowerCase()
  const effect: OrderEffect = topic === 'order.deleted' ? 'ignore'
    : status === 'processing' || status === 'completed' ? 'count'
      : status === 'cancelled' || status === 'refunded' || status === 'failed' ? 'reverse' : 'update'
  const email = text((order.billing as Obj | undefined)?.email)
  return {
    kind: 'order', topic, eventId: null, dedupKey: `${externalId}:${topic ?? ''}:${status}`, orderExternalId: externalId,
    change: {
      effect,
      order: {
        externalId: externalId.slice(0, 200), status: status.slice(0, 40), currency: currencyOf(order.currency), total: money(order.total),
        email: emailOf(email), clickId: ecomBClick(order)?.clickId ?? null,
      },
    },
  }
}

export type EcomBClickSource = 'customer_note' | 'meta_data'

/** In free text (a customer note): the UUID after `_svc_click`, else the first UUID that is a click id. */
const NOTE_LABELLED = new RegExp(`_svc_click\\s*[:=]?\\s*(${UUID_PATTERN})`, 'i')
const NOTE_BARE = new RegExp(UUID_PATTERN, 'g')

/** customer_note (`_svc_click=<id>`, else the first click id in it), then meta_data `_svc_click`. */
export function ecomBClick(order: Obj): { clickId: string; from: EcomBClickSource } | null {
  const note = asSent(order.customer_note)
  if (note) {
    const labelled = NOTE_LABELLED.exec(note)
    const id = labelled ? normalizeClickId(labelled[1]!) : [...note.matchAll(NOTE_BARE)].map((m) => normalizeClickId(m[0])).find(Boolean)
    if (id) return { clickId: id, from: 'customer_note' }
  }
  const meta = normalizeClickId(entryValue(order.meta_data, 'key', 'value', '_svc_click'))
  return meta ? { clickId: meta, from: 'meta_data' } : null
}
