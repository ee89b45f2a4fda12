import type { AnyDatabase } from '../../db/engine'
import { PgCommerceStore } from './pg'
import { SqliteCommerceStore } from './sqlite'
import type { CommerceStore } from './types'

/** The commerce store (webhook events, orders) of the engine in use. */
export function commerceStore(database: AnyDatabase): CommerceStore {
  return database.engine === 'postgres' ? new PgCommerceStore(database) : new SqliteCommerceStore(database)
}
