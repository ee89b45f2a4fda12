// Payment processor B (the wallet processor with a verify-webhook-signature API; PROTOCOLS.md §5): checking
// that a webhook delivery really comes from the provider, and reading its event into a plain description
// the receiver maps to its order steps (orders.ts). No routes and no database here.
//
// Verification is provider-side: the service asks the provider's API whether the delivery's transmission
// headers and body were signed for this account's webhook id. That needs an OAuth client-credentials token
// of the merchant's app (cached per client id). Three answers:
//   valid        the provider said SUCCESS
//   invalid      the provider said anything else, or the delivery cannot be one of its events (transmission
//                headers missing, body not a JSON object): the route answers 401, the event is refused
//   unavailable  the question could not be answered (network, timeout, 5xx, 429, token endpoint failure,
//                unreadable answer, the merchant's credentials refused): the route answers 503 so the
//                provider retries (25 times over 3 days) — never 401, which would record a genuine event as forged
//
// Transmission headers, either spelling (the same values; ours first, then the provider's own):
//   PAYB-AUTH-ALGO          PAYPAL-AUTH-ALGO
//   PAYB-CERT-URL           PAYPAL-CERT-URL
//   PAYB-TRANSMISSION-ID    PAYPAL-TRANSMISSION-ID
//   PAYB-TRANSMISSION-SIG   PAYPAL-TRANSMISSION-SIG
//   PAYB-TRANSMISSION-TIME  PAYPAL-TRANSMISSION-TIME
//
// Secrets: neither the client secret nor a token is ever logged or put in an error message.
import { createHash } from 'node:crypto'
import { abortable, deadline } from '../lib/abortable'
import { normalizeClickId } from '../lib/click-id'
import { log } from '../lib/log'

export type PayBVerdict = 'valid' | 'invalid' | 'unavailable'

export interface PayBAccount {
  clientId: string
  clientSecret: string
  /** The provider's id of the webhook this account registered (payment_accounts.webhook_secret for pay-b). */
  webhookId: string
}

export interface PayBVerifierOptions {
  /** e.g. https://api-m.paypal.com (sandbox: https://api-m.sandbox.paypal.com); no trailing path. */
  apiBase: string
  /** Bounds one whole verify() call: token request, verification, and the one retry. Default 10000. */
  timeoutMs?: number
  /** The clock of the token cache (tests advance it). */
  now?: () => number
}

/** Header names per transmission field: ours first, then the provider's own. */
export const PAY_B_HEADERS = {
  auth_algo: ['payb-auth-algo', 'paypal-auth-algo'],
  cert_url: ['payb-cert-url', 'paypal-cert-url'],
  transmission_id: ['payb-transmission-id', 'paypal-transmission-id'],
  transmission_sig: ['payb-transmission-sig', 'paypal-transmission-sig'],
  transmission_time: ['payb-transmission-time', 'paypal-transmission-time'],
} as const

type TransmissionField = keyof typeof PAY_B_HEADERS
const FIELDS = Object.keys(PAY_B_HEADERS) as TransmissionField[]

/** A cached token is dropped this long before the provider says it expires. */
const TOKEN_MARGIN_MS = 60_000
/** A header value longer than this is not the provider's (a base64 RSA signature is ~350 characters). */
const MAX_HEADER = 4096

/** Why a verification could not be answered: logged (no secrets), then 'unavailable'. */
class Unavailable extends Error {
  constructor(readonly reason: string, readonly status?: number) {
    super(reason)
  }
}

interface CachedToken {
  token: string
  /** Epoch ms after which the cache no longer hands it out (0: use once, never cached). */
  until: number
  /** sha256 of the client secret it was issued for: a changed secret fetches a new token. */
  secretKey: string
}

export class PayBVerifier {
  private readonly apiBase: string
  private readonly timeoutMs: number
  private readonly now: () => number
  private readonly host: string
  /** client id → its token. */
  private readonly tokens = new Map<string, CachedToken>()
  /** client id → the token request under way (concurrent verifications share one). */
  private readonly pending = new Map<string, { secretKey: string; promise: Promise<CachedToken> }>()

  constructor(opts: PayBVerifierOptions) {
    this.apiBase = opts.apiBase.replace(/\/+$/, '')
    this.timeoutMs = opts.timeoutMs ?? 10_000
    this.now = opts.now ?? Date.now
    let host = ''
    try { host = new URL(this.apiBase).host } catch { /* a bad base fails each request: 'unavailable' */ }
    this.host = host
  }

