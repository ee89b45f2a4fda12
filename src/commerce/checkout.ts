// Native checkout with processor A (POST /api/checkout): a pending order for a product, tied to the
// visitor's click, and a payment intent at the processor; the browser pays with its client secret, and the
// processor's payment_intent.succeeded (/webhook/pay-a/…) counts the order. No HTTP framework here.
import { invalid } from '../lib/errors'
import { normalizeClickId } from '../lib/click-id'
import { normalizeEmail } from '../lib/email-address'
import { errorFields, log } from '../lib/log'
import { deadline } from '../lib/abortable'
import type { SettingsStore } from '../context'
import type { CommerceStore } from './store/types'
import { NATIVE_PENDING } from './senders/pay-a'
import { toMinorUnits } from './parse'

/** What svc's registered endpoint listens to. */
export const PAY_A_EVENTS = ['payment_intent.succeeded', 'payment_intent.payment_failed', 'charge.refunded',
  'customer.subscription.created', 'customer.subscription.updated', 'customer.subscription.deleted'] as const


export interface CheckoutProduct { id: number; name: string; price: number; currency: string; active: boolean | number; paymentAccountId: number | null }
export interface CheckoutAccount { id: number; type: string; apiKey: string | null; webhookRegisteredAt: number | null }

/** The processor is unreachable or refused: the route answers 502 with this message. */
export class ProviderError extends Error {}

export interface CheckoutDeps {
  store: CommerceStore
  settings: SettingsStore
  apiBase: string
  publicUrl: string | null
  /** Provider calls never hang a checkout: this long (SVC_JOBS_TIMEOUT_MS, 10 s by default), then a clear error. */
  timeoutMs: number
  product(id: number): Promise<CheckoutProduct | undefined>
  account(id: number): Promise<CheckoutAccount | undefined>
  markWebhookRegistered(accountId: number, secret: string, now: number): Promise<void>
}

export interface CheckoutAnswer {
  order_id: number
  payment_intent: string
  client_secret: string
  amount: number
  currency: string
}

export class Checkout {
  constructor(private readonly deps: CheckoutDeps) {}

  /** `body`: {product_id, email?, click_id?}; `cookieClickId`: the visitor's _svc_click cookie. */
  async start(body: Record<string, unknown>, cookieClickId: string | null, now = Date.now()): Promise<CheckoutAnswer> {
    const raw = body.product_id
    const productId = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,9}$/.test(raw) ? Number(raw) : NaN
    if (!Number.isSafeInteger(productId) || productId < 1) throw invalid('product_id: must be a positive integer')
    const product = await this.deps.product(productId)
    if (!product || !product.active) throw invalid('product_id: no such product for sale')
    let email: string | null = null
    if (body.email !== undefined && body.email !== null && body.email !== '') {
      email = typeof body.email === 'string' ? normalizeEmail(body.email) : null
      if (!email) throw invalid('email: not a valid email address')
    }
    const account = product.paymentAccountId === null ? undefined : await this.deps.account(product.paymentAccountId)
    if (!account || account.type !== 'pay-a' || !account.apiKey) throw invalid('product_id: the product has no payment account of processor A with an API key')
    const clickId = normalizeClickId(typeof body.click_id === 'string' ? body.click_id : null) ?? normalizeClickId(cookieClickId)
    if (account.webhookRegisteredAt === null) await this.registerWebhook(account, now)
    const intent = await this.createIntent(account.apiKey, product, email, clickId)
    const order = await this.deps.store.createOrder({
      source: 'pay-a', externalId: intent.id, status: 'pending', currency: product.currency, total: product.price, email, clickId,
      productId: product.id, paymentAccountId: account.id, now,
    })
    return { order_id: order.id, payment_intent: intent.id, client_secret: intent.clientSecret, amount: product.price, currency: product.currency }
  }

  private async post(apiKey: string, path: string, form: URLSearchParams): Promise<Record<string, unknown>> {
    let res: Response
    let json: Record<string, unknown> | null
    const { signal, clear } = deadline(this.deps.timeoutMs)
    try {
      try {
        res = await fetch(`${this.deps.apiBase}${path}`, {
          method: 'POST', body: form, signal,
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
        })
      } catch (err) {
        throw new ProviderError(`the payment processor did not answer (${(err as Error).name === 'TimeoutError' ? 'timeout' : 'unreachable'})`)
      }
      json = (await res.json().catch(() => null)) as Record<string, unknown> | null
    } finally {
      clear()
    }
    if (!res.ok || !json) {
      const message = (json?.error as { message?: unknown } | undefined)?.message
      throw new ProviderError(`the payment processor refused (${res.status}${typeof message === 'string' ? `: ${message.slice(0, 200)}` : ''})`)
    }
    return json
  }

  private async createIntent(apiKey: string, product: CheckoutProduct, email: string | null, clickId: string | null) {
    const form = new URLSearchParams({
      amount: String(toMinorUnits(product.price, product.currency)), currency: product.currency.toLowerCase(),
      'automatic_payment_methods[enabled]': 'true', 'metadata[product_id]': String(product.id), description: product.name.slice(0, 200),
    })
    if (clickId) form.set('metadata[_svc_click]', clickId)
    if (email) {
      form.set('receipt_email', email)
      form.set('metadata[email]', email)
    }
    const pi = await this.post(apiKey, '/v1/payment_intents', form)
    if (typeof pi.id !== 'string' || typeof pi.client_secret !== 'string') throw new ProviderError('the payment processor answered without a payment intent')
    return { id: pi.id, clientSecret: pi.client_secret }
  }

  /**
   * Best effort, at an account's first checkout: svc registers its endpoint (native-pending) and keeps the
   * signing secret the processor returns. A failure is logged and tried again at the next checkout; the
   * merchant can always set it up by hand (docs/commerce.md).
   */
  private async registerWebhook(account: CheckoutAccount & { apiKey: string | null }, now: number): Promise<void> {
    if (!this.deps.settings.get('pay_a_register_webhook') || !this.deps.publicUrl || !account.apiKey) return
    const form = new URLSearchParams({ url: `${this.deps.publicUrl}/webhook/pay-a/${NATIVE_PENDING}` })
    for (const e of PAY_A_EVENTS) form.append('enabled_events[]', e)
    try {
      const endpoint = await this.post(account.apiKey, '/v1/webhook_endpoints', form)
      if (typeof endpoint.secret !== 'string') throw new ProviderError('no signing secret in the answer')
      await this.deps.markWebhookRegistered(account.id, endpoint.secret, now)
      log.info('commerce: registered the webhook endpoint at processor A', { account: account.id })
    } catch (err) {
      log.warn('commerce: registering the webhook endpoint at processor A failed (tried again at the next checkout; or set it up by hand)', {
        account: account.id, ...errorFields(err),
      })
    }
  }
}
