// SQLite counts clicks into the targeting rollups (country, path) a moment after their commit, from their rows
// (src/tracking/store/targeting-fold.ts). What must hold: a click committed but not yet folded when the
// process dies is counted by the next start, once; an amend before the fold is counted as amended, an amend
// after it moves the rollup rows; a fold never counts a click twice.
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/client'
import { migrate } from '../../src/db/migrate'
import { createCommitter } from '../../src/tracking/store/commit'
import { newClick, type Click } from '../../src/tracking/store/click'
import { onPostgres } from '../helpers/pg'
import { startServer } from '../helpers/server'

const T = Date.UTC(2026, 10, 26, 10, 0, 0)
const dirs: string[] = []
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }) })

async function freshDb(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-fold-'))
  dirs.push(dir)
  const path = join(dir, 'svc.db')
  const database = await openDatabase(path)
  migrate(database)
  database.close()
  return path
}

const click = (f: Partial<Click>): Click => newClick({ clickId: crypto.randomUUID(), campaignId: 1, offerId: 1, createdAt: T, country: 'DE', pathId: 7, ...f })

/** The targeting rollups as reports read them: (country → clicks, bots) and (path → clicks, bots), plus the mark. */
async function rollups(path: string) {
  const database = await openDatabase(path)
  try {
    const raw = database.raw
    const rows = (sql: string) => raw.prepare(sql).all({}) as Array<Record<string, number | string>>
    return {
      country: rows('SELECT country, SUM(clicks) AS clicks, SUM(bot_clicks) AS bots FROM click_country_daily GROUP BY country ORDER BY country'),
      path: rows('SELECT path_id, SUM(clicks) AS clicks, SUM(bot_clicks) AS bots FROM click_path_daily GROUP BY path_id ORDER BY path_id'),
      total: rows('SELECT country, SUM(clicks) AS clicks FROM click_country_total_daily GROUP BY country ORDER BY country'),
      campaign: rows('SELECT SUM(clicks) AS clicks FROM click_stats_daily'),
    }
  } finally {
    database.close()
  }
}

describe.skipIf(onPostgres)('the targeting fold (SQLite)', () => {
  test('clicks committed before a crash are counted by the next start, once', async () => {
    const path = await freshDb()
    const a = createCommitter(path)
    a.commit([click({}), click({ country: 'FR', pathId: null }), click({ botReason: 'ip_rate' })], [])
    // Not settled: the process "dies" with the clicks committed and not yet folded.
    a.close()
    expect((await rollups(path)).country).toEqual([])
    expect((await rollups(path)).campaign).toEqual([{ clicks: 3 }])

    const b = createCommitter(path) // counts the leftovers at start
    b.settle()
    b.settle()
    b.close()
    const after = await rollups(path)
    expect(after.country).toEqual([{ country: 'DE', clicks: 2, bots: 1 }, { country: 'FR', clicks: 1, bots: 0 }])
    expect(after.path).toEqual([{ path_id: 0, clicks: 1, bots: 0 }, { path_id: 7, clicks: 2, bots: 1 }])
    expect(after.total).toEqual([{ country: 'DE', clicks: 2 }, { country: 'FR', clicks: 1 }])
    // A third start finds nothing left: no click counted twice.
    createCommitter(path).close()
    expect((await rollups(path)).country).toEqual(after.country)
  })

  test('an amend before the fold is counted as amended; after the fold it moves the rows', async () => {
    const path = await freshDb()
    const c = createCommitter(path)
    const [first, second] = c.commit([click({}), click({})], [])
    // Before the fold: flagged as a bot, then counted once, as a bot.
    c.commit([], [{ row: first!, botReason: 'ip_rate' }])
    c.settle()
    expect((await rollups(path)).country).toEqual([{ country: 'DE', clicks: 2, bots: 1 }])
    // After the fold: the amend moves the counted click itself.
    c.commit([], [{ row: second!, botReason: 'ip_rate' }])
    expect((await rollups(path)).country).toEqual([{ country: 'DE', clicks: 2, bots: 2 }])
    c.settle()
    c.close()
    expect((await rollups(path)).country).toEqual([{ country: 'DE', clicks: 2, bots: 2 }])
    expect((await rollups(path)).campaign).toEqual([{ clicks: 2 }])
  })

  test('a server restarted after a crash counts the leftovers before its first report, with no click since', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-fold-server-'))
    dirs.push(dir)
    const first = await startServer({}, dir)
    const offer = await first.api('POST', '/admin/api/offers', { name: 'o', slug: 'o', url: 'https://o.example/' })
    const campaign = await first.api('POST', '/admin/api/campaigns', { name: 'c', slug: 'c', offer_id: offer.body.id })
    await first.stop()
    // Clicks committed by a process that died before its fold.
    const c = createCommitter(join(dir, 'svc.db'))
    c.commit([click({ campaignId: campaign.body.id, offerId: offer.body.id }), click({ campaignId: campaign.body.id, offerId: offer.body.id, country: 'FR' })], [])
    c.close()
    const again = await startServer({}, dir)
    try {
      const res = await again.api('GET', `/admin/api/reports?group_by=country&from=2026-11-01&to=2026-12-31`)
      expect(res.status).toBe(200)
      expect(res.body.rows.map((r: any) => [r.key ?? r.country, r.clicks])).toEqual([['DE', 1], ['FR', 1]])
    } finally {
      await again.stop()
    }
  }, 60_000)
})
