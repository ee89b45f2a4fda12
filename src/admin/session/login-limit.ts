// Who may try a password now. Only failed attempts count (a successful login or a malformed body does not
// lock anyone out of the quick start), in two ways:
//
// - per client address (IPv6: per /64, since a client picks any address inside it): 5 failures per
//   sliding 15 minutes (spec §8), then 429 until the oldest failure leaves the window;
// - per account (the email as typed, known or not, so a 429 does not tell which emails exist): after 5
//   failures in a row, each further attempt waits 1 s, 2 s, 4 s… after the last failure, never more
//   than 15 minutes, so spreading guesses over many addresses gains nothing.
//
// A stranger can never lock the owner out for good: the account wait is bounded, it does not apply to
// an address that has signed in to that account since the server started, and a successful login
// clears it. Counters live in process memory; a restart clears them. They are per instance: with several
// instances on one Postgres database (issue 8) each counts the failures it sees, so a client spread over n
// instances by a load balancer gets up to n × 5 tries per window (sticky balancing keeps it at 5).
import { clientKey } from '../../lib/ip'
import { Backoff, RateLimiter, type RateDecision } from '../../lib/rate-limit'

/** Spec §8: 5 failed attempts per 15 minutes per client IP. */
export const LOGIN_LIMIT = 5
export const LOGIN_WINDOW_MS = 15 * 60 * 1000
/** Per account: failures in a row before the backoff starts, its first step and its bound. */
export const ACCOUNT_FREE_FAILURES = 5
export const ACCOUNT_BACKOFF_BASE_MS = 1000
export const ACCOUNT_BACKOFF_MAX_MS = 15 * 60 * 1000
/** Addresses remembered per account as "signed in here before". */
const KNOWN_ADDRESSES_PER_ACCOUNT = 8

/** One attempt in progress, already counted as a failure; succeeded() takes that back. */
export interface LoginAttempt {
  succeeded(): void
}

export class LoginLimits {
  private readonly perAddress = new RateLimiter(LOGIN_LIMIT, LOGIN_WINDOW_MS)
  private readonly perAccount = new Backoff({
    free: ACCOUNT_FREE_FAILURES,
    baseMs: ACCOUNT_BACKOFF_BASE_MS,
    maxMs: ACCOUNT_BACKOFF_MAX_MS,
    forgetMs: 24 * 60 * 60 * 1000,
    maxKeys: 100_000,
  })
  /** Account → addresses that signed in to it (only real accounts get here: bounded by the users). */
  private readonly known = new Map<string, string[]>()

  /** Before the body is read: is this address already over its failures? Counts nothing. */
  checkAddress(ip: string): RateDecision {
    return this.perAddress.check(addressKey(ip))
  }

  /**
   * Starts an attempt for a well-formed body, or answers why it must wait. The attempt is counted as a
   * failure at once (so concurrent guesses cannot all slip through while passwords are being hashed),
   * and taken back when it succeeds.
   */
  begin(ip: string, email: string): LoginAttempt | RateDecision {
    const address = addressKey(ip)
    const account = email.trim().toLowerCase()
    const trusted = this.known.get(account)?.includes(address) ?? false
    if (!trusted) {
      const wait = this.perAccount.check(account)
      if (!wait.allowed) return wait
    }
    const byAddress = this.perAddress.hit(address)
    if (!byAddress.allowed) return byAddress
    if (!trusted) this.perAccount.hit(account)
    return {
      succeeded: () => {
        this.perAddress.refund(address)
        this.perAccount.reset(account)
        this.remember(account, address)
      },
    }
  }

  private remember(account: string, address: string) {
    const list = this.known.get(account) ?? []
    if (list.includes(address)) return
    list.push(address)
    if (list.length > KNOWN_ADDRESSES_PER_ACCOUNT) list.shift()
    this.known.set(account, list)
  }
}

const addressKey = (ip: string) => clientKey(ip) ?? ip
