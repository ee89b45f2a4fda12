// The Postgres click store's group commit (issue 8): one batch per event-loop turn, a bounded number in flight,
// every resolved append visible to another instance at once, a failed batch leaves nothing behind, and two
// instances committing into the same rollup rows do not deadlock. Plus the tracker's async lookups.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { openPg, type PgDatabase } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import { EventBus } from '../../src/lib/event-bus'
import { newClick, type Click } from '../../src/tracking/store/click'
import { PgClickStore } from '../../src/tracking/store/pg-click-store'
import { WriterUnavailable } from '../../src/tracking/store/types'
import { Tracker, type ClickQuality, type Routes, type Visitor } from '../../src/tracking/track'
import { compileUrlTemplate } from '../../src/tracking/template'
import type { CampaignRoute, Rotation, Target } from '../../src/tracking/routing'
import { freshPgUrl, pgAvailable, pgCluster } from '../helpers/pg'

const avail = pgAvailable()
if (!avail.ok) console.warn(`skipping PostgreSQL group commit tests: ${avail.why}`)

const HOUR = 3_600_000
const T0 = Date.UTC(2026, 10, 20)

describe.skipIf(!avail.ok)('Postgres click store: group commit', () => {
  let url: string
  let a: PgDatabase // instance A's pool
  let b: PgDatabase // instance B's pool: another connection pool on the same database
  const batches: number[] = []
  let storeA: PgClickStore
  let storeB: PgClickStore

  beforeAll(async () => {
    await pgCluster()
    url = await freshPgUrl()
    a = await openPg(url)
    await migratePg(a)
    b = await openPg(url)
    storeA = new PgClickStore(a, new EventBus(), { onBatch: (s) => batches.push(s.clicks) })
    storeB = new PgClickStore(b, new EventBus())
  }, 120_000)
  afterAll(async () => {
    await storeA?.stop()
    await storeB?.stop()
    await a?.close()
    await b?.close()
  })

  const click = (over: Partial<Click> = {}) =>
    newClick({ clickId: crypto.randomUUID(), campaignId: 1, offerId: 1, createdAt: T0, ...over })
  const count = async (db: PgDatabase) => Number((await db.sql`SELECT count(*)::int AS n FROM clicks`)[0].n)

  test('200 appends in one turn are one batch; each resolved click is found at once by another instance', async () => {
    batches.length = 0
    const clicks = Array.from({ length: 200 }, () => click())
    const seen: boolean[] = []
    await Promise.all(clicks.map((c) => storeA.append(c).then(async () => {
      // Checked the moment this append resolves, from the other instance's pool.
      seen.push((await storeB.rowOf(c.clickId)) !== undefined)
    })))
    expect(batches).toEqual([200])
    expect(seen).toHaveLength(200)
    expect(seen.every(Boolean)).toBe(true)
    const rec = await storeB.record(clicks[42]!.clickId)
    expect(rec).toMatchObject({ clickId: clicks[42]!.clickId, campaignId: 1, createdAt: T0 })
  })

  test('with one batch in flight allowed, new clicks gather into the next one', async () => {
    const one: number[] = []
    const storeA = new PgClickStore(a, new EventBus(), { inFlight: 1, onBatch: (s) => one.push(s.clicks) })
    // Instance B holds the rollup table, so A's first batch stays in flight until B lets go.
    const blocker = await b.sql.reserve()
    await blocker`BEGIN`
    await blocker`LOCK TABLE click_stats_hourly IN EXCLUSIVE MODE`
    const first = storeA.append(click())
    await Bun.sleep(50) // flushed and waiting on the lock
    const later: Promise<void>[] = []
    for (let turn = 0; turn < 3; turn++) {
      for (let i = 0; i < 4; i++) later.push(storeA.append(click()))
      await Bun.sleep(5)
    }
    expect(one).toEqual([])
    await blocker`COMMIT`
    blocker.release()
    await first
    await Promise.all(later)
    expect(one).toEqual([1, 12])
    await storeA.stop()
  })

  test('a failing batch rejects every append of it and stores nothing half-way; the next batch works', async () => {
    const before = await count(b)
    const daily = Number((await b.sql`SELECT coalesce(sum(clicks), 0)::int AS n FROM click_stats_daily`)[0].n)
    // The rollup statement fails after the INSERT of the clicks ran: the transaction must take both back.
    await b.sql`ALTER TABLE click_stats_hourly RENAME TO click_stats_hourly_off`
    try {
      const results = await Promise.allSettled(Array.from({ length: 5 }, () => storeA.append(click())))
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected', 'rejected'])
      expect(await count(b)).toBe(before)
    } finally {
      await b.sql`ALTER TABLE click_stats_hourly_off RENAME TO click_stats_hourly`
    }
    expect(Number((await b.sql`SELECT coalesce(sum(clicks), 0)::int AS n FROM click_stats_daily`)[0].n)).toBe(daily)
    const c = click()
    await storeA.append(c)
    expect(await storeB.rowOf(c.clickId)).toBeNumber()
  })

  test('a lost connection rejects the batch', async () => {
    const lone = await openPg(url)
    const store = new PgClickStore(lone, new EventBus())
    await lone.close()
    await expect(store.append(click())).rejects.toBeDefined()
    await store.stop()
    await expect(store.append(click())).rejects.toThrow(WriterUnavailable)
  })

  test('two instances committing into the same rollup rows at once do not deadlock, and every click is counted', async () => {
    await a.sql`DELETE FROM click_stats_hourly`
    await a.sql`DELETE FROM click_stats_daily`
    const rounds = 40
    let made = 0
    // Crossed keys: A counts (hour 0, campaign 2) and (hour 1, campaign 1), B (hour 0, campaign 1) and
    // (hour 1, campaign 2). Their hourly rows differ, but both reach the daily rows of campaigns 1 and 2:
    // in hour order A would lock campaign 2's day before campaign 1's and B the reverse.
    const burst = (store: PgClickStore, seed: number) => {
      const out: Promise<void>[] = []
      for (let i = 0; i < 10; i++) {
        const hour = i % 2
        const campaign = seed === 0 ? 2 - hour : 1 + hour
        out.push(store.append(click({ campaignId: campaign, createdAt: T0 + hour * HOUR + i })))
        made++
      }
      return out
    }
    for (let r = 0; r < rounds; r++) await Promise.all([...burst(storeA, 0), ...burst(storeB, 1)])
    const [h] = await a.sql`SELECT sum(clicks)::int AS n FROM click_stats_hourly`
    const [d] = await a.sql`SELECT sum(clicks)::int AS n FROM click_stats_daily`
    expect(h.n).toBe(made)
    expect(d.n).toBe(made)
  }, 60_000)

  test('the tracker continues a click through the async lookup (/c creates, /r finds and repoints)', async () => {
    const target = (id: number, url: string): Target => ({ id, weight: 1, template: compileUrlTemplate(url)! })
    const rot = (t: Target): Rotation => ({ items: [t], cumulative: [1], total: 1, byId: new Map([[t.id, t]]), capped: false })
    let offer = target(5, 'https://offer.example/?c={click_id}')
    const route = (): CampaignRoute => ({
      id: 9, slug: 'pg', sourceId: null, externalId: null, offers: rot(offer), landings: rot(target(6, 'https://lp.example/?c={click_id}')),
      botTarget: null, costModel: 'none', cpc: 0, offerById: new Map(), paths: [], pathSpecs: [], fallbackUrl: null, allLandings: new Map([[6, target(6, 'https://lp.example/?c={click_id}')]]),
    })
    // Like RoutingCache: a Promise while the table loads, null once it is loaded.
    let ready: Promise<void> | null = Bun.sleep(10).then(() => { ready = null })
    const routes: Routes = { whenReady: () => ready, get: (slug) => (slug === 'pg' ? route() : undefined), fallback: () => null,
      campaign: (id) => (id === 9 ? route() : undefined), campaignsOf: () => [] }
    const quality: ClickQuality = { classify: () => ({ bot: null, excluded: false }) as never, isUnique: () => true, whenReady: () => null }
    const tracker = new Tracker(routes, storeA, quality)
    const visitor = (clickId: string | null): Visitor => ({
      method: 'GET', headers: new Headers(), ip: '192.0.2.1', userAgent: 'ua', referrer: null, cookieClickId: null,
      query: { clickId, subs: [null, null, null, null, null, null, null, null, null, null], params: null } as never,
    })
    const first = await tracker.click('pg', visitor(null))
    ready = null
    expect(first).toMatchObject({ kind: 'redirect', location: expect.stringMatching(/^https:\/\/lp\.example\/\?c=/) })
    const clickId = (first as { clickId: string }).clickId
    expect(await storeB.find(clickId)).toMatchObject({ campaignId: 9, offerId: 5, landingId: 6 })
    offer = target(7, 'https://offer2.example/?c={click_id}') // offer 5 left the rotation
    const next = await tracker.redirect('pg', visitor(clickId))
    expect(next).toEqual({ kind: 'redirect', location: `https://offer2.example/?c=${clickId}`, clickId })
    expect(await storeB.find(clickId)).toMatchObject({ offerId: 7, landingId: 6 })
  })
})
