// What the agent feature keeps: tokens (hashed), the audit log and confirmed Tier-2 calls. One interface,
// one implementation for both engines (store/index.ts) with these row shapes (camelCase, epoch-ms numbers).

export interface TokenRow {
  id: number
  name: string
  tokenHash: string
  tokenHint: string
  /** JSON array of scopes. */
  scopes: string
  rateDefault: number | null
  rateAi: number | null
  createdBy: number | null
  /** The token that made this one (a confirmed create_token on /mcp), or null: a person or the CLI made it. */
  createdByToken: number | null
  createdAt: number
  expiresAt: number | null
  revokedAt: number | null
  lastUsedAt: number | null
  lastUsedIp: string | null
}

export type NewToken = Omit<TokenRow, 'id' | 'revokedAt' | 'lastUsedAt' | 'lastUsedIp'>

export interface TokenChanges {
  name?: string
  scopes?: string
  rateDefault?: number | null
  rateAi?: number | null
  expiresAt?: number | null
}

export interface AuditRow {
  id: number
  tokenId: number | null
  tokenName: string | null
  surface: 'mcp' | 'rest'
  tool: string
  /** JSON, secrets redacted. */
  arguments: string | null
  outcome: string
  error: string | null
  durationMs: number
  ip: string | null
  createdAt: number
}

export type NewAudit = Omit<AuditRow, 'id'>

export interface AuditFilter {
  tokenId?: number
  tool?: string
  outcome?: string
  surface?: string
  from?: number
  to?: number
}

/** A claimed confirmation: `claimed` when this call may act; otherwise the first call's state and result. */
export type Claim = { claimed: true } | { claimed: false; state: 'running' | 'done'; result: string | null }

export interface AgentStore {
  createToken(t: NewToken): Promise<TokenRow>
  tokenByHash(hash: string): Promise<TokenRow | undefined>
  tokenById(id: number): Promise<TokenRow | undefined>
  /** Newest first, ids below `before`. */
  listTokens(before: number | undefined, limit: number): Promise<TokenRow[]>
  updateToken(id: number, changes: TokenChanges): Promise<TokenRow | undefined>
  /** Sets revoked_at once (a second revoke keeps the first time). */
  revokeToken(id: number, now: number): Promise<TokenRow | undefined>
  touchToken(id: number, now: number, ip: string | null): Promise<void>

  addAudit(row: NewAudit): Promise<void>
  listAudit(filter: AuditFilter, before: number | undefined, limit: number): Promise<AuditRow[]>
  pruneAudit(cutoff: number, limit: number): Promise<number>

  claimConfirmation(key: string, tokenId: number, tool: string, now: number): Promise<Claim>
  finishConfirmation(key: string, result: string): Promise<void>
  /** The call failed before acting: the confirmation may be used again. */
  releaseConfirmation(key: string): Promise<void>
  pruneConfirmations(cutoff: number): Promise<number>
}
