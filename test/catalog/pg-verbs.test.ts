// The catalog verbs over each engine's store (issue 8): the same script and the same answers on SQLite and
// Postgres, with the routing cache wired as tracking wires it (dropped on catalog.changed after commit), so a
// campaign created through a verb routes on the very next request.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { catalogStore } from '../../src/catalog'
import { campaignVerbs } from '../../src/catalog/campaigns/verbs'
import { landingVerbs } from '../../src/catalog/landings/verbs'
import { offerVerbs } from '../../src/catalog/offers/verbs'
import { sourceVerbs } from '../../src/catalog/sources/verbs'
import { openDatabase } from '../../src/db/client'
import { migrate } from '../../src/db/migrate'
import { openPg } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import type { DomainEvents } from '../../src/events'
import { EventBus } from '../../src/lib/event-bus'
import type { AppError } from '../../src/lib/errors'
import { invoke, systemActor, type Verb } from '../../src/lib/verb'
import { RoutingCache } from '../../src/tracking/routing'
import { freshPgUrl, pgAvailable } from '../helpers/pg'

/** The first test to ask starts the throwaway cluster (initdb); slow on a loaded machine. */
const PG_SETUP_MS = 60_000

async function failure(call: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await call
  } catch (err) {
    const e = err as AppError
    return { code: e.code, message: e.message }
  }
  throw new Error('expected the call to fail')
}

const engines: Array<[string, boolean]> = [['sqlite', true], ['postgres', pgAvailable().ok]]

