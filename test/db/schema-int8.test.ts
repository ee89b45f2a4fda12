// int8 read as numbers without lists (issue 27): StoreDb converts every int8 column of a Postgres result, found
// by the type the server gives it, whatever its name; the hot paths convert whole rows with the int8 columns
// of the one schema. Rows read the same on both engines.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core'
import { getTableName, is, isTable, type Table } from 'drizzle-orm'
import { sql } from '../../src/db/sql'
import { storeDb, type StoreDb } from '../../src/db/store-db'
import * as schema from '../../src/db/schema'
import * as pgSchema from '../../src/db/pg-schema'
import { int8Columns } from '../../src/db/table'
import { ENGINES, openFresh, type OpenedDb } from '../users/pg-engines'

test('int8Columns: the columns the one schema makes bigint on Postgres, for every table', () => {
  expect(int8Columns(schema.jobs)).toEqual(['id', 'next_run_at', 'created_at', 'updated_at'])
  expect(int8Columns(schema.conversions)).toEqual(['id', 'click_row_id', 'click_created_at', 'date', 'created_at'])
  expect(int8Columns(schema.users)).toEqual(['created_at', 'updated_at']) // int4 id
  for (const t of Object.values(pgSchema).filter((x) => is(x, PgTable))) {
    const c = getTableConfig(t as PgTable)
    const lite = Object.values(schema).find((x) => isTable(x) && getTableName(x as Table) === c.name)
    expect({ table: c.name, int8: int8Columns(lite as typeof schema.jobs) })
      .toEqual({ table: c.name, int8: c.columns.filter((col) => col.getSQLType() === 'bigint').map((col) => col.name) })
  }
})

for (const engine of ENGINES) {
  describe.skipIf(engine.skip)(`int8 on ${engine.name}`, () => {
    let opened: OpenedDb
    let db: StoreDb
    const at = 1_795_600_000_000

    beforeAll(async () => {
      opened = await openFresh(engine.name)
      db = storeDb(opened.db)
      await db.run(sql`INSERT INTO jobs (kind, payload, status, attempts, max_attempts, section, ref, next_run_at, created_at, updated_at)
        VALUES ('k', '{}', 'pending', 0, 3, 'conversions', ${String(at)}, ${at}, ${at}, ${at})`)
    })
    afterAll(async () => { await opened?.close() })

    test('schema columns, aliases and counts come back as numbers; text stays text whatever its name', async () => {
      // `ref` holds digits but is text; here it is aliased to the name of an int8 column, and must stay a string.
      const row = await db.get(sql`SELECT id, next_run_at, created_at AS "createdAt", ref AS updated_at, attempts,
        (SELECT count(*) FROM jobs) AS n, (SELECT sum(max_attempts) FROM jobs) AS s FROM jobs`)
      expect(row).toEqual({ id: 1, next_run_at: at, createdAt: at, updated_at: String(at), attempts: 0, n: 1, s: 3 })
      const rows = await db.atomically(function* (q) {
        const r: unknown[] = yield q.all(sql`UPDATE jobs SET updated_at = ${at + 1} RETURNING id, updated_at`)
        return r
      })
      expect(rows).toEqual([{ id: 1, updated_at: at + 1 }])
    })

    test('a numeric result (sum of an int8 column) is not int8: named in the second argument, or CAST in SQL', async () => {
      const named = await db.get(sql`SELECT sum(created_at) AS total FROM jobs`, ['total'])
      expect(named).toEqual({ total: at })
      const cast = await db.get(sql`SELECT CAST(sum(created_at) AS bigint) AS total FROM jobs`)
      expect(cast).toEqual({ total: at })
    })
  })
}
