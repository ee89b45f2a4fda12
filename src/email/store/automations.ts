// Email automations on both engines: a small table, read whole into the automations table of
// src/email/automations.ts. The list must exist (invalid naming list_id), checked inside the write.
import type { SQL, TransactionSQL } from 'bun'
import { asc, eq, gt } from 'drizzle-orm'
import type { Database, Db, RawDb } from '../../db/client'
import type { AnyDatabase } from '../../db/engine'
import { num } from '../../db/pg/client'
import { emailAutomations, emailLists } from '../../db/schema'
import { invalid, notFound } from '../../lib/errors'
import type { Page } from '../../lib/paging'

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
  return database.engine === 'postgres' ? new PgAutomationStore(database.sql) : new SqliteAutomationStore(database)
}

type Stored = typeof emailAutomations.$inferSelect
const fromSqlite = (r: Stored): AutomationRow => ({ ...r, steps: parseSteps(r.steps) })

class SqliteAutomationStore implements AutomationStore {
  private readonly db: Db
  private readonly raw: RawDb

  constructor(database: Database) {
    this.db = database.db
    this.raw = database.raw
  }

  async list(page: Page) {
    return this.db.select().from(emailAutomations).where(gt(emailAutomations.id, page.afterId)).orderBy(asc(emailAutomations.id)).limit(page.limit + 1).all().map(fromSqlite)
  }

  async find(id: number) {
    const r = this.db.select().from(emailAutomations).where(eq(emailAutomations.id, id)).get()
    return r ? fromSqlite(r) : undefined
  }

  async create(v: AutomationValues) {
    return this.raw.transaction(() => {
      this.checkList(v.listId)
      const now = Date.now()
      return fromSqlite(this.db.insert(emailAutomations).values({ ...v, steps: JSON.stringify(v.steps), createdAt: now, updatedAt: now }).returning().get())
    })()
  }

  async update(id: number, c: Partial<AutomationValues>) {
    return this.raw.transaction(() => {
      if (!this.db.select({ id: emailAutomations.id }).from(emailAutomations).where(eq(emailAutomations.id, id)).get()) throw missing()
      if (c.listId !== undefined) this.checkList(c.listId)
      const { steps, ...rest } = c
      const set = { ...rest, ...(steps === undefined ? {} : { steps: JSON.stringify(steps) }), updatedAt: Date.now() }
      return fromSqlite(this.db.update(emailAutomations).set(set).where(eq(emailAutomations.id, id)).returning().get()!)
    })()
  }

  async remove(id: number) {
    if (!this.db.delete(emailAutomations).where(eq(emailAutomations.id, id)).returning({ id: emailAutomations.id }).get()) throw missing()
  }

  async active() {
    return this.db.select().from(emailAutomations).where(eq(emailAutomations.active, true)).orderBy(asc(emailAutomations.id)).all().map(fromSqlite)
  }

  private checkList(id: number): void {
    if (!this.db.select({ id: emailLists.id }).from(emailLists).where(eq(emailLists.id, id)).get()) throw noList(id)
  }
}

function fromPg(r: Record<string, unknown>): AutomationRow {
  return {
    id: Number(r.id), listId: Number(r.listId), name: String(r.name), active: Number(r.active) === 1, steps: parseSteps(String(r.steps)),
    createdAt: num(r.createdAt as string), updatedAt: num(r.updatedAt as string),
  }
}

class PgAutomationStore implements AutomationStore {
  private readonly cols: SQL.Query<unknown>

  constructor(private readonly sql: SQL) {
    this.cols = sql`id, list_id AS "listId", name, active, steps, created_at AS "createdAt", updated_at AS "updatedAt"`
  }

  async list(page: Page) {
    return [...await this.sql`SELECT ${this.cols} FROM email_automations WHERE id > ${page.afterId}::int8 ORDER BY id LIMIT ${page.limit + 1}::int`].map(fromPg)
  }

  async find(id: number) {
    const [r] = await this.sql`SELECT ${this.cols} FROM email_automations WHERE id = ${id}::int8`
    return r ? fromPg(r) : undefined
  }

  async create(v: AutomationValues) {
    return this.sql.begin(async (tx) => {
      await checkList(tx, v.listId)
      const now = Date.now()
      const [r] = await tx`INSERT INTO email_automations (list_id, name, active, steps, created_at, updated_at)
        VALUES (${v.listId}::int, ${v.name}, ${v.active ? 1 : 0}::int, ${JSON.stringify(v.steps)}, ${now}::bigint, ${now}::bigint) RETURNING ${this.cols}`
      return fromPg(r)
    }) as Promise<AutomationRow>
  }

  async update(id: number, c: Partial<AutomationValues>) {
    return this.sql.begin(async (tx) => {
      const [current] = await tx`SELECT ${this.cols} FROM email_automations WHERE id = ${id}::int8 FOR UPDATE`
      if (!current) throw missing()
      if (c.listId !== undefined) await checkList(tx, c.listId)
      const next = { ...fromPg(current), ...c }
      const [r] = await tx`UPDATE email_automations SET list_id = ${next.listId}::int, name = ${next.name}, active = ${next.active ? 1 : 0}::int,
        steps = ${JSON.stringify(next.steps)}, updated_at = ${Date.now()}::bigint WHERE id = ${id}::int8 RETURNING ${this.cols}`
      return fromPg(r)
    }) as Promise<AutomationRow>
  }

  async remove(id: number) {
    if ((await this.sql`DELETE FROM email_automations WHERE id = ${id}::int8 RETURNING id`).length === 0) throw missing()
  }

  async active() {
    return [...await this.sql`SELECT ${this.cols} FROM email_automations WHERE active = 1 ORDER BY id`].map(fromPg)
  }
}

async function checkList(tx: TransactionSQL, id: number): Promise<void> {
  if ((await tx`SELECT id FROM email_lists WHERE id = ${id}::int8 FOR SHARE`).length === 0) throw noList(id)
}
