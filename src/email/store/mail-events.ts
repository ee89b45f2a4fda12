// Provider reports (bounces, complaints, unsubscribes) on both engines: each event is recorded once (a
// redelivery is a no-op) and, in the same transaction, changes the address's subscriptions everywhere.
// A signature's nonce (Mailgun's token) is remembered in that transaction too, so a failed attempt leaves
// it unused for the provider's retry, and a token cannot carry a second, different body.
import type { SQL } from 'bun'
import type { Database, RawDb, RawStatement } from '../../db/client'
import { where } from '../../db/where'
import type { AnyDatabase } from '../../db/engine'

export interface MailEvent {
  provider: string
  /** The provider's id of the event and the address: what makes a redelivery recognisable. */
  key: string
  kind: 'bounce' | 'complaint' | 'unsubscribe'
  /** A permanent bounce (soft ones are only counted). */
  hard: boolean
  email: string
  occurredAt: number
}

/** A signature's one-time token: accepted once per body until `expiresAt` (when the signature would be stale anyway). */
export interface Nonce {
  provider: string
  token: string
  /** SHA-256 (hex) of the raw body it signed. */
  bodyHash: string
  expiresAt: number
}

/** The nonce was already used for another body: nothing was recorded. */
export const REPLAYED = 'replayed'

export interface Recorded {
  /** Events new to svc. */
  recorded: number
  duplicates: number
  /** Subscribers whose status the events changed (their pending messages get cancelled). */
  changedSubscribers: number[]
}

/** A recorded event as the admin view lists it. */
export interface MailEventRow extends Omit<MailEvent, 'key'> {
  id: number
  createdAt: number
}

export interface MailEventFilter {
  email?: string
  kind?: MailEvent['kind']
  /** Cursor: ids below this one (newest first). */
  before?: number
  limit: number
}

export interface MailEventStore {
  /**
   * Records the events and, first, the nonce: the same nonce with the same body again is a redelivery
   * (every event a duplicate), with another body REPLAYED. Expired nonces are pruned now and then.
   */
  record(events: readonly MailEvent[], nonce?: Nonce): Promise<Recorded | typeof REPLAYED>
  /** Newest first. */
  list(filter: MailEventFilter): Promise<MailEventRow[]>
}

/** The status an event puts an address in, and the statuses it replaces (a complaint outranks the rest). */
function effect(e: MailEvent): { status: string; from: string[] } | null {
  if (e.kind === 'complaint') return { status: 'complained', from: ['active', 'unsubscribed', 'bounced'] }
  if (e.kind === 'bounce') return e.hard ? { status: 'bounced', from: ['active', 'unsubscribed'] } : null
  return { status: 'unsubscribed', from: ['active'] }
}

/** Expired nonces are deleted at most this often (per instance). */
const PRUNE_EVERY_MS = 60_000

const redelivered = (events: readonly MailEvent[]): Recorded => ({ recorded: 0, duplicates: events.length, changedSubscribers: [] })

export function mailEventStore(database: AnyDatabase): MailEventStore {
  return database.engine === 'postgres' ? new PgMailEventStore(database.sql) : new SqliteMailEventStore(database)
}

class SqliteMailEventStore implements MailEventStore {
  private readonly raw: RawDb
  private readonly insert: RawStatement
  private readonly change: RawStatement
  private readonly insertNonce: RawStatement
  private readonly nonceBody: RawStatement
  private readonly pruneNonces: RawStatement
  private lastPrune = 0

  constructor(database: Database) {
    const raw = (this.raw = database.raw)
    this.insert = raw.prepare(
      'INSERT INTO mail_events (provider, event_key, kind, hard, email, occurred_at, created_at) VALUES ($provider, $key, $kind, $hard, $email, $occurredAt, $now) ' +
        'ON CONFLICT (provider, event_key) DO NOTHING RETURNING id',
    )
    this.change = raw.prepare(
      'UPDATE email_subscribers SET status = $status, updated_at = $now WHERE email = $email AND status IN (SELECT value FROM json_each($from)) RETURNING id',
    )
    this.insertNonce = raw.prepare(
      'INSERT INTO mail_webhook_tokens (provider, token, body_hash, expires_at, created_at) VALUES ($provider, $token, $bodyHash, $expiresAt, $now) ' +
        'ON CONFLICT (provider, token) DO NOTHING RETURNING 1 AS fresh',
    )
    this.nonceBody = raw.prepare('SELECT body_hash AS bodyHash FROM mail_webhook_tokens WHERE provider = $provider AND token = $token')
    this.pruneNonces = raw.prepare('DELETE FROM mail_webhook_tokens WHERE expires_at < $now')
  }

