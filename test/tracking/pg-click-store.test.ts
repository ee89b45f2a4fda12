// The click store's boundary, run against BOTH engines (issue 8): the same clicks, rollups, repoints,
// prunes, imports and unique-click reads on a fresh SQLite file and a fresh Postgres database.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/client'
import { migrate } from '../../src/db/migrate'
import { numCols, openPg } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import { EventBus } from '../../src/lib/event-bus'
import { newClick, type Click, type CommittedClicks } from '../../src/tracking/store/click'
import { createClickStore } from '../../src/tracking/store/click-store'
import { WriterUnavailable, type ClickStore } from '../../src/tracking/store/types'
import { UniqueVisitors } from '../../src/tracking/unique-visitors'
import { freshPgUrl, pgAvailable, pgCluster } from '../helpers/pg'

const avail = pgAvailable()
if (!avail.ok) console.warn(`skipping the PostgreSQL half of the click store tests: ${avail.why}`)

const HOUR = 3_600_000
const DAY = 24 * HOUR
/** A fixed UTC midnight, so hour and day buckets are known. */
const T0 = Date.UTC(2026, 10, 20)

interface Engine {
  store: ClickStore
  events: EventBus
  /** Test-side read (constant SQL): rows with int8 columns as numbers. */
  all(sql: string): Promise<Array<Record<string, unknown>>>
  close(): Promise<void>
}

// initdb takes a few seconds (more on a loaded machine), and bun test kills a child still running when a
// test times out: the cluster starts once here, with time to spare.
if (avail.ok) beforeAll(() => pgCluster().then(() => {}), 120_000)

const cleanups: Array<() => Promise<void> | void> = []
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
})

async function openEngine(engine: 'sqlite' | 'postgres'): Promise<Engine> {
  const events = new EventBus()
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'svc-clicks-'))
    const db = await openDatabase(join(dir, 'svc.db'))
    migrate(db)
    const store = createClickStore(db, events)
    const e: Engine = {
      store, events,
      all: async (sql) => db.raw.prepare(sql).all() as Array<Record<string, unknown>>,
      close: async () => {
        await store.stop()
        db.close()
        rmSync(dir, { recursive: true, force: true })
      },
    }
    cleanups.push(e.close)
    return e
  }
  const db = await openPg(await freshPgUrl())
  await migratePg(db)
  const store = createClickStore(db, events)
  const e: Engine = {
    store, events,
    all: async (sql) => {
      const rows = (await db.sql.unsafe(sql)) as Array<Record<string, unknown>>
      return numCols(rows, ...(Object.keys(rows[0] ?? {}) as string[]).filter((k) => typeof rows[0]![k] === 'string' && /^(id|row|hour|day|created_at|n)$/.test(k)))
    },
    close: async () => {
      await store.stop()
      await db.close()
    },
  }
  cleanups.push(e.close)
  return e
}

