// Picks the users store of the engine (src/server.ts calls this once per context).
import type { AnyDatabase } from '../db/engine'
import { PgUserStore } from './pg-store'
import { SqliteUserStore, type UserStore } from './store'

export function createUserStore(db: AnyDatabase): UserStore {
  return db.engine === 'postgres' ? new PgUserStore(db) : new SqliteUserStore(db.raw)
}
