// Agent tokens: `svc_ap_` + 32 random bytes (base64url), shown once, stored as SHA-256, optionally expiring,
// revocable, with their last use recorded. `authenticate` turns a bearer token into the acting AdminUser
// (an AgentIdentity with the token's scopes) for /mcp and /admin/api alike.
import { createHash } from 'node:crypto'
import type { Granter } from '../auth'
import { can, type AdminUser, type AgentIdentity } from '../lib/permissions'
import { bearerUnauthorized } from '../lib/errors'
import { randomToken, safeEqual } from '../lib/crypto'
import { holdsSection, RESOURCES, scopeOfVerb, sectionsOf, type ResourceName, type Scope } from './scopes'
import type { AgentStore, TokenRow } from './store/types'

export const TOKEN_PREFIX = 'svc_ap_'
/** Calls a minute per bucket when a token names no limit of its own (docs/agent-api.md). */
export const DEFAULT_RATES = { default: 120, ai: 10 } as const
/** last_used_at is written at most this often per token (every call would be a write per call). */
const TOUCH_EVERY_MS = 60_000

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex')

/** A fresh token and what is stored of it. */
export function mintToken(): { token: string; hash: string; hint: string } {
  const token = TOKEN_PREFIX + randomToken(32)
  return { token, hash: hashToken(token), hint: token.slice(-4) }
}

export const scopesOf = (row: TokenRow): Scope[] => JSON.parse(row.scopes) as Scope[]

/** The bearer token of a request, or null when it sends none (an Authorization of another kind counts as none). */
export function bearerOf(request: Request): string | null {
  const header = request.headers.get('authorization')
  if (!header) return null
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header)
  return m ? m[1]! : null
}

/**
 * May the granter hand out `scope`? A person only scopes of sections they hold (owners, the CLI: all); a token
 * only scopes it holds AND its creator could grant. jobs:* reach the jobs of every section, so only an owner
 * (or the CLI, or a token holding them whose creator is one) grants them.
 */
export function mayGrant(g: Granter, scope: Scope): boolean {
  if (g.agent && !g.agent.scopes.has(scope)) return false
  if (g.person === 'system') return true
  if (g.person === null) return false
  if (g.person.isOwner) return true
  const [resource, action] = scope.split(':') as [ResourceName, 'read' | 'write']
  const section = RESOURCES[resource].section
  return section ? can(g.person, section, action) : false
}

export class AgentTokens {
  private readonly touched = new Map<number, number>()

  constructor(private readonly store: AgentStore) {}

  /**
   * The acting user of a bearer token: 401 (with a Bearer challenge) for an unknown, revoked or expired one.
   * The lookup is by hash (an index), then the stored hash is compared in constant time.
   */
  async authenticate(token: string, ip: string | null, now = Date.now()): Promise<AdminUser> {
    const row = await this.rowOf(token)
    if (!row) throw bearerUnauthorized('invalid token')
    if (row.revokedAt !== null) throw bearerUnauthorized('token revoked')
    if (row.expiresAt !== null && row.expiresAt <= now) throw bearerUnauthorized('token expired')
    if (now - (this.touched.get(row.id) ?? 0) >= TOUCH_EVERY_MS) {
      this.touched.set(row.id, now)
      await this.store.touchToken(row.id, now, ip)
    }
    return agentUser(row)
  }

  /** The live token a bearer token names, or null; touches nothing (for refusals that still get an audit row). */
  async identify(token: string, now = Date.now()): Promise<TokenRow | null> {
    const row = await this.rowOf(token)
    return row && row.revokedAt === null && (row.expiresAt === null || row.expiresAt > now) ? row : null
  }

  private async rowOf(token: string): Promise<TokenRow | null> {
    if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null
    const hash = hashToken(token)
    const row = await this.store.tokenByHash(hash)
    return row && safeEqual(row.tokenHash, hash) ? row : null
  }
}

/** The AdminUser a token acts as: no person, no owner; its scopes decide. */
export function agentUser(row: TokenRow): AdminUser {
  const scopes: ReadonlySet<string> = new Set(scopesOf(row))
  const agent: AgentIdentity = {
    tokenId: row.id,
    name: row.name,
    scopes,
    rates: { default: row.rateDefault ?? DEFAULT_RATES.default, ai: row.rateAi ?? DEFAULT_RATES.ai },
    expiresAt: row.expiresAt,
    missingScopeFor(verb) {
      const scope = scopeOfVerb(verb)
      // A verb outside every resource (public ones such as unsubscribe) is not for tokens.
      if (!scope) return `(none covers ${verb.name})`
      return scopes.has(scope) ? null : scope
    },
    createdBy: row.createdBy,
    holdsSection: (section, action) => holdsSection(scopes, section, action),
    confirmed: false,
  }
  return { id: 0, email: `token:${row.name}`, isOwner: false, permissions: sectionsOf(scopes), sessionEpoch: 0, agent }
}
