// The outbox: every message svc sends, and the reads the sending side needs (who is on a list, who may no
// longer be mailed). Implemented by outbox.ts on both engines. Async (a network database needs
// it); each write is one transaction of its own.
import type { Tx } from '../../db/engine'
import type { emailOutbox } from '../../db/schema'
import type { SubscriberRow } from './types'

/** A stored message as the API shows it (its dedup key stays internal). */
export type OutboxRow = Omit<typeof emailOutbox.$inferSelect, 'dedupKey'>

export const OUTBOX_STATUSES = ['unsent', 'queued', 'sent', 'suppressed', 'cancelled'] as const
export type OutboxStatus = (typeof OUTBOX_STATUSES)[number]

/** An outbox row as the admin view shows it: with its job's state while it is queued. */
export interface OutboxView extends OutboxRow {
  jobStatus: string | null
  jobAttempts: number | null
  jobLastError: string | null
}

export interface NewMessage {
  listId: number | null
  subscriberId: number | null
  toEmail: string
  subject: string
  textBody: string
  htmlBody: string | null
  /**
   * Idempotency: when a message with this key is already in the outbox, add() writes nothing more for it
   * (no second row, no second send job) and returns that row's id. For work that may run twice, like an
   * automation step's job retried after a crash.
   */
  dedupKey?: string | null
}

/**
 * Enqueues the `email_send` job of one outbox row inside the store's transaction (`tx`: the Postgres
 * transaction; null on SQLite, whose enqueue is synchronous) and returns the job id.
 */
export type EnqueueSend = (outboxId: number, tx: Tx) => number | Promise<number>

export interface OutboxFilter {
  status?: OutboxStatus
  listId?: number
  toEmail?: string
  /** Cursor: ids below this one (newest first). */
  before?: number
  limit: number
}

export interface OutboxStore {
  /**
   * Writes the messages in one transaction. `enqueue` given (SMTP is configured): each is `queued` with
   * its job, enqueued in the same transaction. Left out: each stays `unsent` until releaseUnsent().
   * Returns the ids in order.
   */
  add(messages: readonly NewMessage[], enqueue: EnqueueSend | null): Promise<number[]>
  /** Up to `limit` unsent messages become queued with their jobs, in one transaction; how many. */
  releaseUnsent(enqueue: EnqueueSend, limit: number): Promise<number>
  get(id: number): Promise<OutboxRow | undefined>
  /** queued → sent; false when it was no longer queued (cancelled meanwhile). */
  markSent(id: number, messageId: string, result: string): Promise<boolean>
  /** queued → suppressed with the reason; false when it was no longer queued. */
  markSuppressed(id: number, reason: string): Promise<boolean>
  /** Newest first, with the job's state. */
  list(filter: OutboxFilter): Promise<OutboxView[]>
  /** The active subscribers of a list, in id order (a broadcast's recipients). */
  activeSubscribers(listId: number): Promise<SubscriberRow[]>
  /**
   * Why an address may not be mailed for a list, or null: `bounced` or `complained` anywhere (a hard
   * bounce or complaint suppresses the address everywhere), `unsubscribed` from this list.
   */
  suppression(toEmail: string, listId: number | null): Promise<'bounced' | 'complained' | 'unsubscribed' | null>
}
