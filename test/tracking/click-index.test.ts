// The click id → row lookup: clicks are appended without a click_id index and indexed later in bulk,
// yet every click that was handed out in a 302 must be findable at once, after indexing, and after a crash.
import { afterAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { Database } from 'bun:sqlite'
import { startServer, get, type TestServer } from '../helpers/server'
import { ClickIndex, INDEX_CHUNK, bucketOf } from '../../src/tracking/click-index'
import { seeder, cookieClickId } from './seed'

const dirs: string[] = []
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }) })

async function serverWithCampaign(dataDir?: string): Promise<TestServer> {
  const s = await startServer({}, dataDir)
  dirs.push(s.dataDir)
  if (!dataDir) {
    const seed = seeder(s)
    const offer = seed.offer('https://offer.example/?c={click_id}')
    seed.campaign({ slug: 'idx', offers: [[offer, 100]] })
  }
  return s
}

const indexedRows = (s: TestServer) =>
  (s.ctx.database.raw.prepare('SELECT count(*) AS n FROM click_index').get() as { n: number }).n

describe('click index', () => {
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
      const rows = s.ctx.database.raw.prepare('SELECT count(*) AS n FROM clicks').get() as { n: number }
      expect(rows.n).toBe(1)
    } finally {
      await s.stop()
    }
  })

  test('a graceful stop indexes the tail; after a restart clicks are found through click_index', async () => {
    const s = await serverWithCampaign()
    const ids: string[] = []
    for (let i = 0; i < 20; i++) ids.push(cookieClickId(await get(`${s.base}/c/idx`))!)
    await s.stop()
    const again = await serverWithCampaign(s.dataDir)
    try {
      expect(indexedRows(again)).toBe(20)
      const day = again.ctx.database.raw.prepare('SELECT DISTINCT bucket FROM click_index').all() as Array<{ bucket: number }>
      expect(day.map((d) => d.bucket)).toEqual([0])
      for (const id of ids) expect((await again.api('GET', `/admin/api/clicks/${id}`)).status).toBe(200)
    } finally {
      await again.stop()
    }
  })

  test('clicks committed but never indexed (a crash between commit and indexing) are indexed at the next start', async () => {
    const s = await serverWithCampaign()
    const campaignId = (s.ctx.database.raw.prepare("SELECT id FROM campaigns WHERE slug = 'idx'").get() as { id: number }).id
    await s.stop()
    // What a SIGKILL leaves behind: committed click rows, no click_index rows.
    const db = new Database(`${s.dataDir}/svc.db`)
    const orphan = crypto.randomUUID()
    db.query('INSERT INTO clicks (click_id, campaign_id, created_at) VALUES (?, ?, ?)').run(orphan, campaignId, Date.now())
    db.close()
    const again = await serverWithCampaign(s.dataDir)
    try {
      expect(indexedRows(again)).toBe(1)
      expect((await again.api('GET', `/admin/api/clicks/${orphan}`)).status).toBe(200)
    } finally {
      await again.stop()
    }
  })

  test('lookups reach clicks of earlier buckets, and an unknown id is a 404 after every bucket was probed', async () => {
    const s = await serverWithCampaign()
    try {
      const raw = s.ctx.database.raw
      const campaignId = (raw.prepare("SELECT id FROM campaigns WHERE slug = 'idx'").get() as { id: number }).id
      const old = crypto.randomUUID()
      const at = Date.now() - 3 * 86_400_000
      const row = Number(raw.prepare('INSERT INTO clicks (click_id, campaign_id, created_at) VALUES ($id, $c, $at)').run({ id: old, c: campaignId, at }).lastInsertRowid)
      raw.prepare('INSERT INTO click_index (click_row, bucket, click_id) VALUES ($row, $b, $id)').run({ row, b: bucketOf(row), id: old })
      // Newer clicks land in a later bucket (row ids jump past it), so the old click is not in the first bucket probed.
      raw.prepare("INSERT INTO sqlite_sequence (name, seq) SELECT 'clicks', 200000 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'clicks')").run()
      raw.prepare("UPDATE sqlite_sequence SET seq = 200000 WHERE name = 'clicks'").run()
      cookieClickId(await get(`${s.base}/c/idx`))
      await s.stop()
      const again = await serverWithCampaign(s.dataDir)
      try {
        expect((await again.api('GET', `/admin/api/clicks/${old}`)).status).toBe(200)
        expect((await again.api('GET', `/admin/api/clicks/${crypto.randomUUID()}`)).status).toBe(404)
      } finally {
        await again.stop()
      }
    } finally {
      await s.stop()
    }
  })

  test('indexing runs in sorted chunks of INDEX_CHUNK rows and empties the tail', async () => {
    const s = await serverWithCampaign()
    try {
      const raw = s.ctx.database.raw
      const index = new ClickIndex(raw)
      const insert = raw.prepare('INSERT INTO clicks (click_id, campaign_id, created_at) VALUES ($id, 1, $at)')
      const ids: string[] = []
      const rows: number[] = []
      raw.transaction(() => {
        for (let i = 0; i < INDEX_CHUNK * 2 + 7; i++) {
          const id = crypto.randomUUID()
          ids.push(id)
          rows.push(Number(insert.run({ id, at: Date.now() }).lastInsertRowid))
        }
      })()
      index.noteCommitted(ids, rows)
      expect(index.unindexed).toBe(ids.length)
      expect(index.lookup(ids[123]!)).toBe(rows[123])
      index.indexAll()
      expect(index.unindexed).toBe(0)
      expect(indexedRows(s)).toBe(ids.length)
      expect(index.lookup(ids[ids.length - 1]!)).toBe(rows[rows.length - 1])
      expect(index.lookup(crypto.randomUUID())).toBeUndefined()
    } finally {
      await s.stop()
    }
  })
})
