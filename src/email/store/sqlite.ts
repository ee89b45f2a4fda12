// The email store on SQLite (drizzle over the shared connection). Writes that check before they change run
// in one transaction, so nothing is deleted between the check and the write.
import { and, asc, eq, gt, sql } from 'drizzle-orm'
import type { Database, Db, RawDb, RawStatement } from '../../db/client'
import { emailLists, emailSubscribers, landings , products } from '../../db/schema'
import type { Page } from '../../lib/paging'
import { listNotFound, listUsedByLanding, listUsedByProduct, subscriberNotFound } from './errors'
import type { EmailStore, ListRow, NewSubscriber, OnEnrolled, SubscriberFilter, SubscriberRow } from './types'

/** The list's columns plus its active subscriber count, in one SELECT. */
const listColumns = {
  id: emailLists.id,
  name: emailLists.name,
  createdAt: emailLists.createdAt,
  updatedAt: emailLists.updatedAt,
  // Spelled out: drizzle renders a column inside sql`` unqualified, which the subquery would take as s.id.
  activeSubscribers: sql<number>`(SELECT count(*) FROM email_subscribers s WHERE s.list_id = email_lists.id AND s.status = 'active')`,
}

export class SqliteEmailStore implements EmailStore {
  private readonly db: Db
  private readonly raw: RawDb
  private insertIgnore: RawStatement | undefined

  constructor(database: Database) {
    this.db = database.db
    this.raw = database.raw
  }

  private tx<T>(fn: () => T): T {
    return this.raw.transaction(fn)()
  }

  async listLists(page: Page): Promise<ListRow[]> {
    return this.db.select(listColumns).from(emailLists).where(gt(emailLists.id, page.afterId)).orderBy(asc(emailLists.id)).limit(page.limit + 1).all()
  }

  async findList(id: number): Promise<ListRow | undefined> {
    return this.listRow(id)
  }

  async createList(name: string): Promise<ListRow> {
    const now = Date.now()
    const row = this.db.insert(emailLists).values({ name, createdAt: now, updatedAt: now }).returning().get()
    return { ...row, activeSubscribers: 0 }
  }

  async updateList(id: number, name: string): Promise<ListRow> {
    const changed = this.db.update(emailLists).set({ name, updatedAt: Date.now() }).where(eq(emailLists.id, id)).returning({ id: emailLists.id }).get()
    if (!changed) throw listNotFound()
    return this.listRow(id)!
  }

  async deleteList(id: number): Promise<void> {
    this.tx(() => {
      if (!this.listExists(id)) throw listNotFound()
      const user = this.db.select({ id: landings.id, slug: landings.slug }).from(landings).where(eq(landings.emailListId, id)).orderBy(asc(landings.id)).limit(1).get()
      if (user) throw listUsedByLanding(user)
      const product = this.db.select({ id: products.id, name: products.name }).from(products).where(eq(products.emailListId, id)).orderBy(asc(products.id)).limit(1).get()
      if (product) throw listUsedByProduct(product)
      // Its subscribers go with it (ON DELETE CASCADE).
      this.db.delete(emailLists).where(eq(emailLists.id, id)).run()
    })
  }

  async listSubscribers(listId: number, filter: SubscriberFilter, page: Page): Promise<SubscriberRow[]> {
    if (!this.listExists(listId)) throw listNotFound()
    const conds = [eq(emailSubscribers.listId, listId), gt(emailSubscribers.id, page.afterId)]
    if (filter.status !== undefined) conds.push(eq(emailSubscribers.status, filter.status))
    if (filter.email !== undefined) conds.push(eq(emailSubscribers.email, filter.email))
    return this.db.select().from(emailSubscribers).where(and(...conds)).orderBy(asc(emailSubscribers.id)).limit(page.limit + 1).all()
  }

  async findSubscriber(listId: number, id: number): Promise<SubscriberRow | undefined> {
    return this.db.select().from(emailSubscribers).where(and(eq(emailSubscribers.listId, listId), eq(emailSubscribers.id, id))).get()
  }

  async enroll(listId: number, s: NewSubscriber, onCreated?: OnEnrolled): Promise<{ row: SubscriberRow; created: boolean }> {
    return this.tx(() => {
      if (!this.listExists(listId)) throw listNotFound()
      const now = Date.now()
      const inserted = this.db.insert(emailSubscribers).values({
        listId, email: s.email, name: s.name, fields: JSON.stringify(s.fields), source: s.source, status: 'active',
        consentAt: s.consentAt, consentIp: s.consentIp, createdAt: now, updatedAt: now,
      }).onConflictDoNothing({ target: [emailSubscribers.listId, emailSubscribers.email] }).returning().get()
      if (inserted) {
        if (onCreated?.(inserted, null) instanceof Promise) throw new Error('enroll: an asynchronous hook on SQLite')
        return { row: inserted, created: true }
      }
      // Already there: kept exactly as it was (its first consent included).
      const existing = this.db.select().from(emailSubscribers).where(and(eq(emailSubscribers.listId, listId), eq(emailSubscribers.email, s.email))).get()!
      return { row: existing, created: false }
    })
  }

  async enrollMany(listId: number, subscribers: readonly NewSubscriber[]): Promise<Array<Pick<SubscriberRow, 'id' | 'email'>>> {
    // One prepared statement for the whole file: an import is tens of thousands of rows.
    const insert = (this.insertIgnore ??= this.raw.prepare(
      'INSERT INTO email_subscribers (list_id, email, name, fields, source, status, consent_at, consent_ip, created_at, updated_at) ' +
        "VALUES ($listId, $email, $name, $fields, $source, 'active', $consentAt, $consentIp, $now, $now) " +
        'ON CONFLICT (list_id, email) DO NOTHING RETURNING id, email',
    ))
    return this.tx(() => {
      if (!this.listExists(listId)) throw listNotFound()
      const now = Date.now()
      const created: Array<Pick<SubscriberRow, 'id' | 'email'>> = []
      for (const s of subscribers) {
        const row = insert.get({ listId, email: s.email, name: s.name, fields: JSON.stringify(s.fields), source: s.source, consentAt: s.consentAt, consentIp: s.consentIp, now })
        if (row) created.push(row as Pick<SubscriberRow, 'id' | 'email'>)
      }
      return created
    })
  }

  async removeSubscriber(listId: number, id: number): Promise<void> {
    const gone = this.db.delete(emailSubscribers).where(and(eq(emailSubscribers.listId, listId), eq(emailSubscribers.id, id)))
      .returning({ id: emailSubscribers.id }).get()
    if (!gone) throw subscriberNotFound()
  }

  async unsubscribe(listId: number, id: number): Promise<'unsubscribed' | 'already' | 'unknown'> {
    return this.tx(() => {
      const row = this.db.select({ status: emailSubscribers.status }).from(emailSubscribers)
        .where(and(eq(emailSubscribers.listId, listId), eq(emailSubscribers.id, id))).get()
      if (!row) return 'unknown'
      if (row.status !== 'active') return 'already'
      this.db.update(emailSubscribers).set({ status: 'unsubscribed', updatedAt: Date.now() }).where(eq(emailSubscribers.id, id)).run()
      return 'unsubscribed'
    })
  }

  private listRow(id: number): ListRow | undefined {
    return this.db.select(listColumns).from(emailLists).where(eq(emailLists.id, id)).get()
  }

  private listExists(id: number): boolean {
    return this.db.select({ id: emailLists.id }).from(emailLists).where(eq(emailLists.id, id)).get() !== undefined
  }
}
