// The two storage engines for store tests: a fresh migrated SQLite file in a temp dir, or a fresh migrated
// Postgres database on the throwaway test cluster (skipped with the reason when PostgreSQL is not installed).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/client'
import { migrate } from '../../src/db/migrate'
import { openPg } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import type { AnyDatabase } from '../../src/db/engine'
import { freshPgUrl, pgAvailable } from '../helpers/pg'

export type EngineName = 'sqlite' | 'postgres'

const avail = pgAvailable()
if (!avail.ok) console.warn(`skipping PostgreSQL store tests: ${avail.why}`)

export const ENGINES: Array<{ name: EngineName; skip: boolean }> = [
  { name: 'sqlite', skip: false },
  { name: 'postgres', skip: !avail.ok },
]

export interface OpenedDb {
  db: AnyDatabase
  /** A second connection to the same database (another svc instance); Postgres only. */
  another(): Promise<AnyDatabase>
  close(): Promise<void>
}

export async function openFresh(engine: EngineName): Promise<OpenedDb> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'svc-store-'))
    const db = await openDatabase(join(dir, 'svc.db'))
    migrate(db)
    const extra: AnyDatabase[] = []
    return {
      db,
      async another() {
        const d = await openDatabase(join(dir, 'svc.db'))
        extra.push(d)
        return d
      },
      async close() {
        for (const d of extra) d.close()
        db.close()
        rmSync(dir, { recursive: true, force: true })
      },
    }
  }
  const url = await freshPgUrl()
  const db = await openPg(url)
  await migratePg(db)
  const extra: AnyDatabase[] = []
  return {
    db,
    async another() {
      const d = await openPg(url)
      extra.push(d)
      return d
    },
    async close() {
      for (const d of extra) await d.close()
      await db.close()
    },
  }
}

/** One row of a table by key column, read with the engine's own client (to look at what is stored). */
export async function rawRow(db: AnyDatabase, table: 'users' | 'settings', where: { col: 'id' | 'key'; value: unknown }) {
  if (db.engine === 'postgres') {
    const [row] = await db.sql`SELECT * FROM ${db.sql(table)} WHERE ${db.sql(where.col)} = ${where.value}`
    return row ?? null
  }
  return db.raw.prepare(`SELECT * FROM ${table} WHERE ${where.col} = $v`).get({ v: where.value }) ?? null
}
