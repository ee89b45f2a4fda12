// Builds the settings store on the database's rows and loads its cache before it is handed out.
import type { AnyDatabase } from '../db/engine'
import { storeDb } from '../db/store-db'
import type { SecretBox } from '../lib/crypto'
import { SettingsRows } from './backend'
import { SettingsStore } from './store'

export async function createSettingsStore(db: AnyDatabase, box: SecretBox): Promise<SettingsStore> {
  const store = new SettingsStore(new SettingsRows(storeDb(db)), box)
  await store.reload()
  return store
}
