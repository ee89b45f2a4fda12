// Bounce and complaint webhooks: `POST /webhook/mail/:provider`. Each provider is checked with what it
// offers (a token in the URL for the generic shape and Amazon SES via SNS, HTTP Basic for Postmark, an
// HMAC for Mailgun, an ECDSA signature for SendGrid), then its body is turned into MailEvents: one per
// recipient, keyed by the provider's event id so a redelivery changes nothing. A hard bounce or a
// complaint suppresses the address in every list; a soft bounce is only counted.
//
// Replays: Mailgun's HMAC covers the timestamp and a random token, not the body, so a signature seen once
// could carry any other body while it is fresh. Its token is therefore a nonce: the store remembers it
// (mail_webhook_tokens, shared by every instance) until the signature expires, in the transaction that
// records the events; the same token again with the same body is the provider's redelivery (200, nothing
// recorded twice), with another body it is refused like a bad signature (401). Timestamps more than a
// minute ahead are refused. The other providers need no nonce: SendGrid signs the body itself (an
// identical replay is de-duplicated by its event ids), and the generic, SES and Postmark endpoints are
// authenticated by a secret that signs nothing (whoever holds it can write any body; keep it secret).
import { createHash, createPublicKey, verify as verifySignature } from 'node:crypto'
import { hmacSha256Hex, safeEqual } from '../lib/crypto'
import { normalizeEmail } from '../lib/email-address'
import type { MailEvent, Nonce } from './store/mail-events'
import type { SettingsStore } from '../context'

export const PROVIDERS = ['generic', 'ses', 'postmark', 'mailgun', 'sendgrid'] as const
export type Provider = (typeof PROVIDERS)[number]

/** Why a webhook is refused: 401 (not the sender it claims) or 400 (not a body svc understands). */
export class WebhookRefused extends Error {
  constructor(readonly status: 400 | 401, message: string) {
    super(message)
  }
}

const unauthorized = (m: string) => new WebhookRefused(401, m)
const malformed = (m: string) => new WebhookRefused(400, m)
/** Mailgun: a signature older than this is a replay. */
export const MAX_AGE_S = 15 * 60
/** Mailgun: a timestamp further ahead than this (clock skew) is refused. */
export const MAX_AHEAD_S = 60

export interface Incoming {
  provider: Provider
  raw: string
  headers: Headers
  query: URLSearchParams
}

/**
 * What a webhook asks for: events to record (with the signature's nonce, which the store must accept in the
 * same transaction), or (SNS) a subscription to confirm by fetching its URL.
 */
export type Parsed = { events: MailEvent[]; nonce?: Nonce } | { confirm: string }

function json(raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    throw malformed('body is not JSON')
  }
}

/** A JSON object body (not null, an array or a scalar). */
function object(raw: string): Record<string, unknown> {
  const v = json(raw)
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw malformed('body must be a JSON object')
  return v as Record<string, unknown>
}

const time = (v: unknown, fallback: number): number => {
  const t = typeof v === 'number' ? (v < 1e11 ? v * 1000 : v) : typeof v === 'string' ? Date.parse(v) : NaN
  return Number.isFinite(t) ? t : fallback
}

/** One event per valid address; addresses svc could not have mailed are skipped. */
function event(provider: Provider, id: string, kind: MailEvent['kind'], hard: boolean, address: unknown, at: number): MailEvent | null {
  const email = typeof address === 'string' ? normalizeEmail(address) : null
  return email ? { provider, key: `${id}:${email}`, kind, hard, email, occurredAt: at } : null
}

const present = <T>(xs: Array<T | null>): T[] => xs.filter((x): x is T => x !== null)

export function checkAndParse(i: Incoming, settings: SettingsStore, now = Date.now()): Parsed {
  switch (i.provider) {
    case 'generic':
      requireToken(i, settings)
      return { events: generic(i.raw, now) }
    case 'ses':
      requireToken(i, settings)
      return ses(i, now)
    case 'postmark':
      requireBasic(i, settings.get('postmark_webhook_credentials'))
      return { events: postmark(i.raw, now) }
    case 'mailgun':
      return mailgun(i.raw, settings.get('mailgun_webhook_signing_key'), now)
    case 'sendgrid':
      requireSendgrid(i, settings.get('sendgrid_webhook_public_key'))
      return { events: sendgrid(i.raw, now) }
  }
}

