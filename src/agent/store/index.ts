// The agent store (tokens, audit, confirmations), one module for both engines (db/store-db.ts).
import type { AnyDatabase } from '../../db/engine'
import { raw, sql, whereAll, type Sql } from '../../db/sql'
import { storeDb, type StoreDb } from '../../db/store-db'
import type { AgentStore, AuditFilter, AuditRow, Claim, NewAudit, NewToken, TokenChanges, TokenRow } from './types'

const TOKEN = raw(`id, name, token_hash AS "tokenHash", token_hint AS "tokenHint", scopes, rate_default AS "rateDefault",
  rate_ai AS "rateAi", created_by AS "createdBy", created_by_token AS "createdByToken", created_at AS "createdAt",
  expires_at AS "expiresAt", revoked_at AS "revokedAt", last_used_at AS "lastUsedAt", last_used_ip AS "lastUsedIp"`)
const AUDIT = raw(`id, token_id AS "tokenId", token_name AS "tokenName", surface, tool, arguments, outcome, error,
  duration_ms AS "durationMs", ip, created_at AS "createdAt"`)

/** The columns a token change may set; names from this fixed map, never from input. */
const TOKEN_COLUMNS: Record<keyof TokenChanges, string> = {
  name: 'name', scopes: 'scopes', rateDefault: 'rate_default', rateAi: 'rate_ai', expiresAt: 'expires_at',
}

class SqlAgentStore implements AgentStore {
  constructor(private readonly db: StoreDb) {}

  async createToken(t: NewToken): Promise<TokenRow> {
    return (await this.db.get<TokenRow>(sql`
      INSERT INTO agent_tokens (name, token_hash, token_hint, scopes, rate_default, rate_ai, created_by, created_by_token, created_at, expires_at)
      VALUES (${t.name}, ${t.tokenHash}, ${t.tokenHint}, ${t.scopes}, ${t.rateDefault}, ${t.rateAi}, ${t.createdBy},
        ${t.createdByToken}, ${t.createdAt}, ${t.expiresAt})
      RETURNING ${TOKEN}`))!
  }

  tokenByHash(hash: string): Promise<TokenRow | undefined> {
    return this.db.get<TokenRow>(sql`SELECT ${TOKEN} FROM agent_tokens WHERE token_hash = ${hash}`)
  }

  tokenById(id: number): Promise<TokenRow | undefined> {
    return this.db.get<TokenRow>(sql`SELECT ${TOKEN} FROM agent_tokens WHERE id = ${id}`)
  }

  listTokens(before: number | undefined, limit: number): Promise<TokenRow[]> {
    const w = whereAll([before !== undefined && sql`id < ${before}`])
    return this.db.all<TokenRow>(sql`SELECT ${TOKEN} FROM agent_tokens ${w} ORDER BY id DESC LIMIT ${limit}`)
  }

  /** Sets only the columns the change names (null is a value: "no expiry", "default rate"). */
  updateToken(id: number, changes: TokenChanges): Promise<TokenRow | undefined> {
    const sets: Sql[] = []
    for (const k of Object.keys(TOKEN_COLUMNS) as (keyof TokenChanges)[]) {
      if (changes[k] !== undefined) sets.push(sql`${raw(TOKEN_COLUMNS[k])} = ${changes[k]}`)
    }
    if (sets.length === 0) return this.tokenById(id)
    const set = sets.reduce((a, b) => sql`${a}, ${b}`)
    return this.db.get<TokenRow>(sql`UPDATE agent_tokens SET ${set} WHERE id = ${id} RETURNING ${TOKEN}`)
  }

  revokeToken(id: number, now: number): Promise<TokenRow | undefined> {
    return this.db.get<TokenRow>(
      sql`UPDATE agent_tokens SET revoked_at = coalesce(revoked_at, ${now}) WHERE id = ${id} RETURNING ${TOKEN}`)
  }

  async touchToken(id: number, now: number, ip: string | null): Promise<void> {
    await this.db.run(sql`UPDATE agent_tokens SET last_used_at = ${now}, last_used_ip = ${ip} WHERE id = ${id}`)
  }

  async addAudit(r: NewAudit): Promise<void> {
    await this.db.run(sql`
      INSERT INTO agent_audit (token_id, token_name, surface, tool, arguments, outcome, error, duration_ms, ip, created_at)
      VALUES (${r.tokenId}, ${r.tokenName}, ${r.surface}, ${r.tool}, ${r.arguments}, ${r.outcome}, ${r.error}, ${r.durationMs},
        ${r.ip}, ${r.createdAt})`)
  }

  listAudit(f: AuditFilter, before: number | undefined, limit: number): Promise<AuditRow[]> {
    const w = whereAll([
      f.tokenId !== undefined && sql`token_id = ${f.tokenId}`,
      f.tool !== undefined && sql`tool = ${f.tool}`,
      f.outcome !== undefined && sql`outcome = ${f.outcome}`,
      f.surface !== undefined && sql`surface = ${f.surface}`,
      f.from !== undefined && sql`created_at >= ${f.from}`,
      f.to !== undefined && sql`created_at < ${f.to}`,
      before !== undefined && sql`id < ${before}`,
    ])
    return this.db.all<AuditRow>(sql`SELECT ${AUDIT} FROM agent_audit ${w} ORDER BY id DESC LIMIT ${limit}`)
  }

  /** Two instances pruning at once take different rows (SKIP LOCKED on Postgres; SQLite has one writer). */
  pruneAudit(cutoff: number, limit: number): Promise<number> {
    return this.db.run(sql`
      DELETE FROM agent_audit WHERE id IN (
        SELECT id FROM agent_audit WHERE created_at < ${cutoff} ORDER BY created_at LIMIT ${limit} ${this.db.skipLocked})`)
  }

  async claimConfirmation(key: string, tokenId: number, tool: string, now: number): Promise<Claim> {
    const inserted = await this.db.run(sql`
      INSERT INTO agent_confirmations (key, token_id, tool, state, created_at) VALUES (${key}, ${tokenId}, ${tool}, 'running', ${now})
      ON CONFLICT (key) DO NOTHING`)
    if (inserted === 1) return { claimed: true }
    const row = await this.db.get<{ state: 'running' | 'done'; result: string | null }>(
      sql`SELECT state, result FROM agent_confirmations WHERE key = ${key}`)
    // Released between the insert and the read: try once more.
    if (!row) return this.claimConfirmation(key, tokenId, tool, now)
    return { claimed: false, state: row.state, result: row.result }
  }

  async finishConfirmation(key: string, result: string): Promise<void> {
    await this.db.run(sql`UPDATE agent_confirmations SET state = 'done', result = ${result} WHERE key = ${key}`)
  }

  async releaseConfirmation(key: string): Promise<void> {
    await this.db.run(sql`DELETE FROM agent_confirmations WHERE key = ${key}`)
  }

  pruneConfirmations(cutoff: number): Promise<number> {
    return this.db.run(sql`DELETE FROM agent_confirmations WHERE created_at < ${cutoff}`)
  }
}

/** The agent store of an opened database, on either engine. */
export function agentStore(database: AnyDatabase): AgentStore {
  return new SqlAgentStore(storeDb(database))
}