  async list(f: MailEventFilter): Promise<MailEventRow[]> {
    const w = where([
      ['email = $email', 'email', f.email],
      ['kind = $kind', 'kind', f.kind],
      ['id < $before', 'before', f.before],
    ])
    const rows = this.raw.prepare(
      `SELECT id, provider, kind, hard, email, occurred_at AS occurredAt, created_at AS createdAt FROM mail_events ${w.sql} ORDER BY id DESC LIMIT $limit`,
    ).all({ ...w.params, limit: f.limit }) as Array<Omit<MailEventRow, 'hard'> & { hard: number }>
    return rows.map((r) => ({ ...r, hard: r.hard === 1 }))
  }

  async record(events: readonly MailEvent[], nonce?: Nonce): Promise<Recorded | typeof REPLAYED> {
    const now = Date.now()
    if (nonce && now - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = now
      this.pruneNonces.run({ now })
    }
    return this.raw.transaction((): Recorded | typeof REPLAYED => {
      if (nonce && !this.insertNonce.get({ provider: nonce.provider, token: nonce.token, bodyHash: nonce.bodyHash, expiresAt: nonce.expiresAt, now })) {
        const seen = this.nonceBody.get({ provider: nonce.provider, token: nonce.token }) as { bodyHash: string } | null
        return seen?.bodyHash === nonce.bodyHash ? redelivered(events) : REPLAYED
      }
      const out: Recorded = { recorded: 0, duplicates: 0, changedSubscribers: [] }
      for (const e of events) {
        if (!this.insert.get({ provider: e.provider, key: e.key, kind: e.kind, hard: e.hard ? 1 : 0, email: e.email, occurredAt: e.occurredAt, now })) {
          out.duplicates++
          continue
        }
        out.recorded++
        const fx = effect(e)
        if (!fx) continue
        for (const r of this.change.all({ status: fx.status, now, email: e.email, from: JSON.stringify(fx.from) }) as Array<{ id: number }>) out.changedSubscribers.push(r.id)
      }
      return out
    })()
  }
}

class PgMailEventStore implements MailEventStore {
  private lastPrune = 0

  constructor(private readonly sql: SQL) {}

  async list(f: MailEventFilter): Promise<MailEventRow[]> {
    const sql = this.sql
    const rows = await sql`SELECT id, provider, kind, hard, email, occurred_at AS "occurredAt", created_at AS "createdAt" FROM mail_events
      WHERE ${f.email !== undefined ? sql`email = ${f.email}` : sql`TRUE`} AND ${f.kind !== undefined ? sql`kind = ${f.kind}` : sql`TRUE`}
        AND ${f.before !== undefined ? sql`id < ${f.before}::int8` : sql`TRUE`}
      ORDER BY id DESC LIMIT ${f.limit}::int`
    return [...rows].map((r) => ({
      id: Number(r.id), provider: r.provider, kind: r.kind, hard: Number(r.hard) === 1, email: r.email, occurredAt: Number(r.occurredAt), createdAt: Number(r.createdAt),
    }))
  }

  async record(events: readonly MailEvent[], nonce?: Nonce): Promise<Recorded | typeof REPLAYED> {
    const now = Date.now()
    if (nonce && now - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = now
      await this.sql`DELETE FROM mail_webhook_tokens WHERE expires_at < ${now}::bigint`
    }
    return (await this.sql.begin(async (tx): Promise<Recorded | typeof REPLAYED> => {
      if (nonce) {
        // A concurrent transaction holding the same token makes this wait for its COMMIT (or ROLLBACK).
        const fresh = await tx`INSERT INTO mail_webhook_tokens (provider, token, body_hash, expires_at, created_at)
          VALUES (${nonce.provider}, ${nonce.token}, ${nonce.bodyHash}, ${nonce.expiresAt}::bigint, ${now}::bigint)
          ON CONFLICT (provider, token) DO NOTHING RETURNING 1 AS fresh`
        if (fresh.length === 0) {
          const [seen] = await tx`SELECT body_hash AS "bodyHash" FROM mail_webhook_tokens WHERE provider = ${nonce.provider} AND token = ${nonce.token}`
          return seen?.bodyHash === nonce.bodyHash ? redelivered(events) : REPLAYED
        }
      }
      const out: Recorded = { recorded: 0, duplicates: 0, changedSubscribers: [] }
      for (const e of events) {
        const inserted = await tx`INSERT INTO mail_events (provider, event_key, kind, hard, email, occurred_at, created_at)
          VALUES (${e.provider}, ${e.key}, ${e.kind}, ${e.hard ? 1 : 0}::int, ${e.email}, ${e.occurredAt}::bigint, ${now}::bigint)
          ON CONFLICT (provider, event_key) DO NOTHING RETURNING id`
        if (inserted.length === 0) {
          out.duplicates++
          continue
        }
        out.recorded++
        const fx = effect(e)
        if (!fx) continue
        const changed = await tx`UPDATE email_subscribers SET status = ${fx.status}, updated_at = ${now}::bigint
          WHERE email = ${e.email} AND status = ANY(${fx.from}::text[]) RETURNING id`
        for (const r of changed) out.changedSubscribers.push(Number(r.id))
      }
      return out
    })) as Recorded | typeof REPLAYED
  }
}
