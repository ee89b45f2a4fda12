// Magic-link customer accounts (spec §4 POST /api/account/magic-link): a person types their email, gets a
// single-use link valid 15 minutes, and opening it signs them in with a customer session cookie (not the
// admin one). The answer is the same whether the address is known or not, so it tells a stranger nothing,
// and so is the work the request does: it checks the input, counts the limits and enqueues one durable
// `account_link` job for every valid request. The job (section email) looks the address up and, only for
// an address svc knows (a customer, or a subscriber of any list) that may be mailed, writes the link to the
// outbox; so the form cannot be used to mail strangers, and its timing cannot tell known from unknown.
//
// Limits per address (besides the routes' per-IP one): 5 links an hour per address and requester (IPv4
// address, IPv6 /64), so one stranger cannot spend the owner's links, and at most 20 an hour per address
// whoever asks, against mail bombing from many networks. A request over a limit gets the same answer and
// enqueues nothing.
import { createHash } from 'node:crypto'
import { SessionSigner } from '../auth'
import { invalid } from '../lib/errors'
import { randomToken } from '../lib/crypto'
import { RateLimiter } from '../lib/rate-limit'
import type { JobQueue, SettingsStore } from '../context'
import { JobError } from '../jobs'
import { normalizeEmail } from '../lib/email-address'
import type { Sender } from './outbox'
import type { Consumed, Customer, CustomerStore } from './store/customers'
import type { OutboxStore } from './store/outbox-types'

