// Where settings rows live: the SQL half of SettingsStore, one module for both engines (db/store-db.ts).
// Backends store strings; encryption, parsing and the cache stay in SettingsStore.
import { sql } from '../db/sql'
import type { StoreDb } from '../db/store-db'

/** A settings row as stored: the JSON text of the value, encrypted when `encrypted` is 1. */
export interface StoredSetting {
  key: string
  value: string
  encrypted: number
}

/** One key's new stored form; a null value deletes the row (the key reads its default again). */
export interface SettingWrite {
  key: string
  value: string | null
  encrypted: 0 | 1
}

export interface SettingsBackend {
  loadAll(): Promise<StoredSetting[]>
  /** Every write in one transaction: all or nothing. */
  write(writes: SettingWrite[], now: number): Promise<void>
}

/** The settings table on either engine (no int8 column is read: `encrypted` is an integer on both). */
export class SettingsRows implements SettingsBackend {
  constructor(private readonly db: StoreDb) {}

  loadAll(): Promise<StoredSetting[]> {
    return this.db.all<StoredSetting>(sql`SELECT key, value, encrypted FROM settings`)
  }

  async write(writes: SettingWrite[], now: number): Promise<void> {
    await this.db.atomically(function* (q) {
      for (const w of writes) {
        if (w.value === null) yield q.run(sql`DELETE FROM settings WHERE key = ${w.key}`)
        else {
          yield q.run(sql`INSERT INTO settings (key, value, encrypted, updated_at) VALUES (${w.key}, ${w.value}, ${w.encrypted}, ${now})
            ON CONFLICT (key) DO UPDATE SET value = excluded.value, encrypted = excluded.encrypted, updated_at = excluded.updated_at`)
        }
      }
    })
  }
}
