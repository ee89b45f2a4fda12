// Email triggers (postback rule 6), one module for both engines (db/store-db.ts): a small table, read whole
// into the triggers cache. Writes check that the offer and the list exist inside their transaction (invalid
// naming the field); FOR SHARE on Postgres keeps both until the write commits (a delete waits, then cascades).
import type { AnyDatabase } from '../../db/engine'
import type { emailTriggers } from '../../db/schema'
import { raw, sql } from '../../db/sql'
import { storeDb, type Queries, type StoreDb } from '../../db/store-db'
import { invalid, notFound } from '../../lib/errors'
import type { Page } from '../../lib/paging'
import type { Steps } from '../../lib/steps'

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
  return new EmailTriggerStore(database)
}

const COLS = raw('id, offer_id AS "offerId", target_list_id AS "targetListId", active, created_at AS "createdAt", updated_at AS "updatedAt"')

/** active is a 0/1 integer in the column on both engines, a boolean in the row. */
type Stored = Omit<TriggerRow, 'active'> & { active: number }
const fromStored = (r: Stored): TriggerRow => ({ ...r, active: Number(r.active) === 1 })

class EmailTriggerStore implements TriggerStore {
  private readonly db: StoreDb

  constructor(database: AnyDatabase) {
    this.db = storeDb(database)
  }

  async list(page: Page) {
    return (await this.db.all<Stored>(sql`SELECT ${COLS} FROM email_triggers WHERE id > ${page.afterId} ORDER BY id LIMIT ${page.limit + 1}`)).map(fromStored)
  }

  async find(id: number) {
    const r = await this.db.get<Stored>(sql`SELECT ${COLS} FROM email_triggers WHERE id = ${id}`)
    return r ? fromStored(r) : undefined
  }

  create(values: TriggerValues) {
    const db = this.db
    return db.atomically(function* (q) {
      yield* check(db, q, values)
      const now = Date.now()
      const r: Stored | undefined = yield q.get<Stored>(sql`INSERT INTO email_triggers (offer_id, target_list_id, active, created_at, updated_at)
        VALUES (${values.offerId}, ${values.targetListId}, ${values.active}, ${now}, ${now}) RETURNING ${COLS}`)
      return fromStored(r!)
    })
  }

  update(id: number, changes: Partial<TriggerValues>) {
    const db = this.db
    return db.atomically(function* (q) {
      const current: Stored | undefined = yield q.get<Stored>(sql`SELECT ${COLS} FROM email_triggers WHERE id = ${id} ${db.forUpdate}`)
      if (!current) throw missing()
      yield* check(db, q, changes)
      const next = { ...fromStored(current), ...changes }
      const r: Stored | undefined = yield q.get<Stored>(sql`UPDATE email_triggers SET offer_id = ${next.offerId}, target_list_id = ${next.targetListId},
        active = ${next.active}, updated_at = ${Date.now()} WHERE id = ${id} RETURNING ${COLS}`)
      return fromStored(r!)
    })
  }

  async remove(id: number) {
    if ((await this.db.run(sql`DELETE FROM email_triggers WHERE id = ${id}`)) === 0) throw missing()
  }

  active() {
    return this.db.all<Pick<TriggerRow, 'offerId' | 'targetListId'>>(
      sql`SELECT offer_id AS "offerId", target_list_id AS "targetListId" FROM email_triggers WHERE active = 1 ORDER BY id`)
  }
}

function* check(db: StoreDb, q: Queries, v: Partial<TriggerValues>): Steps<void> {
  if (v.offerId !== undefined) {
    const offer: unknown = yield q.get(sql`SELECT id FROM offers WHERE id = ${v.offerId} ${db.forShare}`)
    if (!offer) throw noOffer(v.offerId)
  }
  if (v.targetListId !== undefined) {
    const list: unknown = yield q.get(sql`SELECT id FROM email_lists WHERE id = ${v.targetListId} ${db.forShare}`)
    if (!list) throw noList(v.targetListId)
  }
}
