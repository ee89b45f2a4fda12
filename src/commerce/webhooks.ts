// The one pipeline every webhook sender goes through (spec §4, issue 11). A sender module (senders/*.ts)
// says how its deliveries are verified and read; here a refused delivery is stored (bounded: an
// unauthenticated sender cannot fill the table), an accepted one is stored with its body, deduplicated, and
// its order change applied (orders.ts) in one transaction with the conversion it records, group-committed
// with the other deliveries of the turn (recorder.withinBatched). No HTTP here: routes.ts reads the request
// and answers what this returns.
import { RateLimiter } from '../lib/rate-limit'
import { errorFields, log } from '../lib/log'
import type { SettingsStore } from '../context'
import type { ConversionRecorder, ConversionTypes } from '../postback'
import { orderEventSteps, type OrderEvent, type StepResult } from './orders'
import { crop } from './parse'
import type { Delivery, PaymentAccount, Reading } from './senders/delivery'
import { ecomATopic, readEcomA, verifyEcomA } from './senders/ecom-a'
import { ecomBPing, ecomBTopic, readEcomB, verifyEcomB } from './senders/ecom-b'
import { NATIVE_PENDING, payARefusal, payASignature, payASignatureHeader, readPayA, type PayACheck } from './senders/pay-a'
import { payBAmbiguity, readPayB, verifyPayB } from './senders/pay-b'
import type { PayBVerifier } from './senders/pay-b-api'
import type { CommerceStore, NewWebhookEvent, SignatureOutcome, WebhookSource } from './store/types'

/** What an event row keeps of the body, for a merchant reading why an order was not attributed. */
const PAYLOAD_KEPT = 64 * 1024

export interface WebhookAnswer {
  status: 200 | 400 | 401
  /** `{ok:true, …}` or the error body. */
  body: Record<string, unknown>
}

export interface AccountLookup {
  byAccountId(accountId: string): Promise<PaymentAccount | undefined>
  /** pay-a accounts whose webhook endpoint svc registered (what native-pending checks against). */
  registeredPayA(): Promise<PaymentAccount[]>
}

/** Refused deliveries stored a minute, in all and per address (the rest are answered the same, not stored). */
export const STORED_REFUSALS_PER_MINUTE = 120
export const STORED_REFUSALS_PER_ADDRESS = 5
/** ecom-b pings (unsigned) stored an hour, in all and per address (each is still answered 200). */
export const STORED_PINGS_PER_HOUR = 30
export const STORED_PINGS_PER_ADDRESS = 3

export class WebhookReceiver {
  // What an unauthenticated sender can make svc store (refused deliveries, ecom-b's unsigned pings) is bounded
  // per address and in all; the per-address limit is taken first, so one address can never use up more than
  // its own share of the total the merchant's own misconfigured deliveries also need.
  /** Refused deliveries stored: 120 a minute in all, 5 a minute per address. */
  private readonly refusals = new RateLimiter(STORED_REFUSALS_PER_MINUTE, 60_000)
  private readonly refusalsPer = new RateLimiter(STORED_REFUSALS_PER_ADDRESS, 60_000)
  /** ecom-b's unsigned save-time pings stored: 30 an hour in all, 3 an hour per address (still answered 200). */
  private readonly pings = new RateLimiter(STORED_PINGS_PER_HOUR, 3_600_000)
  private readonly pingsPer = new RateLimiter(STORED_PINGS_PER_ADDRESS, 3_600_000)

  constructor(private readonly deps: {
    store: CommerceStore
    recorder: ConversionRecorder
    types: ConversionTypes
    settings: SettingsStore
    accounts?: AccountLookup
    payB?: PayBVerifier
    /** A native product: the list its buyers join. */
    productOf?: (id: number) => Promise<{ id: number; emailListId: number | null } | undefined>
  }) {}

