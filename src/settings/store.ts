import type { RawDb, RawStatement } from '../db/client'
import { invalid } from '../lib/errors'
import type { SecretBox } from '../lib/crypto'
import { SETTINGS, isSettingKey, type SettingKey, type SettingValue } from './registry'
import { log } from '../lib/log'

/** What a masked secret reads as; writing it back leaves the stored secret unchanged. */
export const MASK = '********'

/**
 * Settings with an in-memory cache (hot paths such as /postback read them on every request, so reads are
 * synchronous). Writes return Promises so a network database can stand behind them; with SQLite they
 * complete, cache included, before the call returns. Writes announce nothing themselves: the settings
 * verbs emit `settings.changed` (src/settings/verbs.ts, src/postback/alias-verbs.ts).
 * Rows whose key is not in the registry (e.g. postback_aliases) are reached with getJson/setJson.
 */
export class SettingsStore {
  private cache = new Map<string, unknown>()
  private readonly selectAll: RawStatement
  private readonly upsert: RawStatement
  private readonly remove: RawStatement

  constructor(private readonly raw: RawDb, private readonly box: SecretBox) {
    this.selectAll = raw.prepare('SELECT key, value, encrypted FROM settings')
    this.upsert = raw.prepare(
      'INSERT INTO settings (key, value, encrypted, updated_at) VALUES ($key, $value, $encrypted, $now) ' +
        'ON CONFLICT(key) DO UPDATE SET value = excluded.value, encrypted = excluded.encrypted, updated_at = excluded.updated_at',
    )
    this.remove = raw.prepare('DELETE FROM settings WHERE key = $key')
    this.reload()
  }

  reload(): void {
    const next = new Map<string, unknown>()
    for (const row of this.selectAll.all() as Array<{ key: string; value: string; encrypted: number }>) {
      try {
        const text = row.encrypted ? this.box.decrypt(row.value) : row.value
        next.set(row.key, JSON.parse(text))
      } catch {
        // A secret encrypted under another SVC_SECRET cannot be read; treat it as unset and say so once.
        log.error('settings: cannot read a stored value (was SVC_SECRET changed?); treating it as unset', { key: row.key })
      }
    }
    this.cache = next
  }

  get<K extends SettingKey>(key: K): SettingValue<K> {
    return (this.cache.has(key) ? this.cache.get(key) : SETTINGS[key].default) as SettingValue<K>
  }

  getJson<T>(key: string): T | undefined {
    return this.cache.get(key) as T | undefined
  }

  async setJson(key: string, value: unknown): Promise<void> {
    this.write(key, value, false)
  }

  /** Every known key; secrets masked (MASK when set, null when not). */
  masked(): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(SETTINGS) as SettingKey[]) {
      const v = this.get(key)
      out[key] = SETTINGS[key].secret ? (v ? MASK : null) : v
    }
    return out
  }

  /** Validates the whole partial object first, then writes it in one transaction. */
  async update(partial: Record<string, unknown>): Promise<void> {
    const parsed: Array<[SettingKey, unknown]> = []
    for (const [key, value] of Object.entries(partial)) {
      if (!isSettingKey(key)) throw invalid(`${key.slice(0, 100)}: unknown setting`)
      const def = SETTINGS[key]
      if (def.secret && value === MASK) continue
      parsed.push([key, def.parse(value as never, key)])
    }
    this.raw.transaction(() => {
      for (const [key, value] of parsed) this.write(key, value, SETTINGS[key].secret)
    })()
  }

  private write(key: string, value: unknown, secret: boolean) {
    if (value === null || value === undefined) {
      this.remove.run({ key })
      this.cache.delete(key)
      return
    }
    const json = JSON.stringify(value)
    this.upsert.run({ key, value: secret ? this.box.encrypt(json) : json, encrypted: secret ? 1 : 0, now: Date.now() })
    this.cache.set(key, value)
  }
}
