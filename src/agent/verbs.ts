// Verbs of agent tokens and the audit log (resource `tokens`, admin section users). REST, MCP and the CLI
// (`svc token create`) all create tokens through tokens.create.
import { Type } from '@sinclair/typebox'
import { forbidden, invalid, notFound } from '../lib/errors'
import { Int } from '../lib/fields'
import { parseCursor, parseLimit, toPage } from '../lib/paging'
import { iso, momentFilter, parseMoment } from '../lib/time'
import { defineVerb, type Actor } from '../lib/verb'
import { granterOf, requireConfirmed, type Granter } from '../auth'
import type { AdminUser } from '../lib/permissions'
import { RESOURCES, SCOPES, parseScopes, type ResourceName, type Scope } from './scopes'
import { DEFAULT_RATES, mayGrant, mintToken, scopesOf } from './tokens'
import type { AgentStore, AuditRow, TokenChanges, TokenRow } from './store/types'

const MAX_RATE = 100_000
const Rate = () => Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: MAX_RATE }), Type.Null()]))
const RateLimits = Type.Object({
  default: Rate(),
  ai: Rate(),
}, { additionalProperties: false, description: `calls a minute per bucket; null or absent: the default (${DEFAULT_RATES.default} and ${DEFAULT_RATES.ai})` })
const TokenFields = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  scopes: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 64, description: 'e.g. ["campaigns:read","reports:read"]; "all" grants every scope you hold' }),
  expires_at: Type.Optional(Type.Union([Type.String({ maxLength: 64, description: 'ISO 8601 time in the future' }), Type.Null()])),
  rate_limits: Type.Optional(RateLimits),
}
export const TokenCreate = Type.Object(TokenFields)
export const TokenPatch = Type.Object({ name: Type.Optional(TokenFields.name), scopes: Type.Optional(TokenFields.scopes), expires_at: TokenFields.expires_at, rate_limits: TokenFields.rate_limits })
const text = () => Type.Optional(Type.String({ maxLength: 200 }))

const when = (ms: number | null) => (ms === null ? null : iso(ms))

export function renderToken(row: TokenRow, now = Date.now()) {
  const status = row.revokedAt !== null ? 'revoked' : row.expiresAt !== null && row.expiresAt <= now ? 'expired' : 'active'
  return {
    id: row.id,
    name: row.name,
    token_hint: `svc_ap_…${row.tokenHint}`,
    scopes: scopesOf(row),
    rate_limits: { default: row.rateDefault ?? DEFAULT_RATES.default, ai: row.rateAi ?? DEFAULT_RATES.ai },
    status,
    created_by: row.createdBy,
    created_by_token: row.createdByToken,
    created_at: iso(row.createdAt),
    expires_at: when(row.expiresAt),
    revoked_at: when(row.revokedAt),
    last_used_at: when(row.lastUsedAt),
    last_used_ip: row.lastUsedIp,
  }
}

export const renderAudit = (row: AuditRow) => ({
  id: row.id,
  token_id: row.tokenId,
  token_name: row.tokenName,
  surface: row.surface,
  tool: row.tool,
  arguments: row.arguments === null ? null : JSON.parse(row.arguments),
  outcome: row.outcome,
  error: row.error,
  duration_ms: row.durationMs,
  ip: row.ip,
  created_at: iso(row.createdAt),
})

/** The 403 text for a scope the granter may not hand out. */
const cannotGrant = (g: Granter, scope: string) => g.agent
  ? `this token cannot grant ${scope}: a token grants only scopes both it and the user who created it hold`
  : `you cannot grant ${scope}: a token gets only scopes its creator holds`

/** Scopes as asked, each one the granter may grant (403 naming the first it may not). */
function grantable(g: Granter, asked: string[]): string {
  const parsed = parseScopes(asked)
  if ('error' in parsed) throw invalid(parsed.error)
  // "all" means every scope the granter holds, not every scope there is.
  const all = asked.some((s) => s.trim() === 'all' || s.trim() === '*')
  const scopes = all ? parsed.scopes.filter((s) => mayGrant(g, s)) : parsed.scopes
  const refused = scopes.find((s) => !mayGrant(g, s))
  if (refused) throw forbidden(cannotGrant(g, refused))
  if (scopes.length === 0) throw forbidden('you hold no scope to grant')
  return JSON.stringify(scopes)
}

