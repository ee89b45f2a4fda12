// Signed tokens: `[<version>.]<field>.<field>….<HMAC-SHA256, base64url>`, the one way svc signs what it hands out
// and reads back (session cookies, agent confirmations, unsubscribe links, landing-page tokens). Each kind has its
// own key derived from the master secret, so a token of one kind never stands for another. The kinds differ only
// in what a TokenFormat declares; the wire formats are those of tokens already issued (in browsers, sent mail,
// cached pages), pinned by test/lib/signed-token.test.ts: change a format and those stop verifying.
import { deriveKey, hmacSha256, safeEqual } from './crypto'

export interface TokenFormat<C = void> {
  /** The deriveKey purpose of this kind's key. */
  purpose: string
  /** Literal first part ("v1"); absent when the token starts with its first field. */
  version?: string
  /** One pattern (RegExp source) per field after the version, in order; an optional field is written `(?:…)?`. */
  fields: readonly string[]
  /** HMAC bytes the token keeps: 32 (43 characters), or 16 (22: plenty for a value nobody can guess). */
  macBytes: 32 | 16
  /**
   * The text the MAC covers. Default: the token up to its MAC. A kind whose MAC covers something else (a label,
   * or what the token is for without carrying it: the agent token, tool and arguments of a confirmation) says what.
   */
  signs?: (fields: readonly string[], context: C) => string
  /** The field holding the expiry and its unit; without one a token never expires (unsubscribe links). */
  expires?: { field: number; unit: 's' | 'ms' }
}

export interface OpenedToken {
  fields: string[]
  /** True once the expiry field is at or before now; always false without one. */
  expired: boolean
}

/** Longer than any format allows; a longer value is refused before the pattern runs (cookies can be big). */
const MAX_LENGTH = 256

export class SignedTokens<C = void> {
  private readonly key: Buffer
  private readonly pattern: RegExp

  constructor(masterSecret: string, private readonly format: TokenFormat<C>) {
    if (format.version !== undefined && !/^[A-Za-z0-9]+$/.test(format.version)) throw new Error(`token version must be alphanumeric: ${format.version}`)
    this.key = deriveKey(masterSecret, format.purpose)
    const parts = format.fields.map((f) => `(${f})`)
    if (format.version !== undefined) parts.unshift(format.version)
    parts.push(`([A-Za-z0-9_-]{${Math.ceil((format.macBytes * 4) / 3)}})`)
    this.pattern = new RegExp(`^${parts.join('\\.')}$`)
  }

  sign(fields: ReadonlyArray<string | number>, context: C): string {
    const text = fields.map(String)
    return `${this.body(text)}.${this.mac(text, context)}`
  }

  /** The fields of a token this kind signed with this key; null for anything malformed or forged. */
  open(token: string | null | undefined, context: C, nowMs = Date.now()): OpenedToken | null {
    if (!token || token.length > MAX_LENGTH) return null
    const m = this.pattern.exec(token)
    if (!m) return null
    const fields = this.format.fields.map((_, i) => m[i + 1] ?? '')
    if (!safeEqual(m[fields.length + 1]!, this.mac(fields, context))) return null
    const e = this.format.expires
    const expired = e !== undefined && Number(fields[e.field]) * (e.unit === 's' ? 1000 : 1) <= nowMs
    return { fields, expired }
  }

  private body(fields: readonly string[]): string {
    return (this.format.version === undefined ? fields : [this.format.version, ...fields]).join('.')
  }

  private mac(fields: readonly string[], context: C): string {
    const text = this.format.signs ? this.format.signs(fields, context) : this.body(fields)
    return hmacSha256(this.key, text).subarray(0, this.format.macBytes).toString('base64url')
  }
}
