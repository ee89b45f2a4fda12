// The one place for HMACs, constant-time comparison, secret encryption and random tokens.
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto'

export function hmacSha256(key: string | Uint8Array, data: string | Uint8Array): Buffer {
  return createHmac('sha256', key).update(data).digest()
}

export const hmacSha256Hex = (key: string | Uint8Array, data: string | Uint8Array) => hmacSha256(key, data).toString('hex')
export const hmacSha256Base64 = (key: string | Uint8Array, data: string | Uint8Array) => hmacSha256(key, data).toString('base64')

/**
 * Constant-time string equality. Both sides are hashed first so neither the content nor the length
 * of the expected value leaks through timing.
 */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest()
  const hb = createHash('sha256').update(b).digest()
  return timingSafeEqual(ha, hb) && a.length === b.length
}

/** URL-safe random token with `bytes` bytes of CSPRNG entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url')
}

/** Derives independent subkeys from the master secret so cookies and stored secrets never share a key. */
export function deriveKey(master: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, 'svc', purpose, 32))
}

/** AES-256-GCM for secrets at rest. Format: "v1:" + base64(iv[12] | tag[16] | ciphertext). */
export class SecretBox {
  private readonly key: Buffer
  constructor(master: string) {
    this.key = deriveKey(master, 'settings-encryption')
  }

  encrypt(plain: string): string {
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', this.key, iv)
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
    return 'v1:' + Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64')
  }

  /** Throws when the value was encrypted under another master secret or was tampered with. */
  decrypt(stored: string): string {
    if (!stored.startsWith('v1:')) throw new Error('unknown secret format')
    const buf = Buffer.from(stored.slice(3), 'base64')
    const decipher = createDecipheriv('aes-256-gcm', this.key, buf.subarray(0, 12))
    decipher.setAuthTag(buf.subarray(12, 28))
    return Buffer.concat([decipher.update(buf.subarray(28)), decipher.final()]).toString('utf8')
  }
}
