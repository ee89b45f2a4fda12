// The outbox on PostgreSQL: the same rows and ordering as outbox-sqlite.ts, through Bun's SQL client. Each
// write is one transaction; a message's job is enqueued inside it (the caller's enqueue writes through `tx`),
// so a message is never queued without its job, nor a job left without its message. Several instances may
// release unsent messages at once: releaseUnsent locks the rows it takes (FOR UPDATE SKIP LOCKED), so each
// row is released by exactly one of them and none waits for another.
import type { SQL } from 'bun'
import { num, numCols, type PgDatabase } from '../../db/pg/client'
import type { EnqueueSend, NewMessage, OutboxFilter, OutboxRow, OutboxStore, OutboxView } from './outbox-types'
import type { SubscriberRow } from './types'

type Raw = Record<string, unknown>

// int8 columns arrive as strings: ids (the outbox's, its subscriber's and job's) and every epoch-ms time.
const outboxRows = (rows: Raw[]) => numCols(rows, 'id', 'subscriberId', 'jobId', 'createdAt', 'updatedAt') as unknown as OutboxRow[]
const viewRows = (rows: Raw[]) => numCols(rows, 'id', 'subscriberId', 'jobId', 'createdAt', 'updatedAt', 'jobAttempts') as unknown as OutboxView[]
const subscriberRows = (rows: Raw[]) => numCols(rows, 'id', 'consentAt', 'createdAt', 'updatedAt') as unknown as SubscriberRow[]

export class PgOutboxStore implements OutboxStore {
  private readonly sql: SQL
  // The column lists under their camelCase names (constant SQL text, no values).
  private readonly cols: { outbox: SQL.Query<unknown>; subscriber: SQL.Query<unknown> }

  constructor(db: PgDatabase) {
    const sql = (this.sql = db.sql)
    this.cols = {
      outbox: sql`o.id, o.list_id AS "listId", o.subscriber_id AS "subscriberId", o.to_email AS "toEmail", o.subject,
        o.text_body AS "textBody", o.html_body AS "htmlBody", o.status, o.job_id AS "jobId", o.message_id AS "messageId",
        o.result, o.created_at AS "createdAt", o.updated_at AS "updatedAt"`,
      subscriber: sql`id, list_id AS "listId", email, name, fields, source, status, consent_at AS "consentAt",
        consent_ip AS "consentIp", created_at AS "createdAt", updated_at AS "updatedAt"`,
    }
  }

  async add(messages: readonly NewMessage[], enqueue: EnqueueSend | null): Promise<number[]> {
    if (messages.length === 0) return []
    return this.sql.begin(async (tx) => {
      const ids: number[] = []
      const status = enqueue ? 'queued' : 'unsent'
      const now = Date.now() // one moment for the batch, as on SQLite
      for (const m of messages) {
        const dedupKey = m.dedupKey ?? null
        const [row] = await tx`INSERT INTO email_outbox
            (list_id, subscriber_id, to_email, subject, text_body, html_body, status, dedup_key, created_at, updated_at)
          VALUES (${m.listId}::int, ${m.subscriberId}::int8, ${m.toEmail}, ${m.subject}, ${m.textBody}, ${m.htmlBody},
            ${status}, ${dedupKey}, ${now}::int8, ${now}::int8)
          ON CONFLICT (dedup_key) DO NOTHING
          RETURNING id`
        if (!row) {
          // Already written under this key (by an earlier run, or another instance at the same moment):
          // that row and its send job stand.
          const [existing] = await tx`SELECT id FROM email_outbox WHERE dedup_key = ${dedupKey}`
          ids.push(num(existing.id))
          continue
        }
        const id = num(row.id)
        if (enqueue) {
          const jobId = await enqueue(id, tx)
          await tx`UPDATE email_outbox SET job_id = ${jobId}::int8 WHERE id = ${id}::int8`
        }
        ids.push(id)
      }
      return ids
    })
  }

  async releaseUnsent(enqueue: EnqueueSend, limit: number): Promise<number> {
    return this.sql.begin(async (tx) => {
      // SKIP LOCKED: rows another instance is releasing right now are its own; this one takes the next ones.
      const rows = await tx`SELECT id FROM email_outbox WHERE status = 'unsent' ORDER BY id LIMIT ${limit}::int
        FOR UPDATE SKIP LOCKED`
      for (const row of rows) {
        const id = num(row.id)
        const jobId = await enqueue(id, tx)
        await tx`UPDATE email_outbox SET status = 'queued', job_id = ${jobId}::int8, updated_at = ${Date.now()}::int8
          WHERE id = ${id}::int8`
      }
      return rows.length
    })
  }

  async get(id: number): Promise<OutboxRow | undefined> {
    const rows = await this.sql`SELECT ${this.cols.outbox} FROM email_outbox o WHERE o.id = ${id}::int8`
    return outboxRows(rows)[0]
  }

  async markSent(id: number, messageId: string, result: string): Promise<boolean> {
    const rows = await this.sql`UPDATE email_outbox SET status = 'sent', message_id = ${messageId}, result = ${result},
        updated_at = ${Date.now()}::int8
      WHERE id = ${id}::int8 AND status = 'queued' RETURNING id`
    return rows.length > 0
  }

  async markSuppressed(id: number, reason: string): Promise<boolean> {
    const rows = await this.sql`UPDATE email_outbox SET status = 'suppressed', result = ${reason}, updated_at = ${Date.now()}::int8
      WHERE id = ${id}::int8 AND status = 'queued' RETURNING id`
    return rows.length > 0
  }

  async list(filter: OutboxFilter): Promise<OutboxView[]> {
    const sql = this.sql
    const status = filter.status !== undefined ? sql`AND o.status = ${filter.status}` : sql``
    const listId = filter.listId !== undefined ? sql`AND o.list_id = ${filter.listId}::int` : sql``
    const toEmail = filter.toEmail !== undefined ? sql`AND o.to_email = ${filter.toEmail}` : sql``
    const before = filter.before !== undefined ? sql`AND o.id < ${filter.before}::int8` : sql``
    const rows = await sql`SELECT ${this.cols.outbox}, j.status AS "jobStatus", j.attempts AS "jobAttempts",
        j.last_error AS "jobLastError"
      FROM email_outbox o LEFT JOIN jobs j ON j.id = o.job_id
      WHERE TRUE ${status} ${listId} ${toEmail} ${before}
      ORDER BY o.id DESC LIMIT ${filter.limit}::int`
    return viewRows(rows)
  }

  async activeSubscribers(listId: number): Promise<SubscriberRow[]> {
    const rows = await this.sql`SELECT ${this.cols.subscriber} FROM email_subscribers
      WHERE list_id = ${listId}::int AND status = 'active' ORDER BY id`
    return subscriberRows(rows)
  }

  async suppression(toEmail: string, listId: number | null): Promise<'bounced' | 'complained' | 'unsubscribed' | null> {
    // One aggregate row even when the address is nowhere (every bool_or null → null). A null listId
    // compares to nothing, so only bounced / complained can answer then.
    const [row] = await this.sql`SELECT CASE
        WHEN bool_or(status = 'bounced') THEN 'bounced'
        WHEN bool_or(status = 'complained') THEN 'complained'
        WHEN bool_or(status = 'unsubscribed' AND list_id = ${listId}::int) THEN 'unsubscribed'
      END AS reason
      FROM email_subscribers WHERE email = ${toEmail}`
    return (row?.reason ?? null) as 'bounced' | 'complained' | 'unsubscribed' | null
  }
}