  async verify(account: PayBAccount, headers: Headers, rawBody: Uint8Array): Promise<PayBVerdict> {
    const transmission = readTransmission(headers)
    if (!transmission) return 'invalid'
    const eventText = rawEventText(rawBody)
    if (eventText === null) return 'invalid'
    if (!account.clientId || !account.clientSecret || !account.webhookId) {
      log.warn('pay-b: the payment account lacks its client id, client secret or webhook id; the event waits (503) until it is set', { host: this.host })
      return 'unavailable'
    }
    // The event goes exactly as received (the provider's docs): its raw text spliced into the request text,
    // never parsed and re-serialised (which could change number formats such as 1.10, or key order).
    // rawEventText checked it is one JSON object, so the result is valid JSON.
    let body = '{'
    for (const f of FIELDS) body += `${JSON.stringify(f)}:${JSON.stringify(transmission[f])},`
    body += `"webhook_id":${JSON.stringify(account.webhookId)},"webhook_event":${eventText}}`

    const { signal, clear } = deadline(this.timeoutMs)
    try {
      for (let attempt = 0; ; attempt++) {
        const token = await abortable(this.token(account), signal)
        const res = await abortable(fetch(`${this.apiBase}/v1/notifications/verify-webhook-signature`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token.token}`, 'content-type': 'application/json', accept: 'application/json' },
          body,
          signal,
          redirect: 'manual',
        }), signal)
        if (res.status === 401 && attempt === 0) {
          // The token was revoked or expired early: a new one, and the verification once more.
          await res.body?.cancel().catch(() => {})
          this.dropToken(account.clientId, token)
          continue
        }
        return await this.verdict(res, signal)
      }
    } catch (err) {
      const fields = err instanceof Unavailable ? { reason: err.reason, status: err.status }
        : { reason: errorName(err) }
      log.warn('pay-b: webhook verification unavailable; answered 503 so the provider retries', { host: this.host, ...fields })
      return 'unavailable'
    } finally {
      clear()
    }
  }

  private async verdict(res: Response, signal: AbortSignal): Promise<PayBVerdict> {
    const status = res.status
    if (status >= 200 && status < 300) {
      const text = await abortable(res.text(), signal)
      const answer = parseObject(text)
      const v = answer?.verification_status
      if (typeof v !== 'string') throw new Unavailable('unreadable verification answer', status)
      return v === 'SUCCESS' ? 'valid' : 'invalid'
    }
    await res.body?.cancel().catch(() => {})
    // 400/422: the provider refused the request's content, which is the delivery's own (headers, body) —
    // not a confirmation, and nothing a retry changes.
    if (status === 400 || status === 422) return 'invalid'
    // 401 again after a fresh token (credentials without the webhooks scope), 403/404 (an app or webhook id
    // the provider does not know), 429, 5xx, redirects: the merchant's configuration or the provider's
    // trouble, not a forged event.
    throw new Unavailable(status === 401 ? 'verification answered 401 with a fresh token' : 'verification answered an error', status)
  }

  /** A cached token of this client, or the one being fetched, or a new one. */
  private token(account: PayBAccount): Promise<CachedToken> {
    const secretKey = createHash('sha256').update(account.clientSecret).digest('hex')
    const cached = this.tokens.get(account.clientId)
    if (cached && cached.secretKey === secretKey && this.now() < cached.until) return Promise.resolve(cached)
    const running = this.pending.get(account.clientId)
    if (running && running.secretKey === secretKey) return running.promise
    const promise = this.fetchToken(account, secretKey)
    const entry = { secretKey, promise }
    this.pending.set(account.clientId, entry)
    const clear = () => { if (this.pending.get(account.clientId) === entry) this.pending.delete(account.clientId) }
    promise.then((t) => {
      clear()
      if (t.until > 0) this.tokens.set(account.clientId, t)
    }, clear)
    return promise
  }

  private dropToken(clientId: string, token: CachedToken): void {
    // Only that token: another verification may have put a fresh one in its place already.
    if (this.tokens.get(clientId) === token) this.tokens.delete(clientId)
  }

  /**
   * POST /v1/oauth2/token with the client credentials. Any failure is 'unavailable' — a refused client id
   * or secret (401) included: that is the merchant's configuration error, not a forged event, so the
   * provider keeps retrying while the merchant fixes it.
   */
  private async fetchToken(account: PayBAccount, secretKey: string): Promise<CachedToken> {
    // Its own deadline: concurrent verifications share this request, each also bounded by its own.
    const { signal, clear } = deadline(this.timeoutMs)
    const basic = Buffer.from(`${account.clientId}:${account.clientSecret}`, 'utf8').toString('base64')
    let res: Response
    let answer: Record<string, unknown> | null
    try {
      res = await fetch(`${this.apiBase}/v1/oauth2/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: 'grant_type=client_credentials',
        signal,
        redirect: 'manual',
      })
      if (res.status < 200 || res.status >= 300) {
        await res.body?.cancel().catch(() => {})
        throw new Unavailable(res.status === 401 ? 'the token endpoint refused the client id or secret' : 'the token endpoint answered an error', res.status)
      }
      answer = parseObject(await abortable(res.text(), signal))
    } finally {
      clear()
    }
    const token = answer?.access_token
    if (typeof token !== 'string' || token === '' || /[\s\u0000-\u001f]/.test(token)) throw new Unavailable('unreadable token answer', res.status)
    const expiresIn = typeof answer?.expires_in === 'number' ? answer.expires_in
      : typeof answer?.expires_in === 'string' && /^\d{1,10}$/.test(answer.expires_in) ? Number(answer.expires_in) : NaN
    const until = Number.isFinite(expiresIn) && expiresIn > 0 ? this.now() + expiresIn * 1000 - TOKEN_MARGIN_MS : 0
    return { token, until: until > this.now() ? until : 0, secretKey }
  }
}

