// Email automations, one module for both engines (db/store-db.ts): a small table, read whole into the
// automations table of src/email/automations.ts. The list must exist (invalid naming list_id), checked inside
// the write's transaction (FOR SHARE on Postgres: a delete of the list waits for it).
import type { AnyDatabase } from '../../db/engine'
import { raw, sql } from '../../db/sql'
import { storeDb, type Queries, type StoreDb } from '../../db/store-db'
import { invalid, notFound } from '../../lib/errors'
import type { Page } from '../../lib/paging'
import type { Steps } from '../../lib/steps'

/** One message of a sequence. */
export interface AutomationStep {
  delay_minutes: number
  subject: string
  text: string
  html: string | null
}

export interface AutomationRow {
  id: number
  listId: number
  name: string
  active: boolean
  steps: AutomationStep[]
  createdAt: number
  updatedAt: number
}
export type AutomationValues = Pick<AutomationRow, 'listId' | 'name' | 'active' | 'steps'>

export interface AutomationStore {
  list(page: Page): Promise<AutomationRow[]>
  find(id: number): Promise<AutomationRow | undefined>
  /** invalid "list_id: email list N does not exist". */
  create(values: AutomationValues): Promise<AutomationRow>
  /** not_found "email automation not found"; invalid as create. */
  update(id: number, changes: Partial<AutomationValues>): Promise<AutomationRow>
  remove(id: number): Promise<void>
  /** Every active automation (the in-memory table). */
  active(): Promise<AutomationRow[]>
}

const missing = () => notFound('email automation not found')
const noList = (id: number) => invalid(`list_id: email list ${id} does not exist`)

function parseSteps(text: string): AutomationStep[] {
  try {
    const v = JSON.parse(text) as unknown
    return Array.isArray(v) ? (v as AutomationStep[]) : []
  } catch {
    return []
  }
}

export function automationStore(database: AnyDatabase): AutomationStore {
  return new EmailAutomationStore(database)
}

const COLS = raw('id, list_id AS "listId", name, active, steps, created_at AS "createdAt", updated_at AS "updatedAt"')

/** As stored: the flag a 0/1 integer and the steps JSON text on both engines. */
type Stored = Omit<AutomationRow, 'active' | 'steps'> & { active: number; steps: string }
const fromStored = (r: Stored): AutomationRow => ({ ...r, active: Number(r.active) === 1, steps: parseSteps(r.steps) })

class EmailAutomationStore implements AutomationStore {
  private readonly db: StoreDb

  constructor(database: AnyDatabase) {
    this.db = storeDb(database)
  }

  async list(page: Page) {
    return (await this.db.all<Stored>(sql`SELECT ${COLS} FROM email_automations WHERE id > ${page.afterId} ORDER BY id LIMIT ${page.limit + 1}`)).map(fromStored)
  }

  async find(id: number) {
    const r = await this.db.get<Stored>(sql`SELECT ${COLS} FROM email_automations WHERE id = ${id}`)
    return r ? fromStored(r) : undefined
  }

  create(v: AutomationValues) {
    const db = this.db
    return db.atomically(function* (q) {
      yield* checkList(db, q, v.listId)
      const now = Date.now()
      const r: Stored | undefined = yield q.get<Stored>(sql`INSERT INTO email_automations (list_id, name, active, steps, created_at, updated_at)
        VALUES (${v.listId}, ${v.name}, ${v.active}, ${JSON.stringify(v.steps)}, ${now}, ${now}) RETURNING ${COLS}`)
      return fromStored(r!)
    })
  }

  update(id: number, c: Partial<AutomationValues>) {
    const db = this.db
    return db.atomically(function* (q) {
      const current: Stored | undefined = yield q.get<Stored>(sql`SELECT ${COLS} FROM email_automations WHERE id = ${id} ${db.forUpdate}`)
      if (!current) throw missing()
      if (c.listId !== undefined) yield* checkList(db, q, c.listId)
      const next = { ...fromStored(current), ...c }
      const r: Stored | undefined = yield q.get<Stored>(sql`UPDATE email_automations SET list_id = ${next.listId}, name = ${next.name}, active = ${next.active},
        steps = ${JSON.stringify(next.steps)}, updated_at = ${Date.now()} WHERE id = ${id} RETURNING ${COLS}`)
      return fromStored(r!)
    })
  }

  async remove(id: number) {
    if ((await this.db.run(sql`DELETE FROM email_automations WHERE id = ${id}`)) === 0) throw missing()
  }

  async active() {
    return (await this.db.all<Stored>(sql`SELECT ${COLS} FROM email_automations WHERE active = 1 ORDER BY id`)).map(fromStored)
  }
}

function* checkList(db: StoreDb, q: Queries, id: number): Steps<void> {
  const list: unknown = yield q.get(sql`SELECT id FROM email_lists WHERE id = ${id} ${db.forShare}`)
  if (!list) throw noList(id)
}