/**
 * Who may change or revoke an existing token: a token only itself and the tokens it created
 * (agent_tokens.created_by_token); a person only tokens within what they may grant (so a narrower admin
 * cannot rewrite or revoke an owner's token). The system may change any.
 */
function requireMayChange(g: Granter, row: TokenRow, doing: 'change' | 'revoke'): void {
  if (g.agent) {
    if (g.agent.tokenId !== row.id && row.createdByToken !== g.agent.tokenId) {
      throw forbidden(`a token may ${doing} only itself and the tokens it created (token ${row.id} is another token)`)
    }
    return
  }
  const beyond = (scopesOf(row) as Scope[]).find((s) => !mayGrant(g, s))
  if (beyond) throw forbidden(`you cannot ${doing} a token that holds ${beyond}: you do not hold it`)
}

/**
 * A token managing tokens hands out no more than it has: rate limits up to its own, and (when it expires)
 * an expiry no later than its own; a new token without one inherits it.
 */
function withinActor(actor: Actor, limits: { default?: number | null; ai?: number | null } | undefined, expiresAt: number | null | undefined, creating: boolean): number | null | undefined {
  const agent = actor.kind === 'admin' ? actor.user.agent : undefined
  if (!agent) return expiresAt
  for (const bucket of ['default', 'ai'] as const) {
    const asked = limits?.[bucket]
    if (asked === undefined && !creating) continue
    const value = asked ?? DEFAULT_RATES[bucket]
    if (value > agent.rates[bucket]) throw forbidden(`rate_limits.${bucket}: a token cannot grant more than its own ${agent.rates[bucket]} calls a minute`)
  }
  if (agent.expiresAt === null) return expiresAt
  if (expiresAt === undefined && creating) return agent.expiresAt
  if (expiresAt === null || (expiresAt !== undefined && expiresAt > agent.expiresAt)) {
    throw forbidden(`expires_at: a token cannot grant a later expiry than its own (${iso(agent.expiresAt)})`)
  }
  return expiresAt
}

function expiry(raw: string | null | undefined, now: number): number | null | undefined {
  if (raw === undefined || raw === null) return raw
  const at = parseMoment(raw)
  if (at === null) throw invalid('expires_at: must be an ISO 8601 time')
  if (at <= now) throw invalid('expires_at: must be in the future')
  return at
}

/**
 * `findUser` looks up the person who created an acting token (what that token may grant is also bounded by
 * them); without it (the CLI, which acts as the system) a token's creator counts as gone.
 */
