// The outbox, one module for both engines (db/store-db.ts): what the `email_send` job reads. add() and
// releaseUnsent() call the job queue's enqueue inside their transaction (through `q.tx` on Postgres; the
// shared connection on SQLite, where the enqueue is synchronous), so a message is never queued without its
// job, nor a job left without its message. Several instances may release unsent messages at once:
// releaseUnsent locks the rows it takes (FOR UPDATE SKIP LOCKED on Postgres), so each row is released by
// exactly one of them and none waits for another; SQLite has one writer.
import type { AnyDatabase } from '../../db/engine'
import { raw, sql, whereAll } from '../../db/sql'
import { storeDb, type StoreDb } from '../../db/store-db'
import { SUBSCRIBER } from './lists'
import type { EnqueueSend, NewMessage, OutboxFilter, OutboxRow, OutboxStore, OutboxView } from './outbox-types'
import type { SubscriberRow } from './types'

const ROW = raw(`o.id, o.list_id AS "listId", o.subscriber_id AS "subscriberId", o.to_email AS "toEmail", o.subject,
  o.text_body AS "textBody", o.html_body AS "htmlBody", o.status, o.job_id AS "jobId", o.message_id AS "messageId",
  o.result, o.created_at AS "createdAt", o.updated_at AS "updatedAt"`)

type Reason = 'bounced' | 'complained' | 'unsubscribed'

export class EmailOutboxStore implements OutboxStore {
  private readonly db: StoreDb

  constructor(database: AnyDatabase) {
    this.db = storeDb(database)
  }

  async add(messages: readonly NewMessage[], enqueue: EnqueueSend | null): Promise<number[]> {
    if (messages.length === 0) return []
    return this.db.atomically(function* (q) {
      const status = enqueue ? 'queued' : 'unsent'
      const now = Date.now() // one moment for the batch
      const ids: number[] = []
      for (const m of messages) {
        const dedupKey = m.dedupKey ?? null
        const row: { id: number } | undefined = yield q.get(sql`INSERT INTO email_outbox
            (list_id, subscriber_id, to_email, subject, text_body, html_body, status, dedup_key, created_at, updated_at)
          VALUES (${m.listId}, ${m.subscriberId}, ${m.toEmail}, ${m.subject}, ${m.textBody}, ${m.htmlBody}, ${status}, ${dedupKey}, ${now}, ${now})
          ON CONFLICT (dedup_key) DO NOTHING RETURNING id`)
        if (!row) {
          // Already written under this key (by an earlier run, or another instance at the same moment):
          // that row and its send job stand.
          const existing: { id: number } | undefined = yield q.get(sql`SELECT id FROM email_outbox WHERE dedup_key = ${dedupKey}`)
          ids.push(existing!.id)
          continue
        }
        if (enqueue) {
          const jobId: number = yield enqueue(row.id, q.tx)
          yield q.run(sql`UPDATE email_outbox SET job_id = ${jobId} WHERE id = ${row.id}`)
        }
        ids.push(row.id)
      }
      return ids
    })
  }

  releaseUnsent(enqueue: EnqueueSend, limit: number): Promise<number> {
    const db = this.db
    return db.atomically(function* (q) {
      // SKIP LOCKED: rows another instance is releasing right now are its own; this one takes the next ones.
      const rows: Array<{ id: number }> = yield q.all(sql`SELECT id FROM email_outbox WHERE status = 'unsent' ORDER BY id LIMIT ${limit} ${db.skipLocked}`)
      for (const { id } of rows) {
        const jobId: number = yield enqueue(id, q.tx)
        yield q.run(sql`UPDATE email_outbox SET status = 'queued', job_id = ${jobId}, updated_at = ${Date.now()} WHERE id = ${id}`)
      }
      return rows.length
    })
  }

  get(id: number): Promise<OutboxRow | undefined> {
    return this.db.get<OutboxRow>(sql`SELECT ${ROW} FROM email_outbox o WHERE o.id = ${id}`)
  }

  async markSent(id: number, messageId: string, result: string): Promise<boolean> {
    return (await this.db.run(sql`UPDATE email_outbox SET status = 'sent', message_id = ${messageId}, result = ${result}, updated_at = ${Date.now()}
      WHERE id = ${id} AND status = 'queued'`)) > 0
  }

  async markSuppressed(id: number, reason: string): Promise<boolean> {
    return (await this.db.run(sql`UPDATE email_outbox SET status = 'suppressed', result = ${reason}, updated_at = ${Date.now()}
      WHERE id = ${id} AND status = 'queued'`)) > 0
  }

  list(f: OutboxFilter): Promise<OutboxView[]> {
    const where = whereAll([
      f.status !== undefined && sql`o.status = ${f.status}`,
      f.listId !== undefined && sql`o.list_id = ${f.listId}`,
      f.toEmail !== undefined && sql`o.to_email = ${f.toEmail}`,
      f.before !== undefined && sql`o.id < ${f.before}`,
    ])
    return this.db.all<OutboxView>(sql`SELECT ${ROW}, j.status AS "jobStatus", j.attempts AS "jobAttempts", j.last_error AS "jobLastError"
      FROM email_outbox o LEFT JOIN jobs j ON j.id = o.job_id ${where} ORDER BY o.id DESC LIMIT ${f.limit}`)
  }

  activeSubscribers(listId: number): Promise<SubscriberRow[]> {
    return this.db.all<SubscriberRow>(sql`SELECT ${SUBSCRIBER} FROM email_subscribers WHERE list_id = ${listId} AND status = 'active' ORDER BY id`)
  }

  async suppression(toEmail: string, listId: number | null): Promise<Reason | null> {
    // One aggregate row even when the address is nowhere (every count 0 → null). Bounced beats complained
    // beats unsubscribed (from this list only: a null listId compares to nothing, so only the first two answer).
    const row = await this.db.get<{ reason: Reason | null }>(sql`SELECT CASE
        WHEN count(CASE WHEN status = 'bounced' THEN 1 END) > 0 THEN 'bounced'
        WHEN count(CASE WHEN status = 'complained' THEN 1 END) > 0 THEN 'complained'
        WHEN count(CASE WHEN status = 'unsubscribed' AND list_id = ${listId} THEN 1 END) > 0 THEN 'unsubscribed'
      END AS reason
      FROM email_subscribers WHERE email = ${toEmail}`)
    return row?.reason ?? null
  }
}
