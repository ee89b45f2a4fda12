// The agent store on SQLite: prepared statements on the one shared connection.
import type { Database, RawDb, RawStatement } from '../../db/client'
import { where } from '../../db/where'
import type { AgentStore, AuditFilter, AuditRow, Claim, NewAudit, NewToken, TokenChanges, TokenRow } from './types'

const TOKEN = 'id, name, token_hash AS tokenHash, token_hint AS tokenHint, scopes, rate_default AS rateDefault, rate_ai AS rateAi, ' +
  'created_by AS createdBy, created_by_token AS createdByToken, created_at AS createdAt, expires_at AS expiresAt, revoked_at AS revokedAt, ' +
  'last_used_at AS lastUsedAt, last_used_ip AS lastUsedIp'
const AUDIT = 'id, token_id AS tokenId, token_name AS tokenName, surface, tool, arguments, outcome, error, ' +
  'duration_ms AS durationMs, ip, created_at AS createdAt'

export class SqliteAgentStore implements AgentStore {
  private readonly raw: RawDb
  private readonly statements = new Map<string, RawStatement>()

  constructor(database: Database) {
    this.raw = database.raw
  }

  /** Each statement text is prepared once, on first use (list texts vary with their filters). */
  private st(sql: string): RawStatement {
    let st = this.statements.get(sql)
    if (!st) this.statements.set(sql, (st = this.raw.prepare(sql)))
    return st
  }

  async createToken(t: NewToken): Promise<TokenRow> {
    return this.st(
      'INSERT INTO agent_tokens (name, token_hash, token_hint, scopes, rate_default, rate_ai, created_by, created_by_token, created_at, expires_at) ' +
        `VALUES ($name, $tokenHash, $tokenHint, $scopes, $rateDefault, $rateAi, $createdBy, $createdByToken, $createdAt, $expiresAt) RETURNING ${TOKEN}`,
    ).get({ ...t }) as TokenRow
  }

  async tokenByHash(hash: string): Promise<TokenRow | undefined> {
    return (this.st(`SELECT ${TOKEN} FROM agent_tokens WHERE token_hash = $hash`).get({ hash }) as TokenRow | null) ?? undefined
  }

  async tokenById(id: number): Promise<TokenRow | undefined> {
    return (this.st(`SELECT ${TOKEN} FROM agent_tokens WHERE id = $id`).get({ id }) as TokenRow | null) ?? undefined
  }

  async listTokens(before: number | undefined, limit: number): Promise<TokenRow[]> {
    const w = where([['id < $before', 'before', before]])
    return this.st(`SELECT ${TOKEN} FROM agent_tokens ${w.sql} ORDER BY id DESC LIMIT $limit`).all({ ...w.params, limit }) as TokenRow[]
  }

  async updateToken(id: number, changes: TokenChanges): Promise<TokenRow | undefined> {
    const columns: Record<keyof TokenChanges, string> = { name: 'name', scopes: 'scopes', rateDefault: 'rate_default', rateAi: 'rate_ai', expiresAt: 'expires_at' }
    const keys = (Object.keys(changes) as (keyof TokenChanges)[]).filter((k) => changes[k] !== undefined)
    if (keys.length === 0) return this.tokenById(id)
    const sets = keys.map((k) => `${columns[k]} = $${k}`).join(', ')
    const params = Object.fromEntries(keys.map((k) => [k, changes[k]]))
    return (this.st(`UPDATE agent_tokens SET ${sets} WHERE id = $id RETURNING ${TOKEN}`).get({ ...params, id }) as TokenRow | null) ?? undefined
  }

  async revokeToken(id: number, now: number): Promise<TokenRow | undefined> {
    return (this.st(`UPDATE agent_tokens SET revoked_at = coalesce(revoked_at, $now) WHERE id = $id RETURNING ${TOKEN}`)
      .get({ id, now }) as TokenRow | null) ?? undefined
  }

  async touchToken(id: number, now: number, ip: string | null): Promise<void> {
    this.st('UPDATE agent_tokens SET last_used_at = $now, last_used_ip = $ip WHERE id = $id').run({ id, now, ip })
  }

  async addAudit(row: NewAudit): Promise<void> {
    this.st(
      'INSERT INTO agent_audit (token_id, token_name, surface, tool, arguments, outcome, error, duration_ms, ip, created_at) ' +
        'VALUES ($tokenId, $tokenName, $surface, $tool, $arguments, $outcome, $error, $durationMs, $ip, $createdAt)',
    ).run({ ...row })
  }

  async listAudit(filter: AuditFilter, before: number | undefined, limit: number): Promise<AuditRow[]> {
    const w = where([
      ['token_id = $tokenId', 'tokenId', filter.tokenId],
      ['tool = $tool', 'tool', filter.tool],
      ['outcome = $outcome', 'outcome', filter.outcome],
      ['surface = $surface', 'surface', filter.surface],
      ['created_at >= $from', 'from', filter.from],
      ['created_at < $to', 'to', filter.to],
      ['id < $before', 'before', before],
    ])
    return this.st(`SELECT ${AUDIT} FROM agent_audit ${w.sql} ORDER BY id DESC LIMIT $limit`).all({ ...w.params, limit }) as AuditRow[]
  }

  async pruneAudit(cutoff: number, limit: number): Promise<number> {
    return this.st('DELETE FROM agent_audit WHERE id IN (SELECT id FROM agent_audit WHERE created_at < $cutoff ORDER BY created_at LIMIT $limit)')
      .run({ cutoff, limit }).changes
  }

  async claimConfirmation(key: string, tokenId: number, tool: string, now: number): Promise<Claim> {
    const inserted = this.st(
      "INSERT INTO agent_confirmations (key, token_id, tool, state, created_at) VALUES ($key, $tokenId, $tool, 'running', $now) ON CONFLICT (key) DO NOTHING",
    ).run({ key, tokenId, tool, now }).changes
    if (inserted === 1) return { claimed: true }
    const row = this.st('SELECT state, result FROM agent_confirmations WHERE key = $key').get({ key }) as { state: 'running' | 'done'; result: string | null } | null
    // Released between the insert and the read: try once more.
    if (!row) return this.claimConfirmation(key, tokenId, tool, now)
    return { claimed: false, state: row.state, result: row.result }
  }

  async finishConfirmation(key: string, result: string): Promise<void> {
    this.st("UPDATE agent_confirmations SET state = 'done', result = $result WHERE key = $key").run({ key, result })
  }

  async releaseConfirmation(key: string): Promise<void> {
    this.st('DELETE FROM agent_confirmations WHERE key = $key').run({ key })
  }

  async pruneConfirmations(cutoff: number): Promise<number> {
    return this.st('DELETE FROM agent_confirmations WHERE created_at < $cutoff').run({ cutoff }).changes
  }
}
