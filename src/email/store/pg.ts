// The email store on PostgreSQL: the same rows, errors and ordering as store/sqlite.ts, through Bun's SQL
// client. Several instances may write at once, so a write locks what its check relies on: deleteList takes
// FOR UPDATE on the list before looking for a landing that uses it, and enroll takes FOR SHARE on the list,
// so a concurrent delete waits for the enrolment (or the enrolment sees the list gone: not_found, never a
// foreign-key error). Two enrolments of one address meet at the UNIQUE (list_id, email) index: the second
// waits for the first to commit, inserts nothing and reads the row the first one wrote.
import type { SQL, TransactionSQL } from 'bun'
import { numCols, type PgDatabase } from '../../db/pg/client'
import type { Page } from '../../lib/paging'
import { listNotFound, listUsedByLanding, listUsedByProduct, subscriberNotFound } from './errors'
import type { EmailStore, ListRow, NewSubscriber, OnEnrolled, SubscriberFilter, SubscriberRow } from './types'

/** The pool or a transaction: both run tagged-template queries. */
type Q = SQL | TransactionSQL
type Raw = Record<string, unknown>

const FOREIGN_KEY_VIOLATION = '23503'

/** The SQLSTATE of a Postgres server error (Bun puts it in `errno`), else undefined. */
function sqlState(err: unknown): string | undefined {
  const e = err as { code?: unknown; errno?: unknown } | null
  return e && e.code === 'ERR_POSTGRES_SERVER_ERROR' && typeof e.errno === 'string' ? e.errno : undefined
}

// int8 columns arrive as strings: ids of subscribers and every epoch-ms time.
const listRows = (rows: Raw[]) => numCols(rows, 'createdAt', 'updatedAt') as unknown as ListRow[]
const subscriberRows = (rows: Raw[]) => numCols(rows, 'id', 'consentAt', 'createdAt', 'updatedAt') as unknown as SubscriberRow[]

export class PgEmailStore implements EmailStore {
  private readonly sql: SQL
  // The column lists under their camelCase names (constant SQL text, no values).
  private readonly cols: { list: SQL.Query<unknown>; subscriber: SQL.Query<unknown> }

  constructor(database: PgDatabase) {
    const sql = (this.sql = database.sql)
    this.cols = {
      list: sql`l.id, l.name, l.created_at AS "createdAt", l.updated_at AS "updatedAt",
        (SELECT count(*)::int FROM email_subscribers s WHERE s.list_id = l.id AND s.status = 'active') AS "activeSubscribers"`,
      subscriber: sql`id, list_id AS "listId", email, name, fields, source, status, consent_at AS "consentAt",
        consent_ip AS "consentIp", created_at AS "createdAt", updated_at AS "updatedAt"`,
    }
  }

  // ── lists ──

  async listLists(page: Page): Promise<ListRow[]> {
    const rows = await this.sql`SELECT ${this.cols.list} FROM email_lists l WHERE l.id > ${page.afterId}::int8 ORDER BY l.id LIMIT ${page.limit + 1}::int`
    return listRows(rows)
  }

  async findList(id: number): Promise<ListRow | undefined> {
    return this.listRow(this.sql, id)
  }

  async createList(name: string): Promise<ListRow> {
    const now = Date.now()
    const rows = await this.sql`INSERT INTO email_lists (name, created_at, updated_at) VALUES (${name}, ${now}::bigint, ${now}::bigint)
      RETURNING id, name, created_at AS "createdAt", updated_at AS "updatedAt", 0 AS "activeSubscribers"`
    return listRows(rows)[0]!
  }

  async updateList(id: number, name: string): Promise<ListRow> {
    // The count is read in the same statement: the UPDATE's RETURNING cannot run the subquery on `l`.
    const rows = await this.sql`WITH u AS (
        UPDATE email_lists SET name = ${name}, updated_at = ${Date.now()}::bigint WHERE id = ${id}::int8 RETURNING *
      )
      SELECT u.id, u.name, u.created_at AS "createdAt", u.updated_at AS "updatedAt",
        (SELECT count(*)::int FROM email_subscribers s WHERE s.list_id = u.id AND s.status = 'active') AS "activeSubscribers"
      FROM u`
    const [row] = listRows(rows)
    if (!row) throw listNotFound()
    return row
  }

  async deleteList(id: number): Promise<void> {
    await this.sql.begin(async (tx) => {
      // FOR UPDATE: a concurrent enrolment (FOR SHARE) or delete of this list waits for us.
      if ((await tx`SELECT id FROM email_lists WHERE id = ${id}::int8 FOR UPDATE`).length === 0) throw listNotFound()
      // landings.email_list_id has no foreign key: this read is what keeps a landing from pointing at nothing.
      const [user] = await tx`SELECT id, slug FROM landings WHERE email_list_id = ${id}::int8 ORDER BY id LIMIT 1`
      if (user) throw listUsedByLanding(user as { id: number; slug: string })
      const [product] = await tx`SELECT id, name FROM products WHERE email_list_id = ${id}::int4 ORDER BY id LIMIT 1`
      if (product) throw listUsedByProduct(product as { id: number; name: string })
      // Its subscribers go with it (ON DELETE CASCADE).
      await tx`DELETE FROM email_lists WHERE id = ${id}::int8`
    })
  }

  // ── subscribers ──

