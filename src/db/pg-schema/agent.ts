import { pgTable, bigint, integer, text, index, uniqueIndex } from 'drizzle-orm/pg-core'

// Postgres twin of ../schema/agent.ts.

/**
 * Agent API tokens (issue 12): `svc_ap_…` bearer tokens for /mcp and /admin/api. Only the SHA-256 of a
 * token is kept (it is shown once); token_hint is its last 4 characters, so a person can tell tokens apart.
 * scopes: JSON array of "<resource>:read|write". rate_default/rate_ai: calls a minute per bucket (null:
 * the documented defaults). Revoked tokens stay (revoked_at set) so the audit log keeps naming them.
 */
export const agentTokens = pgTable('agent_tokens', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  name: text('name').notNull(),
  tokenHash: text('token_hash').notNull(),
  tokenHint: text('token_hint').notNull(),
  scopes: text('scopes').notNull(),
  rateDefault: integer('rate_default'),
  rateAi: integer('rate_ai'),
  createdBy: bigint('created_by', { mode: 'number' }),
  createdByToken: bigint('created_by_token', { mode: 'number' }),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  expiresAt: bigint('expires_at', { mode: 'number' }),
  revokedAt: bigint('revoked_at', { mode: 'number' }),
  lastUsedAt: bigint('last_used_at', { mode: 'number' }),
  lastUsedIp: text('last_used_ip'),
}, (t) => [uniqueIndex('agent_tokens_hash_idx').on(t.tokenHash)])

/**
 * One row per agent API call (a tool call or resource read on /mcp, or a bearer request to /admin/api),
 * denied ones included. arguments: JSON with secret values redacted. outcome: ok | error | denied |
 * rate_limited | confirmation_required | replayed.
 */
export const agentAudit = pgTable('agent_audit', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  tokenId: bigint('token_id', { mode: 'number' }),
  tokenName: text('token_name'),
  surface: text('surface').notNull(),
  tool: text('tool').notNull(),
  arguments: text('arguments'),
  outcome: text('outcome').notNull(),
  error: text('error'),
  durationMs: integer('duration_ms').notNull(),
  ip: text('ip'),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
}, (t) => [
  index('agent_audit_created_idx').on(t.createdAt),
  index('agent_audit_token_idx').on(t.tokenId, t.id),
])

/**
 * Confirmed Tier-2 calls: key = SHA-256 of the confirmation token. The row is claimed (state running)
 * before the call acts, so a repeat or a concurrent duplicate never acts twice; result holds the first
 * answer, which a repeat returns.
 */
export const agentConfirmations = pgTable('agent_confirmations', {
  key: text('key').primaryKey(),
  tokenId: bigint('token_id', { mode: 'number' }).notNull(),
  tool: text('tool').notNull(),
  state: text('state').notNull(),
  result: text('result'),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
}, (t) => [index('agent_confirmations_created_idx').on(t.createdAt)])
