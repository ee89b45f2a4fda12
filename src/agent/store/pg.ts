// The agent store on PostgreSQL: the same rows and shapes as store/sqlite.ts, through Bun's SQL client.
import type { SQL } from 'bun'
import { numCols, type PgDatabase } from '../../db/pg/client'
import type { AgentStore, AuditFilter, AuditRow, Claim, NewAudit, NewToken, TokenChanges, TokenRow } from './types'

type Raw = Record<string, unknown>

const tokenCols = (sql: SQL) => sql`id, name, token_hash AS "tokenHash", token_hint AS "tokenHint", scopes, rate_default AS "rateDefault",
  rate_ai AS "rateAi", created_by AS "createdBy", created_by_token AS "createdByToken", created_at AS "createdAt", expires_at AS "expiresAt", revoked_at AS "revokedAt",
  last_used_at AS "lastUsedAt", last_used_ip AS "lastUsedIp"`
const auditCols = (sql: SQL) => sql`id, token_id AS "tokenId", token_name AS "tokenName", surface, tool, arguments, outcome, error,
  duration_ms AS "durationMs", ip, created_at AS "createdAt"`

const tokens = (rows: Raw[]) =>
  numCols(rows, 'id', 'createdBy', 'createdByToken', 'createdAt', 'expiresAt', 'revokedAt', 'lastUsedAt', 'rateDefault', 'rateAi') as unknown as TokenRow[]
const audits = (rows: Raw[]) => numCols(rows, 'id', 'tokenId', 'durationMs', 'createdAt') as unknown as AuditRow[]

export class PgAgentStore implements AgentStore {
  private readonly sql: SQL

  constructor(database: PgDatabase) {
    this.sql = database.sql
  }

  async createToken(t: NewToken): Promise<TokenRow> {
    const sql = this.sql
    const rows = await sql`
      INSERT INTO agent_tokens (name, token_hash, token_hint, scopes, rate_default, rate_ai, created_by, created_by_token, created_at, expires_at)
      VALUES (${t.name}, ${t.tokenHash}, ${t.tokenHint}, ${t.scopes}, ${t.rateDefault}::int4, ${t.rateAi}::int4, ${t.createdBy}::int8,
        ${t.createdByToken}::int8, ${t.createdAt}::int8, ${t.expiresAt}::int8)
      RETURNING ${tokenCols(sql)}`
    return tokens(rows)[0]!
  }

  async tokenByHash(hash: string): Promise<TokenRow | undefined> {
    const sql = this.sql
    return tokens(await sql`SELECT ${tokenCols(sql)} FROM agent_tokens WHERE token_hash = ${hash}`)[0]
  }

  async tokenById(id: number): Promise<TokenRow | undefined> {
    const sql = this.sql
    return tokens(await sql`SELECT ${tokenCols(sql)} FROM agent_tokens WHERE id = ${id}::int8`)[0]
  }

  async listTokens(before: number | undefined, limit: number): Promise<TokenRow[]> {
    const sql = this.sql
    const cond = before === undefined ? sql`` : sql`WHERE id < ${before}::int8`
    return tokens(await sql`SELECT ${tokenCols(sql)} FROM agent_tokens ${cond} ORDER BY id DESC LIMIT ${limit}`)
  }

  async updateToken(id: number, c: TokenChanges): Promise<TokenRow | undefined> {
    const sql = this.sql
    // Each column keeps its value unless the change names it (null is a value: "no expiry", "default rate").
    const rows = await sql`
      UPDATE agent_tokens SET
        name = CASE WHEN ${c.name !== undefined} THEN ${c.name ?? null} ELSE name END,
        scopes = CASE WHEN ${c.scopes !== undefined} THEN ${c.scopes ?? null} ELSE scopes END,
        rate_default = CASE WHEN ${c.rateDefault !== undefined} THEN ${c.rateDefault ?? null}::int4 ELSE rate_default END,
        rate_ai = CASE WHEN ${c.rateAi !== undefined} THEN ${c.rateAi ?? null}::int4 ELSE rate_ai END,
        expires_at = CASE WHEN ${c.expiresAt !== undefined} THEN ${c.expiresAt ?? null}::int8 ELSE expires_at END
      WHERE id = ${id}::int8
      RETURNING ${tokenCols(sql)}`
    return tokens(rows)[0]
  }

