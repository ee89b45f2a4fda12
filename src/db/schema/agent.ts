import { integer, text, index, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { table, bigId, int8, ms } from '../table'

/**
 * Agent API tokens (issue 12): `svc_ap_…` bearer tokens for /mcp and /admin/api. Only the SHA-256 of a
 * token is kept (it is shown once); token_hint is its last 4 characters, so a person can tell tokens apart.
 * scopes: JSON array of "<resource>:read|write". rate_default/rate_ai: calls a minute per bucket (null:
 * the documented defaults). Revoked tokens stay (revoked_at set) so the audit log keeps naming them.
 */
export const agentTokens = table('agent_tokens', {
  id: bigId(),
  name: text('name').notNull(),
  tokenHash: text('token_hash').notNull(),
  tokenHint: text('token_hint').notNull(),
  scopes: text('scopes').notNull(),
  rateDefault: integer('rate_default'),
  rateAi: integer('rate_ai'),
  createdBy: int8('created_by'),
  createdByToken: int8('created_by_token'),
  createdAt: ms('created_at').notNull(),
  expiresAt: ms('expires_at'),
  revokedAt: ms('revoked_at'),
  lastUsedAt: ms('last_used_at'),
  lastUsedIp: text('last_used_ip'),
}, (t) => [uniqueIndex('agent_tokens_hash_idx').on(t.tokenHash)])

/**
 * One row per agent API call (a tool call or resource read on /mcp, or a bearer request to /admin/api),
 * denied ones included. arguments: JSON with secret values redacted. outcome: ok | error | denied |
 * rate_limited | confirmation_required | replayed.
 */
export const agentAudit = table('agent_audit', {
  id: bigId(),
  tokenId: int8('token_id'),
  tokenName: text('token_name'),
  surface: text('surface').notNull(),
  tool: text('tool').notNull(),
  arguments: text('arguments'),
  outcome: text('outcome').notNull(),
  error: text('error'),
  durationMs: integer('duration_ms').notNull(),
  ip: text('ip'),
  createdAt: ms('created_at').notNull(),
}, (t) => [
  index('agent_audit_created_idx').on(t.createdAt),
  index('agent_audit_token_idx').on(t.tokenId, t.id),
])

/**
 * Confirmed Tier-2 calls: key = SHA-256 of the confirmation token. The row is claimed (state running)
 * before the call acts, so a repeat or a concurrent duplicate never acts twice; result holds the first
 * answer, which a repeat returns.
 */
export const agentConfirmations = table('agent_confirmations', {
  key: text('key').primaryKey(),
  tokenId: int8('token_id').notNull(),
  tool: text('tool').notNull(),
  state: text('state').notNull(),
  result: text('result'),
  createdAt: ms('created_at').notNull(),
}, (t) => [index('agent_confirmations_created_idx').on(t.createdAt)])
