// RoutingCache over an asynchronous routing source (the Postgres catalog, issue 8): whenReady() semantics,
// an invalidate() that reloads at once and never serves the dropped table, superseded loads, a failing load
// retried; and the synchronous (SQLite) source unchanged: no Promise, built on demand.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, spyOn, test } from 'bun:test'
import { log } from '../../src/lib/log'
import { RoutingCache } from '../../src/tracking/routing'
import type { RoutingRows, RoutingSource } from '../../src/catalog/store/types'
import { openPg, type PgDatabase } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import { catalogStore } from '../../src/catalog'
import { freshPgUrl, pgAvailable } from '../helpers/pg'

/** The first test to ask starts the throwaway cluster (initdb); slow on a loaded machine. */
const PG_SETUP_MS = 60_000

/** Routing rows with one active campaign per slug, each rotating one offer. */
function rowsOf(...slugs: string[]): RoutingRows {
  return {
    campaigns: slugs.map((slug, i) => ({ id: i + 1, slug, sourceId: null, externalId: null, active: 1, botUrl: null, fallbackUrl: null, costModel: 'none', cpc: 0, cpm: 0 })),
    offers: slugs.map((slug, i) => ({ campaignId: i + 1, offerId: 100 + i, weight: 100, url: `https://adv.example/${slug}`, cap: null, offerCap: null })),
    landings: [],
    paths: [], pathOffers: [], pathLandings: [], allOffers: [],
  }
}

/** An async source whose every load the test settles by hand. */
class ManualSource implements RoutingSource {
  readonly pending: Array<{ resolve: (r: RoutingRows) => void; reject: (e: unknown) => void }> = []
  routingRows(): Promise<RoutingRows> {
    return new Promise((resolve, reject) => this.pending.push({ resolve, reject }))
  }
  get calls() { return this.pending.length }
}

/** Lets every queued microtask and promise continuation run. */
const settle = () => new Promise((r) => setTimeout(r, 0))

describe('RoutingCache with a synchronous source (SQLite)', () => {
  test('whenReady() is always null, get() builds on demand, invalidate() only drops the table', () => {
    let calls = 0
    let slugs = ['a']
    const cache = new RoutingCache({ routingRows: () => (calls++, rowsOf(...slugs)) }, null)
    expect(cache.whenReady()).toBeNull()
    expect(cache.get('a')?.slug).toBe('a')
    expect(cache.get('a')?.slug).toBe('a')
    expect(calls).toBe(1)
    slugs = ['a', 'b']
    cache.invalidate()
    expect(calls).toBe(1)
    expect(cache.whenReady()).toBeNull()
    expect(cache.get('b')?.slug).toBe('b')
    expect(calls).toBe(2)
  })

  test('start() resolves after building the table once', async () => {
    let calls = 0
    const cache = new RoutingCache({ routingRows: () => (calls++, rowsOf('a')) }, null)
    await cache.start()
    expect(calls).toBe(1)
    expect(cache.get('a')?.id).toBe(1)
    expect(calls).toBe(1)
  })
})

