// Both engines' schemas as drizzle-kit sees them, from the one definition (src/db/schema, src/db/table.ts).
//   bun scripts/schema-json.ts /tmp/before          writes /tmp/before-{sqlite,pg,runtime}.json: the drizzle-kit
//       JSON of each engine (ids left out) and what that JSON leaves out (each column's drizzle class, e.g.
//       PgBigInt53 = bigint in number mode, and its enum values). Dump, change, dump again, diff: a refactor
//       of the definitions must change nothing.
//   bun scripts/schema-json.ts --sql /tmp/before    prints the SQL of both engines from that dump to the schema
//       as it is now: the statements of the next drizzle/ and drizzle-pg/ migration. (drizzle/meta and
//       drizzle-pg/meta stop at older snapshots, so `drizzle-kit generate` would repeat hand-written changes.)
import { readFileSync, writeFileSync } from 'node:fs'
import { generateDrizzleJson, generateMigration, generateSQLiteDrizzleJson, generateSQLiteMigration } from 'drizzle-kit/api'
import { getTableColumns, getTableName, isTable, type Table } from 'drizzle-orm'
import * as sqliteSchema from '../src/db/schema'
import * as pgSchema from '../src/db/pg-schema'

const [first, second] = process.argv.slice(2)
const prefix = first === '--sql' ? second : first
if (!prefix) {
  console.error('usage: bun scripts/schema-json.ts [--sql] <prefix>')
  process.exit(2)
}
type Json = Record<string, unknown>
const lite = (await generateSQLiteDrizzleJson(sqliteSchema)) as unknown as Json
const pg = generateDrizzleJson(pgSchema) as unknown as Json

if (first === '--sql') {
  const saved = (engine: string, now: Json) => ({ ...JSON.parse(readFileSync(`${prefix}-${engine}.json`, 'utf8')), id: 'saved', prevId: now.prevId })
  const show = (engine: string, statements: string[]) =>
    console.log(`-- ${engine}\n${statements.length ? statements.join('\n--> statement-breakpoint\n') : '-- (no change)'}\n`)
  show('drizzle/ (SQLite)', await generateSQLiteMigration(saved('sqlite', lite) as never, lite as never))
  show('drizzle-pg/ (Postgres)', await generateMigration(saved('pg', pg) as never, pg as never))
} else {
  const withoutIds = ({ id: _id, prevId: _prev, ...rest }: Json) => rest
  const dump = (file: string, json: Json) => writeFileSync(file, JSON.stringify(withoutIds(json), null, 2) + '\n')
  const runtime = (schema: Json) => Object.fromEntries(Object.entries(schema).filter(([, t]) => isTable(t))
    .map(([key, t]) => [key, [getTableName(t as Table), Object.entries(getTableColumns(t as Table))
      .map(([k, c]) => [k, c.name, c.columnType, c.enumValues ?? null])]]))
  dump(`${prefix}-sqlite.json`, lite)
  dump(`${prefix}-pg.json`, pg)
  dump(`${prefix}-runtime.json`, { sqlite: runtime(sqliteSchema), pg: runtime(pgSchema) })
  console.log(`wrote ${prefix}-{sqlite,pg,runtime}.json`)
}