  /** POST /webhook/ecom-a */
  async ecomA(d: Delivery, now = Date.now()): Promise<WebhookAnswer> {
    const { signature, why } = verifyEcomA(d, this.deps.settings)
    if (signature === 'invalid' || signature === 'missing') return this.refuse(d, 'ecom-a', signature, ecomATopic(d.headers), now, why)
    return this.accept('ecom-a', signature, d, readEcomA(d), now)
  }

  /** POST /webhook/ecom-b */
  async ecomB(d: Delivery, now = Date.now()): Promise<WebhookAnswer> {
    const ping = ecomBPing(d)
    if (ping !== null) {
      // Unsigned: anyone can send one, so only a few are kept (the merchant needs to see the first).
      if (!this.storable(d, this.pingsPer, this.pings, now)) return { status: 200, body: { ok: true, outcome: 'ignored' } }
      return this.store('ecom-b', 'ping', { kind: 'ignored', topic: null, eventId: null, why: 'the platform\'s ping when a webhook is saved' }, ping, now)
    }
    const signature = verifyEcomB(d, this.deps.settings)
    if (signature !== 'valid') return this.refuse(d, 'ecom-b', signature, ecomBTopic(d.headers), now)
    return this.accept('ecom-b', signature, d, readEcomB(d), now)
  }

  /**
   * POST /webhook/pay-a-ecom: the payment processor's events for a store outside svc (legacy global endpoint,
   * setting pay_a_ecom_webhook_secret).
   */
  async payAEcom(d: Delivery, now = Date.now()): Promise<WebhookAnswer> {
    const check = payASignature(this.deps.settings.get('pay_a_ecom_webhook_secret'), d.body, payASignatureHeader(d.headers), now)
    return check === 'valid' ? this.accept('pay-a', 'valid', d, readPayA(d, null, now), now) : this.refusePayA(d, check, now)
  }

  /**
   * POST /webhook/pay-a/:account_id: the same events, checked with that payment account's signing secret.
   * `native-pending` is the path svc registers at the processor (first checkout): it is checked against
   * every account whose endpoint svc registered, and the one whose secret matches is the account. Unknown
   * account → 404 (the processor retries for days while the merchant fixes the URL).
   */
  async payAAccount(accountId: string, d: Delivery, now = Date.now()): Promise<WebhookAnswer | 'not-found'> {
    const accounts = this.deps.accounts
    if (!accounts) return 'not-found'
    const given = payASignatureHeader(d.headers)
    const candidates = accountId === NATIVE_PENDING
      ? await accounts.registeredPayA()
      : [await accounts.byAccountId(accountId)].filter((a): a is PaymentAccount => a !== undefined && a.type === 'pay-a')
    if (candidates.length === 0) return 'not-found'
    let check: PayACheck = 'invalid'
    for (const account of candidates) {
      check = payASignature(account.webhookSecret, d.body, given, now)
      if (check === 'valid') return this.accept('pay-a', 'valid', d, readPayA(d, account.id, now), now)
      if (check === 'missing' || check === 'stale') break
    }
    return this.refusePayA(d, check, now)
  }

  /**
   * POST /webhook/pay-b/:account_id: verified by the provider's own API (the account's OAuth client and
   * webhook id). Unreachable → 503, so the sender retries (a 401 would tell it the event is forged).
   */
  async payBAccount(accountId: string, d: Delivery, now = Date.now()): Promise<WebhookAnswer | 'not-found' | 'unavailable'> {
    const account = await this.deps.accounts?.byAccountId(accountId)
    if (!account || account.type !== 'pay-b' || !this.deps.payB) return 'not-found'
    const ambiguous = payBAmbiguity(d.body)
    if (ambiguous !== null) return { status: 400, body: { error: ambiguous } }
    const verdict = await verifyPayB(this.deps.payB, account, d)
    if (verdict === 'unavailable') return 'unavailable'
    if (verdict === 'invalid') return this.refuse(d, 'pay-b', 'invalid', null, now)
    return this.accept('pay-b', 'valid', d, readPayB(d, account.id), now)
  }

