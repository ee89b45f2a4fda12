// The signed token a hosted landing page carries (`data-form-token` on the pixel.js tag, the `_svc_t` field of
// a lead form, `token` of what pixel.js, client.js and cloak.js send): when the page was served, for which
// landing, and for which click, signed with a key derived from the master secret (src/lib/crypto.ts).
// - A lead posted sooner than MIN_FILL_MS after its page was served was filled by a program, not a person.
// - A page view, custom event or bot signal is attached to a click only with a token of that click and that
//   landing (bound()): a click id alone, known from a URL or a log, cannot flag a click or mark it viewed.
import { deriveKey, hmacSha256, safeEqual } from '../lib/crypto'

/** A person needs longer than this to read a form and type an address. */
export const MIN_FILL_MS = 2_000
/** How long a page's token attaches its events to the click (a tab left open longer sends unattached events). */
export const TOKEN_BINDS_MS = 24 * 60 * 60 * 1000
/** Clocks of several instances may differ a little; a token from further in the future is forged. */
const SKEW_MS = 60_000

export type FillCheck = 'ok' | 'too-fast' | 'forged' | 'absent'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const V2 = /^v2\.(\d{13})\.(\d{1,9})\.([0-9a-f-]{36})?\.([A-Za-z0-9_-]{22})$/
/** Pages served before tokens named their click (lead forms only). */
const V1 = /^v1\.(\d{13})\.(\d{1,9})\.([A-Za-z0-9_-]{22})$/

interface Parsed { servedAt: number; landingId: number; clickId: string | null }

export class FormTokens {
  private readonly key: Buffer
  private readonly keyV2: Buffer

  constructor(masterSecret: string) {
    this.key = deriveKey(masterSecret, 'lead-form-token')
    this.keyV2 = deriveKey(masterSecret, 'landing-page-token')
  }

  /** `v2.<served at, ms>.<landing id>.<click id, or empty>.<mac>`: the token of one page served for one click. */
  issue(landingId: number, now = Date.now(), clickId: string | null = null): string {
    const click = clickId !== null && UUID.test(clickId) ? clickId : ''
    return `v2.${now}.${landingId}.${click}.${this.macV2(now, landingId, click)}`
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
    if (!token) return false
    const m = V2.exec(token)
    if (!m) return false
    const servedAt = Number(m[1])
    const click = m[3] ?? ''
    if (!safeEqual(m[4]!, this.macV2(servedAt, Number(m[2]), click))) return false
    return Number(m[2]) === landingId && click !== '' && click === clickId && servedAt <= now + SKEW_MS && now - servedAt <= TOKEN_BINDS_MS
  }

  private parse(token: string): Parsed | null {
    const m2 = V2.exec(token)
    if (m2) {
      const servedAt = Number(m2[1])
      const landingId = Number(m2[2])
      const click = m2[3] ?? ''
      return safeEqual(m2[4]!, this.macV2(servedAt, landingId, click)) ? { servedAt, landingId, clickId: click || null } : null
    }
    const m1 = V1.exec(token)
    if (m1) {
      const servedAt = Number(m1[1])
      const landingId = Number(m1[2])
      return safeEqual(m1[3]!, this.mac(servedAt, landingId)) ? { servedAt, landingId, clickId: null } : null
    }
    return null
  }

  private mac(servedAt: number, landingId: number): string {
    return hmacSha256(this.key, `lead-form:${servedAt}:${landingId}`).subarray(0, 16).toString('base64url')
  }

  private macV2(servedAt: number, landingId: number, clickId: string): string {
    return hmacSha256(this.keyV2, `landing-page:${servedAt}:${landingId}:${clickId}`).subarray(0, 16).toString('base64url')
  }
}