describe('RoutingCache with an asynchronous source (Postgres)', () => {
  let logged: string[] = []
  let spy: ReturnType<typeof spyOn>
  beforeEach(() => {
    logged = []
    spy = spyOn(log, 'error').mockImplementation(((msg: string, fields?: { error?: string }) => { logged.push(`${msg}: ${fields?.error}`) }) as never)
  })
  afterEach(() => spy.mockRestore())

  test('whenReady() is a Promise until the table is loaded, then null; get() before that refuses instead of answering wrongly', async () => {
    const source = new ManualSource()
    const cache = new RoutingCache(source, null)
    const w = cache.whenReady()
    expect(w).toBeInstanceOf(Promise)
    expect(source.calls).toBe(1)
    expect(cache.whenReady()).toBe(w!) // the same load, not a second one
    expect(() => cache.get('a')).toThrow('routing table not loaded')
    expect(source.calls).toBe(1)
    source.pending[0]!.resolve(rowsOf('a'))
    await w
    expect(cache.whenReady()).toBeNull()
    expect(cache.get('a')?.slug).toBe('a')
    expect(cache.get('zzz')).toBeUndefined()
    expect(cache.fallback('zzz')).toBeNull()
  })

  test('invalidate() reloads at once and drops the old table: a campaign created then routed at once is found', async () => {
    const source = new ManualSource()
    const cache = new RoutingCache(source, null)
    const started = cache.start()
    source.pending[0]!.resolve(rowsOf('a'))
    await started
    expect(cache.get('new')).toBeUndefined()

    cache.invalidate() // the writer's catalog.changed, after its commit
    expect(source.calls).toBe(2) // started at once, before any request
    const w = cache.whenReady()
    expect(w).toBeInstanceOf(Promise)
    expect(() => cache.get('a')).toThrow('routing table not loaded') // never the dropped table
    source.pending[1]!.resolve(rowsOf('a', 'new'))
    await w
    expect(cache.get('new')?.slug).toBe('new')
  })

  test('a load that finishes after a newer one started is discarded; its waiters get the newer table', async () => {
    const source = new ManualSource()
    const cache = new RoutingCache(source, null)
    const first = cache.whenReady()!
    cache.invalidate() // a change committed while the first load was reading
    expect(source.calls).toBe(2)
    let firstDone = false
    void first.then(() => { firstDone = true })
    source.pending[0]!.resolve(rowsOf('old'))
    await settle()
    expect(firstDone).toBe(false) // still waiting for the newer load
    expect(cache.whenReady()).toBeInstanceOf(Promise)
    source.pending[1]!.resolve(rowsOf('old', 'newer'))
    await first
    expect(cache.whenReady()).toBeNull()
    expect(cache.get('newer')?.slug).toBe('newer')
  })

  test('a failing load rejects its waiters and is retried on the next whenReady() (and on a get())', async () => {
    const source = new ManualSource()
    const cache = new RoutingCache(source, null)
    const w = cache.whenReady()!
    source.pending[0]!.reject(new Error('connection refused'))
    await expect(w).rejects.toThrow('connection refused')
    expect(source.calls).toBe(1)

    const retry = cache.whenReady()!
    expect(retry).toBeInstanceOf(Promise)
    expect(source.calls).toBe(2)
    source.pending[1]!.reject(new Error('still down'))
    await expect(retry).rejects.toThrow('still down')
    expect(logged).toEqual([
      'tracking: loading the routing table failed (retried on the next request): connection refused',
      'tracking: loading the routing table failed (retried on the next request): still down',
    ])

    // A get() without waiting starts the retry too (and refuses until it lands).
    expect(() => cache.get('a')).toThrow('routing table not loaded')
    expect(source.calls).toBe(3)
    source.pending[2]!.resolve(rowsOf('a'))
    await cache.whenReady()
    expect(cache.get('a')?.slug).toBe('a')
  })

  test('a failing reload started by invalidate() is no unhandled rejection; the next request retries', async () => {
    const source = new ManualSource()
    const cache = new RoutingCache(source, null)
    const started = cache.start()
    source.pending[0]!.resolve(rowsOf('a'))
    await started
    cache.invalidate()
    source.pending[1]!.reject(new Error('blip'))
    await settle()
    expect(logged).toEqual(['tracking: loading the routing table failed (retried on the next request): blip'])
    const w = cache.whenReady()!
    expect(source.calls).toBe(3)
    source.pending[2]!.resolve(rowsOf('a', 'b'))
    await w
    expect(cache.get('b')?.slug).toBe('b')
  })

  test('a source that throws synchronously on a reload counts as a failed load', async () => {
    let fail = false
    const cache = new RoutingCache({ routingRows: () => { if (fail) throw new Error('sync-ish'); return Promise.resolve(rowsOf('a')) } }, null)
    await cache.start()
    fail = true
    cache.invalidate()
    await expect(cache.whenReady() ?? Promise.resolve()).rejects.toThrow('sync-ish')
    fail = false
    await cache.start()
    expect(cache.get('a')?.slug).toBe('a')
  })
})

// The real thing: two instances (two pools), each with its own cache over its own catalog store.
describe.skipIf(!pgAvailable().ok)('RoutingCache over the catalog store on Postgres', () => {
  let a: PgDatabase
  let b: PgDatabase
  beforeAll(async () => {
    const url = await freshPgUrl()
    a = await openPg(url)
    await migratePg(a)
    b = await openPg(url)
  }, PG_SETUP_MS)
  afterAll(async () => {
    await a?.close()
    await b?.close()
  })

  const ready = async (c: RoutingCache) => { for (let w = c.whenReady(); w; w = c.whenReady()) await w }

  test('a campaign created on one instance routes at once there, and on the other after its invalidate()', async () => {
    const storeA = catalogStore(a)
    const storeB = catalogStore(b)
    const cacheA = new RoutingCache(storeA, 'https://t.example')
    const cacheB = new RoutingCache(storeB, 'https://t.example')
    await cacheA.start()
    await cacheB.start()
    expect(cacheA.whenReady()).toBeNull()
    expect(cacheA.get('pg-live')).toBeUndefined()

    const o = await storeA.createOffer({ name: 'O', slug: 'pg-o', url: 'https://adv.example/?c={click_id}', payout: 0, currency: 'USD' })
    const l = await storeA.createLanding({ name: 'L', slug: 'pg-l', html: '<p>x</p>', url: null, emailListId: null })
    const c = await storeA.createCampaign(
      { name: 'C', slug: 'pg-live', sourceId: null, externalId: null, active: true, botUrl: null, fallbackUrl: null, costModel: 'cpc', cpc: 0.1, cpm: 0, revsharePercent: 0 },
      { offers: [{ id: o.id, weight: 100, field: 'offer_id' }], landings: [{ id: l.id, weight: 100, field: 'landing_id' }] },
    )
    cacheA.invalidate()
    await ready(cacheA)
    const route = cacheA.get('pg-live')!
    expect(route).toMatchObject({ id: c.row.id, slug: 'pg-live', costModel: 'cpc', cpc: 0.1 })
    expect(route.offers.items.map((t) => t.id)).toEqual([o.id])
    expect(route.landings!.items.map((t) => t.id)).toEqual([l.id])

    // The other instance keeps its table until told (integration forwards catalog.changed via NOTIFY).
    expect(cacheB.get('pg-live')).toBeUndefined()
    cacheB.invalidate()
    await ready(cacheB)
    expect(cacheB.get('pg-live')?.id).toBe(c.row.id)

    // Paused with a fallback: no route, its fallback instead.
    await storeB.updateCampaign(c.row.id, { active: false, fallbackUrl: 'https://fb.example/' }, {})
    cacheB.invalidate()
    await ready(cacheB)
    expect(cacheB.get('pg-live')).toBeUndefined()
    expect(cacheB.fallback('pg-live')).toBe('https://fb.example/')
  })
})