export function agentVerbs(store: AgentStore, findUser: (id: number) => Promise<AdminUser | null> = async () => null) {
  const found = async (id: number) => {
    const row = await store.tokenById(id)
    if (!row) throw notFound('token not found')
    return row
  }
  const granter = (actor: Actor) => granterOf(actor, findUser)

  return {
    tokens: {
      list: defineVerb({
        name: 'tokens.list',
        summary: 'List agent tokens, newest first (the tokens themselves are never shown again; token_hint tells them apart)',
        permission: 'users:read',
        input: Type.Object({ limit: text(), cursor: text() }),
        async run(_actor, input) {
          const limit = parseLimit(input.limit)
          return toPage(await store.listTokens(parseCursor(input.cursor), limit + 1), { limit }, (r) => renderToken(r))
        },
      }),
      get: defineVerb({
        name: 'tokens.get',
        summary: 'Get an agent token (status, scopes, limits, last use)',
        permission: 'users:read',
        input: Type.Object({ id: Int() }),
        run: async (_actor, { id }) => renderToken(await found(id)),
      }),
      scopes: defineVerb({
        name: 'tokens.scopes',
        summary: 'The 42 scopes (21 resources × read/write) and what each resource covers',
        permission: 'users:read',
        input: Type.Object({}),
        run: async () => ({
          items: SCOPES.map((scope) => {
            const [resource, action] = scope.split(':') as [ResourceName, string]
            return { scope, resource, action, section: RESOURCES[resource].section, covers: RESOURCES[resource].covers }
          }),
          next_cursor: null,
        }),
      }),
      create: defineVerb({
        name: 'tokens.create',
        summary: 'Create an agent token for /mcp and /admin/api; the token is in this answer only (stored hashed)',
        permission: 'users:write',
        input: TokenCreate,
        async run(actor, input) {
          requireConfirmed(actor, 'create_token')
          const g = await granter(actor)
          const now = Date.now()
          // A token's child inherits its limits unless given lower ones.
          const agent = actor.kind === 'admin' ? actor.user.agent : undefined
          const limits = agent ? { default: input.rate_limits?.default ?? agent.rates.default, ai: input.rate_limits?.ai ?? agent.rates.ai } : input.rate_limits
          const expiresAt = withinActor(actor, limits, expiry(input.expires_at, now), true)
          const minted = mintToken()
          const row = await store.createToken({
            name: input.name.trim() || 'token',
            tokenHash: minted.hash,
            tokenHint: minted.hint,
            scopes: grantable(g, input.scopes),
            rateDefault: limits?.default ?? null,
            rateAi: limits?.ai ?? null,
            // A token's child is recorded as made by the token's creator: its grants stay bounded by that person.
            createdBy: actor.kind === 'system' ? null : agent ? agent.createdBy : actor.user.id,
            createdByToken: agent ? agent.tokenId : null,
            createdAt: now,
            expiresAt: expiresAt ?? null,
          })
          return { ...renderToken(row, now), token: minted.token }
        },
      }),
      update: defineVerb({
        name: 'tokens.update',
        summary: "Change an agent token's name, scopes, rate limits or expiry (its secret stays)",
        permission: 'users:write',
        input: Type.Object({ id: Int(), ...TokenPatch.properties }),
        async run(actor, input) {
          requireConfirmed(actor, 'update_token')
          const row = await found(input.id)
          const g = await granter(actor)
          requireMayChange(g, row, 'change')
          const changes: TokenChanges = {}
          if (input.name !== undefined) changes.name = input.name.trim() || 'token'
          if (input.scopes !== undefined) changes.scopes = grantable(g, input.scopes)
          const expiresAt = withinActor(actor, input.rate_limits, expiry(input.expires_at, Date.now()), false)
          if (input.expires_at !== undefined) changes.expiresAt = expiresAt
          if (input.rate_limits?.default !== undefined) changes.rateDefault = input.rate_limits.default
          if (input.rate_limits?.ai !== undefined) changes.rateAi = input.rate_limits.ai
          return renderToken((await store.updateToken(input.id, changes))!)
        },
      }),
      delete: defineVerb({
        name: 'tokens.delete',
        summary: 'Revoke an agent token: it stops working at once; its row stays so the audit log keeps naming it',
        permission: 'users:write',
        input: Type.Object({ id: Int() }),
        async run(actor, { id }) {
          requireConfirmed(actor, 'delete_token')
          const row = await found(id)
          requireMayChange(await granter(actor), row, 'revoke')
          await store.revokeToken(id, Date.now())
          return { ok: true as const }
        },
      }),
    },
    audit: {
      list: defineVerb({
        name: 'audit.list',
        summary: 'Agent API calls, newest first: token, tool, arguments (secrets redacted), outcome, duration, client IP (filters token_id, tool, outcome, surface, from, to)',
        permission: 'users:read',
        input: Type.Object({ token_id: text(), tool: text(), outcome: text(), surface: text(), from: text(), to: text(), limit: text(), cursor: text() }),
        async run(_actor, input) {
          const limit = parseLimit(input.limit)
          if (input.token_id && !/^\d{1,15}$/.test(input.token_id)) throw invalid('token_id: must be an integer')
          const rows = await store.listAudit({
            tokenId: input.token_id ? Number(input.token_id) : undefined,
            tool: input.tool || undefined,
            outcome: input.outcome || undefined,
            surface: input.surface || undefined,
            from: momentFilter(input.from, 'from'),
            to: momentFilter(input.to, 'to'),
          }, parseCursor(input.cursor), limit + 1)
          return toPage(rows, { limit }, renderAudit)
        },
      }),
    },
  }
}

export type AgentVerbs = ReturnType<typeof agentVerbs>