/** The five transmission values, or null when one is missing (or absurd). */
function readTransmission(h: Headers): Record<TransmissionField, string> | null {
  const out = {} as Record<TransmissionField, string>
  for (const f of FIELDS) {
    let value: string | null = null
    for (const name of PAY_B_HEADERS[f]) {
      const v = h.get(name)?.trim()
      if (v) { value = v; break }
    }
    if (value === null || value.length > MAX_HEADER) return null
    out[f] = value
  }
  return out
}

/** The body's text when it is one JSON object (the provider's events are), else null. Strict UTF-8. */
function rawEventText(body: Uint8Array): string | null {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body)
  } catch {
    return null
  }
  return parseObject(text) ? text : null
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text) as unknown
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null
  } catch {
    return null
  }
}

/** An error's name and code (ECONNRESET, TimeoutError…): never its message, which could carry a URL. */
function errorName(err: unknown): string {
  if (!(err instanceof Error) && !(err instanceof DOMException)) return 'error'
  const code = (err as { code?: unknown }).code
  return typeof code === 'string' && /^[\w.-]{1,40}$/.test(code) ? `${err.name}:${code}` : err.name
}

// ---------------------------------------------------------------------------------------------------------
// The event reader

export type PayBEventKind = 'capture-completed' | 'capture-refunded' | 'subscription' | 'other'

export interface PayBSubscription {
  /** I-… */
  externalId: string | null
  /** APPROVAL_PENDING, APPROVED, ACTIVE, SUSPENDED, CANCELLED, EXPIRED… as sent. */
  status: string | null
  /** subscriber.payer_id */
  customerExternalId: string | null
  email: string | null
  clickId: string | null
  /** billing_info.next_billing_time in epoch ms. */
  currentPeriodEnd: number | null
}

export interface PayBEvent {
  /** The envelope's id (WH-…): the dedupe key. */
  id: string | null
  /** event_type as sent. */
  type: string | null
  kind: PayBEventKind
  /**
   * The capture id: the order as this processor knows it (a refund names the capture it refunds, so both
   * events land on the same order). null for subscriptions and other events.
   */
  orderExternalId: string | null
  /** The provider's checkout order id (supplementary_data.related_ids.order_id) when sent, else null. */
  relatedOrderId: string | null
  /** capture-completed: the captured amount; capture-refunded: this refund's amount; else 0. Decimal. */
  amount: number
  /** Upper-case ISO code, or null. */
  currency: string | null
  clickId: string | null
  email: string | null
  /** capture-refunded: this refund's id (the dedupe key of a refund). */
  refundId?: string | null
  /** capture-refunded: this refund's own amount (the same as `amount`). */
  refundAmount?: number
  /**
   * capture-refunded: the capture's cumulative refunded amount, only when the provider reports it
   * (seller_payable_breakdown.total_refunded_amount); absent otherwise.
   */
  refundedTotal?: number
  subscription?: PayBSubscription
}

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null)
const text = (v: unknown, max = 200): string | null =>
  typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, max) : typeof v === 'number' && Number.isFinite(v) ? String(v) : null
