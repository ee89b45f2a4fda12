// Settings rows on PostgreSQL. Several instances share them: each keeps its own SettingsStore cache, and
// integration calls reload() when another instance announces settings.changed.
import type { SQL } from 'bun'
import type { PgDatabase } from '../db/pg/client'
import type { AsyncSettingsBackend, SettingWrite, StoredSetting } from './backend'

export class PgSettingsBackend implements AsyncSettingsBackend {
  readonly sync = false
  private readonly sql: SQL

  constructor(db: PgDatabase) {
    this.sql = db.sql
  }

  async loadAll(): Promise<StoredSetting[]> {
    // No int8 columns are read (encrypted is an integer), so rows come back as they do on SQLite.
    return [...(await this.sql`SELECT key, value, encrypted FROM settings`)] as StoredSetting[]
  }

  async write(writes: SettingWrite[], now: number): Promise<void> {
    await this.sql.begin(async (tx) => {
      for (const w of writes) {
        if (w.value === null) await tx`DELETE FROM settings WHERE key = ${w.key}`
        else {
          await tx`INSERT INTO settings (key, value, encrypted, updated_at) VALUES (${w.key}, ${w.value}, ${w.encrypted}, ${now})
            ON CONFLICT (key) DO UPDATE SET value = excluded.value, encrypted = excluded.encrypted, updated_at = excluded.updated_at`
        }
      }
    })
  }
}