export const CUSTOMER_COOKIE = 'svc_customer_session'
export const LINK_TTL_MS = 15 * 60_000
/** Customer sessions last 30 days (the cookie's Max-Age). */
export const CUSTOMER_SESSION_S = 30 * 24 * 3600
/** Links mailed to one address per hour for one requester (IPv4 address or IPv6 /64). */
export const PER_ADDRESS_AND_REQUESTER_PER_HOUR = 5
/** Links mailed to one address per hour, whoever asks (many requesters together: mail bombing). */
export const PER_ADDRESS_PER_HOUR = 20
/** The job that looks the address up and mails the link. */
export const LINK_JOB = 'account_link'
/** Where a signed-in customer lands when the link named no redirect (or its redirect is no longer allowed). */
export const LANDING = '/account'

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex')
/** Whitespace (ASCII and Unicode), C0/C1 controls, DEL, zero-width and bidi controls: browsers strip or reinterpret them. */
const UNSAFE = /[\s\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/u
const BAD_REDIRECT = 'redirect: must be a path here (/…) or a URL on an origin of the cors_allowlist setting'

/** Why no link is mailed while SVC_PUBLIC_URL is unset (the job's last_error). */
export const NO_PUBLIC_URL = 'SVC_PUBLIC_URL is not set: a sign-in link is mailed only to the public address (the request\'s Host header is the client\'s to choose)'

interface LinkPayload { email: string; redirect: string | null; base: string }

export class CustomerAccounts {
  readonly sessions: SessionSigner
  private readonly perRequester = new RateLimiter(PER_ADDRESS_AND_REQUESTER_PER_HOUR, 3600_000)
  private readonly perAddress = new RateLimiter(PER_ADDRESS_PER_HOUR, 3600_000)
  private jobs: JobQueue | null = null

  constructor(private readonly deps: {
    store: CustomerStore; outbox: OutboxStore; sender: Sender; settings: SettingsStore; secret: string; publicUrl: string | null
    /** A buyer who is on no list is known too (native commerce: an order with this address). */
    isBuyer?: (email: string) => Promise<boolean>
    jobs?: JobQueue
  }) {
    this.sessions = new SessionSigner(deps.secret, CUSTOMER_SESSION_S, 'customer-session-cookie')
    if (deps.jobs) this.useJobs(deps.jobs)
  }

  /** Registers the `account_link` job kind (once, before the loop starts) and enqueues the links there. */
  useJobs(jobs: JobQueue): void {
    if (this.jobs) return
    this.jobs = jobs
    jobs.register(LINK_JOB, (payload, _signal, job) => this.mailLink(payload, job.id), {
      section: 'email', maxAttempts: 5, backoffBaseMs: 1000, backoffMaxMs: 60_000, target: () => null,
    })
  }

  /**
   * Checks the request (400 naming the field), counts the per-address limits and enqueues the link's job.
   * Does the same work, and resolves the same way, whether the address is known or not.
   * `base`: this service as the request reached it; `requester`: the client's limit key (clientKey).
   */
  async requestLink(input: { email: unknown; redirect: unknown }, base: string, requester: string): Promise<void> {
    if (typeof input.email !== 'string') throw invalid('email: must be a string')
    const email = normalizeEmail(input.email)
    if (!email) throw invalid('email: not a valid email address')
    const redirect = this.checkRedirect(input.redirect, this.deps.publicUrl ?? base)
    if (!this.jobs) throw new Error('customer accounts: useJobs() was not called')
    const mine = `${email} ${requester}`
    if (!this.perRequester.check(mine).allowed) return
    if (!this.perAddress.hit(email).allowed) return
    this.perRequester.hit(mine)
    const payload: LinkPayload = { email, redirect, base: this.deps.publicUrl ?? base }
    await this.jobs.enqueue(LINK_JOB, payload)
    this.jobs.kick()
  }

  /** The job: for a known address that may be mailed, a new link in the outbox; nothing otherwise. */
  private async mailLink(payload: unknown, jobId: number): Promise<string> {
    const p = (payload ?? {}) as Partial<LinkPayload>
    const email = typeof p.email === 'string' ? normalizeEmail(p.email) : null
    if (!email || typeof p.base !== 'string' || (p.redirect !== null && typeof p.redirect !== 'string')) throw new JobError('payload is not a sign-in link request', false)
    // Without SVC_PUBLIC_URL the link's address would be the requester's Host header: a stranger asking for a
    // customer's link with `Host: evil.example` would have the real mail carry a valid token to their host.
    if (!this.deps.publicUrl) throw new JobError(NO_PUBLIC_URL, false)
    if (!(await this.deps.store.isKnown(email)) && !(await this.deps.isBuyer?.(email))) return 'no link: the address is not known'
    if (await this.deps.outbox.suppression(email, null)) return 'no link: the address may not be mailed'
    const token = randomToken(32)
    const now = Date.now()
    await this.deps.store.issueToken(email, hashOf(token), p.redirect ?? null, now + LINK_TTL_MS, now)
    const link = `${this.deps.publicUrl}/api/account/verify?token=${token}`
    await this.deps.sender.queue([{
      listId: null, subscriberId: null, toEmail: email,
      subject: 'Your sign-in link',
      textBody: `Open this link to sign in. It works once, for 15 minutes:\n\n${link}\n\nIf you did not ask for it, ignore this email.\n`,
      htmlBody: null,
      // A retried attempt whose first run already wrote the mail writes no second one (its token stays unused).
      dedupKey: `${LINK_JOB}:${jobId}`,
    }])
    return 'link mailed'
  }

  /** A used, expired or unknown token says which; a good one signs the customer in. */
  consume(token: string): Promise<Consumed> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return Promise.resolve({ ok: false, reason: 'unknown' })
    return this.deps.store.consumeToken(hashOf(token), Date.now())
  }

  /**
   * Where a consumed link sends the customer: its redirect when it is still allowed (checked again, so a
   * link stored before these rules, or an origin since removed from the allowlist, cannot send anyone
   * elsewhere or break the answer), the account page otherwise.
   */
  landingOf(stored: string | null): string {
    // Printable ASCII only (what this service stores): anything else cannot go into a Location header as is.
    if (!stored || stored.length > 2000 || !/^[\x21-\x7e]+$/.test(stored)) return LANDING
    if (stored.startsWith('/')) {
      if (stored.startsWith('//') || stored.includes('\\')) return LANDING
      try {
        const url = new URL(stored, 'https://svc.invalid')
        return url.origin === 'https://svc.invalid' && !url.pathname.startsWith('//') ? stored : LANDING
      } catch {
        return LANDING
      }
    }
    try {
      const url = new URL(stored)
      return url.href === stored && !url.username && !url.password && this.allowedOrigins().has(url.origin) ? stored : LANDING
    } catch {
      return LANDING
    }
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

  /** Origins an absolute redirect may go to: SVC_PUBLIC_URL's and the cors_allowlist setting's (never "*"). */
  private allowedOrigins(): Set<string> {
    const set = new Set(this.deps.settings.get('cors_allowlist').filter((o) => o !== '*'))
    if (this.deps.publicUrl) {
      try {
        set.add(new URL(this.deps.publicUrl).origin)
      } catch { /* checked by the configuration */ }
    }
    return set
  }

  /**
   * A path on this host, or an absolute http(s) URL on an allowed origin. Parsed as a browser would, against
   * this service's base, after refusing whitespace and control characters (browsers drop a tab or a newline
   * inside a URL, so "/\t/evil.example" would become "//evil.example"). A path is stored as a path (the
   * host of the request that asked is the client's to choose, so it is never trusted as an origin).
   */
  private checkRedirect(value: unknown, base: string): string | null {
    if (value === undefined || value === null || value === '') return null
    if (typeof value !== 'string' || value.length > 2000) throw invalid(BAD_REDIRECT)
    if (UNSAFE.test(value)) throw invalid('redirect: must not contain spaces or control characters')
    let here: URL
    let url: URL
    try {
      here = new URL(base)
      url = new URL(value, here)
    } catch {
      throw invalid(BAD_REDIRECT)
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) throw invalid(BAD_REDIRECT)
    if (url.origin === here.origin && value.startsWith('/') && !value.startsWith('//') && !value.includes('\\')) {
      const path = url.pathname + url.search + url.hash
      if (path.startsWith('//')) throw invalid(BAD_REDIRECT) // "/.//evil.example" normalises to a network path
      return path
    }
    if (!this.allowedOrigins().has(url.origin)) throw invalid(BAD_REDIRECT)
    return url.href
  }
}
