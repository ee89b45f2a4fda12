// Picks the click store for the engine: SQLite (one process, synchronous lookups, click index) or
// Postgres (any number of instances on one database, async lookups through the click_id index).
import type { AnyDatabase } from '../../db/engine'
import type { EventBus } from '../../lib/event-bus'
import { SqliteClickStore } from './click-store'
import { PgClickStore } from './pg'
import type { ClickStore } from './types'

export function createClickStore(db: AnyDatabase, events: EventBus): ClickStore {
  return db.engine === 'postgres' ? new PgClickStore(db, events) : new SqliteClickStore(db.raw, db.path, events)
}