  async revokeToken(id: number, now: number): Promise<TokenRow | undefined> {
    const sql = this.sql
    return tokens(await sql`UPDATE agent_tokens SET revoked_at = coalesce(revoked_at, ${now}::int8) WHERE id = ${id}::int8 RETURNING ${tokenCols(sql)}`)[0]
  }

  async touchToken(id: number, now: number, ip: string | null): Promise<void> {
    await this.sql`UPDATE agent_tokens SET last_used_at = ${now}::int8, last_used_ip = ${ip} WHERE id = ${id}::int8`
  }

  async addAudit(r: NewAudit): Promise<void> {
    await this.sql`
      INSERT INTO agent_audit (token_id, token_name, surface, tool, arguments, outcome, error, duration_ms, ip, created_at)
      VALUES (${r.tokenId}::int8, ${r.tokenName}, ${r.surface}, ${r.tool}, ${r.arguments}, ${r.outcome}, ${r.error}, ${r.durationMs}::int4,
        ${r.ip}, ${r.createdAt}::int8)`
  }

  async listAudit(f: AuditFilter, before: number | undefined, limit: number): Promise<AuditRow[]> {
    const sql = this.sql
    const conds = [
      f.tokenId === undefined ? null : sql`token_id = ${f.tokenId}::int8`,
      f.tool === undefined ? null : sql`tool = ${f.tool}`,
      f.outcome === undefined ? null : sql`outcome = ${f.outcome}`,
      f.surface === undefined ? null : sql`surface = ${f.surface}`,
      f.from === undefined ? null : sql`created_at >= ${f.from}::int8`,
      f.to === undefined ? null : sql`created_at < ${f.to}::int8`,
      before === undefined ? null : sql`id < ${before}::int8`,
    ].filter((c) => c !== null)
    let clause = sql``
    conds.forEach((c, i) => { clause = i === 0 ? sql`WHERE ${c}` : sql`${clause} AND ${c}` })
    return audits(await sql`SELECT ${auditCols(sql)} FROM agent_audit ${clause} ORDER BY id DESC LIMIT ${limit}`)
  }

  /** SKIP LOCKED: two instances pruning at once take different rows. */
  async pruneAudit(cutoff: number, limit: number): Promise<number> {
    const r = await this.sql`
      DELETE FROM agent_audit WHERE id IN (
        SELECT id FROM agent_audit WHERE created_at < ${cutoff}::int8 ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)`
    return r.count
  }

  async claimConfirmation(key: string, tokenId: number, tool: string, now: number): Promise<Claim> {
    const sql = this.sql
    const inserted = await sql`
      INSERT INTO agent_confirmations (key, token_id, tool, state, created_at) VALUES (${key}, ${tokenId}::int8, ${tool}, 'running', ${now}::int8)
      ON CONFLICT (key) DO NOTHING RETURNING key`
    if (inserted.length === 1) return { claimed: true }
    const [row] = await sql`SELECT state, result FROM agent_confirmations WHERE key = ${key}`
    if (!row) return this.claimConfirmation(key, tokenId, tool, now)
    return { claimed: false, state: row.state, result: row.result }
  }

  async finishConfirmation(key: string, result: string): Promise<void> {
    await this.sql`UPDATE agent_confirmations SET state = 'done', result = ${result} WHERE key = ${key}`
  }

  async releaseConfirmation(key: string): Promise<void> {
    await this.sql`DELETE FROM agent_confirmations WHERE key = ${key}`
  }

  async pruneConfirmations(cutoff: number): Promise<number> {
    return (await this.sql`DELETE FROM agent_confirmations WHERE created_at < ${cutoff}::int8`).count
  }
}