function requireToken(i: Incoming, settings: SettingsStore): void {
  const expected = settings.get('mail_webhook_token')
  const given = i.query.get('token')
  if (!expected || !given || !safeEqual(given, expected)) throw unauthorized('invalid token')
}

function requireBasic(i: Incoming, expected: string | null): void {
  const header = i.headers.get('authorization') ?? ''
  const m = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header.trim())
  const given = m ? Buffer.from(m[1]!, 'base64').toString('utf8') : ''
  if (!expected || !given || !safeEqual(given, expected)) throw unauthorized('invalid credentials')
}

function requireSendgrid(i: Incoming, publicKey: string | null): void {
  const sig = i.headers.get('x-twilio-email-event-webhook-signature')
  const ts = i.headers.get('x-twilio-email-event-webhook-timestamp')
  if (!publicKey || !sig || !ts) throw unauthorized('invalid signature')
  let ok = false
  try {
    const key = createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' })
    ok = verifySignature('sha256', Buffer.from(ts + i.raw), key, Buffer.from(sig, 'base64'))
  } catch {
    ok = false
  }
  if (!ok) throw unauthorized('invalid signature')
}

/** The documented generic shape: one object or an array of {type, hard?, email, id?, occurred_at?}. */
function generic(raw: string, now: number): MailEvent[] {
  const body = json(raw)
  const items = Array.isArray(body) ? body : [body]
  return present(items.map((x, n) => {
    if (!x || typeof x !== 'object') throw malformed(`event ${n}: must be an object`)
    const e = x as { type?: unknown; hard?: unknown; email?: unknown; id?: unknown; occurred_at?: unknown }
    if (e.type !== 'bounce' && e.type !== 'complaint' && e.type !== 'unsubscribe') return null // delivery and others: nothing to do
    const id = typeof e.id === 'string' || typeof e.id === 'number' ? String(e.id) : `${e.type}:${String(e.occurred_at ?? '')}`
    return event('generic', id, e.type, e.type === 'bounce' && e.hard !== false, e.email, time(e.occurred_at, now))
  }))
}

/** Amazon SES through an SNS HTTP(S) subscription: the subscription handshake, then notifications. */
function ses(i: Incoming, now: number): Parsed {
  const body = object(i.raw) as { Type?: unknown; MessageId?: unknown; Message?: unknown; SubscribeURL?: unknown }
  const type = i.headers.get('x-amz-sns-message-type') ?? body.Type
  if (type === 'SubscriptionConfirmation') {
    const url = typeof body.SubscribeURL === 'string' ? body.SubscribeURL : ''
    let host = ''
    try {
      const u = new URL(url)
      host = u.protocol === 'https:' ? u.hostname : ''
    } catch {
      host = ''
    }
    if (!/^sns\.[a-z0-9-]+\.amazonaws\.com$/.test(host)) throw malformed('SubscribeURL must be an https URL on sns.<region>.amazonaws.com')
    return { confirm: url }
  }
  if (type !== 'Notification') return { events: [] } // UnsubscribeConfirmation and the like
  if (typeof body.Message !== 'string' || typeof body.MessageId !== 'string') throw malformed('an SNS notification has Message and MessageId')
  const m = object(body.Message) as {
    notificationType?: string; eventType?: string
    bounce?: { bounceType?: string; bouncedRecipients?: Array<{ emailAddress?: unknown }>; timestamp?: unknown }
    complaint?: { complainedRecipients?: Array<{ emailAddress?: unknown }>; timestamp?: unknown }
  }
  const kind = m.notificationType ?? m.eventType
  if (kind === 'Bounce' && m.bounce) {
    const hard = m.bounce.bounceType === 'Permanent'
    return { events: present((m.bounce.bouncedRecipients ?? []).map((r) => event('ses', body.MessageId as string, 'bounce', hard, r.emailAddress, time(m.bounce!.timestamp, now)))) }
  }
  if (kind === 'Complaint' && m.complaint) {
    return { events: present((m.complaint.complainedRecipients ?? []).map((r) => event('ses', body.MessageId as string, 'complaint', true, r.emailAddress, time(m.complaint!.timestamp, now)))) }
  }
  return { events: [] }
}