let seq = 0
function click(over: Partial<Click> = {}): Click {
  return newClick({ clickId: crypto.randomUUID(), campaignId: 1, sourceId: 2, offerId: 3, landingId: 4, createdAt: T0 + ++seq, ...over })
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe.skipIf(engine === 'postgres' && !avail.ok)(`click store on ${engine}`, () => {
    test('appends of one turn all commit; each is found by click_id with every field, flags as booleans', async () => {
      const e = await openEngine(engine)
      const tricky = click({
        sub1: `it's "quoted", {braced}, back\\slash`, sub2: 'NULL', sub3: '', sub4: 'ünï 😀', params: '{"utm_source":"a,b"}',
        ip: '2001:db8::1', userAgent: 'Mozilla/5.0 (X11)', referrer: 'https://ref.example/?a=1&b=2', botReason: null,
        excluded: true, isUnique: true, cost: 0.123456789, deviceType: 'desktop', os: 'Linux', browser: 'Firefox', referrerDomain: 'ref.example',
      })
      const clicks = [tricky, ...Array.from({ length: 30 }, () => click())]
      await Promise.all(clicks.map((c) => e.store.append(c)))

      const rec = await e.store.record(tricky.clickId)
      const { row, ...fields } = rec!
      expect(fields).toEqual(tricky)
      expect(typeof row).toBe('number')
      expect(await e.store.rowOf(tricky.clickId)).toBe(row)
      const found = await e.store.find(clicks[5]!.clickId)
      expect(found).toEqual({
        row: (await e.store.rowOf(clicks[5]!.clickId))!, clickId: clicks[5]!.clickId, campaignId: 1, sourceId: 2, offerId: 3, landingId: 4,
        botReason: null, landingClickedAt: null, params: clicks[5]!.params, sub1: null, sub2: null, sub3: null, sub4: null, sub5: null, sub6: null, sub7: null, sub8: null, sub9: null, sub10: null, pathId: null, createdAt: clicks[5]!.createdAt,
      })
      const plain = await e.store.record(clicks[7]!.clickId)
      expect(plain!.excluded).toBe(false)
      expect(plain!.isUnique).toBe(false)
      for (const c of clicks) expect(await e.store.rowOf(c.clickId)).toBeNumber()
      const missing = crypto.randomUUID()
      expect(await e.store.find(missing)).toBeUndefined()
      expect(await e.store.record(missing)).toBeUndefined()
      expect(await e.store.rowOf(missing)).toBeUndefined()
    })

    test('click.committed carries each commit’s clicks and their row ids, in order', async () => {
      const e = await openEngine(engine)
      const heard: CommittedClicks[] = []
      e.events.on('click.committed', 'after-commit', 'test', (p) => { heard.push(p) })
      const clicks = Array.from({ length: 5 }, () => click())
      await Promise.all(clicks.map((c) => e.store.append(c)))
      const imported = [click(), click()]
      const rows = await e.store.import(imported)
      expect(await e.store.import([])).toEqual([])
      expect(heard).toHaveLength(2)
      expect(heard[0]!.clicks).toEqual(clicks)
      expect(heard[0]!.rows).toEqual(await Promise.all(clicks.map(async (c) => (await e.store.rowOf(c.clickId))!)))
      expect(heard[1]!.clicks).toEqual(imported)
      expect(heard[1]!.rows).toEqual(rows)
      expect(rows[1]).toBeGreaterThan(rows[0]!)
      expect(rows).toEqual([(await e.store.rowOf(imported[0]!.clickId))!, (await e.store.rowOf(imported[1]!.clickId))!])
    })

    test('rollups count every committed click per hour and per day (bots, uniques, cost; excluded left out)', async () => {
      const e = await openEngine(engine)
      const clicks: Click[] = []
      for (let i = 0; i < 60; i++) {
        clicks.push(click({
          campaignId: 1 + (i % 3), createdAt: T0 + (i % 2) * DAY + (i % 5) * HOUR + i,
          botReason: i % 7 === 0 ? 'ua' : null, isUnique: i % 7 !== 0 && i % 2 === 0, excluded: i % 11 === 0, cost: 0.25,
        }))
      }
      await Promise.all(clicks.slice(0, 40).map((c) => e.store.append(c)))
      await e.store.import(clicks.slice(40))

      const expected = new Map<string, { clicks: number; unique: number; bots: number; cost: number }>()
      for (const c of clicks) {
        if (c.excluded) continue
        const k = `${c.createdAt - (c.createdAt % DAY)}|${c.campaignId}`
        const v = expected.get(k) ?? { clicks: 0, unique: 0, bots: 0, cost: 0 }
        v.clicks++
        if (c.botReason) v.bots++
        else if (c.isUnique) v.unique++
        v.cost += c.cost
        expected.set(k, v)
      }
      // Summed per key: on Postgres a key has a row per rollup shard that batches wrote (drizzle-pg/0032).
      const daily = await e.all('SELECT day, campaign_id, sum(clicks) AS clicks, sum(unique_clicks) AS unique_clicks, sum(bot_clicks) AS bot_clicks, ' +
        'sum(cost) AS cost FROM click_stats_daily GROUP BY day, campaign_id ORDER BY day, campaign_id')
      expect(daily.map((r) => [`${r.day}|${r.campaign_id}`, { clicks: Number(r.clicks), unique: Number(r.unique_clicks), bots: Number(r.bot_clicks), cost: r.cost }]))
        .toEqual([...expected].sort(([a], [b]) => (a < b ? -1 : 1)))
      const hourly = await e.all('SELECT sum(clicks) AS n, count(DISTINCT hour * 1000 + campaign_id) AS rows FROM click_stats_hourly')
      expect(Number(hourly[0]!.n)).toBe(clicks.filter((c) => !c.excluded).length)
      expect(Number(hourly[0]!.rows)).toBe(2 * 5 * 3 - 0) // (day, hour, campaign) combinations of i mod 30
    })

    test('repoint moves a click to another offer/landing and its rollup row with it', async () => {
      const e = await openEngine(engine)
      const c = click({ isUnique: true, cost: 1.5 })
      const [row] = await e.store.import([c])
      await e.store.repoint(row!, 30, 40)
      expect(await e.store.find(c.clickId)).toMatchObject({ row, offerId: 30, landingId: 40 })
      // Twice in one batch: the second starts from the first.
      await Promise.all([e.store.repoint(row!, 31, null), e.store.repoint(row!, 32, 42)])
      expect(await e.store.find(c.clickId)).toMatchObject({ offerId: 32, landingId: 42 })
      const stats = (await e.all('SELECT offer_id, landing_id, sum(clicks) AS clicks, sum(unique_clicks) AS unique_clicks, sum(cost) AS cost ' +
        'FROM click_stats_hourly GROUP BY offer_id, landing_id ORDER BY offer_id'))
        .map((r): Record<string, unknown> => ({ ...r, clicks: Number(r.clicks), unique_clicks: Number(r.unique_clicks), cost: Number(r.cost) }))
      expect(stats).toEqual([
        { offer_id: 3, landing_id: 4, clicks: 0, unique_clicks: 0, cost: 0 },
        { offer_id: 30, landing_id: 40, clicks: 0, unique_clicks: 0, cost: 0 },
        { offer_id: 31, landing_id: 0, clicks: 0, unique_clicks: 0, cost: 0 },
        { offer_id: 32, landing_id: 42, clicks: 1, unique_clicks: 1, cost: 1.5 },
      ])
      await e.store.repoint(999_999, 1, 1) // a click that is gone: nothing changes, nothing fails
    })

    test('prune deletes the oldest clicks before the cutoff, a chunk at a time, and leaves rollups alone', async () => {
      const e = await openEngine(engine)
      const old = Array.from({ length: 7 }, (_, i) => click({ createdAt: T0 + i * HOUR }))
      const fresh = Array.from({ length: 3 }, (_, i) => click({ createdAt: T0 + 10 * DAY + i }))
      await e.store.import([...fresh, ...old])
      const cutoff = T0 + 5 * DAY
      expect(await e.store.prune(cutoff, 4)).toBe(4)
      for (const c of old.slice(0, 4)) expect(await e.store.rowOf(c.clickId)).toBeUndefined()
      expect(await e.store.find(old[4]!.clickId)).toBeDefined()
      expect(await e.store.prune(cutoff, 4)).toBe(3)
      expect(await e.store.prune(cutoff, 4)).toBe(0)
      for (const c of fresh) expect(await e.store.record(c.clickId)).toBeDefined()
      const total = await e.all('SELECT sum(clicks) AS n FROM click_stats_daily')
      expect(Number(total[0]!.n)).toBe(10)
    })

    test('recentUniques: the unique clicks since a time, oldest first', async () => {
      const e = await openEngine(engine)
      await e.store.import([
        click({ createdAt: T0 + 30, isUnique: true, ip: '192.0.2.3', userAgent: 'c', campaignId: 7 }),
        click({ createdAt: T0 + 10, isUnique: true, ip: '192.0.2.1', userAgent: null }),
        click({ createdAt: T0 + 20, isUnique: false, ip: '192.0.2.2' }),
        click({ createdAt: T0 - 10, isUnique: true, ip: '192.0.2.9' }),
      ])
      expect(await e.store.recentUniques(T0)).toEqual([
        { campaignId: 1, ip: '192.0.2.1', userAgent: null, createdAt: T0 + 10 },
        { campaignId: 7, ip: '192.0.2.3', userAgent: 'c', createdAt: T0 + 30 },
      ])
    })

    test('stop() commits what is pending, then refuses clicks', async () => {
      const e = await openEngine(engine)
      const c = click()
      const committed = e.store.append(c)
      await e.store.stop() // same turn: the batch has not been flushed yet
      await committed
      expect(await e.store.rowOf(c.clickId)).toBeNumber()
      await expect(e.store.append(click())).rejects.toThrow(WriterUnavailable)
      await expect(e.store.repoint(1, 1, 1)).rejects.toThrow(WriterUnavailable)
    })
  })
}

