// The email lists and their subscribers, one module for both engines (db/store-db.ts). A write that checks
// before it changes runs in one transaction and locks what its check relies on (nothing to lock on SQLite,
// whose writer is alone): deleteList takes FOR UPDATE on the list before looking for a landing or product
// that uses it, and an enrolment FOR SHARE, so a concurrent delete waits for the enrolment (or the
// enrolment sees the list gone: not_found, never a foreign-key error). Two enrolments of one address meet
// at the UNIQUE (list_id, email) index: the second inserts nothing and reads the row the first one wrote.
import { violation } from '../../db/errors'
import type { AnyDatabase } from '../../db/engine'
import { join, raw, sql, type Sql } from '../../db/sql'
import { storeDb, type Queries, type StoreDb } from '../../db/store-db'
import type { Page } from '../../lib/paging'
import type { Steps } from '../../lib/steps'
import { listNotFound, listUsedByLanding, listUsedByProduct, subscriberNotFound } from './errors'
import type { EmailStore, ListRow, NewSubscriber, OnEnrolled, SubscriberFilter, SubscriberRow } from './types'

// Aliases in double quotes: camelCase on both engines (Postgres folds bare ones to lower case).
const LIST = raw(`l.id, l.name, l.created_at AS "createdAt", l.updated_at AS "updatedAt",
  (SELECT count(*) FROM email_subscribers s WHERE s.list_id = l.id AND s.status = 'active') AS "activeSubscribers"`)
export const SUBSCRIBER = raw(`id, list_id AS "listId", email, name, fields, source, status, consent_at AS "consentAt",
  consent_ip AS "consentIp", created_at AS "createdAt", updated_at AS "updatedAt"`)

/** Postgres import rows per statement: one array per column, so a fixed parameter count. */
const IMPORT_CHUNK = 1000

const subscriberValues = (listId: number, s: NewSubscriber, now: number): Sql =>
  sql`(${listId}, ${s.email}, ${s.name}, ${JSON.stringify(s.fields)}, ${s.source}, 'active', ${s.consentAt}, ${s.consentIp}, ${now}, ${now})`
const INSERT_SUBSCRIBERS = raw('INSERT INTO email_subscribers (list_id, email, name, fields, source, status, consent_at, consent_ip, created_at, updated_at) VALUES ')

export class EmailListStore implements EmailStore {
  private readonly db: StoreDb

  constructor(database: AnyDatabase) {
    this.db = storeDb(database)
  }

  // ── lists ──

  listLists(page: Page): Promise<ListRow[]> {
    return this.db.all<ListRow>(sql`SELECT ${LIST} FROM email_lists l WHERE l.id > ${page.afterId} ORDER BY l.id LIMIT ${page.limit + 1}`)
  }

  findList(id: number): Promise<ListRow | undefined> {
    return this.db.get<ListRow>(listSql(id))
  }

  async createList(name: string): Promise<ListRow> {
    const now = Date.now()
    return (await this.db.get<ListRow>(sql`INSERT INTO email_lists (name, created_at, updated_at) VALUES (${name}, ${now}, ${now})
      RETURNING id, name, created_at AS "createdAt", updated_at AS "updatedAt", 0 AS "activeSubscribers"`))!
  }

  updateList(id: number, name: string): Promise<ListRow> {
    return this.db.atomically(function* (q) {
      const changed: number = yield q.run(sql`UPDATE email_lists SET name = ${name}, updated_at = ${Date.now()} WHERE id = ${id}`)
      if (changed === 0) throw listNotFound()
      const row: ListRow | undefined = yield q.get<ListRow>(listSql(id))
      return row!
    })
  }

