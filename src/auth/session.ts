// Session cookies: "v1.<id>.<session epoch>.<expires, epoch s>.<HMAC-SHA256, base64url>" (lib/signed-token.ts).
// Signed with a key derived from the master secret for one purpose (admins and customers never share a key, so
// one cookie cannot stand for the other); the epoch lets logout revoke every copy.
import { SignedTokens } from '../lib/signed-token'

export const SESSION_COOKIE = 'svc_admin_session'

export interface SessionClaims {
  userId: number
  epoch: number
  expiresAt: number
}

export class SessionSigner {
  private readonly tokens: SignedTokens
  constructor(masterSecret: string, readonly ttlSeconds: number, purpose: 'admin-session-cookie' | 'customer-session-cookie' = 'admin-session-cookie') {
    this.tokens = new SignedTokens(masterSecret, {
      purpose,
      version: 'v1',
      fields: ['\\d{1,12}', '\\d{1,12}', '\\d{1,12}'],
      macBytes: 32,
      expires: { field: 2, unit: 's' },
    })
  }

  sign(userId: number, epoch: number, nowMs = Date.now()): { value: string; expiresAt: number } {
    const expiresAt = Math.floor(nowMs / 1000) + this.ttlSeconds
    return { value: this.tokens.sign([userId, epoch, expiresAt]), expiresAt }
  }

  /** Null for anything malformed, forged or expired. */
  verify(value: string | undefined | null, nowMs = Date.now()): SessionClaims | null {
    const t = this.tokens.open(value, undefined, nowMs)
    if (!t || t.expired) return null
    return { userId: Number(t.fields[0]), epoch: Number(t.fields[1]), expiresAt: Number(t.fields[2]) }
  }
}