  private refusePayA(d: Delivery, check: PayACheck, now: number): Promise<WebhookAnswer> {
    const { signature, why } = payARefusal(check)
    return this.refuse(d, 'pay-a', signature, null, now, why)
  }

  /** A verified delivery, read: stored as ignored (or as an error), or its order change applied. */
  private async accept(source: WebhookSource, signature: SignatureOutcome, d: Delivery, r: Reading, now: number): Promise<WebhookAnswer> {
    const payload = this.payloadOf(d.body)
    if (r.kind !== 'order') return this.store(source, signature, r, payload, now)
    let change = r.change
    if (r.product !== undefined) {
      // The product's list is where the buyer goes once paid (its automations: the post-purchase sequence).
      const product = r.product !== null && this.deps.productOf ? await this.deps.productOf(r.product) : undefined
      change = { ...change, order: { ...change.order, productId: product ? product.id : null }, emailListId: product?.emailListId ?? null }
    }
    return this.run({ delivery: this.delivery(source, signature, r.topic, r.eventId, r.dedupKey, r.orderExternalId, payload, now), ...change })
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
  private async refuse(d: Delivery, source: WebhookSource, signature: SignatureOutcome, topic: string | null, now: number, why?: string): Promise<WebhookAnswer> {
    const error = why ?? (signature === 'missing' ? 'missing signature' : 'invalid signature')
    if (this.storable(d, this.refusalsPer, this.refusals, now)) await this.deps.store.recordRefused({
      ...this.delivery(source, signature, topic, null, null, null, '', now), payload: null, outcome: 'rejected', error,
    })
    return { status: 401, body: { error } }
  }

  /** Whether an unauthenticated delivery may be stored: its address's share first, then the total. */
  private storable(d: Delivery, perAddress: RateLimiter, total: RateLimiter, now: number): boolean {
    if (d.throttled) return false
    if (d.client && !perAddress.hit(d.client, now).allowed) return false
    return total.hit('all', now).allowed
  }

  /**
   * Nothing to apply: stored `ignored` (a topic svc does not handle, a body that is not JSON), or `error` (an
   * amount svc cannot read: nothing counted; a redelivery would carry the same amount): 200 either way.
   */
  private async store(source: WebhookSource, signature: SignatureOutcome, r: Reading & { kind: 'ignored' | 'error' }, payload: string, now: number): Promise<WebhookAnswer> {
    await this.deps.store.recordRefused({ ...this.delivery(source, signature, r.topic, r.eventId, null, null, payload, now), outcome: r.kind, error: r.why })
    return { status: 200, body: { ok: true, outcome: r.kind } }
  }

  /** The order's steps and their conversion in one transaction; a failure is stored (outcome error) and thrown (→ 500: the sender retries). */
  private async run(e: OrderEvent): Promise<WebhookAnswer> {
    const { recorder, store, types } = this.deps
    const orderTypes = { sale: types.resolve('sale'), reversal: types.resolve('chargeback') }
    let r: StepResult
    try {
      // Group-committed with the other deliveries of this event-loop turn (SQLite), each in its own savepoint.
      r = await recorder.withinBatched((record, q, tx, unit) => orderEventSteps(store.in(tx), q, record, orderTypes, e, unit))
    } catch (err) {
      log.error('commerce: a webhook event could not be processed (the sender will retry)', { source: e.delivery.source, topic: e.delivery.topic, ...errorFields(err) })
      await store.recordRefused({ ...e.delivery, dedupKey: null, outcome: 'error', error: String(errorFields(err).error ?? 'error').slice(0, 500) }).catch(() => {})
      throw err
    }
    return { status: 200, body: { ok: true, outcome: r.outcome, ...(r.duplicate ? { duplicate: true } : {}) } }
  }
}
