// Session cookies: "v1.<id>.<session epoch>.<expires, epoch s>.<HMAC-SHA256, base64url>". Signed with a
// key derived from the master secret for one purpose (admins and customers never share a key, so one
// cookie cannot stand for the other); the epoch lets logout revoke every copy.
import { deriveKey, hmacSha256, safeEqual } from '../lib/crypto'

export const SESSION_COOKIE = 'svc_admin_session'

export interface SessionClaims {
  userId: number
  epoch: number
  expiresAt: number
}

export class SessionSigner {
  private readonly key: Buffer
  constructor(masterSecret: string, readonly ttlSeconds: number, purpose: 'admin-session-cookie' | 'customer-session-cookie' = 'admin-session-cookie') {
    this.key = deriveKey(masterSecret, purpose)
  }

  sign(userId: number, epoch: number, nowMs = Date.now()): { value: string; expiresAt: number } {
    const expiresAt = Math.floor(nowMs / 1000) + this.ttlSeconds
    const body = `v1.${userId}.${epoch}.${expiresAt}`
    return { value: `${body}.${hmacSha256(this.key, body).toString('base64url')}`, expiresAt }
  }

  /** Null for anything malformed, forged or expired. */
  verify(value: string | undefined | null, nowMs = Date.now()): SessionClaims | null {
    if (!value || value.length > 200) return null
    const m = /^v1\.(\d{1,12})\.(\d{1,12})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(value)
    if (!m) return null
    const body = `v1.${m[1]}.${m[2]}.${m[3]}`
    if (!safeEqual(hmacSha256(this.key, body).toString('base64url'), m[4]!)) return null
    const expiresAt = Number(m[3])
    if (expiresAt * 1000 <= nowMs) return null
    return { userId: Number(m[1]), epoch: Number(m[2]), expiresAt }
  }
}
