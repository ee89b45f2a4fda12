// The `_svc_t` field of a lead form: when the page was served, for which landing, signed. A lead posted
// sooner than MIN_FILL_MS after its page was served was filled by a program, not a person.
import { deriveKey, hmacSha256, safeEqual } from '../lib/crypto'

/** A person needs longer than this to read a form and type an address. */
export const MIN_FILL_MS = 2_000

export type FillCheck = 'ok' | 'too-fast' | 'forged' | 'absent'

export class FormTokens {
  private readonly key: Buffer

  constructor(masterSecret: string) {
    this.key = deriveKey(masterSecret, 'lead-form-token')
  }

  /** `v1.<served at, ms>.<landing id>.<mac>` */
  issue(landingId: number, now = Date.now()): string {
    return `v1.${now}.${landingId}.${this.mac(now, landingId)}`
  }

  /**
   * 'absent' when the form carried no token (a form on another site, without pixel.js): the fill time is
   * then unknown and not held against the lead. 'forged' for a token this installation did not sign or
   * one of another landing.
   */
  check(token: string | undefined, landingId: number, now = Date.now()): FillCheck {
    if (token === undefined || token === '') return 'absent'
    const m = /^v1\.(\d{13})\.(\d{1,9})\.([A-Za-z0-9_-]{22})$/.exec(token)
    if (!m) return 'forged'
    const servedAt = Number(m[1])
    if (Number(m[2]) !== landingId || !safeEqual(m[3]!, this.mac(servedAt, landingId))) return 'forged'
    return now - servedAt < MIN_FILL_MS ? 'too-fast' : 'ok'
  }

  private mac(servedAt: number, landingId: number): string {
    return hmacSha256(this.key, `lead-form:${servedAt}:${landingId}`).subarray(0, 16).toString('base64url')
  }
}