for (const [engine, available] of engines) {
  describe.skipIf(!available)(`catalog verbs on ${engine}`, () => {
    let close: () => Promise<void>
    let cache: RoutingCache
    let heard: Array<DomainEvents['catalog.changed']> = []
    let run: (name: string, input: unknown) => Promise<any>

    beforeAll(async () => {
      let store
      if (engine === 'postgres') {
        const db = await openPg(await freshPgUrl())
        await migratePg(db)
        store = catalogStore(db)
        close = () => db.close()
      } else {
        const dir = mkdtempSync(join(tmpdir(), 'svc-catalog-verbs-'))
        const db = await openDatabase(join(dir, 'svc.db'))
        migrate(db)
        store = catalogStore(db)
        close = async () => { db.close(); rmSync(dir, { recursive: true, force: true }) }
      }
      const events = new EventBus()
      cache = new RoutingCache(store, 'https://t.example')
      events.on('catalog.changed', 'after-commit', 'tracking.routing-cache', () => cache.invalidate())
      events.on('catalog.changed', 'after-commit', 'test', (c) => { heard.push(c) })
      const deps = { store, events }
      const verbs = new Map<string, Verb>()
      for (const set of [sourceVerbs(deps), offerVerbs(deps), landingVerbs(deps), campaignVerbs(deps)]) {
        for (const v of Object.values(set)) verbs.set(v.name, v as never)
      }
      const system = systemActor('test')
      run = (name, input) => invoke(verbs.get(name)!, system, input as never) as Promise<any>
      await cache.start()
    }, PG_SETUP_MS)
    afterAll(() => close?.())

    /** What tracking does before get(): wait while a (re)load is in flight. */
    const route = async (slug: string) => {
      for (let w = cache.whenReady(); w; w = cache.whenReady()) await w
      return cache.get(slug)
    }

    test('create, read, change and delete each entity; every write heard after commit; routing follows at once', async () => {
      heard = []
      expect(await route('v-camp')).toBeUndefined()
      const source = await run('catalog.sources.create', { name: 'Push' })
      const offer = await run('catalog.offers.create', { name: 'Offer', slug: 'v-offer', url: 'https://adv.example/?c={click_id}', currency: 'eur' })
      expect(offer).toMatchObject({ slug: 'v-offer', currency: 'EUR', payout: 0 })
      const landing = await run('catalog.landings.create', { name: 'L', slug: 'v-landing', html: '<p>hi</p>' })
      const campaign = await run('catalog.campaigns.create', { name: 'C', slug: 'v-camp', source_id: source.id, offer_id: offer.id, landing_id: landing.id })
      expect(campaign.links).toEqual({ offers: [{ offerId: offer.id, weight: 100 }], landings: [{ landingId: landing.id, weight: 100 }] })

      // The campaign routes on the next request: catalog.changed dropped the table and the reload has it.
      const r = (await route('v-camp'))!
      expect(r.id).toBe(campaign.row.id)
      expect(r.landings!.items.map((t) => t.id)).toEqual([landing.id])

      expect((await run('catalog.campaigns.get', { id: campaign.row.id })).row.slug).toBe('v-camp')
      const paused = await run('catalog.campaigns.update', { id: campaign.row.id, active: false, fallback_url: 'https://fb.example/' })
      expect(paused.row.active).toBe(false)
      expect(await route('v-camp')).toBeUndefined()
      expect(cache.fallback('v-camp')).toBe('https://fb.example/')

      expect((await run('catalog.sources.update', { id: source.id, name: 'Push 2' })).name).toBe('Push 2')
      expect((await run('catalog.offers.list', { limit: '1' })).items.map((o: { id: number }) => o.id)).toEqual([offer.id])
      await run('catalog.campaigns.delete', { id: campaign.row.id })
      await run('catalog.landings.delete', { id: landing.id })
      await run('catalog.offers.delete', { id: offer.id })
      await run('catalog.sources.delete', { id: source.id })

      expect(heard).toEqual([
        { entity: 'source', id: source.id, action: 'created' },
        { entity: 'offer', id: offer.id, action: 'created' },
        { entity: 'landing', id: landing.id, action: 'created' },
        { entity: 'campaign', id: campaign.row.id, action: 'created' },
        { entity: 'campaign', id: campaign.row.id, action: 'updated' },
        { entity: 'source', id: source.id, action: 'updated' },
        { entity: 'campaign', id: campaign.row.id, action: 'deleted' },
        { entity: 'landing', id: landing.id, action: 'deleted' },
        { entity: 'offer', id: offer.id, action: 'deleted' },
        { entity: 'source', id: source.id, action: 'deleted' },
      ])
    })

    test('refusals: the same codes and messages, and nothing heard', async () => {
      const offer = await run('catalog.offers.create', { name: 'O', slug: 'v-o2', url: 'https://adv.example/' })
      const c = await run('catalog.campaigns.create', { name: 'C', slug: 'v-c2', offer_id: offer.id })
      heard = []
      expect(await failure(run('catalog.offers.create', { name: 'O', slug: 'v-o2', url: 'https://adv.example/' })))
        .toEqual({ code: 'conflict', message: 'slug: "v-o2" is already used by another offer' })
      expect(await failure(run('catalog.campaigns.create', { name: 'C', slug: 'v-c2', offer_id: offer.id })))
        .toEqual({ code: 'conflict', message: 'slug: "v-c2" is already used by another campaign' })
      expect(await failure(run('catalog.campaigns.create', { name: 'C', slug: 'v-c3', offers: [{ offer_id: offer.id }, { offer_id: 424242 }] })))
        .toEqual({ code: 'invalid', message: 'offers.1.offer_id: offer 424242 does not exist' })
      expect(await failure(run('catalog.campaigns.update', { id: c.row.id, source_id: 424242 })))
        .toEqual({ code: 'invalid', message: 'source_id: source 424242 does not exist' })
      expect(await failure(run('catalog.offers.delete', { id: offer.id })))
        .toEqual({ code: 'conflict', message: `offer is used by campaign "v-c2" (id ${c.row.id})` })
      expect(await failure(run('catalog.campaigns.get', { id: 424242 }))).toEqual({ code: 'not_found', message: 'campaign not found' })
      expect(await failure(run('catalog.landings.update', { id: 424242, name: 'x' }))).toEqual({ code: 'not_found', message: 'landing not found' })
      expect(heard).toEqual([])
    })
  })
}
