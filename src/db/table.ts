// One definition per table for both engines (issue 27). A table is written once with the SQLite kit (its
// types are what the stores use: `typeof campaigns.$inferSelect`); toPg() builds its Postgres twin from that
// definition at run time, by these rules:
//   integer → integer (int4), or bigint in number mode (int8) where the definition says int8()/ms()/bigId();
//   integer {mode: 'boolean'} → integer (flags stay 0/1 on Postgres, so rows read back alike), default true → 1;
//   real → double precision; text (and its enum) → text; blob → bytea;
//   autoincrement primary key → identity BY DEFAULT (not ALWAYS: `svc migrate --to` copies rows with their ids);
//   not null, defaults, .unique(), inline foreign keys, indexes (and their WHERE), composite primary keys: as written.
// What one engine has and the other has not is said per table with the options (sqliteOnly, pg.columns, pg.indexes),
// next to the reason. test/db/schema-matches.test.ts checks both against their migrated databases.
import { is, SQL, getTableColumns, Column } from 'drizzle-orm'
import {
  sqliteTable, integer, getTableConfig, SQLiteTable,
  type SQLiteColumn, type SQLiteColumnBuilderBase, type SQLiteTableExtraConfigValue, type SQLiteTableWithColumns,
} from 'drizzle-orm/sqlite-core'
import * as pg from 'drizzle-orm/pg-core'
import type { BuildColumns } from 'drizzle-orm'

/** What only Postgres has in a table. */
export interface PgOnly {
  /** Columns only Postgres has, placed after the column `after` (its key); `primaryKey`: they end the composite key too. */
  columns?: { after: string; add: Record<string, pg.PgColumnBuilderBase>; primaryKey?: boolean }
  /**
   * The Postgres primary key when it is not the SQLite one (column keys): a partitioned table's key must hold
   * its partition key (clicks: drizzle-pg/0033). The column keeps its identity-like default, without the key.
   */
  primaryKey?: string[]
  /** Indexes only Postgres has (built on the Postgres columns, by key). */
  indexes?: (t: Record<string, pg.PgColumn>) => pg.PgTableExtraConfigValue[]
}

export interface TableOptions {
  /** The table exists on SQLite only (toPg leaves it out). */
  sqliteOnly?: true
  pg?: PgOnly
}

const OPTIONS = new WeakMap<SQLiteTable, TableOptions>()
/** Column configs (shared by a builder and the column it builds) that are int8 on Postgres. */
const INT8 = new WeakSet<object>()
const configOf = (b: unknown): object => (b as { config: object }).config

/** sqliteTable, plus what Postgres needs beyond the shared rules. Same types as sqliteTable. */
export function table<TName extends string, TColumns extends Record<string, SQLiteColumnBuilderBase>>(
  name: TName,
  columns: TColumns,
  extras?: (self: BuildColumns<TName, TColumns, 'sqlite'>) => SQLiteTableExtraConfigValue[],
  options?: TableOptions,
): SQLiteTableWithColumns<{ name: TName; schema: undefined; columns: BuildColumns<TName, TColumns, 'sqlite'>; dialect: 'sqlite' }> {
  const t = sqliteTable(name, columns, extras)
  if (options) OPTIONS.set(t, options)
  return t
}

/** Marks an integer column int8 (bigint, number mode) on Postgres; returns the builder unchanged. */
function big<B extends SQLiteColumnBuilderBase>(builder: B): B {
  INT8.add(configOf(builder))
  return builder
}

/** An integer that is int8 on Postgres: a reference to a row of a bigint-keyed table (clicks, conversions, orders…). */
export const int8 = <N extends string>(name: N) => big(integer(name))
/** Epoch milliseconds (times, and the rollups' hour/day): int8 on Postgres. */
export const ms = <N extends string>(name: N) => big(integer(name))
/** The row id: int4 identity on Postgres. */
export const id = () => integer('id').primaryKey({ autoIncrement: true })
/** The row id of a table that grows with traffic (a row per click, postback, job…): int8 identity on Postgres. */
export const bigId = () => big(integer('id').primaryKey({ autoIncrement: true }))

/**
 * The columns of a table that are int8 on Postgres (SQL names): what the hot paths, which read whole rows
 * (`SELECT *`, `RETURNING *`) through Bun's SQL directly, convert with numCols. Computed once per module.
 */
export function int8Columns(t: SQLiteTable): string[] {
  return Object.values(getTableColumns(t)).filter((c) => INT8.has(configOf(c))).map((c) => c.name)
}

const bytea = pg.customType<{ data: Uint8Array }>({ dataType: () => 'bytea' })

/** What pgColumn() calls on a Postgres column builder, whatever its type (their generic types do not unify). */
interface Builder extends pg.PgColumnBuilderBase {
  primaryKey(): unknown
  generatedByDefaultAsIdentity(): unknown
  notNull(): unknown
  default(value: unknown): unknown
  unique(name?: string): unknown
  references(ref: () => pg.PgColumn, actions: { onDelete?: pg.UpdateDeleteAction; onUpdate?: pg.UpdateDeleteAction }): unknown
}

