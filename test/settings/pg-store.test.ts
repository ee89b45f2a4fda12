// SettingsStore on both engines (issue 8): defaults, write and read back, secrets encrypted at rest and
// masked, all-or-nothing writes, the cache following only committed writes, and a second store (another
// instance) seeing a write after reload().
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createSettingsStore } from '../../src/settings/create-store'
import { MASK, SettingsStore } from '../../src/settings/store'
import { SecretBox } from '../../src/lib/crypto'
import { AppError } from '../../src/lib/errors'
import type { AnyDatabase } from '../../src/db/engine'
import { storeDb } from '../../src/db/store-db'
import { SettingsRows, type SettingsBackend } from '../../src/settings/backend'
import { ENGINES, openFresh, rawRow, type OpenedDb } from '../users/pg-engines'

setDefaultTimeout(20_000)

const box = new SecretBox('master-secret-for-settings-tests-0123456789')
const SECRET = 'a-postback-secret-of-some-length'

async function exec(db: AnyDatabase, text: string) {
  if (db.engine === 'postgres') await db.sql.unsafe(text)
  else db.raw.exec(text)
}

for (const engine of ENGINES) {
  describe.skipIf(engine.skip)(`SettingsStore on ${engine.name}`, () => {
    let opened: OpenedDb
    let settings: SettingsStore

    beforeAll(async () => {
      opened = await openFresh(engine.name)
      settings = await createSettingsStore(opened.db, box)
    })
    afterAll(async () => { await opened?.close() })

    test('a fresh database reads the registry defaults; secrets read null', () => {
      expect(settings.get('click_cookie_days')).toBe(30)
      expect(settings.get('postback_dedup')).toBe(false)
      expect(settings.get('cors_allowlist')).toEqual([])
      expect(settings.get('fallback_url')).toBeNull()
      const view = settings.masked()
      expect(view.postback_secret).toBeNull()
      expect(view.unique_window_hours).toBe(24)
    })

    test('update writes, reads back from the cache and from a store built afresh on the database', async () => {
      await settings.update({ click_cookie_days: 7, postback_dedup: true, cors_allowlist: ['https://shop.example/'], fallback_url: 'https://example.com/x' })
      expect(settings.get('click_cookie_days')).toBe(7)
      expect(settings.get('postback_dedup')).toBe(true)
      expect(settings.get('cors_allowlist')).toEqual(['https://shop.example']) // normalised by the registry
      const fresh = await createSettingsStore(opened.db, box)
      expect(fresh.masked()).toEqual(settings.masked())
      const row = await rawRow(opened.db, 'settings', { col: 'key', value: 'click_cookie_days' })
      expect(row.value).toBe('7')
      expect(Number(row.encrypted)).toBe(0)
      expect(Number(row.updated_at)).toBeGreaterThan(Date.now() - 60_000)
    })

    test('secrets are stored encrypted, read back in clear, masked in the view; MASK keeps, null clears', async () => {
      await settings.update({ postback_secret: SECRET })
      expect(settings.get('postback_secret')).toBe(SECRET)
      expect(settings.masked().postback_secret).toBe(MASK)
      const row = await rawRow(opened.db, 'settings', { col: 'key', value: 'postback_secret' })
      expect(Number(row.encrypted)).toBe(1)
      expect(row.value).not.toContain(SECRET)
      expect(JSON.parse(box.decrypt(row.value))).toBe(SECRET)
      expect((await createSettingsStore(opened.db, box)).get('postback_secret')).toBe(SECRET)
      // Another master secret cannot read it: treated as unset.
      expect((await createSettingsStore(opened.db, new SecretBox('another-master-secret-0123456789abc'))).get('postback_secret')).toBeNull()

      await settings.update({ postback_secret: MASK })
      expect(settings.get('postback_secret')).toBe(SECRET)
      await settings.update({ postback_secret: null })
      expect(settings.get('postback_secret')).toBeNull()
      expect(await rawRow(opened.db, 'settings', { col: 'key', value: 'postback_secret' })).toBeNull()
    })

    test('an invalid key or value writes nothing, not even the valid keys next to it', async () => {
      for (const bad of [{ click_cookie_days: 9, nope: 1 }, { click_cookie_days: 9, unique_window_hours: 0 }]) {
        const err = await settings.update(bad).then(() => null, (e) => e)
        expect(err).toBeInstanceOf(AppError)
        expect(err.code).toBe('invalid')
      }
      expect(settings.get('click_cookie_days')).toBe(7)
      expect((await createSettingsStore(opened.db, box)).get('click_cookie_days')).toBe(7)
    })

    test('getJson/setJson hold keys outside the registry; null deletes', async () => {
      await settings.setJson('postback_aliases', { amount: 'payout' })
      expect(settings.getJson('postback_aliases')).toEqual({ amount: 'payout' })
      expect((await createSettingsStore(opened.db, box)).getJson('postback_aliases')).toEqual({ amount: 'payout' })
      await settings.setJson('postback_aliases', null)
      expect(settings.getJson('postback_aliases')).toBeUndefined()
      expect(await rawRow(opened.db, 'settings', { col: 'key', value: 'postback_aliases' })).toBeNull()
    })

    test('a second store on the same database sees a write after reload()', async () => {
      const other = await createSettingsStore(await opened.another(), box)
      expect(other.get('click_cookie_days')).toBe(7)
      await settings.update({ click_cookie_days: 45, excluded_ips: ['198.51.100.0/24'], postback_secret: SECRET })
      expect(other.get('click_cookie_days')).toBe(7) // its cache, until told
      await other.reload()
      expect(other.get('click_cookie_days')).toBe(45)
      expect(other.get('excluded_ips')).toEqual(['198.51.100.0/24'])
      expect(other.get('postback_secret')).toBe(SECRET)
      await settings.update({ excluded_ips: [] })
      await other.reload()
      expect(other.get('excluded_ips')).toEqual([])
    })

    test('a failed database write leaves the cache as it was', async () => {
      expect(settings.get('click_cookie_days')).toBe(45)
      await exec(opened.db, 'ALTER TABLE settings RENAME TO settings_away')
      try {
        await expect(settings.update({ click_cookie_days: 3, postback_dedup: false })).rejects.toThrow()
        await expect(settings.setJson('postback_aliases', { a: 'b' })).rejects.toThrow()
      } finally {
        await exec(opened.db, 'ALTER TABLE settings_away RENAME TO settings')
      }
      expect(settings.get('click_cookie_days')).toBe(45)
      expect(settings.get('postback_dedup')).toBe(true)
      expect(settings.getJson('postback_aliases')).toBeUndefined()
      // And the store still works afterwards.
      await settings.update({ click_cookie_days: 4 })
      expect(settings.get('click_cookie_days')).toBe(4)
    })
  })
}

