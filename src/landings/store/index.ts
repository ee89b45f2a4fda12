import type { AnyDatabase } from '../../db/engine'
import { PgLeadStore, PgVisitorEventStore } from './pg'
import { SqliteLeadStore, SqliteVisitorEventStore } from './sqlite'
import type { LeadStore, VisitorEventStore } from './types'

/** The lead store of the engine in use. */
export function leadStore(database: AnyDatabase): LeadStore {
  return database.engine === 'postgres' ? new PgLeadStore(database) : new SqliteLeadStore(database)
}

/** The visitor event store (page views, custom events) of the engine in use. */
export function visitorEventStore(database: AnyDatabase): VisitorEventStore {
  return database.engine === 'postgres' ? new PgVisitorEventStore(database) : new SqliteVisitorEventStore(database)
}
