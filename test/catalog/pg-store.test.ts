// The catalog store on both engines (issue 8): the same expectations run against a fresh SQLite file and a
// fresh Postgres database: rows and their types, ordering, paging, and every AppError code and message.
// Then Postgres-only: two instances (two pools) writing the same catalog at once.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/client'
import { migrate } from '../../src/db/migrate'
import { openPg, type PgDatabase } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import { catalogStore } from '../../src/catalog'
import type { CatalogStore, RoutingSource } from '../../src/catalog/store/types'
import type { AppError } from '../../src/lib/errors'
import { freshPgUrl, pgAvailable } from '../helpers/pg'

/** The first test to ask starts the throwaway cluster (initdb); slow on a loaded machine. */
const PG_SETUP_MS = 60_000

type Store = CatalogStore & RoutingSource

interface Engine {
  store: Store
  /** Records a click of the campaign straight in the clicks table (what tracking would write). */
  addClick(campaignId: number): Promise<void>
  /** Runs one SQL statement straight on the database (what an operator's SQL or a table rewrite would do). */
  exec(sql: string): Promise<void>
  close(): Promise<void>
}

async function sqliteEngine(): Promise<Engine> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-catalog-'))
  const database = await openDatabase(join(dir, 'svc.db'))
  migrate(database)
  return {
    store: catalogStore(database),
    addClick: async (campaignId) => {
      database.raw.prepare('INSERT INTO clicks (click_id, campaign_id, created_at) VALUES ($clickId, $campaignId, $now)')
        .run({ clickId: crypto.randomUUID(), campaignId, now: Date.now() })
    },
    exec: async (sql) => {
      database.raw.exec(sql)
    },
    close: async () => {
      database.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

async function pgEngine(): Promise<Engine> {
  const db = await openPg(await freshPgUrl())
  await migratePg(db)
  return {
    store: catalogStore(db),
    addClick: async (campaignId) => {
      await db.sql`INSERT INTO clicks (click_id, campaign_id, created_at) VALUES (${crypto.randomUUID()}, ${campaignId}, ${Date.now()})`
    },
    exec: async (sql) => {
      await db.sql.unsafe(sql)
    },
    close: () => db.close(),
  }
}

/** The AppError a call rejects with, as { code, message }. */
async function failure(call: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await call
  } catch (err) {
    const e = err as AppError
    return { code: e.code, message: e.message }
  }
  throw new Error('expected the call to fail')
}

const page = (limit: number, afterId = 0) => ({ limit, afterId })
const ref = (id: number, field: string, weight = 100) => ({ id, weight, field })
const campaignValues = (slug: string, sourceId: number | null = null) => ({
  name: `Campaign ${slug}`, slug, sourceId, externalId: null, active: true, botUrl: null, fallbackUrl: null, costModel: 'none' as const, cpc: 0, cpm: 0, revsharePercent: 0,
})

const engines: Array<[string, () => Promise<Engine>, boolean]> = [
  ['sqlite', sqliteEngine, true],
  ['postgres', pgEngine, pgAvailable().ok],
]

for (const [name, open, available] of engines) {
  describe.skipIf(!available)(`catalog store on ${name}`, () => {
    let e: Engine
    let store: Store
    beforeAll(async () => {
      e = await open()
      store = e.store
    }, PG_SETUP_MS)
    afterAll(() => e?.close())

    test('one store module serves both engines', () => {
      expect(store.constructor.name).toBe('CatalogDbStore')
    })

    test('sources: create, find, list in pages, update, delete; times are numbers', async () => {
      const before = Date.now()
      const a = await store.createSource({ name: 'Push', postbackUrl: 'https://src.example/pb?c={click_id}' })
      expect(a).toEqual({ id: a.id, name: 'Push', postbackUrl: 'https://src.example/pb?c={click_id}', linkParams: null, createdAt: a.createdAt, updatedAt: a.createdAt })
      expect(typeof a.id).toBe('number')
      expect(typeof a.createdAt).toBe('number')
      expect(a.createdAt).toBeGreaterThanOrEqual(before)
      const b = await store.createSource({ name: 'Native', postbackUrl: null })
      const c = await store.createSource({ name: 'Pop', postbackUrl: null })
      expect(await store.findSource(a.id)).toEqual(a)
      expect(await store.findSource(99999)).toBeUndefined()

      // limit + 1 rows in id order, from after the cursor.
      expect((await store.listSources(page(1))).map((r) => r.id)).toEqual([a.id, b.id])
      expect((await store.listSources(page(5, a.id))).map((r) => r.id)).toEqual([b.id, c.id])

      const changed = await store.updateSource(b.id, { name: 'Native 2' })
      expect(changed).toEqual({ ...b, name: 'Native 2', updatedAt: changed.updatedAt })
      expect(changed.updatedAt).toBeGreaterThanOrEqual(b.updatedAt)
      expect(await failure(store.updateSource(99999, { name: 'x' }))).toEqual({ code: 'not_found', message: 'source not found' })

      await store.deleteSource(c.id)
      expect(await store.findSource(c.id)).toBeUndefined()
      expect(await failure(store.deleteSource(c.id))).toEqual({ code: 'not_found', message: 'source not found' })
    })

    test('offers: slugs are unique on create and update; numbers come back as numbers', async () => {
      const o = await store.createOffer({ name: 'O', slug: 'offer-a', url: 'https://adv.example/?c={click_id}', payout: 2.5, currency: 'EUR' })
      expect(o).toEqual({ id: o.id, name: 'O', slug: 'offer-a', url: 'https://adv.example/?c={click_id}', payout: 2.5, currency: 'EUR', cap: null, createdAt: o.createdAt, updatedAt: o.updatedAt })
      const p = await store.createOffer({ name: 'P', slug: 'offer-b', url: 'https://adv.example/p', payout: 0, currency: 'USD' })
      expect(await failure(store.createOffer({ name: 'X', slug: 'offer-a', url: 'https://x.example/', payout: 0, currency: 'USD' })))
        .toEqual({ code: 'conflict', message: 'slug: "offer-a" is already used by another offer' })
      expect(await failure(store.updateOffer(p.id, { slug: 'offer-a' })))
        .toEqual({ code: 'conflict', message: 'slug: "offer-a" is already used by another offer' })
      // Its own slug is no conflict.
      expect((await store.updateOffer(o.id, { slug: 'offer-a', payout: 3 })).payout).toBe(3)
      expect(await failure(store.updateOffer(99999, { name: 'x' }))).toEqual({ code: 'not_found', message: 'offer not found' })
      expect(await failure(store.deleteOffer(99999))).toEqual({ code: 'not_found', message: 'offer not found' })
      expect((await store.findOffer(p.id))!.slug).toBe('offer-b')
      expect((await store.listOffers(page(10))).map((r) => r.slug)).toEqual(['offer-a', 'offer-b'])
    })

    test('landings: html or url, an existing email list, slug conflicts, not found', async () => {
      await e.exec("INSERT INTO email_lists (id, name, created_at, updated_at) VALUES (7, 'seven', 0, 0), (3, 'three', 0, 0)")
      expect(await failure(store.createLanding({ name: 'L', slug: 'land-a', html: '<p>hi</p>', url: null, emailListId: 8 })))
        .toEqual({ code: 'invalid', message: 'email_list_id: email list 8 does not exist' })
      const l = await store.createLanding({ name: 'L', slug: 'land-a', html: '<p>hi</p>', url: null, emailListId: 7 })
      expect(l).toEqual({ id: l.id, name: 'L', slug: 'land-a', html: '<p>hi</p>', url: null, emailListId: 7, createdAt: l.createdAt, updatedAt: l.updatedAt })
      const m = await store.createLanding({ name: 'M', slug: 'land-b', html: null, url: 'https://lp.example/?c={click_id}', emailListId: null })
      expect(await failure(store.createLanding({ name: 'X', slug: 'land-b', html: 'x', url: null, emailListId: null })))
        .toEqual({ code: 'conflict', message: 'slug: "land-b" is already used by another landing' })
      expect(await failure(store.updateLanding(l.id, { slug: 'land-b' })))
        .toEqual({ code: 'conflict', message: 'slug: "land-b" is already used by another landing' })
      expect(await store.updateLanding(m.id, { html: '<b>x</b>', emailListId: 3 })).toMatchObject({ html: '<b>x</b>', emailListId: 3, url: m.url })
      expect(await failure(store.updateLanding(m.id, { emailListId: 4 }))).toEqual({ code: 'invalid', message: 'email_list_id: email list 4 does not exist' })
      expect((await store.findLanding(m.id))!.emailListId).toBe(3)
      expect(await failure(store.updateLanding(99999, {}))).toEqual({ code: 'not_found', message: 'landing not found' })
      expect(await failure(store.deleteLanding(99999))).toEqual({ code: 'not_found', message: 'landing not found' })
      expect(await store.findLanding(99999)).toBeUndefined()
    })

    test('campaigns: row and rotations in the order given; updates replace a given rotation and keep an absent one', async () => {
      const src = await store.createSource({ name: 'S', postbackUrl: null })
      const o1 = await store.createOffer({ name: 'O1', slug: 'c-o1', url: 'https://a.example/1', payout: 0, currency: 'USD' })
      const o2 = await store.createOffer({ name: 'O2', slug: 'c-o2', url: 'https://a.example/2', payout: 0, currency: 'USD' })
      const l1 = await store.createLanding({ name: 'L1', slug: 'c-l1', html: 'x', url: null, emailListId: null })
      const c = await store.createCampaign({ ...campaignValues('camp-a', src.id), cpc: 0.25, costModel: 'cpc' },
        { offers: [ref(o2.id, 'offers.0.offer_id', 30), ref(o1.id, 'offers.1.offer_id', 70)], landings: [ref(l1.id, 'landing_id')] })
      expect(c.row).toEqual({
        id: c.row.id, name: 'Campaign camp-a', slug: 'camp-a', sourceId: src.id, externalId: null, active: true, botUrl: null,
        fallbackUrl: null, costModel: 'cpc', cpc: 0.25, cpm: 0, revsharePercent: 0, createdAt: c.row.createdAt, updatedAt: c.row.updatedAt,
      })
      expect(typeof c.row.createdAt).toBe('number')
      expect(c.links).toEqual({ offers: [{ offerId: o2.id, weight: 30 }, { offerId: o1.id, weight: 70 }], landings: [{ landingId: l1.id, weight: 100 }] })
      expect(await store.findCampaign(c.row.id)).toEqual(c)

      const paused = await store.updateCampaign(c.row.id, { active: false, externalId: 'ext-1' }, { landings: [] })
      expect(paused.row).toMatchObject({ active: false, externalId: 'ext-1', slug: 'camp-a' })
      expect(paused.links).toEqual({ offers: c.links.offers, landings: [] })
      const again = await store.updateCampaign(c.row.id, { active: true }, { offers: [ref(o1.id, 'offer_id')] })
      expect(again.row.active).toBe(true)
      expect(again.links.offers).toEqual([{ offerId: o1.id, weight: 100 }])

      const d = await store.createCampaign(campaignValues('camp-b'), { offers: [ref(o2.id, 'offer_id')], landings: [] })
      const listed = await store.listCampaigns(page(5))
      expect(listed.map((x) => x.row.slug)).toEqual(['camp-a', 'camp-b'])
      expect(listed[1]).toEqual(d)
      expect((await store.listCampaigns(page(5, c.row.id))).map((x) => x.row.id)).toEqual([d.row.id])
    })

    test('campaigns: the given rotation order is stored, not inferred from where rows sit on disk', async () => {
      const [a, b, c] = await Promise.all(['p-a', 'p-b', 'p-c'].map((slug, i) =>
        store.createOffer({ name: slug, slug, url: `https://p.example/${i}`, payout: 0, currency: 'USD' })))
      const [l1, l2] = await Promise.all(['p-l1', 'p-l2'].map((slug) => store.createLanding({ name: slug, slug, html: 'x', url: null, emailListId: null })))
      const camp = await store.createCampaign(campaignValues('p-camp'),
        { offers: [ref(c.id, 'o', 1), ref(a.id, 'o', 2), ref(b.id, 'o', 3)], landings: [ref(l2.id, 'l', 4), ref(l1.id, 'l', 5)] })
      // The first link of each list is rewritten (delete + insert of the same values), so it now sits
      // physically last: insertion order (rowid, ctid) no longer matches the given order.
      const id = camp.row.id
      await e.exec(`DELETE FROM campaign_offers WHERE campaign_id = ${id} AND offer_id = ${c.id}`)
      await e.exec(`INSERT INTO campaign_offers (campaign_id, offer_id, weight, position) VALUES (${id}, ${c.id}, 1, 0)`)
      await e.exec(`DELETE FROM campaign_landings WHERE campaign_id = ${id} AND landing_id = ${l2.id}`)
      await e.exec(`INSERT INTO campaign_landings (campaign_id, landing_id, weight, position) VALUES (${id}, ${l2.id}, 4, 0)`)
      const expected = {
        offers: [{ offerId: c.id, weight: 1 }, { offerId: a.id, weight: 2 }, { offerId: b.id, weight: 3 }],
        landings: [{ landingId: l2.id, weight: 4 }, { landingId: l1.id, weight: 5 }],
      }
      expect((await store.findCampaign(id))!.links).toEqual(expected)
      expect((await store.listCampaigns(page(100))).find((x) => x.row.id === id)!.links).toEqual(expected)
      // The routing table reads the rotation in the same order.
      const rows = await store.routingRows()
      expect(rows.offers.filter((o) => o.campaignId === id).map((o) => o.offerId)).toEqual([c.id, a.id, b.id])
      expect(rows.landings.filter((l) => l.campaignId === id).map((l) => l.landingId)).toEqual([l2.id, l1.id])
      // A replaced rotation takes the new order.
      const swapped = await store.updateCampaign(id, {}, { offers: [ref(b.id, 'o', 3), ref(c.id, 'o', 1)] })
      expect(swapped.links.offers).toEqual([{ offerId: b.id, weight: 3 }, { offerId: c.id, weight: 1 }])
    })

    test('campaigns: unknown references are invalid naming the field; slugs conflict; unknown ids are not found', async () => {
      const o = await store.createOffer({ name: 'O', slug: 'r-o', url: 'https://a.example/', payout: 0, currency: 'USD' })
      const links = { offers: [ref(o.id, 'offers.0.offer_id')], landings: [] }
      expect(await failure(store.createCampaign(campaignValues('r-a', 99999), links)))
        .toEqual({ code: 'invalid', message: 'source_id: source 99999 does not exist' })
      expect(await failure(store.createCampaign(campaignValues('r-a'), { offers: [ref(o.id, 'offers.0.offer_id'), ref(99998, 'offers.1.offer_id')], landings: [] })))
        .toEqual({ code: 'invalid', message: 'offers.1.offer_id: offer 99998 does not exist' })
      expect(await failure(store.createCampaign(campaignValues('r-a'), { ...links, landings: [ref(99997, 'landing_id')] })))
        .toEqual({ code: 'invalid', message: 'landing_id: landing 99997 does not exist' })
      // Nothing of the refused writes was kept.
      expect((await store.listCampaigns(page(100))).filter((c) => c.row.slug === 'r-a')).toEqual([])

      const a = await store.createCampaign(campaignValues('r-a'), links)
      const b = await store.createCampaign(campaignValues('r-b'), links)
      expect(await failure(store.createCampaign(campaignValues('r-a'), links)))
        .toEqual({ code: 'conflict', message: 'slug: "r-a" is already used by another campaign' })
      expect(await failure(store.updateCampaign(b.row.id, { slug: 'r-a' }, {})))
        .toEqual({ code: 'conflict', message: 'slug: "r-a" is already used by another campaign' })
      expect(await failure(store.updateCampaign(b.row.id, { sourceId: 99999 }, {})))
        .toEqual({ code: 'invalid', message: 'source_id: source 99999 does not exist' })
      expect(await failure(store.updateCampaign(b.row.id, {}, { offers: [ref(99996, 'offers.0.offer_id')] })))
        .toEqual({ code: 'invalid', message: 'offers.0.offer_id: offer 99996 does not exist' })
      // A refused update changed nothing.
      expect(await store.findCampaign(b.row.id)).toEqual(b)
      expect(await failure(store.updateCampaign(99999, {}, {}))).toEqual({ code: 'not_found', message: 'campaign not found' })
      expect(await failure(store.deleteCampaign(99999))).toEqual({ code: 'not_found', message: 'campaign not found' })
      expect(await store.findCampaign(99999)).toBeUndefined()
      expect(a.row.slug).toBe('r-a')
    })

    test('deleting a source, offer or landing a campaign uses is refused; a campaign with clicks is too', async () => {
      const src = await store.createSource({ name: 'S', postbackUrl: null })
      const o = await store.createOffer({ name: 'O', slug: 'd-o', url: 'https://a.example/', payout: 0, currency: 'USD' })
      const l = await store.createLanding({ name: 'L', slug: 'd-l', html: 'x', url: null, emailListId: null })
      const c = await store.createCampaign(campaignValues('d-c', src.id), { offers: [ref(o.id, 'offer_id')], landings: [ref(l.id, 'landing_id')] })
      const user = `campaign "d-c" (id ${c.row.id})`
      expect(await failure(store.deleteSource(src.id))).toEqual({ code: 'conflict', message: `source is used by ${user}` })
      expect(await failure(store.deleteOffer(o.id))).toEqual({ code: 'conflict', message: `offer is used by ${user}` })
      expect(await failure(store.deleteLanding(l.id))).toEqual({ code: 'conflict', message: `landing is used by ${user}` })

      const clicked = await store.createCampaign(campaignValues('d-clicked'), { offers: [ref(o.id, 'offer_id')], landings: [] })
      await e.addClick(clicked.row.id)
      expect(await failure(store.deleteCampaign(clicked.row.id))).toEqual({ code: 'conflict', message: 'campaign has clicks; set active=false instead' })
      expect(await store.findCampaign(clicked.row.id)).toBeDefined()

      // Once the campaign is gone (its rotations with it), the source, landing and (after the other user) offer can go.
      await store.deleteCampaign(c.row.id)
      expect(await store.findCampaign(c.row.id)).toBeUndefined()
      await store.deleteSource(src.id)
      await store.deleteLanding(l.id)
      expect(await failure(store.deleteOffer(o.id))).toEqual({ code: 'conflict', message: `offer is used by campaign "d-clicked" (id ${clicked.row.id})` })
      expect(await store.findLanding(l.id)).toBeUndefined()
    })

    test('a delete refused for several users names the campaign with the lowest id, on both engines', async () => {
      const src = await store.createSource({ name: 'S', postbackUrl: null })
      const o = await store.createOffer({ name: 'O', slug: 'u-o', url: 'https://a.example/', payout: 0, currency: 'USD' })
      const l = await store.createLanding({ name: 'L', slug: 'u-l', html: 'x', url: null, emailListId: null })
      const links = { offers: [ref(o.id, 'offer_id')], landings: [ref(l.id, 'landing_id')] }
      const first = await store.createCampaign(campaignValues('u-first', src.id), links)
      await store.createCampaign(campaignValues('u-second', src.id), links)
      // The first campaign's links are rewritten, so they now sit after the second's on disk (rowid, ctid).
      await store.updateCampaign(first.row.id, { sourceId: null }, links)
      await store.updateCampaign(first.row.id, { sourceId: src.id }, {})
      const user = `campaign "u-first" (id ${first.row.id})`
      expect(await failure(store.deleteOffer(o.id))).toEqual({ code: 'conflict', message: `offer is used by ${user}` })
      expect(await failure(store.deleteLanding(l.id))).toEqual({ code: 'conflict', message: `landing is used by ${user}` })
      expect(await failure(store.deleteSource(src.id))).toEqual({ code: 'conflict', message: `source is used by ${user}` })
    })

    test('routing rows: active campaigns and paused ones with a fallback, their offers and landings', async () => {
      const o = await store.createOffer({ name: 'O', slug: 'rt-o', url: 'https://a.example/rt', payout: 0, currency: 'USD' })
      const hosted = await store.createLanding({ name: 'H', slug: 'rt-h', html: '<p>x</p>', url: null, emailListId: null })
      const empty = await store.createLanding({ name: 'E', slug: 'rt-e', html: '', url: 'https://lp.example/', emailListId: null })
      const live = await store.createCampaign({ ...campaignValues('rt-live'), botUrl: 'https://bots.example/', costModel: 'cpc', cpc: 0.5 },
        { offers: [ref(o.id, 'offer_id', 40)], landings: [ref(hosted.id, 'a'), ref(empty.id, 'b', 60)] })
      const fallback = await store.createCampaign({ ...campaignValues('rt-paused'), active: false, fallbackUrl: 'https://fb.example/' },
        { offers: [ref(o.id, 'offer_id')], landings: [] })
      const hidden = await store.createCampaign({ ...campaignValues('rt-hidden'), active: false }, { offers: [ref(o.id, 'offer_id')], landings: [] })

      const rows = await store.routingRows()
      const mine = new Set([live.row.id, fallback.row.id, hidden.row.id])
      expect(rows.campaigns.filter((c) => mine.has(c.id)).sort((a, b) => a.id - b.id)).toEqual([
        { id: live.row.id, slug: 'rt-live', sourceId: null, externalId: null, active: 1, botUrl: 'https://bots.example/', fallbackUrl: null, costModel: 'cpc', cpc: 0.5, cpm: 0 },
        { id: fallback.row.id, slug: 'rt-paused', sourceId: null, externalId: null, active: 0, botUrl: null, fallbackUrl: 'https://fb.example/', costModel: 'none', cpc: 0, cpm: 0 },
      ])
      expect(rows.offers.filter((r) => r.campaignId === live.row.id)).toEqual([{ campaignId: live.row.id, offerId: o.id, weight: 40, autoWeight: null, url: 'https://a.example/rt', cap: null, offerCap: null }])
      const landings = rows.landings.filter((r) => r.campaignId === live.row.id).sort((a, b) => a.landingId - b.landingId)
      expect(landings.map((l) => ({ ...l, hasHtml: Boolean(l.hasHtml) }))).toEqual([
        { campaignId: live.row.id, landingId: hosted.id, weight: 100, autoWeight: null, slug: 'rt-h', url: null, hasHtml: true },
        { campaignId: live.row.id, landingId: empty.id, weight: 60, autoWeight: null, slug: 'rt-e', url: 'https://lp.example/', hasHtml: false },
      ])
    })
  })
}

// Two svc instances on one database: two pools, each with its own store, writing the same catalog at once.
describe.skipIf(!pgAvailable().ok)('catalog store on postgres: two instances at once', () => {
  let url: string
  let a: PgDatabase
  let b: PgDatabase
  let sa: Store
  let sb: Store
  beforeAll(async () => {
    url = await freshPgUrl()
    a = await openPg(url)
    await migratePg(a)
    b = await openPg(url)
    sa = catalogStore(a)
    sb = catalogStore(b)
  }, PG_SETUP_MS)
  afterAll(async () => {
    await a?.close()
    await b?.close()
  })

  test('a campaign linking an offer and a delete of that offer: exactly one wins, the other gets its usual error', async () => {
    const outcomes = new Set<string>()
    for (let i = 0; i < 12; i++) {
      const o = await sa.createOffer({ name: 'O', slug: `race-o-${i}`, url: 'https://a.example/', payout: 0, currency: 'USD' })
      const [created, deleted] = await Promise.allSettled([
        sa.createCampaign(campaignValues(`race-c-${i}`), { offers: [ref(o.id, 'offer_id')], landings: [] }),
        // Half the rounds give the create a head start, so both orders are exercised.
        (async () => { if (i % 2) await Bun.sleep(1); return sb.deleteOffer(o.id) })(),
      ])
      if (created.status === 'fulfilled') {
        expect(deleted.status).toBe('rejected')
        expect(await failure(Promise.reject((deleted as PromiseRejectedResult).reason)))
          .toEqual({ code: 'conflict', message: `offer is used by campaign "race-c-${i}" (id ${created.value.row.id})` })
        expect((await sb.findCampaign(created.value.row.id))!.links.offers).toEqual([{ offerId: o.id, weight: 100 }])
        outcomes.add('campaign')
      } else {
        expect(deleted.status).toBe('fulfilled')
        expect(await failure(Promise.reject(created.reason))).toEqual({ code: 'invalid', message: `offer_id: offer ${o.id} does not exist` })
        expect(await sa.findOffer(o.id)).toBeUndefined()
        outcomes.add('delete')
      }
    }
    expect(outcomes.size).toBeGreaterThan(0)
  })

  test('the same slug created by both instances at once: one row, the other a conflict (never a raw unique violation)', async () => {
    for (let i = 0; i < 8; i++) {
      const offerSlug = `dup-o-${i}`
      const results = await Promise.allSettled([
        sa.createOffer({ name: 'A', slug: offerSlug, url: 'https://a.example/', payout: 0, currency: 'USD' }),
        sb.createOffer({ name: 'B', slug: offerSlug, url: 'https://b.example/', payout: 0, currency: 'USD' }),
      ])
      expect(results.filter((r) => r.status === 'fulfilled').length).toBe(1)
      const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult
      expect(await failure(Promise.reject(lost.reason))).toEqual({ code: 'conflict', message: `slug: "${offerSlug}" is already used by another offer` })

      const o = (results.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<{ id: number }>).value
      const links = { offers: [ref(o.id, 'offer_id')], landings: [] }
      const campaigns = await Promise.allSettled([
        sa.createCampaign(campaignValues(`dup-c-${i}`), links),
        sb.createCampaign(campaignValues(`dup-c-${i}`), links),
      ])
      expect(campaigns.filter((r) => r.status === 'fulfilled').length).toBe(1)
      const lostC = campaigns.find((r) => r.status === 'rejected') as PromiseRejectedResult
      expect(await failure(Promise.reject(lostC.reason))).toEqual({ code: 'conflict', message: `slug: "dup-c-${i}" is already used by another campaign` })
    }
  })

  test('what one instance writes, the other reads at once', async () => {
    const o = await sa.createOffer({ name: 'O', slug: 'seen-o', url: 'https://a.example/', payout: 1.25, currency: 'USD' })
    expect(await sb.findOffer(o.id)).toEqual(o)
    const c = await sb.createCampaign(campaignValues('seen-c'), { offers: [ref(o.id, 'offer_id')], landings: [] })
    expect((await sa.routingRows()).campaigns.map((r) => r.slug)).toContain('seen-c')
    expect(await sa.findCampaign(c.row.id)).toEqual(c)
  })
})