/** The provider's decimal strings (`"10.00"`, `".5"`); a number is taken as is. Anything else: 0. */
function money(v: unknown): number {
  const n = typeof v === 'number' ? v
    : typeof v === 'string' && /^-?(\d{1,15}(\.\d{1,8})?|\.\d{1,8})$/.test(v.trim()) ? Number(v.trim()) : NaN
  return Number.isFinite(n) ? n : 0
}
const currencyOf = (v: unknown): string | null => {
  const c = text(v)
  return c && /^[A-Za-z]{3}$/.test(c) ? c.toUpperCase() : null
}
const emailOf = (v: unknown): string | null => {
  const e = text(v, 254)
  return e && e.includes('@') ? e : null
}
/** The click id the checkout put in custom_id, else in invoice_id; only a UUID counts. */
const clickOf = (r: Obj): string | null => normalizeClickId(text(r.custom_id)) ?? normalizeClickId(text(r.invoice_id))
const relatedIds = (r: Obj): Obj => obj(obj(r.supplementary_data)?.related_ids) ?? {}

/** The capture a refund belongs to: its `up` link (…/v2/payments/captures/<id>), else related_ids.capture_id. */
function refundedCapture(r: Obj): string | null {
  if (Array.isArray(r.links)) {
    for (const l of r.links) {
      const link = obj(l)
      if (!link || link.rel !== 'up' || typeof link.href !== 'string') continue
      const m = /\/captures\/([A-Za-z0-9_-]{1,100})(?:[/?#]|$)/.exec(link.href)
      if (m) return m[1]
    }
  }
  return text(relatedIds(r).capture_id)
}

/** Date text → epoch ms, or null. */
function timeOf(v: unknown): number | null {
  if (typeof v !== 'string' || v.length > 64) return null
  const t = Date.parse(v)
  return Number.isFinite(t) ? t : null
}

/**
 * The event as the receiver needs it. Never throws: anything malformed leaves its fields null (amount 0).
 *
 * PAYMENT.CAPTURE.COMPLETED   orderExternalId = the capture id; amount/currency from amount.{value,currency_code}
 * PAYMENT.CAPTURE.REFUNDED    orderExternalId = the refunded capture's id; amount = refundAmount = this refund's
 *                             amount; refundId. The provider sends each refund's own amount, not a running
 *                             total: the caller accumulates the refunds of a capture itself (keyed by refundId
 *                             so a redelivery does not count twice). refundedTotal is set only when the
 *                             event also reports the capture's cumulative total_refunded_amount.
 * BILLING.SUBSCRIPTION.*      subscription (no amount: the provider sends none; renewals come as
 *                             PAYMENT.SALE.COMPLETED, which is 'other' here)
 */
export function readPayBEvent(event: unknown): PayBEvent {
  const e = obj(event) ?? {}
  const type = text(e.event_type, 100)
  const r = obj(e.resource)
  const base: PayBEvent = {
    id: text(e.id), type, kind: 'other', orderExternalId: null, relatedOrderId: null, amount: 0, currency: null, clickId: null, email: null,
  }
  if (!r || !type) return base
  const amount = obj(r.amount) ?? {}
  const payerEmail = emailOf(obj(r.payer)?.email_address)
  if (type === 'PAYMENT.CAPTURE.COMPLETED') {
    return {
      ...base, kind: 'capture-completed', orderExternalId: text(r.id), relatedOrderId: text(relatedIds(r).order_id),
      amount: money(amount.value), currency: currencyOf(amount.currency_code), clickId: clickOf(r), email: payerEmail,
    }
  }
  if (type === 'PAYMENT.CAPTURE.REFUNDED') {
    const refundAmount = money(amount.value)
    const total = obj(obj(r.seller_payable_breakdown)?.total_refunded_amount)
    const out: PayBEvent = {
      ...base, kind: 'capture-refunded', orderExternalId: refundedCapture(r), relatedOrderId: text(relatedIds(r).order_id),
      amount: refundAmount, currency: currencyOf(amount.currency_code), clickId: clickOf(r), email: payerEmail,
      refundId: text(r.id), refundAmount,
    }
    if (total && total.value !== undefined) {
      const t = money(total.value)
      if (t > 0) out.refundedTotal = t
    }
    return out
  }
  if (type.startsWith('BILLING.SUBSCRIPTION.')) {
    const subscriber = obj(r.subscriber) ?? {}
    const subscription: PayBSubscription = {
      externalId: text(r.id),
      status: text(r.status, 40),
      customerExternalId: text(subscriber.payer_id),
      email: emailOf(subscriber.email_address),
      clickId: normalizeClickId(text(r.custom_id)),
      currentPeriodEnd: timeOf(obj(r.billing_info)?.next_billing_time),
    }
    return { ...base, kind: 'subscription', clickId: subscription.clickId, email: subscription.email, subscription }
  }
  return base
}
