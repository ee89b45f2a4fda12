// The signed token a hosted landing page carries (`data-form-token` on the pixel.js tag, the `_svc_t` field of
// a lead form, `token` of what pixel.js, client.js and cloak.js send): when the page was served, for which
// landing, and for which click, signed with a key derived from the master secret (src/lib/crypto.ts).
// - A lead posted sooner than MIN_FILL_MS after its page was served was filled by a program, not a person.
// - A page view, custom event or bot signal is attached to a click only with a token of that click and that
//   landing (bound()): a click id alone, known from a URL or a log, cannot flag a click or mark it viewed.
import { SignedTokens } from '../lib/signed-token'

/** A person needs longer than this to read a form and type an address. */
export const MIN_FILL_MS = 2_000
/** How long a page's token attaches its events to the click (a tab left open longer sends unattached events). */
export const TOKEN_BINDS_MS = 24 * 60 * 60 * 1000
/** Clocks of several instances may differ a little; a token from further in the future is forged. */
const SKEW_MS = 60_000

export type FillCheck = 'ok' | 'too-fast' | 'forged' | 'absent'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

interface Parsed { servedAt: number; landingId: number; clickId: string | null }

export class FormTokens {
  /** `v2.<served at, ms>.<landing id>.<click id, or empty>.<mac>`: the token of one page served for one click. */
  private readonly v2: SignedTokens
  /** `v1.<served at, ms>.<landing id>.<mac>`: pages served before tokens named their click (lead forms only). */
  private readonly v1: SignedTokens

  constructor(masterSecret: string) {
    // The MACs cover the times and ids as numbers, as these tokens have always been checked.
    this.v2 = new SignedTokens(masterSecret, {
      purpose: 'landing-page-token',
      version: 'v2',
      fields: ['\\d{13}', '\\d{1,9}', '(?:[0-9a-f-]{36})?'],
      macBytes: 16,
      signs: ([servedAt, landingId, click]) => `landing-page:${Number(servedAt)}:${Number(landingId)}:${click}`,
    })
    this.v1 = new SignedTokens(masterSecret, {
      purpose: 'lead-form-token',
      version: 'v1',
      fields: ['\\d{13}', '\\d{1,9}'],
      macBytes: 16,
      signs: ([servedAt, landingId]) => `lead-form:${Number(servedAt)}:${Number(landingId)}`,
    })
  }

  issue(landingId: number, now = Date.now(), clickId: string | null = null): string {
    const click = clickId !== null && UUID.test(clickId) ? clickId : ''
    return this.v2.sign([now, landingId, click])
  }

  /**
   * The lead form's fill time. 'absent' when the form carried no token (a form on another site, without
   * pixel.js): the fill time is then unknown and not held against the lead. 'forged' for a token this
   * installation did not sign or one of another landing.
   */
  check(token: string | undefined, landingId: number, now = Date.now()): FillCheck {
    if (token === undefined || token === '') return 'absent'
    const t = this.parse(token)
    if (!t || t.landingId !== landingId) return 'forged'
    return now - t.servedAt < MIN_FILL_MS ? 'too-fast' : 'ok'
  }

  /**
   * True when `token` was issued by this installation for a page of `landingId` served with `clickId`, less
   * than TOKEN_BINDS_MS ago: what a page view, custom event or bot signal needs to be attached to that click.
   */
  bound(token: string | undefined, landingId: number, clickId: string, now = Date.now()): boolean {
    const t = this.v2.open(token)
    if (!t) return false
    const servedAt = Number(t.fields[0])
    const click = t.fields[2]!
    return Number(t.fields[1]) === landingId && click !== '' && click === clickId && servedAt <= now + SKEW_MS && now - servedAt <= TOKEN_BINDS_MS
  }

  private parse(token: string): Parsed | null {
    const t = this.v2.open(token) ?? this.v1.open(token)
    if (!t) return null
    return { servedAt: Number(t.fields[0]), landingId: Number(t.fields[1]), clickId: t.fields[2] || null }
  }
}