  async listSubscribers(listId: number, filter: SubscriberFilter, page: Page): Promise<SubscriberRow[]> {
    if (!(await this.listExists(this.sql, listId))) throw listNotFound()
    const status = filter.status !== undefined ? this.sql`AND status = ${filter.status}` : this.sql``
    const email = filter.email !== undefined ? this.sql`AND email = ${filter.email}` : this.sql``
    const rows = await this.sql`SELECT ${this.cols.subscriber} FROM email_subscribers
      WHERE list_id = ${listId}::int8 AND id > ${page.afterId}::int8 ${status} ${email} ORDER BY id LIMIT ${page.limit + 1}::int`
    return subscriberRows(rows)
  }

  async findSubscriber(listId: number, id: number): Promise<SubscriberRow | undefined> {
    const rows = await this.sql`SELECT ${this.cols.subscriber} FROM email_subscribers WHERE list_id = ${listId}::int8 AND id = ${id}::int8`
    return subscriberRows(rows)[0]
  }

  async enroll(listId: number, s: NewSubscriber, onCreated?: OnEnrolled): Promise<{ row: SubscriberRow; created: boolean }> {
    try {
      return await this.sql.begin(async (tx) => {
        // FOR SHARE: the list cannot be deleted until this enrolment commits (deleteList waits on it).
        if ((await tx`SELECT id FROM email_lists WHERE id = ${listId}::int8 FOR SHARE`).length === 0) throw listNotFound()
        // A concurrent remove of the existing row between the two statements is retried (READ COMMITTED:
        // each statement sees what has been committed when it starts).
        for (let attempt = 0; ; attempt++) {
          const now = Date.now()
          const inserted = await tx`INSERT INTO email_subscribers
              (list_id, email, name, fields, source, status, consent_at, consent_ip, created_at, updated_at)
            VALUES (${listId}::int, ${s.email}, ${s.name}, ${JSON.stringify(s.fields)}, ${s.source}, 'active',
              ${s.consentAt}::bigint, ${s.consentIp}, ${now}::bigint, ${now}::bigint)
            ON CONFLICT (list_id, email) DO NOTHING
            RETURNING ${this.cols.subscriber}`
          if (inserted.length > 0) {
            const row = subscriberRows(inserted)[0]!
            await onCreated?.(row, tx)
            return { row, created: true }
          }
          // Already there: kept exactly as it was (its first consent included).
          const existing = await tx`SELECT ${this.cols.subscriber} FROM email_subscribers WHERE list_id = ${listId}::int8 AND email = ${s.email}`
          if (existing.length > 0) return { row: subscriberRows(existing)[0]!, created: false }
          if (attempt >= 2) throw new Error('enroll: the subscriber kept disappearing between insert and read')
        }
      })
    } catch (err) {
      // The list deleted under us despite the check (should not happen with FOR SHARE): still not_found.
      if (sqlState(err) === FOREIGN_KEY_VIOLATION) throw listNotFound()
      throw err
    }
  }

  /** 1,000 rows per statement (one array per column: a fixed parameter count), in one transaction. */
  async enrollMany(listId: number, subscribers: readonly NewSubscriber[]): Promise<Array<Pick<SubscriberRow, 'id' | 'email'>>> {
    return (await this.sql.begin(async (tx) => {
      if ((await tx`SELECT id FROM email_lists WHERE id = ${listId}::int8 FOR SHARE`).length === 0) throw listNotFound()
      const now = Date.now()
      const created: Array<Pick<SubscriberRow, 'id' | 'email'>> = []
      for (let i = 0; i < subscribers.length; i += 1000) {
        const chunk = subscribers.slice(i, i + 1000)
        const rows = await tx.unsafe(
          'INSERT INTO email_subscribers (list_id, email, name, fields, source, status, consent_at, consent_ip, created_at, updated_at) ' +
            "SELECT $1::int, e, n, f, s, 'active', c, ip, $2::bigint, $2::bigint " +
            'FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::int8[], $8::text[]) WITH ORDINALITY AS u(e, n, f, s, c, ip, o) ORDER BY o ' +
            'ON CONFLICT (list_id, email) DO NOTHING RETURNING id, email',
          [listId, now, chunk.map((x) => x.email), chunk.map((x) => x.name), chunk.map((x) => JSON.stringify(x.fields)), chunk.map((x) => x.source),
            chunk.map((x) => x.consentAt), chunk.map((x) => x.consentIp)],
        )
        for (const r of rows as Array<{ id: unknown; email: string }>) created.push({ id: Number(r.id), email: r.email })
      }
      return created
    })) as Array<Pick<SubscriberRow, 'id' | 'email'>>
  }

  async removeSubscriber(listId: number, id: number): Promise<void> {
    const gone = await this.sql`DELETE FROM email_subscribers WHERE list_id = ${listId}::int8 AND id = ${id}::int8 RETURNING id`
    if (gone.length === 0) throw subscriberNotFound()
  }

  async unsubscribe(listId: number, id: number): Promise<'unsubscribed' | 'already' | 'unknown'> {
    const changed = await this.sql`UPDATE email_subscribers SET status = 'unsubscribed', updated_at = ${Date.now()}::bigint
      WHERE list_id = ${listId}::int8 AND id = ${id}::int8 AND status = 'active' RETURNING id`
    if (changed.length > 0) return 'unsubscribed'
    const exists = await this.sql`SELECT 1 AS x FROM email_subscribers WHERE list_id = ${listId}::int8 AND id = ${id}::int8`
    return exists.length > 0 ? 'already' : 'unknown'
  }

  private async listRow(q: Q, id: number): Promise<ListRow | undefined> {
    const rows = await q`SELECT ${this.cols.list} FROM email_lists l WHERE l.id = ${id}::int8`
    return listRows(rows)[0]
  }

  private async listExists(q: Q, id: number): Promise<boolean> {
    return (await q`SELECT id FROM email_lists WHERE id = ${id}::int8`).length > 0
  }
}
