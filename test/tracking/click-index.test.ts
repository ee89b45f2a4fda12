// The click id → row lookup: clicks are appended without a click_id index and indexed a full bucket at a
// time, yet every click that was handed out in a 302 must be findable at once, after indexing, after a
// restart and after a crash. The lookups (the first describe) hold on both engines; the click index itself
// (click_index, its buckets and watermark, migration 0003) is SQLite-only machinery: Postgres has a UNIQUE
// index on clicks.click_id instead, so those describes are skipped there.
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Database } from 'bun:sqlite'
import { startServer, get, type TestServer } from '../helpers/server'
import { ClickIndex, INDEX_SLICE, clickKey, readWatermark } from '../../src/tracking/store/click-index'
import { openDatabase } from '../../src/db/client'
import { testDb } from '../helpers/db'
import { onPostgres } from '../helpers/pg'
import { seeder, cookieClickId, clickCount, SERVER_TIMEOUT_MS } from './seed'

const dirs: string[] = []
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }) })

async function serverWithCampaign(dataDir?: string): Promise<TestServer> {
  const s = await startServer({}, dataDir)
  dirs.push(s.dataDir)
  if (!dataDir) {
    const seed = seeder(s)
    const offer = await seed.offer('https://offer.example/?c={click_id}')
    await seed.campaign({ slug: 'idx', offers: [[offer, 100]] })
  }
  return s
}

/** The SQLite connection of a server (the click index's own tests run on SQLite only). */
function sqliteOf(s: TestServer) {
  const database = s.ctx.database
  if (database.engine === 'postgres') throw new Error('the click index exists on SQLite only')
  return database.raw
}

const indexedRows = (s: TestServer) =>
  (sqliteOf(s).prepare('SELECT count(*) AS n FROM click_index').get() as { n: number }).n