describe('unique-visitor windows from an async store', () => {
  test('whenReady() waits for the stored windows; a window opened meanwhile is kept', async () => {
    const now = Date.now()
    const rows = Promise.withResolvers<Array<{ campaignId: number; ip: string; userAgent: string | null; createdAt: number }>>()
    const u = new UniqueVisitors(() => rows.promise, 24, now)
    const ready = u.whenReady()
    expect(ready).toBeInstanceOf(Promise)
    expect(u.isUnique(1, '192.0.2.5', 'ua', now)).toBe(true) // opened before the rows arrived
    rows.resolve([{ campaignId: 1, ip: '192.0.2.1', userAgent: 'ua', createdAt: now - HOUR }, { campaignId: 1, ip: '192.0.2.5', userAgent: 'ua', createdAt: now - HOUR }])
    await ready
    expect(u.whenReady()).toBeNull()
    expect(u.isUnique(1, '192.0.2.1', 'ua', now)).toBe(false)
    expect(u.isUnique(1, '192.0.2.5', 'ua', now + 23 * HOUR)).toBe(false) // its window starts at `now`, not an hour earlier
    expect(u.isUnique(1, '192.0.2.5', 'ua', now + 24 * HOUR)).toBe(true)
  })

  test('a synchronous store is ready at once', () => {
    expect(new UniqueVisitors(() => [], 24).whenReady()).toBeNull()
  })
})