  deleteList(id: number): Promise<void> {
    const db = this.db
    return db.atomically(function* (q) {
      // FOR UPDATE: a concurrent enrolment (FOR SHARE) or delete of this list waits for us.
      const list: unknown = yield q.get(sql`SELECT id FROM email_lists WHERE id = ${id} ${db.forUpdate}`)
      if (!list) throw listNotFound()
      // landings.email_list_id has no foreign key: this read is what keeps a landing from pointing at nothing.
      const landing: { id: number; slug: string } | undefined = yield q.get(sql`SELECT id, slug FROM landings WHERE email_list_id = ${id} ORDER BY id LIMIT 1`)
      if (landing) throw listUsedByLanding(landing)
      const product: { id: number; name: string } | undefined = yield q.get(sql`SELECT id, name FROM products WHERE email_list_id = ${id} ORDER BY id LIMIT 1`)
      if (product) throw listUsedByProduct(product)
      // Its subscribers go with it (ON DELETE CASCADE).
      yield q.run(sql`DELETE FROM email_lists WHERE id = ${id}`)
    })
  }

  // ── subscribers ──

  async listSubscribers(listId: number, filter: SubscriberFilter, page: Page): Promise<SubscriberRow[]> {
    if (!(await this.db.get(sql`SELECT id FROM email_lists WHERE id = ${listId}`))) throw listNotFound()
    const conds = [sql`list_id = ${listId}`, sql`id > ${page.afterId}`]
    if (filter.status !== undefined) conds.push(sql`status = ${filter.status}`)
    if (filter.email !== undefined) conds.push(sql`email = ${filter.email}`)
    return this.db.all<SubscriberRow>(sql`SELECT ${SUBSCRIBER} FROM email_subscribers WHERE ${join(conds, ' AND ')} ORDER BY id LIMIT ${page.limit + 1}`)
  }

  findSubscriber(listId: number, id: number): Promise<SubscriberRow | undefined> {
    return this.db.get<SubscriberRow>(sql`SELECT ${SUBSCRIBER} FROM email_subscribers WHERE list_id = ${listId} AND id = ${id}`)
  }

  async enroll(listId: number, s: NewSubscriber, onCreated?: OnEnrolled): Promise<{ row: SubscriberRow; created: boolean }> {
    const db = this.db
    try {
      return await db.atomically(function* (q) {
        yield* listHeld(db, q, listId)
        // A concurrent remove of the existing row between the two statements is retried (Postgres, READ
        // COMMITTED: each statement sees what was committed when it starts; SQLite never gets here twice).
        for (let attempt = 0; ; attempt++) {
          const inserted: SubscriberRow | undefined = yield q.get<SubscriberRow>(
            sql`${INSERT_SUBSCRIBERS}${subscriberValues(listId, s, Date.now())} ON CONFLICT (list_id, email) DO NOTHING RETURNING ${SUBSCRIBER}`)
          if (inserted) {
            // The hook's writes commit with the enrolment (a Promise is awaited on Postgres; refused on SQLite).
            yield onCreated?.(inserted, q.tx)
            return { row: inserted, created: true }
          }
          // Already there: kept exactly as it was (its first consent included).
          const existing: SubscriberRow | undefined = yield q.get<SubscriberRow>(
            sql`SELECT ${SUBSCRIBER} FROM email_subscribers WHERE list_id = ${listId} AND email = ${s.email}`)
          if (existing) return { row: existing, created: false }
          if (attempt >= 2) throw new Error('enroll: the subscriber kept disappearing between insert and read')
        }
      })
    } catch (err) {
      // The list deleted under us despite the lock (should not happen): still not_found.
      if (violation(err) === 'foreign_key') throw listNotFound()
      throw err
    }
  }

  /**
   * One transaction, the rules of enroll() without its hook. The rows go in by each engine's fastest bulk
   * statement (importRows): on 50,000 rows a portable multi-row VALUES took 2-3x the time of unnest() on
   * Postgres, and no less than one prepared INSERT per row on SQLite.
   */
  enrollMany(listId: number, subscribers: readonly NewSubscriber[]): Promise<Array<Pick<SubscriberRow, 'id' | 'email'>>> {
    const db = this.db
    return db.atomically(function* (q) {
      yield* listHeld(db, q, listId)
      const created: Array<Pick<SubscriberRow, 'id' | 'email'>> = yield* importRows(q, listId, subscribers, Date.now())
      return created
    })
  }

