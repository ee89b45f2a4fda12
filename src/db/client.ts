// Opens the embedded SQLite database: bun:sqlite under Bun, better-sqlite3 when imported under Node.
import { chmodSync, closeSync, existsSync, openSync } from 'node:fs'
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core'
import * as schema from './schema'

export type Db = BaseSQLiteDatabase<'sync', unknown, typeof schema>

export interface RawStatement {
  run(params?: Record<string, unknown>): { changes: number; lastInsertRowid: number | bigint }
  get(params?: Record<string, unknown>): unknown
  all(params?: Record<string, unknown>): unknown[]
}

/** A statement bound positionally from one array: the multi-row click INSERT binds 1,792 values at once. */
export interface PositionalStatement {
  run(values: readonly unknown[]): { changes: number; lastInsertRowid: number | bigint }
}

/**
 * The subset of the driver API that hot paths use directly (prepared once, bound by name).
 * Both drivers bind `$name` placeholders from `{ name }` objects. Never bind booleans or undefined:
 * better-sqlite3 rejects them.
 */
export interface RawDb {
  prepare(sql: string): RawStatement
  preparePositional(sql: string): PositionalStatement
  exec(sql: string): void
  transaction<T>(fn: () => T): () => T
  /**
   * Like transaction(), but each call runs BEGIN IMMEDIATE (the write lock is taken up front): the click
   * writer's batches. Wrapped once, called per batch.
   */
  immediate<A extends unknown[], T>(fn: (...args: A) => T): (...args: A) => T
  /**
   * Runs `fn` atomically, now: a transaction (BEGIN … COMMIT), or a savepoint when one is already open on
   * this connection. For hot paths: its statements are prepared once, where transaction() builds a new
   * wrapper per call and runs its SAVEPOINT statements from text (profiled on /postback, one savepoint
   * per postback: ~8 % of the time).
   */
  atomic<T>(fn: () => T): T
  close(): void
}

export interface Database {
  engine: 'sqlite'
  db: Db
  raw: RawDb
  path: string
  close(): void
}

const PRAGMAS = [
  'PRAGMA journal_mode = WAL',
  'PRAGMA synchronous = NORMAL',
  'PRAGMA foreign_keys = ON',
  'PRAGMA busy_timeout = 5000',
  'PRAGMA temp_store = MEMORY',
  'PRAGMA cache_size = -65536',
  // Checkpoint every ~40 MB of WAL instead of 4 MB: pages dirtied again and again are written back once
  // per checkpoint, not several times (measured on the click path: -37% commit cost per click).
  'PRAGMA wal_autocheckpoint = 10000',
]

/** The connection API atomicOver needs: bun:sqlite and better-sqlite3 both have it. */
interface TransactionalClient {
  readonly inTransaction: boolean
  prepare(sql: string): { run(): unknown }
}

/** RawDb.atomic over either driver. A failed COMMIT rolls back, as the drivers' own transaction() does. */
function atomicOver(client: TransactionalClient): RawDb['atomic'] {
  let statements: Record<'begin' | 'commit' | 'rollback' | 'save' | 'release' | 'undo', { run(): unknown }> | null = null
  const st = () => (statements ??= {
    begin: client.prepare('BEGIN'),
    commit: client.prepare('COMMIT'),
    rollback: client.prepare('ROLLBACK'),
    // Nested savepoints may share a name: RELEASE and ROLLBACK TO act on the innermost one.
    save: client.prepare('SAVEPOINT svc_atomic'),
    release: client.prepare('RELEASE svc_atomic'),
    undo: client.prepare('ROLLBACK TO svc_atomic'),
  })
  return <T>(fn: () => T): T => {
    const s = st()
    if (client.inTransaction) {
      s.save.run()
      try {
        const result = fn()
        s.release.run()
        return result
      } catch (err) {
        // Some errors (a full disk, I/O) make SQLite roll the whole transaction back itself: then there
        // is no savepoint left to undo, and the caller's transaction fails with this error.
        if (client.inTransaction) {
          s.undo.run()
          s.release.run()
        }
        throw err
      }
    }
    s.begin.run()
    try {
      const result = fn()
      s.commit.run()
      return result
    } catch (err) {
      if (client.inTransaction) s.rollback.run()
      throw err
    }
  }
}

