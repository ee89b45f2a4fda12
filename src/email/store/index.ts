import type { AnyDatabase } from '../../db/engine'
import { PgEmailStore } from './pg'
import { SqliteEmailStore } from './sqlite'
import type { EmailStore } from './types'

/** The email store of the engine in use. */
export function emailStore(database: AnyDatabase): EmailStore {
  return database.engine === 'postgres' ? new PgEmailStore(database) : new SqliteEmailStore(database)
}
