import type { AnyDatabase } from '../../db/engine'
import { PgOutboxStore } from './outbox-pg'
import { SqliteOutboxStore } from './outbox-sqlite'
import type { OutboxStore } from './outbox-types'
import { PgEmailStore } from './pg'
import { SqliteEmailStore } from './sqlite'
import type { EmailStore } from './types'

/** The email store of the engine in use. */
export function emailStore(database: AnyDatabase): EmailStore {
  return database.engine === 'postgres' ? new PgEmailStore(database) : new SqliteEmailStore(database)
}

/** The outbox store of the engine in use. */
export function outboxStore(database: AnyDatabase): OutboxStore {
  return database.engine === 'postgres' ? new PgOutboxStore(database) : new SqliteOutboxStore(database)
}
