// Unsubscribe links: `<public URL>/email/unsubscribe/<token>`, the token naming one subscriber of one list
// and signed with a key derived from the master secret (never expiring: a link in a mail from last year
// must still work). GET shows a page with one button; POST unsubscribes: the button, and the one-click
// POST mail clients send for `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058).
import { SignedTokens } from '../lib/signed-token'

export interface UnsubscribeTarget {
  subscriberId: number
  listId: number
}

export class UnsubscribeLinks {
  private readonly tokens: SignedTokens

  constructor(masterSecret: string, private readonly publicUrl: string | null) {
    // `v1.<subscriber>.<list>.<mac>`; 128 bits of HMAC are plenty for a link nobody can guess. The MAC covers the
    // ids as numbers (links read that way since the first one was sent).
    this.tokens = new SignedTokens(masterSecret, {
      purpose: 'email-unsubscribe',
      version: 'v1',
      fields: ['\\d{1,15}', '\\d{1,9}'],
      macBytes: 16,
      signs: ([subscriber, list]) => `unsubscribe:${Number(subscriber)}:${Number(list)}`,
    })
  }

  token(t: UnsubscribeTarget): string {
    return this.tokens.sign([t.subscriberId, t.listId])
  }

  /** The https link, or null while SVC_PUBLIC_URL is not set (then messages carry the mailto form only). */
  url(t: UnsubscribeTarget): string | null {
    return this.publicUrl ? `${this.publicUrl}/email/unsubscribe/${this.token(t)}` : null
  }

  /** The subscriber a token names, or null for anything not signed by this installation. */
  verify(token: string): UnsubscribeTarget | null {
    const t = this.tokens.open(token)
    return t ? { subscriberId: Number(t.fields[0]), listId: Number(t.fields[1]) } : null
  }
}
