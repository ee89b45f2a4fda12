// The landing asset store on both engines: the same expectations against a fresh SQLite file and a fresh
// Postgres database: rows and their types, bytes kept exactly, create vs replace, the quota callback inside
// the write (a refusal writes nothing), paging, lookups by slug, delete, and the cascade from landings.
// Then: two uploads racing for the last bytes of a landing's quota (on Postgres, two pools) — one wins.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/client'
import { migrate } from '../../src/db/migrate'
import { openPg } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import type { AppError } from '../../src/lib/errors'
import { type AssetStore, type NewAsset, Assets } from '../../src/landings/store/assets'
import type { AssetInfo } from '../../src/landings/store/types'
import { freshPgUrl, pgAvailable } from '../helpers/pg'

const PG_SETUP_MS = 60_000

interface Engine {
  store: AssetStore
  /** A second store on its own connection(s) to the same database (Postgres: another instance's pool). */
  other(): Promise<AssetStore>
  addLanding(slug: string): Promise<number>
  exec(sql: string): Promise<void>
  close(): Promise<void>
}

async function sqliteEngine(): Promise<Engine> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-assets-'))
  const database = await openDatabase(join(dir, 'svc.db'))
  migrate(database)
  const store = new Assets(database)
  return {
    store,
    other: async () => store, // one process, one connection: SQLite has no second instance
    addLanding: async (slug) => {
      const now = Date.now()
      const res = database.raw.prepare(`INSERT INTO landings (name, slug, html, created_at, updated_at) VALUES ($slug, $slug, '<p>x</p>', $now, $now)`).run({ slug, now })
      return Number(res.lastInsertRowid)
    },
    exec: async (sql) => database.raw.exec(sql),
    close: async () => {
      database.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

async function pgEngine(): Promise<Engine> {
  const url = await freshPgUrl()
  const db = await openPg(url)
  await migratePg(db)
  const others: Array<{ close(): Promise<void> }> = []
  return {
    store: new Assets(db),
    other: async () => {
      const second = await openPg(url)
      others.push(second)
      return new Assets(second)
    },
    addLanding: async (slug) => {
      const now = Date.now()
      const [row] = await db.sql`INSERT INTO landings (name, slug, html, created_at, updated_at) VALUES (${slug}, ${slug}, '<p>x</p>', ${now}::bigint, ${now}::bigint) RETURNING id`
      return Number(row.id)
    },
    exec: async (sql) => {
      await db.sql.unsafe(sql)
    },
    close: async () => {
      for (const o of others) await o.close()
      await db.close()
    },
  }
}

async function failure(call: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await call
  } catch (err) {
    const e = err as AppError
    return { code: e.code, message: e.message }
  }
  throw new Error('expected the call to fail')
}

/** Every byte value, twice, NULs included: what a blob/bytea round trip must keep exactly. */
const ALL_BYTES = Uint8Array.from({ length: 512 }, (_, i) => i % 256)

const asset = (landingId: number, path: string, body: Uint8Array, over: Partial<NewAsset> = {}): NewAsset => ({
  landingId, path, contentType: 'image/png', etag: `etag-${path}-${body.byteLength}`, body, now: Date.now(), ...over,
})

function expectNumbers(row: AssetInfo): void {
  for (const k of ['id', 'landingId', 'size', 'createdAt', 'updatedAt'] as const) expect(typeof row[k]).toBe('number')
}

const engines: Array<[string, () => Promise<Engine>, boolean]> = [
  ['sqlite', sqliteEngine, true],
  ['postgres', pgEngine, pgAvailable().ok],
]

for (const [name, open, available] of engines) {
  describe.skipIf(!available)(`landing asset store on ${name}`, () => {
    let e: Engine
    let store: AssetStore
    beforeAll(async () => {
      e = await open()
      store = e.store
    }, PG_SETUP_MS)
    afterAll(() => e?.close())

    test('landing(): id and slug, or undefined', async () => {
      const id = await e.addLanding('lookup')
      expect(await store.landing(id)).toEqual({ id, slug: 'lookup' })
      expect(await store.landing(999999)).toBeUndefined()
    })

    test('put creates, then replaces; bytes come back exactly; numbers are numbers', async () => {
      const id = await e.addLanding('put')
      const now = 1_700_000_000_123
      const first = await store.put(asset(id, 'img/a.png', ALL_BYTES, { now, etag: 'e1' }))
      expect(first.created).toBe(true)
      expect(first.landing).toEqual({ id, slug: 'put' })
      expect(first.row).toEqual({ id: first.row.id, landingId: id, path: 'img/a.png', contentType: 'image/png', size: 512, etag: 'e1', createdAt: now, updatedAt: now })
      expectNumbers(first.row)

      const found = await store.find(id, 'img/a.png')
      expect(found).toBeDefined()
      expect(found!.body).toBeInstanceOf(Uint8Array)
      expect(Array.from(found!.body)).toEqual(Array.from(ALL_BYTES))
      const { body: _b, ...info } = found!
      expect(info).toEqual(first.row)
      expectNumbers(found!)

      const replaced = await store.put(asset(id, 'img/a.png', new Uint8Array([1, 2, 3]), { now: now + 5, etag: 'e2', contentType: 'image/gif' }))
      expect(replaced.created).toBe(false)
      expect(replaced.row).toEqual({ ...first.row, contentType: 'image/gif', size: 3, etag: 'e2', updatedAt: now + 5 })
      expect(Array.from((await store.find(id, 'img/a.png'))!.body)).toEqual([1, 2, 3])
      expect(await store.find(id, 'img/b.png')).toBeUndefined()
      expect(await store.find(999999, 'img/a.png')).toBeUndefined()
    })

    test('put on a missing landing: not_found "landing not found", nothing written', async () => {
      expect(await failure(store.put(asset(999999, 'x.png', new Uint8Array([1]))))).toEqual({ code: 'not_found', message: 'landing not found' })
    })

    test('the quota callback sees the other assets only, and a refusal writes nothing', async () => {
      const id = await e.addLanding('quota')
      await store.put(asset(id, 'a.png', new Uint8Array(10)))
      await store.put(asset(id, 'b.png', new Uint8Array(20)))
      const seen: number[] = []
      await store.put(asset(id, 'c.png', new Uint8Array(5)), (others) => void seen.push(others))
      await store.put(asset(id, 'a.png', new Uint8Array(1)), (others) => void seen.push(others)) // a's own 10 bytes don't count
      expect(seen).toEqual([30, 25])
      expect(await store.totalSize(id)).toBe(26)

      const refuse = () => {
        throw new Error('over quota')
      }
      await expect(store.put(asset(id, 'd.png', new Uint8Array(7)), refuse)).rejects.toThrow('over quota')
      await expect(store.put(asset(id, 'a.png', new Uint8Array(7)), refuse)).rejects.toThrow('over quota')
      expect(await store.find(id, 'd.png')).toBeUndefined()
      expect((await store.find(id, 'a.png'))!.size).toBe(1)
      expect(await store.totalSize(id)).toBe(26)
      expect(await store.totalSize(999999)).toBe(0)
    })

    test('list: id order, limit + 1 rows after the cursor, without bodies', async () => {
      const id = await e.addLanding('list')
      const other = await e.addLanding('list-other')
      const rows: AssetInfo[] = []
      for (const p of ['css/site.css', 'img/hero.png', 'fonts/Inter.woff2']) rows.push((await store.put(asset(id, p, new Uint8Array([7])))).row)
      await store.put(asset(other, 'img/hero.png', new Uint8Array([8])))
      const all = await store.list(id, { afterId: 0, limit: 10 })
      expect(all).toEqual(rows)
      expect(all.every((r) => !('body' in r))).toBe(true)
      expect(await store.list(id, { afterId: 0, limit: 1 })).toEqual(rows.slice(0, 2))
      expect(await store.list(id, { afterId: rows[0]!.id, limit: 5 })).toEqual(rows.slice(1))
      expect(await store.list(id, { afterId: rows[2]!.id, limit: 5 })).toEqual([])
      expect(await store.list(999999, { afterId: 0, limit: 5 })).toEqual([])
    })

    test('findBySlug: with and without the bytes; another landing\'s asset is not found', async () => {
      const id = await e.addLanding('slugged')
      const { row } = await store.put(asset(id, 'img/x.png', ALL_BYTES))
      expect(await store.findBySlug('slugged', 'img/x.png', false)).toEqual(row)
      const full = await store.findBySlug('slugged', 'img/x.png', true)
      expect(Array.from(full!.body)).toEqual(Array.from(ALL_BYTES))
      expect(await store.findBySlug('slugged', 'img/y.png', true)).toBeUndefined()
      expect(await store.findBySlug('nope', 'img/x.png', false)).toBeUndefined()
      expect(await store.findBySlug('put', 'img/x.png', false)).toBeUndefined()
    })

    test('delete: true once, then false', async () => {
      const id = await e.addLanding('del')
      await store.put(asset(id, 'a.png', new Uint8Array([1])))
      expect(await store.delete(id, 'a.png')).toBe(true)
      expect(await store.delete(id, 'a.png')).toBe(false)
      expect(await store.find(id, 'a.png')).toBeUndefined()
    })

    test('the assets go with their landing (ON DELETE CASCADE)', async () => {
      const id = await e.addLanding('cascade')
      await store.put(asset(id, 'a.png', new Uint8Array([1])))
      await store.put(asset(id, 'b/c.css', new Uint8Array([2])))
      await e.exec(`DELETE FROM landings WHERE id = ${id}`)
      expect(await store.list(id, { afterId: 0, limit: 10 })).toEqual([])
      expect(await store.totalSize(id)).toBe(0)
      expect(await failure(store.put(asset(id, 'a.png', new Uint8Array([1]))))).toEqual({ code: 'not_found', message: 'landing not found' })
    })

    test('two uploads racing for the last bytes of the quota: exactly one is stored', async () => {
      const id = await e.addLanding('race')
      const second = await e.other()
      const quota = (size: number) => (others: number) => {
        if (others + size > 10) throw new Error('over quota')
      }
      const results = await Promise.allSettled([
        store.put(asset(id, 'a.png', new Uint8Array(6)), quota(6)),
        second.put(asset(id, 'b.png', new Uint8Array(6)), quota(6)),
      ])
      expect(results.filter((r) => r.status === 'fulfilled').length).toBe(1)
      expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.message)).toEqual(['over quota'])
      expect(await store.totalSize(id)).toBe(6)
    })
  })
}
