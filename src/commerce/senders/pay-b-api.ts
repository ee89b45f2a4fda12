// Payment processor B's verification API (the wallet processor with a verify-webhook-signature API;
// PROTOCOLS.md §5): asking the provider whether a webhook delivery really comes from it. senders/pay-b.ts
// reads the event. No routes and no database here.
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
import { abortable, deadline } from '../../lib/abortable'
import { log } from '../../lib/log'
import { obj } from '../parse'

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
    return obj(JSON.parse(text))
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
