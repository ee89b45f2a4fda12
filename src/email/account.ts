// Magic-link customer accounts (spec §4 POST /api/account/magic-link): a person types their email, gets a
// single-use link valid 15 minutes, and opening it signs them in with a customer session cookie (not the
// admin one). The answer is the same whether the address is known or not, so it tells a stranger nothing;
// only addresses svc knows (a customer, or a subscriber of any list) get a mail, so the form cannot be used
// to mail strangers, and one address gets at most a few links an hour.
import { createHash } from 'node:crypto'
import { SessionSigner } from '../auth/session'
import { invalid } from '../lib/errors'
import { randomToken } from '../lib/crypto'
import { RateLimiter } from '../lib/rate-limit'
import type { SettingsStore } from '../settings/store'
import { normalizeEmail } from './address'
import type { Sender } from './outbox'
import type { Consumed, Customer, CustomerStore } from './store/customers'
import type { OutboxStore } from './store/outbox-types'

export const CUSTOMER_COOKIE = 'svc_customer_session'
export const LINK_TTL_MS = 15 * 60_000
/** Customer sessions last 30 days (the cookie's Max-Age). */
export const CUSTOMER_SESSION_S = 30 * 24 * 3600
/** Links mailed to one address per hour, whoever asks. */
const PER_ADDRESS_PER_HOUR = 5

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex')

export class CustomerAccounts {
  readonly sessions: SessionSigner
  private readonly perAddress = new RateLimiter(PER_ADDRESS_PER_HOUR, 3600_000)

  constructor(private readonly deps: {
    store: CustomerStore; outbox: OutboxStore; sender: Sender; settings: SettingsStore; secret: string; publicUrl: string | null
    /** A buyer who is on no list is known too (native commerce: an order with this address). */
    isBuyer?: (email: string) => Promise<boolean>
  }) {
    this.sessions = new SessionSigner(deps.secret, CUSTOMER_SESSION_S, 'customer-session-cookie')
  }

  /**
   * Checks the request (400 naming the field) and, for a known address that may be mailed, writes the link
   * to the outbox. Resolves the same way for every valid request.
   */
  async requestLink(input: { email: unknown; redirect: unknown }, base: string): Promise<void> {
    if (typeof input.email !== 'string') throw invalid('email: must be a string')
    const email = normalizeEmail(input.email)
    if (!email) throw invalid('email: not a valid email address')
    const redirect = this.checkRedirect(input.redirect)
    if (!(await this.deps.store.isKnown(email)) && !(await this.deps.isBuyer?.(email))) return
    if (await this.deps.outbox.suppression(email, null)) return
    if (!this.perAddress.hit(email).allowed) return
    const token = randomToken(32)
    const now = Date.now()
    await this.deps.store.issueToken(email, hashOf(token), redirect, now + LINK_TTL_MS, now)
    const link = `${this.deps.publicUrl ?? base}/api/account/verify?token=${token}`
    await this.deps.sender.queue([{
      listId: null, subscriberId: null, toEmail: email,
      subject: 'Your sign-in link',
      textBody: `Open this link to sign in. It works once, for 15 minutes:\n\n${link}\n\nIf you did not ask for it, ignore this email.\n`,
      htmlBody: null,
    }])
  }

  /** A used, expired or unknown token says which; a good one signs the customer in. */
  consume(token: string): Promise<Consumed> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return Promise.resolve({ ok: false, reason: 'unknown' })
    return this.deps.store.consumeToken(hashOf(token), Date.now())
  }

  /** The customer of a session cookie value, or null (malformed, forged, expired, or logged out since). */
  async customerOf(cookie: string | null): Promise<Customer | null> {
    const claims = this.sessions.verify(cookie)
    if (!claims) return null
    const customer = await this.deps.store.find(claims.userId)
    return customer && customer.sessionEpoch === claims.epoch ? customer : null
  }

  logout(customer: Customer): Promise<void> {
    return this.deps.store.endSessions(customer.id)
  }

  /** A path on this host, or an absolute URL on an origin of the cors_allowlist setting (never "*"). */
  private checkRedirect(value: unknown): string | null {
    if (value === undefined || value === null || value === '') return null
    const bad = () => invalid('redirect: must be a path here (/…) or a URL on an origin of the cors_allowlist setting')
    if (typeof value !== 'string' || value.length > 2000) throw bad()
    if (value.startsWith('/') && !value.startsWith('//') && !value.includes('\\')) return value
    let url: URL
    try {
      url = new URL(value)
    } catch {
      throw bad()
    }
    if (!this.deps.settings.get('cors_allowlist').includes(url.origin)) throw bad()
    return url.href
  }
}
