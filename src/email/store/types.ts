// What the email feature keeps: lists and their subscribers. Every email query sits behind this interface;
// store/lists.ts implements it on both engines. Async (a network database needs it); each write is one
// atomic operation that throws the AppError the caller sees (not_found, conflict).
import type { emailLists, emailSubscribers } from '../../db/schema'
import type { Page } from '../../lib/paging'
import type { Tx } from '../../db/engine'

export type ListRow = typeof emailLists.$inferSelect & {
  /** Subscribers whose status is active (read with the list). */
  activeSubscribers: number
}
export type SubscriberRow = typeof emailSubscribers.$inferSelect

export const SUBSCRIBER_SOURCES = ['lead', 'trigger', 'purchase', 'manual', 'import'] as const
export type SubscriberSource = (typeof SUBSCRIBER_SOURCES)[number]
export const SUBSCRIBER_STATUSES = ['active', 'unsubscribed', 'bounced', 'complained'] as const
export type SubscriberStatus = (typeof SUBSCRIBER_STATUSES)[number]

/** An enrolment: the address already normalised (address.ts), fields as a JSON object of strings. */
export interface NewSubscriber {
  email: string
  name: string | null
  fields: Record<string, string>
  source: SubscriberSource
  consentAt: number
  consentIp: string | null
}

/**
 * Work that must commit with a new subscriber. `tx`: the Postgres transaction; null on SQLite, where the
 * hook must be synchronous (it runs on the shared connection inside the transaction).
 */
export type OnEnrolled = (row: SubscriberRow, tx: Tx, from?: number) => void | Promise<void>

export interface SubscriberFilter {
  status?: SubscriberStatus
  /** Exact (normalised) address. */
  email?: string
}

export interface EmailStore {
  /** One page in id order, fetched with limit + 1 rows (the extra row says another page exists). */
  listLists(page: Page): Promise<ListRow[]>
  findList(id: number): Promise<ListRow | undefined>
  createList(name: string): Promise<ListRow>
  /** not_found "email list not found". */
  updateList(id: number, name: string): Promise<ListRow>
  /** not_found; conflict while a landing enrols into it (its subscribers go with it). */
  deleteList(id: number): Promise<void>

  /** One page of a list's subscribers in id order (limit + 1 rows); not_found for an unknown list. */
  listSubscribers(listId: number, filter: SubscriberFilter, page: Page): Promise<SubscriberRow[]>
  findSubscriber(listId: number, id: number): Promise<SubscriberRow | undefined>
  /**
   * Idempotent: a new address is inserted (`created: true`); an address already in the list is returned
   * as it is, its first consent, name, fields and status kept (`created: false`). not_found for an
   * unknown list. `onCreated` runs inside the same transaction for a new subscriber only (the automations
   * schedule their messages there, so an enrolment never commits without them).
   */
  enroll(listId: number, s: NewSubscriber, onCreated?: OnEnrolled): Promise<{ row: SubscriberRow; created: boolean }>
  /**
   * Many enrolments in one transaction (a CSV import): the same rules as enroll(), without the hook (an
   * import starts no automations). not_found for an unknown list. Returns the subscribers it created.
   */
  enrollMany(listId: number, subscribers: readonly NewSubscriber[]): Promise<Array<Pick<SubscriberRow, 'id' | 'email'>>>
  /** not_found "subscriber not found" when the list has no such subscriber. */
  removeSubscriber(listId: number, id: number): Promise<void>
  /**
   * An active subscriber becomes unsubscribed (`'unsubscribed'`); one already unsubscribed, bounced or
   * complained stays as it is (`'already'`); `'unknown'` when the list has no such subscriber.
   */
  unsubscribe(listId: number, id: number): Promise<'unsubscribed' | 'already' | 'unknown'>
}