/** RawDb over a bun:sqlite connection opened with `strict: true` (names bind without their `$`). */
export function wrapBunDatabase(client: import('bun:sqlite').Database): RawDb {
  return {
    prepare: (sql) => {
      const st = client.prepare(sql)
      return {
        run: (p) => st.run((p ?? {}) as never) as never,
        get: (p) => st.get((p ?? {}) as never) ?? undefined,
        all: (p) => st.all((p ?? {}) as never),
      }
    },
    preparePositional: (sql) => {
      const st = client.prepare(sql)
      return { run: (values) => st.run(values as never) as never }
    },
    exec: (sql) => client.exec(sql),
    transaction: (fn) => client.transaction(fn) as never,
    immediate: (fn) => {
      const tx = client.transaction(fn)
      return (...args) => tx.immediate(...args)
    },
    atomic: atomicOver(client as unknown as TransactionalClient),
    close: () => client.close(),
  }
}

/** RawDb over a better-sqlite3 connection (Node; named parameters bind from `{ name }` as well). */
function wrapBetterSqlite(client: any): RawDb {
  return {
    prepare: (sql) => {
      const st = client.prepare(sql)
      return {
        run: (p) => (st.reader ? { changes: 0, lastInsertRowid: 0 } : st.run(p ?? {})),
        get: (p) => st.get(p ?? {}),
        all: (p) => st.all(p ?? {}),
      }
    },
    preparePositional: (sql) => {
      const st = client.prepare(sql)
      return { run: (values) => st.run(values) }
    },
    exec: (sql) => client.exec(sql),
    transaction: (fn) => client.transaction(fn),
    immediate: (fn) => {
      const tx = client.transaction(fn)
      return (...args) => tx.immediate(...args)
    },
    atomic: atomicOver(client),
    close: () => client.close(),
  }
}

/** Opens another connection to an existing database file; set by openDatabase for the driver it loaded. */
let connect: ((path: string) => RawDb) | null = null

/**
 * A second connection to the database that openDatabase opened (same driver): the click writer keeps one
 * of its own, with its own checkpoint policy, so its pragmas never touch the shared connection.
 */
export function openConnection(path: string): RawDb {
  if (!connect) throw new Error('openConnection: open the database with openDatabase first')
  return connect(path)
}

/**
 * The database holds visitors' IPs and the users' password hashes: owner-only (0600). svc creates the
 * file itself before SQLite opens it, because SQLite creates its -wal and -shm with the mode of the
 * database file. A database left 0644 by an older version (and its -wal, -shm) is tightened here.
 */
function makePrivate(path: string): void {
  if (path === ':memory:' || path === '') return
  closeSync(openSync(path, 'a', 0o600))
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      if (existsSync(file)) chmodSync(file, 0o600)
    } catch (err) {
      // Owned by another user: SQLite's own open tells whether svc may use it at all.
      if ((err as NodeJS.ErrnoException).code !== 'EPERM') throw err
    }
  }
}

export async function openDatabase(path: string): Promise<Database> {
  makePrivate(path)
  if (typeof Bun !== 'undefined') {
    const { Database: BunDatabase } = await import('bun:sqlite')
    const { drizzle } = await import('drizzle-orm/bun-sqlite')
    const client = new BunDatabase(path, { create: true, strict: true })
    for (const p of PRAGMAS) client.run(p)
    connect = (file) => wrapBunDatabase(new BunDatabase(file, { create: false, readwrite: true, strict: true }))
    const db = drizzle(client, { schema }) as unknown as Db
    return { engine: 'sqlite', db, raw: wrapBunDatabase(client), path, close: () => client.close() }
  }
  // Non-literal specifiers keep the bundler from pulling better-sqlite3 (a Node addon) into the Bun binary.
  const pkg = 'better-sqlite3'
  const driver = 'drizzle-orm/better-sqlite3'
  const { default: BetterSqlite } = await import(pkg)
  const { drizzle } = await import(driver)
  const client = new BetterSqlite(path)
  for (const p of PRAGMAS) client.exec(p)
  connect = (file) => wrapBetterSqlite(new BetterSqlite(file, { fileMustExist: true }))
  const db = drizzle(client, { schema }) as unknown as Db
  return { engine: 'sqlite', db, raw: wrapBetterSqlite(client), path, close: () => client.close() }
}
