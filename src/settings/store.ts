import { invalid } from '../lib/errors'
import type { SecretBox } from '../lib/crypto'
import { SETTINGS, isSettingKey, type SettingKey, type SettingValue } from './registry'
import { log } from '../lib/log'
import type { SettingsBackend, SettingWrite, StoredSetting } from './backend'

/** What a masked secret reads as; writing it back leaves the stored secret unchanged. */
export const MASK = '********'

/**
 * Settings with an in-memory cache (hot paths such as /postback read them on every request, so get() is
 * synchronous). The SQL is a SettingsBackend (backend.ts, one for both engines); build one with
 * createSettingsStore (create-store.ts), which loads the cache first. Writes change the cache only once the
 * database write succeeded, before their Promise resolves. Writes announce nothing themselves:
 * the settings verbs emit `settings.changed` (src/settings/verbs.ts, src/postback/alias-verbs.ts), and
 * with several instances on one database, integration calls reload() when another one announces it.
 * Rows whose key is not in the registry (e.g. postback_aliases) are reached with getJson/setJson.
 */
export class SettingsStore {
  private cache = new Map<string, unknown>()
  /**
   * Reloads and writes run one at a time, so the cache ends up as the database was last seen by this
   * instance (a reload that read before a write committed cannot overwrite that write).
   */
  private queue: Promise<unknown> = Promise.resolve()

  /** Starts empty (defaults) until reload(); createSettingsStore awaits it. */
  constructor(private readonly backend: SettingsBackend, private readonly box: SecretBox) {}

  /** Re-reads every row (start-up; another instance changed settings). */
  reload(): Promise<void> {
    return this.serial(async () => { this.cache = this.decode(await this.backend.loadAll()) })
  }

  get<K extends SettingKey>(key: K): SettingValue<K> {
    return (this.cache.has(key) ? this.cache.get(key) : SETTINGS[key].default) as SettingValue<K>
  }

  getJson<T>(key: string): T | undefined {
    return this.cache.get(key) as T | undefined
  }

  /** null or undefined deletes the key. */
  async setJson(key: string, value: unknown): Promise<void> {
    await this.commit([[key, value, false]])
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
    const parsed: Array<[SettingKey, unknown, boolean]> = []
    for (const [key, value] of Object.entries(partial)) {
      if (!isSettingKey(key)) throw invalid(`${key.slice(0, 100)}: unknown setting`)
      const def = SETTINGS[key]
      if (def.secret && value === MASK) continue
      parsed.push([key, def.parse(value as never, key), def.secret])
    }
    await this.commit(parsed)
  }

  /** Writes [key, value, secret] entries in one transaction, then (only then) updates the cache. */
  private commit(entries: Array<[string, unknown, boolean]>): Promise<void> {
    if (entries.length === 0) return Promise.resolve()
    const writes: SettingWrite[] = entries.map(([key, value, secret]) => {
      if (value === null || value === undefined) return { key, value: null, encrypted: 0 }
      const json = JSON.stringify(value)
      return { key, value: secret ? this.box.encrypt(json) : json, encrypted: secret ? 1 : 0 }
    })
    const apply = () => {
      for (const [key, value] of entries) {
        if (value === null || value === undefined) this.cache.delete(key)
        else this.cache.set(key, value)
      }
    }
    return this.serial(async () => {
      await this.backend.write(writes, Date.now())
      apply()
    })
  }

  private serial(step: () => Promise<void>): Promise<void> {
    const run = this.queue.then(step, step)
    this.queue = run.catch(() => {})
    return run
  }

  private decode(rows: StoredSetting[]): Map<string, unknown> {
    const next = new Map<string, unknown>()
    for (const row of rows) {
      try {
        const text = row.encrypted ? this.box.decrypt(row.value) : row.value
        next.set(row.key, JSON.parse(text))
      } catch {
        // A secret encrypted under another SVC_SECRET cannot be read; treat it as unset and say so once.
        log.error('settings: cannot read a stored value (was SVC_SECRET changed?); treating it as unset', { key: row.key })
      }
    }
    return next
  }
}
