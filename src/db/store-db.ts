// StoreDb: what an admin store runs its queries on, whichever the engine (the dialect: sql.ts). Outside a
// transaction every call returns a Promise. Inside atomically() the body is a step generator
// (lib/steps.ts): on SQLite it runs synchronously inside one transaction on the shared connection, so no
// other request's statement can slip in between a check and its write (an `await` there would let them in);
// on Postgres each step is awaited on the transaction's own connection.
import type { SQL, TransactionSQL } from 'bun'
import type { AnyDatabase, Tx } from './engine'
import type { RawDb, RawStatement } from './client'
import { empty, raw, renderPg, renderSqlite, sql, type Sql } from './sql'
import { runAsync, runSync, type MaybeAsync, type Steps } from '../lib/steps'
import { int8ToNumbers } from './pg/client'

/**
 * Rows read the same on both engines: on Postgres every int8 column of a result (bigint ids, epoch-ms times, and
 * computed ones: count(*), sum() of integers) is read as a number, found by the type the server gives each result
 * column (pg/client.ts int8ToNumbers), so stores list nothing. A numeric result (sum() of an int8 column, avg())
 * is not int8: name it here, or CAST it in SQL.
 */
export type NumericColumns = readonly string[]

/** Queries bound to a connection or a transaction: plain values on SQLite, Promises on Postgres. */
export interface Queries {
  all<T>(q: Sql, numeric?: NumericColumns): MaybeAsync<T[]>
  get<T>(q: Sql, numeric?: NumericColumns): MaybeAsync<T | undefined>
  /** Returns the number of rows changed. */
  run(q: Sql): MaybeAsync<number>
  /**
   * The Postgres transaction these queries run in, for work that must commit with them through another
   * module's own queries (the job queue's enqueue); null on SQLite (the shared connection) and outside atomically().
   */
  readonly tx: Tx
}

export interface StoreDb {
  readonly engine: 'sqlite' | 'postgres'
  all<T>(q: Sql, numeric?: NumericColumns): Promise<T[]>
  get<T>(q: Sql, numeric?: NumericColumns): Promise<T | undefined>
  run(q: Sql): Promise<number>
  /** Runs the body in one transaction (a savepoint when one is open on SQLite); a throw rolls it all back. */
  atomically<R>(body: (q: Queries) => Steps<R>): Promise<R>
  /**
   * Makes the writers of `table` queue behind this transaction until it ends (readers go on): Postgres takes
   * SHARE ROW EXCLUSIVE; SQLite has one writer already, so nothing. For check-then-write rules (the last owner).
   */
  lockTable(q: Queries, table: string): MaybeAsync<number>
  /**
   * Ends a `SELECT … LIMIT n` that picks rows to delete in batches: `FOR UPDATE SKIP LOCKED` on Postgres, so two
   * instances pruning at once take different rows; nothing on SQLite, whose writer is alone.
   */
  readonly skipLocked: Sql
  /** Ends a SELECT inside atomically() whose rows the write depends on: `FOR UPDATE` / `FOR SHARE` on Postgres, nothing on SQLite. */
  readonly forUpdate: Sql
  readonly forShare: Sql
  /** `FOR NO KEY UPDATE` on Postgres: writers of the row take turns, rows that only reference it (FOR KEY SHARE) go on; nothing on SQLite. */
  readonly forNoKeyUpdate: Sql
  /**
   * Read-only steps seen as one snapshot: synchronously on SQLite (the one connection runs them back to back,
   * so a hot read such as the routing table stays free of awaits), in a REPEATABLE READ READ ONLY transaction on Postgres.
   */
  snapshot<R>(body: (q: Queries) => Steps<R>): MaybeAsync<R>
  /**
   * Queries inside a transaction another module opened (the conversion recorder's `tx`): its Postgres handle, or
   * null on SQLite, where the shared connection is already inside it (synchronous, statements cached). Postgres
   * refuses null: a query outside the caller's transaction would not commit with it.
   */
  in(tx: Tx): Queries
  /**
   * An async body over one consistent view (the reports' several reads): its queries as they come on SQLite
   * (their results are plain values), a REPEATABLE READ READ ONLY transaction on Postgres.
   */
  readSnapshot<R>(body: (q: Queries) => Promise<R>): Promise<R>
  /** Ends an `ORDER BY` of a text column: byte order on both (SQLite's BINARY; `COLLATE "C"` on Postgres, whatever the locale). */
  readonly byteOrder: Sql
  /**
   * `column IN (the integers)` as one bound value, so the text stays the same whatever the count:
   * `IN (SELECT value FROM json_each(…))` on SQLite, `= ANY(CAST(… AS int8[]))` on Postgres (an index condition).
   */
  inInts(column: Sql, values: readonly number[]): Sql
}

function safeInts(values: readonly number[]): readonly number[] {
  for (const v of values) if (!Number.isSafeInteger(v)) throw new Error(`inInts: not an integer: ${v}`)
  return values
}

/** SQLite: statements prepared once per text (a store has a few dozen), run synchronously. */
class SqliteQueries implements Queries {
  readonly tx = null
  private readonly statements = new Map<string, RawStatement>()
  constructor(private readonly raw: RawDb) {}

  private prepared(q: Sql): { st: RawStatement; params: Record<string, unknown> } {
    const { text, params } = renderSqlite(q)
    let st = this.statements.get(text)
    if (!st) {
      // Texts are the stores' own (values are bound), so the set is small; the cap only guards a mistake.
      if (this.statements.size >= 1000) this.statements.clear()
      this.statements.set(text, (st = this.raw.prepare(text)))
    }
    return { st, params }
  }

