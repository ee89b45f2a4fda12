// The two storage engines behind one type. Features pick their store implementation by `engine`:
//   sqlite   (default) one file, one process; stores share one connection, hot paths are synchronous.
//   postgres (SVC_DATABASE_URL) any number of instances on one database; every store call is async.
import type { TransactionSQL } from 'bun'
import type { Database } from './client'
import type { PgDatabase } from './pg/client'

export type { Database as SqliteDatabase } from './client'
export type { PgDatabase } from './pg/client'

export type AnyDatabase = Database | PgDatabase

/**
 * The transaction an in-transaction event subscriber writes through: a Postgres transaction (or
 * savepoint) handle, or null on SQLite, where the one shared connection is already inside the
 * emitter's transaction.
 */
export type Tx = TransactionSQL | null