const POSTMARK_HARD = new Set(['HardBounce', 'BadEmailAddress', 'Blocked', 'ManuallyDeactivated'])

function postmark(raw: string, now: number): MailEvent[] {
  const b = object(raw) as { RecordType?: unknown; ID?: unknown; Type?: unknown; Email?: unknown; BouncedAt?: unknown; SuppressSending?: unknown; Recipient?: unknown; ChangedAt?: unknown }
  const id = String(b.ID ?? '')
  if (b.RecordType === 'Bounce') return present([event('postmark', id, 'bounce', POSTMARK_HARD.has(String(b.Type)), b.Email, time(b.BouncedAt, now))])
  if (b.RecordType === 'SpamComplaint') return present([event('postmark', id, 'complaint', true, b.Email, time(b.BouncedAt, now))])
  if (b.RecordType === 'SubscriptionChange' && b.SuppressSending === true) {
    return present([event('postmark', `${String(b.Recipient)}:${String(b.ChangedAt)}`, 'unsubscribe', false, b.Recipient, time(b.ChangedAt, now))])
  }
  return []
}

function mailgun(raw: string, key: string | null, now: number): { events: MailEvent[]; nonce: Nonce } {
  const b = object(raw) as { signature?: { timestamp?: unknown; token?: unknown; signature?: unknown } | null; 'event-data'?: Record<string, unknown> }
  const s = b.signature
  const ts = typeof s?.timestamp === 'string' || typeof s?.timestamp === 'number' ? String(s.timestamp) : ''
  const token = typeof s?.token === 'string' ? s.token : ''
  const sig = typeof s?.signature === 'string' ? s.signature : ''
  // Whole seconds only, and a token of a sane length (it is stored as the nonce).
  if (!key || !/^\d{1,12}$/.test(ts) || !token || token.length > 256 || !sig || !safeEqual(hmacSha256Hex(key, ts + token), sig)) throw unauthorized('invalid signature')
  const age = now / 1000 - Number(ts)
  if (age > MAX_AGE_S) throw unauthorized('stale signature')
  if (age < -MAX_AHEAD_S) throw unauthorized('signature timestamp is in the future')
  const e = b['event-data']
  if (!e || typeof e !== 'object' || Array.isArray(e)) throw malformed('event-data is missing')
  // Every accepted signature is remembered, a delivery's too (it records nothing, but its signature must not carry a complaint later).
  const nonce: Nonce = {
    provider: 'mailgun', token, bodyHash: createHash('sha256').update(raw).digest('hex'), expiresAt: (Number(ts) + MAX_AGE_S + 1) * 1000,
  }
  const id = String(e.id ?? token)
  const at = time(e.timestamp, now)
  if (e.event === 'failed') return { events: present([event('mailgun', id, 'bounce', e.severity === 'permanent', e.recipient, at)]), nonce }
  if (e.event === 'complained') return { events: present([event('mailgun', id, 'complaint', true, e.recipient, at)]), nonce }
  if (e.event === 'unsubscribed') return { events: present([event('mailgun', id, 'unsubscribe', false, e.recipient, at)]), nonce }
  return { events: [], nonce }
}

function sendgrid(raw: string, now: number): MailEvent[] {
  const body = json(raw)
  if (!Array.isArray(body)) throw malformed('a SendGrid event webhook body is a JSON array')
  return present(body.map((x) => {
    const e = (x ?? {}) as { event?: unknown; type?: unknown; email?: unknown; sg_event_id?: unknown; timestamp?: unknown }
    const id = String(e.sg_event_id ?? `${String(e.email)}:${String(e.timestamp)}:${String(e.event)}`)
    const at = time(e.timestamp, now)
    if (e.event === 'bounce') return event('sendgrid', id, 'bounce', e.type !== 'blocked', e.email, at)
    if (e.event === 'dropped' || e.event === 'deferred') return event('sendgrid', id, 'bounce', false, e.email, at)
    if (e.event === 'spamreport') return event('sendgrid', id, 'complaint', true, e.email, at)
    if (e.event === 'unsubscribe' || e.event === 'group_unsubscribe') return event('sendgrid', id, 'unsubscribe', false, e.email, at)
    return null
  }))
}