  all<T>(q: Sql): T[] {
    const { st, params } = this.prepared(q)
    return st.all(params) as T[]
  }

  get<T>(q: Sql): T | undefined {
    const { st, params } = this.prepared(q)
    return (st.get(params) as T | undefined) ?? undefined
  }

  run(q: Sql): number {
    const { st, params } = this.prepared(q)
    return st.run(params).changes
  }
}

class PgQueries implements Queries {
  constructor(private readonly conn: SQL | TransactionSQL, readonly tx: Tx = null) {}

  async all<T>(q: Sql, numeric?: NumericColumns): Promise<T[]> {
    const { text, values } = renderPg(q)
    return [...int8ToNumbers(await this.conn.unsafe(text, values), numeric)] as T[]
  }

  async get<T>(q: Sql, numeric?: NumericColumns): Promise<T | undefined> {
    const { text, values } = renderPg(q)
    return int8ToNumbers(await this.conn.unsafe(text, values), numeric)[0] as T | undefined
  }

  async run(q: Sql): Promise<number> {
    const { text, values } = renderPg(q)
    const result = (await this.conn.unsafe(text, values)) as { count?: number | null }
    return result.count ?? 0
  }
}

class SqliteStoreDb implements StoreDb {
  readonly engine = 'sqlite' as const
  readonly skipLocked = empty
  readonly forUpdate = empty
  readonly forShare = empty
  readonly forNoKeyUpdate = empty
  readonly byteOrder = empty
  private readonly q: SqliteQueries

  constructor(private readonly raw: RawDb) {
    this.q = new SqliteQueries(raw)
  }

  all<T>(q: Sql): Promise<T[]> {
    return attempt(() => this.q.all<T>(q))
  }

  get<T>(q: Sql): Promise<T | undefined> {
    return attempt(() => this.q.get<T>(q))
  }

  run(q: Sql): Promise<number> {
    return attempt(() => this.q.run(q))
  }

  atomically<R>(body: (q: Queries) => Steps<R>): Promise<R> {
    return attempt(() => this.raw.atomic(() => runSync(body(this.q))))
  }

  lockTable(): number {
    return 0
  }

  snapshot<R>(body: (q: Queries) => Steps<R>): R {
    return runSync(body(this.q))
  }

  in(): Queries {
    return this.q
  }

  readSnapshot<R>(body: (q: Queries) => Promise<R>): Promise<R> {
    return body(this.q)
  }

  inInts(column: Sql, values: readonly number[]): Sql {
    return sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(safeInts(values))}))`
  }
}

class PgStoreDb implements StoreDb {
  readonly engine = 'postgres' as const
  readonly skipLocked = raw('FOR UPDATE SKIP LOCKED')
  readonly forUpdate = raw('FOR UPDATE')
  readonly forShare = raw('FOR SHARE')
  readonly forNoKeyUpdate = raw('FOR NO KEY UPDATE')
  readonly byteOrder = raw('COLLATE "C"')
  private readonly q: PgQueries

  constructor(private readonly conn: SQL) {
    this.q = new PgQueries(conn)
  }

  all<T>(q: Sql, numeric?: NumericColumns): Promise<T[]> {
    return this.q.all<T>(q, numeric)
  }

  get<T>(q: Sql, numeric?: NumericColumns): Promise<T | undefined> {
    return this.q.get<T>(q, numeric)
  }

  run(q: Sql): Promise<number> {
    return this.q.run(q)
  }

  atomically<R>(body: (q: Queries) => Steps<R>): Promise<R> {
    return this.conn.begin((tx) => runAsync(body(new PgQueries(tx, tx)))) as Promise<R>
  }

  lockTable(q: Queries, table: string): MaybeAsync<number> {
    if (!/^[a-z_]+$/.test(table)) throw new Error(`lockTable: not a table name: ${table}`)
    return q.run(sql([`LOCK TABLE ${table} IN SHARE ROW EXCLUSIVE MODE`]))
  }

  snapshot<R>(body: (q: Queries) => Steps<R>): Promise<R> {
    return this.conn.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', (tx) => runAsync(body(new PgQueries(tx, tx)))) as Promise<R>
  }

  in(tx: Tx): Queries {
    if (!tx) throw new Error('StoreDb.in: Postgres queries need the transaction handle they belong to')
    return new PgQueries(tx, tx)
  }

  readSnapshot<R>(body: (q: Queries) => Promise<R>): Promise<R> {
    return this.conn.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', (tx) => body(new PgQueries(tx, tx))) as Promise<R>
  }

  inInts(column: Sql, values: readonly number[]): Sql {
    // Bound as the text of an array ('{1,2}') and cast in SQL: one parameter of a known type.
    return sql`${column} = ANY(CAST(CAST(${`{${safeInts(values).join(',')}}`} AS text) AS int8[]))`
  }
}

/** A synchronous call as a Promise: its throw becomes a rejection, as on Postgres. */
function attempt<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn())
  } catch (err) {
    return Promise.reject(err)
  }
}

/** The StoreDb of an opened database. One per database: it holds the SQLite statement cache. */
export function storeDb(database: AnyDatabase): StoreDb {
  return database.engine === 'postgres' ? new PgStoreDb(database.sql) : new SqliteStoreDb(database.raw)
}