describe('click lookup', () => {
  test('a click is found by the postback and the admin API right after its 302, before it is indexed', async () => {
    const s = await serverWithCampaign()
    try {
      const res = await get(`${s.base}/c/idx`)
      const clickId = cookieClickId(res)!
      expect((await s.api('GET', `/admin/api/clicks/${clickId}`)).status).toBe(200)
      expect(await (await fetch(`${s.base}/postback?subid=${clickId}&payout=2`)).text()).toBe('OK')
      const conv = await s.api('GET', `/admin/api/conversions?click_id=${clickId}`)
      expect(conv.body.items).toHaveLength(1)
      // Continuing the click on /c finds it too: no second row.
      await get(`${s.base}/c/idx?click_id=${clickId}`)
      expect(await clickCount(s)).toBe(1)
    } finally {
      await s.stop()
    }
  }, SERVER_TIMEOUT_MS)

  test('after a restart the clicks of the unfinished bucket are reloaded and found', async () => {
    const s = await serverWithCampaign()
    const ids: string[] = []
    for (let i = 0; i < 20; i++) ids.push(cookieClickId(await get(`${s.base}/c/idx`))!)
    await s.stop()
    const again = await serverWithCampaign(s.dataDir)
    try {
      // SQLite: 20 rows do not fill a bucket: nothing is written to click_index, the tail holds them all.
      if (!onPostgres) expect(indexedRows(again)).toBe(0)
      for (const id of ids) expect((await again.api('GET', `/admin/api/clicks/${id}`)).status).toBe(200)
      expect(await (await fetch(`${again.base}/postback?subid=${ids[7]}&payout=2`)).text()).toBe('OK')
      expect((await again.api('GET', `/admin/api/conversions?click_id=${ids[7]}`)).body.items).toHaveLength(1)
    } finally {
      await again.stop()
    }
  }, SERVER_TIMEOUT_MS)

  test('clicks committed behind the writer (a crash, a seed while stopped) are found after the next start', async () => {
    const s = await serverWithCampaign()
    const campaignId = (await testDb(s).get<{ id: number }>("SELECT id FROM campaigns WHERE slug = 'idx'"))!.id
    await s.stop()
    const orphan = crypto.randomUUID()
    if (onPostgres) {
      // The test's own client: the stopped server's connections are closed.
      await testDb(s).run('INSERT INTO clicks (click_id, campaign_id, created_at) VALUES ($id, $c, $at)', { id: orphan, c: campaignId, at: Date.now() })
    } else {
      const db = new Database(`${s.dataDir}/svc.db`)
      db.query('INSERT INTO clicks (click_id, campaign_id, created_at) VALUES (?, ?, ?)').run(orphan, campaignId, Date.now())
      db.close()
    }
    const again = await serverWithCampaign(s.dataDir)
    try {
      expect((await again.api('GET', `/admin/api/clicks/${orphan}`)).status).toBe(200)
    } finally {
      await again.stop()
    }
  }, SERVER_TIMEOUT_MS)

  // The Postgres counterpart of the SQLite bucket test below: lookups go through the UNIQUE index on
  // click_id, so an old click and one sharing its first 32 bits are both found, and a near miss is a 404.
  test.skipIf(!onPostgres)('Postgres: old clicks are found by their whole click_id; a click_id sharing a prefix is a 404', async () => {
    const s = await serverWithCampaign()
    try {
      const db = testDb(s)
      const campaignId = (await db.get<{ id: number }>("SELECT id FROM campaigns WHERE slug = 'idx'"))!.id
      const old = crypto.randomUUID()
      const twin = old.slice(0, 9) + crypto.randomUUID().slice(9)
      for (const id of [old, twin]) {
        await db.run('INSERT INTO clicks (click_id, campaign_id, created_at) VALUES ($id, $c, $at)', { id, c: campaignId, at: Date.now() - 3 * 86_400_000 })
      }
      const fresh = cookieClickId(await get(`${s.base}/c/idx`))!
      const found = async (id: string) => (await s.api('GET', `/admin/api/clicks/${id}`)).body.click_id
      expect(await found(old)).toBe(old)
      expect(await found(twin)).toBe(twin)
      expect(await found(fresh)).toBe(fresh)
      expect((await s.api('GET', `/admin/api/clicks/${old.slice(0, 9)}${crypto.randomUUID().slice(9)}`)).status).toBe(404)
      expect((await s.api('GET', `/admin/api/clicks/${crypto.randomUUID()}`)).status).toBe(404)
    } finally {
      await s.stop()
    }
  }, SERVER_TIMEOUT_MS)
})

