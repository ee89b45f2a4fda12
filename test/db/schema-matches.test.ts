// The one schema (src/db/schema, its Postgres twins built by src/db/table.ts) against what the migrations
// build (issue 27): a fresh database of each engine, migrated, must have exactly the tables, columns (name,
// type, not null, primary key), indexes and foreign keys the drizzle tables say. A column added to a
// definition without its migration (or the other way round, or on one engine only) fails here.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { is } from 'drizzle-orm'
import { getTableConfig as sqliteConfig, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { getTableConfig as pgConfig, PgTable } from 'drizzle-orm/pg-core'
import * as sqliteSchema from '../../src/db/schema'
import * as pgSchema from '../../src/db/pg-schema'
import { openDatabase, type Database } from '../../src/db/client'
import { migrate } from '../../src/db/migrate'
import { openPg, type PgDatabase } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import { freshPgUrl, pgAvailable } from '../helpers/pg'

/** One table as both sides describe it, sorted so that the comparison is by content. */
interface Shape {
  columns: string[] // "name type [not null] [pk]"
  indexes: string[]
  foreignKeys: string[] // "column → table.column on delete …"
}

const col = (name: string, type: string, notNull: boolean, pk: boolean) =>
  `${name} ${type.toLowerCase()}${notNull ? ' not null' : ''}${pk ? ' pk' : ''}`
const sorted = (s: Shape): Shape => ({ columns: [...s.columns].sort(), indexes: [...s.indexes].sort(), foreignKeys: [...s.foreignKeys].sort() })

function drizzleShapes(tables: unknown[], config: typeof sqliteConfig | typeof pgConfig): Record<string, Shape> {
  const out: Record<string, Shape> = {}
  for (const t of tables) {
    const c = (config as (t: unknown) => ReturnType<typeof pgConfig>)(t)
    const pk = new Set([...c.columns.filter((x) => x.primary).map((x) => x.name), ...c.primaryKeys.flatMap((p) => p.columns.map((x) => x.name))])
    out[c.name] = sorted({
      columns: c.columns.map((x) => col(x.name, x.getSQLType(), x.notNull, pk.has(x.name))),
      // .unique() on a column is an index of that name on both engines (a UNIQUE constraint's, on Postgres).
      indexes: [...c.indexes.map((i) => i.config.name!), ...c.columns.filter((x) => x.isUnique).map((x) => x.uniqueName!)],
      foreignKeys: c.foreignKeys.map((fk) => {
        const r = fk.reference()
        const target = (config as (t: unknown) => { name: string })(r.foreignTable).name
        return `${r.columns[0]!.name} → ${target}.${r.foreignColumns[0]!.name} on delete ${fk.onDelete ?? 'no action'}`
      }),
    })
  }
  return out
}

function sqliteShapes(db: Database): Record<string, Shape> {
  const q = <T>(text: string) => db.raw.prepare(text).all() as T[]
  const out: Record<string, Shape> = {}
  const tables = q<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '__drizzle_migrations'")
  for (const { name } of tables) {
    out[name] = sorted({
      columns: q<{ name: string; type: string; notnull: number; pk: number }>(`SELECT * FROM pragma_table_info('${name}')`)
        .map((r) => col(r.name, r.type, r.notnull === 1 || r.pk === 1, r.pk > 0)),
      // Indexes SQLite makes itself (a primary key's, `sqlite_autoindex_…`) are the key, compared above.
      indexes: q<{ name: string; origin: string }>(`SELECT * FROM pragma_index_list('${name}')`).filter((r) => r.origin !== 'pk').map((r) => r.name),
      foreignKeys: q<{ from: string; table: string; to: string; on_delete: string }>(`SELECT * FROM pragma_foreign_key_list('${name}')`)
        .map((r) => `${r.from} → ${r.table}.${r.to} on delete ${r.on_delete.toLowerCase()}`),
    })
  }
  return out
}

async function pgShapes(pg: PgDatabase): Promise<Record<string, Shape>> {
  const columns = await pg.sql`
    SELECT c.table_name AS t, c.column_name AS name, c.data_type AS type, c.is_nullable = 'NO' AS not_null,
      EXISTS (SELECT 1 FROM information_schema.table_constraints k JOIN information_schema.key_column_usage u
        ON u.constraint_name = k.constraint_name AND u.table_schema = k.table_schema
        WHERE k.constraint_type = 'PRIMARY KEY' AND k.table_schema = 'public' AND k.table_name = c.table_name AND u.column_name = c.column_name) AS pk
    FROM information_schema.columns c JOIN information_schema.tables t ON t.table_name = c.table_name AND t.table_schema = c.table_schema
    WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'`
  const indexes = await pg.sql`
    SELECT t.relname AS t, i.relname AS name FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = 'public' AND NOT x.indisprimary`
  const fks = await pg.sql`
    SELECT c.conrelid::regclass::text AS t, a.attname AS col, c.confrelid::regclass::text AS target, fa.attname AS target_col,
      CASE c.confdeltype WHEN 'a' THEN 'no action' WHEN 'r' THEN 'restrict' WHEN 'c' THEN 'cascade' WHEN 'n' THEN 'set null' ELSE 'set default' END AS on_delete
    FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
    JOIN pg_attribute fa ON fa.attrelid = c.confrelid AND fa.attnum = c.confkey[1]
    WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace`
  const out: Record<string, Shape> = {}
  const shape = (t: string) => (out[t] ??= { columns: [], indexes: [], foreignKeys: [] })
  for (const r of columns) shape(r.t).columns.push(col(r.name, r.type, r.not_null, r.pk))
  for (const r of indexes) shape(r.t).indexes.push(r.name)
  for (const r of fks) shape(r.t).foreignKeys.push(`${r.col} → ${r.target}.${r.target_col} on delete ${r.on_delete}`)
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, sorted(v)]))
}

/** Table by table, so a failure names the table and shows both sides. */
function expectSame(migrated: Record<string, Shape>, drizzle: Record<string, Shape>) {
  expect(Object.keys(migrated).sort()).toEqual(Object.keys(drizzle).sort())
  for (const name of Object.keys(drizzle).sort()) expect({ table: name, ...migrated[name] }).toEqual({ table: name, ...drizzle[name]! })
}

test('SQLite: the migrations build exactly the schema', async () => {
  const db = await openDatabase(':memory:')
  try {
    migrate(db)
    const drizzle = drizzleShapes(Object.values(sqliteSchema).filter((t) => is(t, SQLiteTable)), sqliteConfig)
    expect(Object.keys(drizzle).length).toBeGreaterThan(30)
    expectSame(sqliteShapes(db), drizzle)
  } finally {
    db.close()
  }
})

const avail = pgAvailable()
if (!avail.ok) console.warn(`skipping the PostgreSQL schema check: ${avail.why}`)

describe.skipIf(!avail.ok)('PostgreSQL', () => {
  let pg: PgDatabase
  beforeAll(async () => {
    pg = await openPg(await freshPgUrl(), { max: 2 })
    await migratePg(pg)
  })
  afterAll(() => pg?.close())

  test('the migrations build exactly the schema', async () => {
    const drizzle = drizzleShapes(Object.values(pgSchema).filter((t) => is(t, PgTable)), pgConfig)
    expect(Object.keys(drizzle).length).toBeGreaterThan(30)
    expectSame(await pgShapes(pg), drizzle)
  })
})