  async removeSubscriber(listId: number, id: number): Promise<void> {
    if ((await this.db.run(sql`DELETE FROM email_subscribers WHERE list_id = ${listId} AND id = ${id}`)) === 0) throw subscriberNotFound()
  }

  unsubscribe(listId: number, id: number): Promise<'unsubscribed' | 'already' | 'unknown'> {
    return this.db.atomically(function* (q) {
      const changed: number = yield q.run(sql`UPDATE email_subscribers SET status = 'unsubscribed', updated_at = ${Date.now()}
        WHERE list_id = ${listId} AND id = ${id} AND status = 'active'`)
      if (changed > 0) return 'unsubscribed' as const
      const exists: unknown = yield q.get(sql`SELECT 1 AS x FROM email_subscribers WHERE list_id = ${listId} AND id = ${id}`)
      return exists ? 'already' as const : 'unknown' as const
    })
  }
}

const listSql = (id: number) => sql`SELECT ${LIST} FROM email_lists l WHERE l.id = ${id}`

/** not_found unless the list exists; FOR SHARE: it cannot be deleted until this transaction ends (deleteList waits). */
function* listHeld(db: StoreDb, q: Queries, listId: number): Steps<void> {
  const list: unknown = yield q.get(sql`SELECT id FROM email_lists WHERE id = ${listId} ${db.forShare}`)
  if (!list) throw listNotFound()
}

/**
 * The bulk insert-or-skip of an import, the one statement written per engine. SQLite: one prepared INSERT per
 * row on the shared connection (no round trip, so nothing faster). Postgres: IMPORT_CHUNK rows per statement
 * through unnest() of one array per column on the transaction's connection (`::type[]` casts and unnest are
 * Postgres only). `q.tx` tells them apart: the Postgres transaction (this runs inside atomically), null on
 * SQLite. Returns the rows created, in the order given.
 */
function* importRows(q: Queries, listId: number, rows: readonly NewSubscriber[], now: number): Steps<Array<Pick<SubscriberRow, 'id' | 'email'>>> {
  const created: Array<Pick<SubscriberRow, 'id' | 'email'>> = []
  if (q.tx === null) {
    for (const s of rows) {
      const row: Pick<SubscriberRow, 'id' | 'email'> | undefined = yield q.get(
        sql`${INSERT_SUBSCRIBERS}${subscriberValues(listId, s, now)} ON CONFLICT (list_id, email) DO NOTHING RETURNING id, email`)
      if (row) created.push(row)
    }
    return created
  }
  for (let i = 0; i < rows.length; i += IMPORT_CHUNK) {
    const chunk = rows.slice(i, i + IMPORT_CHUNK)
    const inserted: Array<{ id: unknown; email: string }> = yield q.tx.unsafe(
      'INSERT INTO email_subscribers (list_id, email, name, fields, source, status, consent_at, consent_ip, created_at, updated_at) ' +
        "SELECT $1::int, e, n, f, s, 'active', c, ip, $2::bigint, $2::bigint " +
        'FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::int8[], $8::text[]) WITH ORDINALITY AS u(e, n, f, s, c, ip, o) ORDER BY o ' +
        'ON CONFLICT (list_id, email) DO NOTHING RETURNING id, email',
      [listId, now, chunk.map((x) => x.email), chunk.map((x) => x.name), chunk.map((x) => JSON.stringify(x.fields)), chunk.map((x) => x.source),
        chunk.map((x) => x.consentAt), chunk.map((x) => x.consentIp)],
    )
    for (const r of inserted) created.push({ id: Number(r.id), email: r.email })
  }
  return created
}