describe.skipIf(ENGINES[1]!.skip)('SettingsStore on postgres: ordering within one instance', () => {
  let opened: OpenedDb
  beforeAll(async () => { opened = await openFresh('postgres') })
  afterAll(async () => { await opened?.close() })

  test('writes issued back to back land in order, in the database and in the cache', async () => {
    const settings = await createSettingsStore(opened.db, box)
    const writes = Array.from({ length: 20 }, (_, i) => settings.update({ click_cookie_days: i + 1 }))
    await Promise.all(writes)
    expect(settings.get('click_cookie_days')).toBe(20)
    expect((await createSettingsStore(opened.db, box)).get('click_cookie_days')).toBe(20)
  })

  test('a reload started before a write cannot put the older value back into the cache', async () => {
    // A backend whose reads arrive late: without ordering, the reload's older snapshot would land last.
    const pg = new SettingsRows(storeDb(opened.db))
    const slow: SettingsBackend = {
      loadAll: async () => { const rows = await pg.loadAll(); await Bun.sleep(50); return rows },
      write: (writes, now) => pg.write(writes, now),
    }
    const settings = new SettingsStore(slow, box)
    await settings.reload()
    for (let i = 0; i < 3; i++) {
      await Promise.all([settings.reload(), settings.update({ unique_window_hours: 100 + i })])
      expect(settings.get('unique_window_hours')).toBe(100 + i)
    }
  })

  test('an async store is empty until loaded: createSettingsStore resolves only once it is', async () => {
    await (await createSettingsStore(opened.db, box)).update({ bot_clicks_per_minute: 77 })
    const unloaded = new SettingsStore(new SettingsRows(storeDb(opened.db)), box)
    expect(unloaded.get('bot_clicks_per_minute')).toBe(120)
    expect((await createSettingsStore(opened.db, box)).get('bot_clicks_per_minute')).toBe(77)
  })
})
