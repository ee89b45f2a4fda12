// Unsubscribe links: `<public URL>/email/unsubscribe/<token>`, the token naming one subscriber of one list
// and signed with a key derived from the master secret (never expiring: a link in a mail from last year
// must still work). GET shows a page with one button; POST unsubscribes: the button, and the one-click
// POST mail clients send for `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058).
import { deriveKey, hmacSha256, safeEqual } from '../lib/crypto'

const PREFIX = 'v1'

export interface UnsubscribeTarget {
  subscriberId: number
  listId: number
}

export class UnsubscribeLinks {
  private readonly key: Buffer

  constructor(masterSecret: string, private readonly publicUrl: string | null) {
    this.key = deriveKey(masterSecret, 'email-unsubscribe')
  }

  token(t: UnsubscribeTarget): string {
    return `${PREFIX}.${t.subscriberId}.${t.listId}.${this.mac(t)}`
  }

  /** The https link, or null while SVC_PUBLIC_URL is not set (then messages carry the mailto form only). */
  url(t: UnsubscribeTarget): string | null {
    return this.publicUrl ? `${this.publicUrl}/email/unsubscribe/${this.token(t)}` : null
  }

  /** The subscriber a token names, or null for anything not signed by this installation. */
  verify(token: string): UnsubscribeTarget | null {
    const m = /^v1\.(\d{1,15})\.(\d{1,9})\.([A-Za-z0-9_-]{22})$/.exec(token)
    if (!m) return null
    const t = { subscriberId: Number(m[1]), listId: Number(m[2]) }
    return safeEqual(m[3]!, this.mac(t)) ? t : null
  }

  private mac(t: UnsubscribeTarget): string {
    // 128 bits of HMAC are plenty for a link nobody can guess.
    return hmacSha256(this.key, `unsubscribe:${t.subscriberId}:${t.listId}`).subarray(0, 16).toString('base64url')
  }
}