// SQLite-only: click_index buckets, keys and the watermark do not exist on Postgres.
describe.skipIf(onPostgres)('click index', () => {
  test('lookups reach clicks of earlier buckets, tell apart clicks sharing a key, and 404 an unknown id', async () => {
    const s = await serverWithCampaign()
    try {
      const raw = sqliteOf(s)
      const campaignId = (raw.prepare("SELECT id FROM campaigns WHERE slug = 'idx'").get() as { id: number }).id
      const at = Date.now() - 3 * 86_400_000
      const old = crypto.randomUUID()
      // Same first 32 bits (same key), different click: the probe must compare the whole click_id.
      const twin = old.slice(0, 9) + crypto.randomUUID().slice(9)
      const addOld = (id: string) => {
        const row = Number(raw.prepare('INSERT INTO clicks (click_id, campaign_id, created_at) VALUES ($id, $c, $at)').run({ id, c: campaignId, at }).lastInsertRowid)
        raw.prepare('INSERT INTO click_index (bucket, key, click_row) VALUES (0, $key, $row)').run({ key: clickKey(id), row })
      }
      addOld(old)
      addOld(twin)
      // Bucket 0 counts as written; newer clicks land three buckets later.
      raw.prepare('UPDATE click_index_state SET indexed_through = 65535 WHERE id = 1').run()
      raw.prepare("UPDATE sqlite_sequence SET seq = 200000 WHERE name = 'clicks'").run()
      const fresh = cookieClickId(await get(`${s.base}/c/idx`))!
      await s.stop()
      const again = await serverWithCampaign(s.dataDir)
      try {
        const found = async (id: string) => (await again.api('GET', `/admin/api/clicks/${id}`)).body.click_id
        expect(await found(old)).toBe(old)
        expect(await found(twin)).toBe(twin)
        expect(await found(fresh)).toBe(fresh)
        expect((await again.api('GET', `/admin/api/clicks/${old.slice(0, 9)}${crypto.randomUUID().slice(9)}`)).status).toBe(404)
        expect((await again.api('GET', `/admin/api/clicks/${crypto.randomUUID()}`)).status).toBe(404)
      } finally {
        await again.stop()
      }
    } finally {
      await s.stop()
    }
  }, SERVER_TIMEOUT_MS)

  test('a full bucket is written in key order in slices, moves the watermark and leaves the tail', async () => {
    const s = await serverWithCampaign()
    try {
      const raw = sqliteOf(s)
      const index = new ClickIndex(raw, { bucketRows: 10_000 })
      const insert = raw.prepare('INSERT INTO clicks (click_id, campaign_id, created_at) VALUES ($id, 1, $at)')
      const ids: string[] = []
      const rows: number[] = []
      raw.transaction(() => {
        for (let i = 0; i < 10_000 * 2 + 7; i++) {
          const id = crypto.randomUUID()
          ids.push(id)
          rows.push(Number(insert.run({ id, at: Date.now() }).lastInsertRowid))
        }
      })()
      expect(rows[rows.length - 1]).toBe(20_007)
      // Committed through the writer: the full buckets (rows 1..19 999) are written a slice per turn.
      index.noteCommitted(ids.map((clickId) => ({ clickId })), rows)
      expect(index.lookup(ids[123]!)).toBe(rows[123])
      // One slice per event-loop turn: after the first turn only the first slice of bucket 0 is written.
      await new Promise((r) => setImmediate(r))
      expect(indexedRows(s)).toBe(INDEX_SLICE)
      expect(index.watermark).toBe(0)
      for (let turn = 0; turn < 200 && index.watermark < 19_999; turn++) await new Promise((r) => setImmediate(r))
      expect(index.watermark).toBe(19_999)
      expect(readWatermark(raw)).toBe(19_999)
      expect(indexedRows(s)).toBe(19_999)
      expect(index.unindexed).toBe(8)
      const keys = raw.prepare('SELECT bucket, key, click_row FROM click_index').all() as Array<{ bucket: number; key: number; click_row: number }>
      expect(keys.every((k) => k.bucket === Math.floor(k.click_row / 10_000))).toBe(true)
      for (const i of [0, 5000, 9998, 9999, 19_998, 20_006]) expect(index.lookup(ids[i]!)).toBe(rows[i])
      expect(index.lookup(crypto.randomUUID())).toBeUndefined()
      // A new instance (a restart) loads only the 8 rows past the watermark.
      const restarted = new ClickIndex(raw, { bucketRows: 10_000 })
      expect(restarted.unindexed).toBe(8)
      expect(restarted.lookup(ids[42]!)).toBe(rows[42])
    } finally {
      await s.stop()
    }
  }, SERVER_TIMEOUT_MS)
})