/** The Postgres type of one SQLite column, with its key, not-null, default and unique (foreign keys: toPg()). */
function pgColumn(c: SQLiteColumn, ownKey = true): Builder {
  const where = `${getTableConfig(c.table as SQLiteTable).name}.${c.name}`
  if (c.defaultFn || c.onUpdateFn || c.generated) throw new Error(`toPg: ${where}: $defaultFn/$onUpdate/generated columns are not mapped`)
  const b = ((): unknown => {
    switch (c.columnType) {
      case 'SQLiteInteger':
      case 'SQLiteBoolean':
        return INT8.has(configOf(c)) ? pg.bigint(c.name, { mode: 'number' }) : pg.integer(c.name)
      case 'SQLiteReal':
        return pg.doublePrecision(c.name)
      case 'SQLiteText':
        return c.enumValues ? pg.text(c.name, { enum: c.enumValues as [string, ...string[]] }) : pg.text(c.name)
      case 'SQLiteBlobBuffer':
        return bytea(c.name)
      default:
        throw new Error(`toPg: ${where}: no Postgres type for ${c.columnType}`)
    }
  })() as Builder
  if (c.primary) {
    if (ownKey) b.primaryKey()
    if ((c as { autoIncrement?: boolean }).autoIncrement) b.generatedByDefaultAsIdentity()
  }
  if (c.notNull) b.notNull()
  if (c.hasDefault && c.default !== undefined) b.default(typeof c.default === 'boolean' ? Number(c.default) : c.default)
  if (c.isUnique) b.unique(c.uniqueName)
  return b
}

/**
 * The Postgres twins of every table a schema module exports (sqliteOnly ones left out), under the same keys.
 * Foreign keys point at the twin of the table they point at on SQLite.
 */
export function toPg<S extends Record<string, unknown>>(schema: S): Record<keyof S, pg.PgTableWithColumns<any>> {
  const twins = new Map<SQLiteTable, pg.PgTableWithColumns<any>>()
  const keyOf = (c: SQLiteColumn): string => {
    const columns = getTableColumns(c.table)
    const key = Object.keys(columns).find((k) => columns[k] === c)
    if (!key) throw new Error(`toPg: column ${c.name} not found in its table`)
    return key
  }
  /** The Postgres column of a SQLite column (same table, same key), once its table is built. */
  const twin = (c: SQLiteColumn): pg.PgColumn => {
    const t = twins.get(c.table as SQLiteTable)
    if (!t) throw new Error(`toPg: no Postgres twin for ${c.name}`)
    return t[keyOf(c)] as pg.PgColumn
  }
  const out: Record<string, pg.PgTableWithColumns<any>> = {}
  for (const [key, lite] of Object.entries(schema)) {
    if (!is(lite, SQLiteTable)) continue
    const options = OPTIONS.get(lite) ?? {}
    if (options.sqliteOnly) continue
    const config = getTableConfig(lite)
    if (config.checks.length || config.uniqueConstraints.length) throw new Error(`toPg: ${config.name}: checks and unique constraints are not mapped`)
    const extra = options.pg?.columns
    const columns: Record<string, pg.PgColumnBuilderBase> = {}
    for (const [k, c] of Object.entries(getTableColumns(lite)) as [string, SQLiteColumn][]) {
      const b = pgColumn(c, !options.pg?.primaryKey)
      for (const fk of config.foreignKeys) {
        const ref = fk.reference()
        if (ref.columns.length !== 1) throw new Error(`toPg: ${config.name}: multi-column foreign keys are not mapped`)
        if (ref.columns[0] === c) b.references(() => twin(ref.foreignColumns[0]!), { onDelete: fk.onDelete, onUpdate: fk.onUpdate })
      }
      columns[k] = b
      if (extra?.after === k) Object.assign(columns, extra.add)
    }
    if (extra && !(extra.after in columns)) throw new Error(`toPg: ${config.name}: no column ${extra.after}`)
    // Indexes and keys are built on the callback's columns (drizzle passes index-aware copies), found by key.
    const table = pg.pgTable(config.name, columns, (t) => {
      const own = (c: unknown): pg.PgColumn => {
        if (!is(c, Column) || (c as SQLiteColumn).table !== lite) throw new Error(`toPg: ${config.name}: only its own columns are mapped in keys and indexes`)
        return t[keyOf(c as SQLiteColumn)] as pg.PgColumn
      }
      /** A WHERE (a partial index's) with its SQLite columns swapped for the Postgres ones. */
      const rewrite = (s: SQL): SQL => new SQL(s.queryChunks.map((ch) => (is(ch, SQL) ? rewrite(ch) : is(ch, Column) ? own(ch) : ch)))
      return [
        ...(options.pg?.primaryKey ? [pg.primaryKey({ columns: options.pg.primaryKey.map((k) => (t as Record<string, pg.PgColumn>)[k]!) as [pg.PgColumn, ...pg.PgColumn[]] })] : []),
        ...config.primaryKeys.map((p) => pg.primaryKey({
          name: p.name,
          columns: [...p.columns.map(own), ...(extra?.primaryKey ? Object.keys(extra.add).map((k) => t[k]!) : [])] as [pg.PgColumn, ...pg.PgColumn[]],
        })),
        ...config.indexes.map(({ config: i }) => {
          const built = (i.unique ? pg.uniqueIndex : pg.index)(i.name).on(...(i.columns.map(own) as [pg.PgColumn, ...pg.PgColumn[]]))
          return i.where ? built.where(rewrite(i.where)) : built
        }),
        ...(options.pg?.indexes?.(t as Record<string, pg.PgColumn>) ?? []),
      ]
    })
    twins.set(lite, table)
    out[key] = table
  }
  return out as Record<keyof S, pg.PgTableWithColumns<any>>
}
