// Where settings rows live: the SQL half of SettingsStore, one implementation per engine (this file: the
// boundary and SQLite; pg-store.ts: Postgres). Backends store strings; encryption, parsing and the cache
// stay in SettingsStore.
import type { RawDb, RawStatement } from '../db/client'

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

/** SQLite answers synchronously (so a SQLite store is filled in its constructor, and hot paths never wait). */
export interface SyncSettingsBackend {
  sync: true
  loadAll(): StoredSetting[]
  /** Every write in one transaction: all or nothing. */
  write(writes: SettingWrite[], now: number): void
}

/** A network database (Postgres): every call is async. */
export interface AsyncSettingsBackend {
  sync: false
  loadAll(): Promise<StoredSetting[]>
  /** Every write in one transaction: all or nothing. */
  write(writes: SettingWrite[], now: number): Promise<void>
}

export type SettingsBackend = SyncSettingsBackend | AsyncSettingsBackend

export class SqliteSettingsBackend implements SyncSettingsBackend {
  readonly sync = true
  private readonly selectAll: RawStatement
  private readonly upsert: RawStatement
  private readonly remove: RawStatement

  constructor(private readonly raw: RawDb) {
    this.selectAll = raw.prepare('SELECT key, value, encrypted FROM settings')
    this.upsert = raw.prepare(
      'INSERT INTO settings (key, value, encrypted, updated_at) VALUES ($key, $value, $encrypted, $now) ' +
        'ON CONFLICT(key) DO UPDATE SET value = excluded.value, encrypted = excluded.encrypted, updated_at = excluded.updated_at',
    )
    this.remove = raw.prepare('DELETE FROM settings WHERE key = $key')
  }

  loadAll(): StoredSetting[] {
    return this.selectAll.all() as StoredSetting[]
  }

  write(writes: SettingWrite[], now: number): void {
    this.raw.transaction(() => {
      for (const w of writes) {
        if (w.value === null) this.remove.run({ key: w.key })
        else this.upsert.run({ key: w.key, value: w.value, encrypted: w.encrypted, now })
      }
    })()
  }
}