// SQLite-only: a SQLite migration of the SQLite click index.
describe.skipIf(onPostgres)('migration 0003', () => {
  test('an old-shape click_index is rebuilt from the clicks at start: every click is found, full buckets are indexed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-0003-'))
    dirs.push(dir)
    const database = await openDatabase(join(dir, 'svc.db'))
    const raw = database.raw
    const run = (file: string) => {
      const sql = readFileSync(join(import.meta.dir, '../../drizzle', file), 'utf8')
      for (const statement of sql.split('--> statement-breakpoint')) if (statement.trim()) raw.exec(statement)
    }
    for (const f of ['0000_init.sql', '0001_defaults.sql', '0002_report_rollups.sql']) run(f)
    // The click_index of 0002: one row per click, keyed by row, with its bucket and whole click_id.
    const ids = Array.from({ length: 25 }, () => crypto.randomUUID())
    raw.transaction(() => {
      ids.forEach((id, i) => {
        raw.prepare('INSERT INTO clicks (click_id, campaign_id, created_at) VALUES ($id, 1, $at)').run({ id, at: Date.now() })
        raw.prepare('INSERT INTO click_index (click_row, bucket, click_id) VALUES ($row, $bucket, $id)').run({ row: i + 1, bucket: Math.floor((i + 1) / 10), id })
      })
    })()
    run('0003_compact_click_index.sql')
    try {
      expect(readWatermark(raw)).toBe(0)
      const index = new ClickIndex(raw, { bucketRows: 10 })
      index.start()
      for (const [i, id] of ids.entries()) expect(index.lookup(id)).toBe(i + 1)
      // Rows 1..19 fill buckets 0 and 1 (row 0 never exists); rows 20..25 stay in the tail.
      expect(readWatermark(raw)).toBe(19)
      const keys = raw.prepare('SELECT bucket, key, click_row FROM click_index ORDER BY click_row').all()
      expect(keys).toEqual(ids.slice(0, 19).map((id, i) => ({ bucket: Math.floor((i + 1) / 10), key: clickKey(id), click_row: i + 1 })))
      expect(index.lookup(crypto.randomUUID())).toBeUndefined()
    } finally {
      database.close()
    }
  })
})

// SQLite-only: the click index's bucket pass.
describe.skipIf(onPostgres)('click index: a failed bucket pass', () => {
  test('a click pruned after a failed pass is left out of the retried pass, and every other click of the bucket is indexed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-flaky-index-'))
    dirs.push(dir)
    const database = await openDatabase(join(dir, 'svc.db'))
    const { migrate } = await import('../../src/db/migrate')
    migrate(database)
    const raw = database.raw
    // The first write of an index row fails (a full disk, say); everything else works.
    let failNext = true
    const flaky = {
      ...raw,
      prepare: (sql: string) => {
        const st = raw.prepare(sql)
        if (!sql.startsWith('INSERT OR IGNORE INTO click_index')) return st
        return { ...st, run: (p?: Record<string, unknown>) => {
          if (failNext) { failNext = false; throw new Error('disk full') }
          return st.run(p)
        } }
      },
    }
    const ids = Array.from({ length: 16 }, () => crypto.randomUUID())
    const insert = (i: number) => raw.prepare('INSERT INTO clicks (click_id, campaign_id, created_at) VALUES ($id, 1, $at)').run({ id: ids[i]!, at: Date.now() })
    try {
      raw.transaction(() => { for (let i = 0; i < 15; i++) insert(i) })() // rows 1..15: bucket 0 (rows 1..9) is full
      const index = new ClickIndex(flaky as never, { bucketRows: 10, onError: () => {} })
      index.start() // the pass sorts bucket 0, then its first write fails
      expect(index.watermark).toBe(0)
      // Row 3 is pruned now, while the bucket's entries are sorted.
      raw.prepare('DELETE FROM clicks WHERE id = 3').run()
      index.forget([{ row: 3, clickId: ids[2]! }])
      // The next commit retries the bucket.
      insert(15)
      index.noteCommitted([{ clickId: ids[15]! }], [16])
      for (let turn = 0; turn < 20 && index.watermark < 9; turn++) await new Promise((r) => setImmediate(r))
      expect(index.watermark).toBe(9)
      const indexed = raw.prepare('SELECT click_row FROM click_index WHERE bucket = 0 ORDER BY click_row').all() as Array<{ click_row: number }>
      expect(indexed.map((r) => r.click_row)).toEqual([1, 2, 4, 5, 6, 7, 8, 9])
      for (let row = 1; row <= 16; row++) expect(index.lookup(ids[row - 1]!)).toBe(row === 3 ? undefined : row)
    } finally {
      database.close()
    }
  })
})
