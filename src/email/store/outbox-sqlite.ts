// The outbox on SQLite. add() and releaseUnsent() call the job queue's (synchronous) enqueue inside their
// transaction, so a message is never queued without its job, nor a job left without its message.
import type { Database, RawDb, RawStatement } from '../../db/client'
import type { SubscriberRow } from './types'
import type { EnqueueSend, NewMessage, OutboxFilter, OutboxRow, OutboxStore, OutboxView } from './outbox-types'
import { where } from '../../db/where'

const ROW = 'o.id, o.list_id AS listId, o.subscriber_id AS subscriberId, o.to_email AS toEmail, o.subject, o.text_body AS textBody, ' +
  'o.html_body AS htmlBody, o.status, o.job_id AS jobId, o.message_id AS messageId, o.result, o.created_at AS createdAt, o.updated_at AS updatedAt'
const SUBSCRIBER = 'id, list_id AS listId, email, name, fields, source, status, consent_at AS consentAt, consent_ip AS consentIp, ' +
  'created_at AS createdAt, updated_at AS updatedAt'

export class SqliteOutboxStore implements OutboxStore {
  private readonly raw: RawDb
  private readonly insert: RawStatement
  private readonly byDedupKey: RawStatement
  private readonly setJob: RawStatement
  private readonly unsent: RawStatement
  private readonly byId: RawStatement
  private readonly sent: RawStatement
  private readonly suppressed: RawStatement
  private readonly active: RawStatement
  private readonly suppressionOf: RawStatement

  constructor(database: Database) {
    const raw = (this.raw = database.raw)
    this.insert = raw.prepare(
      'INSERT INTO email_outbox (list_id, subscriber_id, to_email, subject, text_body, html_body, status, dedup_key, created_at, updated_at) ' +
        'VALUES ($listId, $subscriberId, $toEmail, $subject, $textBody, $htmlBody, $status, $dedupKey, $now, $now) ' +
        'ON CONFLICT (dedup_key) DO NOTHING RETURNING id',
    )
    this.byDedupKey = raw.prepare('SELECT id FROM email_outbox WHERE dedup_key = $dedupKey')
    this.setJob = raw.prepare("UPDATE email_outbox SET status = 'queued', job_id = $jobId, updated_at = $now WHERE id = $id")
    this.unsent = raw.prepare("SELECT id FROM email_outbox WHERE status = 'unsent' ORDER BY id LIMIT $limit")
    this.byId = raw.prepare(`SELECT ${ROW} FROM email_outbox o WHERE o.id = $id`)
    this.sent = raw.prepare(
      "UPDATE email_outbox SET status = 'sent', message_id = $messageId, result = $result, updated_at = $now WHERE id = $id AND status = 'queued'",
    )
    this.suppressed = raw.prepare(
      "UPDATE email_outbox SET status = 'suppressed', result = $reason, updated_at = $now WHERE id = $id AND status = 'queued'",
    )
    this.active = raw.prepare(`SELECT ${SUBSCRIBER} FROM email_subscribers WHERE list_id = $listId AND status = 'active' ORDER BY id`)
    // Bounced beats complained beats unsubscribed (from this list only).
    this.suppressionOf = raw.prepare(
      "SELECT CASE WHEN sum(status = 'bounced') > 0 THEN 'bounced' WHEN sum(status = 'complained') > 0 THEN 'complained' " +
        "WHEN sum(status = 'unsubscribed' AND list_id IS $listId) > 0 THEN 'unsubscribed' END AS reason " +
        'FROM email_subscribers WHERE email = $email',
    )
  }

  async add(messages: readonly NewMessage[], enqueue: EnqueueSend | null): Promise<number[]> {
    if (messages.length === 0) return []
    return this.raw.transaction(() => {
      const now = Date.now()
      return messages.map((m) => {
        const dedupKey = m.dedupKey ?? null
        const inserted = this.insert.get({ ...m, dedupKey, status: enqueue ? 'queued' : 'unsent', now }) as { id: number } | undefined
        // Already written under this key: that row (and its send job) stands.
        if (!inserted) return (this.byDedupKey.get({ dedupKey }) as { id: number }).id
        if (enqueue) this.setJob.run({ id: inserted.id, jobId: syncId(enqueue(inserted.id, null)), now })
        return inserted.id
      })
    })()
  }

  async releaseUnsent(enqueue: EnqueueSend, limit: number): Promise<number> {
    return this.raw.transaction(() => {
      const now = Date.now()
      const ids = (this.unsent.all({ limit }) as Array<{ id: number }>).map((r) => r.id)
      for (const id of ids) this.setJob.run({ id, jobId: syncId(enqueue(id, null)), now })
      return ids.length
    })()
  }

  async get(id: number): Promise<OutboxRow | undefined> {
    return (this.byId.get({ id }) as OutboxRow | null) ?? undefined
  }

  async markSent(id: number, messageId: string, result: string): Promise<boolean> {
    return this.sent.run({ id, messageId, result, now: Date.now() }).changes > 0
  }

  async markSuppressed(id: number, reason: string): Promise<boolean> {
    return this.suppressed.run({ id, reason, now: Date.now() }).changes > 0
  }

  async list(filter: OutboxFilter): Promise<OutboxView[]> {
    const w = where([
      ['o.status = $status', 'status', filter.status],
      ['o.list_id = $listId', 'listId', filter.listId],
      ['o.to_email = $toEmail', 'toEmail', filter.toEmail],
      ['o.id < $before', 'before', filter.before],
    ])
    return this.raw.prepare(
      `SELECT ${ROW}, j.status AS jobStatus, j.attempts AS jobAttempts, j.last_error AS jobLastError ` +
        `FROM email_outbox o LEFT JOIN jobs j ON j.id = o.job_id ${w.sql} ORDER BY o.id DESC LIMIT $limit`,
    ).all({ ...w.params, limit: filter.limit }) as OutboxView[]
  }

  async activeSubscribers(listId: number): Promise<SubscriberRow[]> {
    return this.active.all({ listId }) as SubscriberRow[]
  }

  async suppression(toEmail: string, listId: number | null): Promise<'bounced' | 'complained' | 'unsubscribed' | null> {
    const row = this.suppressionOf.get({ email: toEmail, listId }) as { reason: 'bounced' | 'complained' | 'unsubscribed' | null } | null
    return row?.reason ?? null
  }
}

/** SQLite's enqueue is synchronous (the shared connection); a Promise here is a wiring bug. */
function syncId(id: number | Promise<number>): number {
  if (id instanceof Promise) throw new Error('outbox: an asynchronous enqueue on SQLite')
  return id
}
