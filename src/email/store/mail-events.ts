// Provider reports (bounces, complaints, unsubscribes), one module for both engines (db/store-db.ts): each event is recorded once (a
// redelivery is a no-op) and, in the same transaction, changes the address's subscriptions everywhere.
// A signature's nonce (Mailgun's token) is remembered in that transaction too, so a failed attempt leaves
// it unused for the provider's retry, and a token cannot carry a second, different body.
import type { AnyDatabase } from '../../db/engine'
import { inList, sql, whereAll } from '../../db/sql'
import { storeDb, type StoreDb } from '../../db/store-db'
import type { Steps } from '../../lib/steps'

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
  return new EmailMailEventStore(database)
}

class EmailMailEventStore implements MailEventStore {
  private readonly db: StoreDb
  private lastPrune = 0

  constructor(database: AnyDatabase) {
    this.db = storeDb(database)
  }

  async list(f: MailEventFilter): Promise<MailEventRow[]> {
    const where = whereAll([
      f.email !== undefined && sql`email = ${f.email}`,
      f.kind !== undefined && sql`kind = ${f.kind}`,
      f.before !== undefined && sql`id < ${f.before}`,
    ])
    const rows = await this.db.all<Omit<MailEventRow, 'hard'> & { hard: number }>(sql`SELECT id, provider, kind, hard, email,
      occurred_at AS "occurredAt", created_at AS "createdAt" FROM mail_events ${where} ORDER BY id DESC LIMIT ${f.limit}`)
    return rows.map((r) => ({ ...r, hard: Number(r.hard) === 1 }))
  }

  async record(events: readonly MailEvent[], nonce?: Nonce): Promise<Recorded | typeof REPLAYED> {
    const now = Date.now()
    if (nonce && now - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = now
      await this.db.run(sql`DELETE FROM mail_webhook_tokens WHERE expires_at < ${now}`)
    }
    return this.db.atomically(function* (q): Steps<Recorded | typeof REPLAYED> {
      if (nonce) {
        // Postgres: a concurrent transaction holding the same token makes this wait for its COMMIT (or ROLLBACK).
        const fresh: unknown = yield q.get(sql`INSERT INTO mail_webhook_tokens (provider, token, body_hash, expires_at, created_at)
          VALUES (${nonce.provider}, ${nonce.token}, ${nonce.bodyHash}, ${nonce.expiresAt}, ${now})
          ON CONFLICT (provider, token) DO NOTHING RETURNING 1 AS fresh`)
        if (!fresh) {
          const seen: { bodyHash: string } | undefined = yield q.get(sql`SELECT body_hash AS "bodyHash" FROM mail_webhook_tokens
            WHERE provider = ${nonce.provider} AND token = ${nonce.token}`)
          return seen?.bodyHash === nonce.bodyHash ? redelivered(events) : REPLAYED
        }
      }
      const out: Recorded = { recorded: 0, duplicates: 0, changedSubscribers: [] }
      for (const e of events) {
        const inserted: unknown = yield q.get(sql`INSERT INTO mail_events (provider, event_key, kind, hard, email, occurred_at, created_at)
          VALUES (${e.provider}, ${e.key}, ${e.kind}, ${e.hard}, ${e.email}, ${e.occurredAt}, ${now})
          ON CONFLICT (provider, event_key) DO NOTHING RETURNING id`)
        if (!inserted) {
          out.duplicates++
          continue
        }
        out.recorded++
        const fx = effect(e)
        if (!fx) continue
        const changed: Array<{ id: number }> = yield q.all(sql`UPDATE email_subscribers SET status = ${fx.status}, updated_at = ${now}
          WHERE email = ${e.email} AND status IN ${inList(fx.from)} RETURNING id`)
        for (const r of changed) out.changedSubscribers.push(r.id)
      }
      return out
    })
  }
}
