// Tier-2 confirmation tokens: `<expiry, ms>.<signature>` (lib/signed-token.ts), an HMAC over the agent token,
// the tool and its exact arguments (canonical JSON, keys sorted), so a confirmation works only for the call it
// previewed. Stateless to issue; the first confirmed call claims it in agent_confirmations, which makes repeats
// return the first result and act once (across restarts and instances).
import { createHash } from 'node:crypto'
import { invalid } from '../../lib/errors'
import { SignedTokens } from '../../lib/signed-token'

export const CONFIRM_TTL_MS = 5 * 60_000

/** Tool arguments nest at most this deep (svc's own inputs need 4); deeper ones are refused as invalid params. */
export const MAX_ARGUMENT_DEPTH = 64

/** Whether `value` nests objects or arrays deeper than `max` (iterative: any depth is safe to ask about). */
export function nestedDeeperThan(value: unknown, max = MAX_ARGUMENT_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    if (v === null || typeof v !== 'object') continue
    if (depth >= max) return true
    for (const child of Object.values(v as Record<string, unknown>)) stack.push([child, depth + 1])
  }
  return false
}

/**
 * JSON with object keys sorted at every level: equal arguments give equal text. Its recursion is bounded:
 * arguments nested deeper than MAX_ARGUMENT_DEPTH are an invalid error, never a stack overflow.
 */
export function canonical(value: unknown, depth = 0): string {
  if (depth > MAX_ARGUMENT_DEPTH) throw invalid(`arguments: nested deeper than ${MAX_ARGUMENT_DEPTH} levels`)
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v, depth + 1)).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v, depth + 1)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

export interface ConfirmedCall {
  tokenId: number
  tool: string
  args: unknown
}

export class Confirmations {
  private readonly tokens: SignedTokens<ConfirmedCall>

  constructor(secret: string) {
    this.tokens = new SignedTokens<ConfirmedCall>(secret, {
      purpose: 'agent-confirmation',
      fields: ['\\d{13}'],
      macBytes: 32,
      // The expiry is read as a number, as tokens have always been checked.
      signs: ([expires], c) => `${c.tokenId}\n${c.tool}\n${Number(expires)}\n${canonical(c.args)}`,
      expires: { field: 0, unit: 'ms' },
    })
  }

  issue(tokenId: number, tool: string, args: unknown, now = Date.now()): { token: string; expiresAt: number } {
    const expiresAt = now + CONFIRM_TTL_MS
    return { token: this.tokens.sign([expiresAt], { tokenId, tool, args }), expiresAt }
  }

  /** Whether `token` was issued for exactly this call; `expired` is reported separately (a repeat may still replay). */
  check(token: string, tokenId: number, tool: string, args: unknown, now = Date.now()): { valid: boolean; expired: boolean } {
    const t = this.tokens.open(token, { tokenId, tool, args }, now)
    return t ? { valid: true, expired: t.expired } : { valid: false, expired: false }
  }

  /** The idempotency key of a confirmed call (the token is never stored). */
  static keyOf(token: string, tokenId: number): string {
    return createHash('sha256').update(`${tokenId}:${token}`).digest('hex')
  }
}
