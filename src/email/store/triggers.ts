// Email triggers (postback rule 6) on both engines: a small table, read whole into the triggers cache.
// Writes check that the offer and the list exist inside their transaction (invalid naming the field).
import type { SQL, TransactionSQL } from 'bun'
import { and, asc, eq, gt } from 'drizzle-orm'
import type { Database, Db, RawDb } from '../../db/client'
import type { AnyDatabase } from '../../db/engine'
import { num } from '../../db/pg/client'
import { emailLists, emailTriggers, offers } from '../../db/schema'
import { invalid, notFound } from '../../lib/errors'
import type { Page } from '../../lib/paging'

export type TriggerRow = typeof emailTriggers.$inferSelect
export type TriggerValues = Pick<TriggerRow, 'offerId' | 'targetListId' | 'active'>

export interface TriggerStore {
  list(page: Page): Promise<TriggerRow[]>
  find(id: number): Promise<TriggerRow | undefined>
  /** invalid naming offer_id / target_list_id when either does not exist. */
  create(values: TriggerValues): Promise<TriggerRow>
  /** not_found "email trigger not found"; invalid as create. */
  update(id: number, changes: Partial<TriggerValues>): Promise<TriggerRow>
  remove(id: number): Promise<void>
  /** Every active trigger (the cache). */
  active(): Promise<Array<Pick<TriggerRow, 'offerId' | 'targetListId'>>>
}

const missing = () => notFound('email trigger not found')
const noOffer = (id: number) => invalid(`offer_id: offer ${id} does not exist`)
const noList = (id: number) => invalid(`target_list_id: email list ${id} does not exist`)

export function triggerStore(database: AnyDatabase): TriggerStore {
  return database.engine === 'postgres' ? new PgTriggerStore(database.sql) : new SqliteTriggerStore(database)
}

class SqliteTriggerStore implements TriggerStore {
  private readonly db: Db
  private readonly raw: RawDb

  constructor(database: Database) {
    this.db = database.db
    this.raw = database.raw
  }

  async list(page: Page) {
    return this.db.select().from(emailTriggers).where(gt(emailTriggers.id, page.afterId)).orderBy(asc(emailTriggers.id)).limit(page.limit + 1).all()
  }

  async find(id: number) {
    return this.db.select().from(emailTriggers).where(eq(emailTriggers.id, id)).get()
  }

  async create(values: TriggerValues) {
    return this.raw.transaction(() => {
      this.check(values)
      const now = Date.now()
      return this.db.insert(emailTriggers).values({ ...values, createdAt: now, updatedAt: now }).returning().get()
    })()
  }

  async update(id: number, changes: Partial<TriggerValues>) {
    return this.raw.transaction(() => {
      if (!this.db.select({ id: emailTriggers.id }).from(emailTriggers).where(eq(emailTriggers.id, id)).get()) throw missing()
      this.check(changes)
      return this.db.update(emailTriggers).set({ ...changes, updatedAt: Date.now() }).where(eq(emailTriggers.id, id)).returning().get()!
    })()
  }

  async remove(id: number) {
    if (!this.db.delete(emailTriggers).where(eq(emailTriggers.id, id)).returning({ id: emailTriggers.id }).get()) throw missing()
  }

  async active() {
    return this.db.select({ offerId: emailTriggers.offerId, targetListId: emailTriggers.targetListId }).from(emailTriggers)
      .where(and(eq(emailTriggers.active, true))).orderBy(asc(emailTriggers.id)).all()
  }

  private check(v: Partial<TriggerValues>): void {
    if (v.offerId !== undefined && !this.db.select({ id: offers.id }).from(offers).where(eq(offers.id, v.offerId)).get()) throw noOffer(v.offerId)
    if (v.targetListId !== undefined && !this.db.select({ id: emailLists.id }).from(emailLists).where(eq(emailLists.id, v.targetListId)).get()) {
      throw noList(v.targetListId)
    }
  }
}

/** Postgres: int8 times come back as strings; active is 0/1 in the column, boolean in the row. */
function row(r: Record<string, unknown>): TriggerRow {
  return {
    id: Number(r.id), offerId: Number(r.offerId), targetListId: Number(r.targetListId), active: Number(r.active) === 1,
    createdAt: num(r.createdAt as string), updatedAt: num(r.updatedAt as string),
  }
}

class PgTriggerStore implements TriggerStore {
  private readonly cols: SQL.Query<unknown>

  constructor(private readonly sql: SQL) {
    this.cols = sql`id, offer_id AS "offerId", target_list_id AS "targetListId", active, created_at AS "createdAt", updated_at AS "updatedAt"`
  }

  async list(page: Page) {
    const rows = await this.sql`SELECT ${this.cols} FROM email_triggers WHERE id > ${page.afterId}::int8 ORDER BY id LIMIT ${page.limit + 1}::int`
    return [...rows].map(row)
  }

  async find(id: number) {
    const [r] = await this.sql`SELECT ${this.cols} FROM email_triggers WHERE id = ${id}::int8`
    return r ? row(r) : undefined
  }

  async create(values: TriggerValues) {
    return this.sql.begin(async (tx) => {
      await check(tx, values)
      const now = Date.now()
      const [r] = await tx`INSERT INTO email_triggers (offer_id, target_list_id, active, created_at, updated_at)
        VALUES (${values.offerId}::int, ${values.targetListId}::int, ${values.active ? 1 : 0}::int, ${now}::bigint, ${now}::bigint) RETURNING ${this.cols}`
      return row(r)
    }) as Promise<TriggerRow>
  }

  async update(id: number, changes: Partial<TriggerValues>) {
    return this.sql.begin(async (tx) => {
      const [current] = await tx`SELECT ${this.cols} FROM email_triggers WHERE id = ${id}::int8 FOR UPDATE`
      if (!current) throw missing()
      await check(tx, changes)
      const next = { ...row(current), ...changes }
      const [r] = await tx`UPDATE email_triggers SET offer_id = ${next.offerId}::int, target_list_id = ${next.targetListId}::int,
        active = ${next.active ? 1 : 0}::int, updated_at = ${Date.now()}::bigint WHERE id = ${id}::int8 RETURNING ${this.cols}`
      return row(r)
    }) as Promise<TriggerRow>
  }

  async remove(id: number) {
    if ((await this.sql`DELETE FROM email_triggers WHERE id = ${id}::int8 RETURNING id`).length === 0) throw missing()
  }

  async active() {
    const rows = await this.sql`SELECT offer_id AS "offerId", target_list_id AS "targetListId" FROM email_triggers WHERE active = 1 ORDER BY id`
    return [...rows].map((r) => ({ offerId: Number(r.offerId), targetListId: Number(r.targetListId) }))
  }
}

/** FOR SHARE: the offer and the list stay until this write commits (a delete waits, then cascades to it). */
async function check(tx: TransactionSQL, v: Partial<TriggerValues>): Promise<void> {
  if (v.offerId !== undefined && (await tx`SELECT id FROM offers WHERE id = ${v.offerId}::int8 FOR SHARE`).length === 0) throw noOffer(v.offerId)
  if (v.targetListId !== undefined && (await tx`SELECT id FROM email_lists WHERE id = ${v.targetListId}::int8 FOR SHARE`).length === 0) {
    throw noList(v.targetListId)
  }
}
