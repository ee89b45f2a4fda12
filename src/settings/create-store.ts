// Picks the settings backend of the engine and loads the cache before the store is handed out.
import type { AnyDatabase } from '../db/engine'
import type { SecretBox } from '../lib/crypto'
import { SqliteSettingsBackend } from './backend'
import { PgSettingsBackend } from './pg-store'
import { SettingsStore } from './store'

export async function createSettingsStore(db: AnyDatabase, box: SecretBox): Promise<SettingsStore> {
  const backend = db.engine === 'postgres' ? new PgSettingsBackend(db) : new SqliteSettingsBackend(db.raw)
  const store = new SettingsStore(backend, box)
  if (!backend.sync) await store.reload() // a SQLite store is filled by its constructor
  return store
}
