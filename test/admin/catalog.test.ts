import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { testDb } from '../helpers/db'
import { startServer, type TestServer } from '../helpers/server'
import { cookieFor, seedCatalog, send } from './helpers'

let s: TestServer
let catalogSignals = 0
beforeAll(async () => {
  s = await startServer()
  s.ctx.events.on('catalog.changed', 'after-commit', 'test', () => { catalogSignals++ })
})
afterAll(() => s.destroy())

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** Asserts a 400 whose error names the field (the message starts with "<field>"). */
async function expect400(method: string, path: string, body: unknown, field: string) {
  const res = await s.api(method, path, body)
  expect({ body, status: res.status, names: typeof res.body?.error === 'string' && res.body.error.startsWith(field) })
    .toEqual({ body, status: 400, names: true })
}

async function addClick(campaignId: number) {
  await testDb(s).run('INSERT INTO clicks (click_id, campaign_id, created_at) VALUES ($c, $id, $now)',
    { c: crypto.randomUUID(), id: campaignId, now: Date.now() })
}

describe('sources', () => {
  test('POST creates a source (201) with postback_url optional', async () => {
    const res = await s.api('POST', '/admin/api/sources', { name: '  Push Network ', postback_url: 'https://push.example/pb?cid={click_id}&sum={payout}&cmp={external_id}&st={status}' })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      id: expect.any(Number), name: 'Push Network', postback_url: 'https://push.example/pb?cid={click_id}&sum={payout}&cmp={external_id}&st={status}', link_params: null,
      created_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO),
    })
    const bare = await s.api('POST', '/admin/api/sources', { name: 'Organic' })
    expect(bare.status).toBe(201)
    expect(bare.body.postback_url).toBeNull()
  })

  test('postback_url must be an absolute http(s) URL', async () => {
    for (const url of ['ftp://x.example/pb', '/relative/pb', 'not a url', 'javascript:alert(1)', 'https://', 12]) {
      await expect400('POST', '/admin/api/sources', { name: 'Bad', postback_url: url }, 'postback_url')
    }
  })

  test('PATCH is partial and null clears postback_url; GET returns the stored record', async () => {
    const created = (await s.api('POST', '/admin/api/sources', { name: 'Patchable', postback_url: 'http://a.example/{click_id}' })).body
    const renamed = await s.api('PATCH', `/admin/api/sources/${created.id}`, { name: 'Renamed' })
    expect(renamed.status).toBe(200)
    expect(renamed.body.postback_url).toBe('http://a.example/{click_id}')
    const cleared = await s.api('PATCH', `/admin/api/sources/${created.id}`, { postback_url: null })
    expect(cleared.body).toMatchObject({ name: 'Renamed', postback_url: null })
    expect((await s.api('GET', `/admin/api/sources/${created.id}`)).body).toEqual(cleared.body)
    await expect400('PATCH', `/admin/api/sources/${created.id}`, { name: '' }, 'name')
    await expect400('PATCH', `/admin/api/sources/${created.id}`, { name: null }, 'name')
  })
})

describe('offers', () => {
  test('POST creates an offer with payout 0 and currency USD by default; currency is stored upper-case', async () => {
    const res = await s.api('POST', '/admin/api/offers', { name: 'Shop', slug: 'shop', url: 'https://shop.example/?sub={click_id}' })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      id: expect.any(Number), name: 'Shop', slug: 'shop', url: 'https://shop.example/?sub={click_id}', payout: 0, currency: 'USD', cap: null,
      created_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO),
    })
    const eur = await s.api('POST', '/admin/api/offers', { name: 'Shop EU', slug: 'shop-eu', url: 'https://shop.example/{click_id}/', payout: 12.5, currency: 'eur' })
    expect(eur.body).toMatchObject({ payout: 12.5, currency: 'EUR' })
  })

  test('validates slug, url, payout and currency with a 400 naming the field', async () => {
    const base = { name: 'V', slug: 'valid', url: 'https://v.example/' }
    for (const slug of ['-lead', 'has space', 'x'.repeat(65), '', 'ümlaut', 'a/b', 5]) await expect400('POST', '/admin/api/offers', { ...base, slug }, 'slug')
    for (const url of ['', 'mailto:a@b.example', '//cdn.example/x', 'https://exa mple.com/']) await expect400('POST', '/admin/api/offers', { ...base, url }, 'url')
    await expect400('POST', '/admin/api/offers', { name: 'V', slug: 'valid' }, 'url')
    for (const payout of ['5', null, true]) await expect400('POST', '/admin/api/offers', { ...base, payout }, 'payout')
    for (const currency of ['US', 'USDX', '123', 'E$R']) await expect400('POST', '/admin/api/offers', { ...base, currency }, 'currency')
    await expect400('POST', '/admin/api/offers', { ...base, name: 'n'.repeat(201) }, 'name')
    expect((await s.api('GET', '/admin/api/offers?limit=500')).body.items.map((o: any) => o.slug)).not.toContain('valid')
  })

  test('a duplicate slug is 409 on create and on rename', async () => {
    const a = (await s.api('POST', '/admin/api/offers', { name: 'A', slug: 'dup-a', url: 'https://a.example/' })).body
    const again = await s.api('POST', '/admin/api/offers', { name: 'A2', slug: 'dup-a', url: 'https://a.example/' })
    expect(again.status).toBe(409)
    expect(again.body.error).toBe('slug: "dup-a" is already used by another offer')
    const b = (await s.api('POST', '/admin/api/offers', { name: 'B', slug: 'dup-b', url: 'https://b.example/' })).body
    expect((await s.api('PATCH', `/admin/api/offers/${b.id}`, { slug: 'dup-a' })).status).toBe(409)
    // Renaming to its own slug is no conflict.
    expect((await s.api('PATCH', `/admin/api/offers/${a.id}`, { slug: 'dup-a', payout: 3 })).status).toBe(200)
  })
})

describe('landings', () => {
  test('needs html or url; email_list_id is an existing email list or null', async () => {
    const list = (await s.api('POST', '/admin/api/email-lists', { name: 'Leads' })).body.id
    expect(await s.api('POST', '/admin/api/landings', { name: 'Page', slug: 'page', html: '<h1>Hello</h1>', email_list_id: 999999 }))
      .toMatchObject({ status: 400, body: { error: 'email_list_id: email list 999999 does not exist' } })
    const page = await s.api('POST', '/admin/api/landings', { name: 'Page', slug: 'page', html: '<h1>Hello</h1>', email_list_id: list })
    expect(page.status).toBe(201)
    expect(page.body).toEqual({
      id: expect.any(Number), name: 'Page', slug: 'page', html: '<h1>Hello</h1>', url: null, email_list_id: list,
      created_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO),
    })
    const ext = await s.api('POST', '/admin/api/landings', { name: 'External', slug: 'external', url: 'https://lp.example/?c={click_id}' })
    expect(ext.body).toMatchObject({ html: null, url: 'https://lp.example/?c={click_id}', email_list_id: null })

    await expect400('POST', '/admin/api/landings', { name: 'Empty', slug: 'empty' }, 'html')
    await expect400('POST', '/admin/api/landings', { name: 'Empty', slug: 'empty', html: null, url: null }, 'html')
    await expect400('POST', '/admin/api/landings', { name: 'Bad', slug: 'bad', url: 'file:///etc/passwd' }, 'url')
    for (const email_list_id of [0, -3, 1.5, '3']) await expect400('POST', '/admin/api/landings', { name: 'L', slug: 'l', html: 'x', email_list_id }, 'email_list_id')

    expect(await s.api('PATCH', `/admin/api/landings/${page.body.id}`, { email_list_id: 999998 }))
      .toMatchObject({ status: 400, body: { error: 'email_list_id: email list 999998 does not exist' } })
    expect((await s.api('GET', `/admin/api/landings/${page.body.id}`)).body.email_list_id).toBe(list)
    // PATCH may not leave the landing without content, but may swap one for the other.
    await expect400('PATCH', `/admin/api/landings/${page.body.id}`, { html: null }, 'html')
    const swapped = await s.api('PATCH', `/admin/api/landings/${page.body.id}`, { html: null, url: 'https://moved.example/', email_list_id: null })
    expect(swapped.body).toMatchObject({ html: null, url: 'https://moved.example/', email_list_id: null })
  })

  test('a duplicate slug is 409', async () => {
    const res = await s.api('POST', '/admin/api/landings', { name: 'Again', slug: 'page', html: 'x' })
    expect(res.status).toBe(409)
    expect(res.body.error).toBe('slug: "page" is already used by another landing')
  })
})

describe('campaigns', () => {
  test('POST with offer_id/landing_id shorthands returns full rotations, first ids and active=true', async () => {
    const { source, offer, landing, campaign } = await seedCatalog(s, 'short')
    expect(campaign).toEqual({
      id: expect.any(Number), name: 'Campaign short', slug: 'campaign-short', source_id: source.id, external_id: null, active: true,
      bot_url: null, fallback_url: null, cost_model: 'none', cpc: 0, cpm: 0, revshare_percent: 0,
      offer_id: offer.id, offers: [{ offer_id: offer.id, weight: 100, auto_weight: null, cap: null }],
      landing_id: landing.id, landings: [{ landing_id: landing.id, weight: 100, auto_weight: null }], paths: [], tracking_url: '/c/campaign-short',
      created_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO),
    })
  })

  test('POST with weighted offers and landings keeps their order; landings may be absent', async () => {
    const a = await seedCatalog(s, 'wa')
    const b = await seedCatalog(s, 'wb')
    const res = await s.api('POST', '/admin/api/campaigns', {
      name: 'Split', slug: 'split', external_id: 'ext-77', active: false,
      offers: [{ offer_id: b.offer.id, weight: 30 }, { offer_id: a.offer.id }],
      landings: [{ landing_id: b.landing.id, weight: 1 }, { landing_id: a.landing.id, weight: 10000 }],
    })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({
      source_id: null, external_id: 'ext-77', active: false, offer_id: b.offer.id, landing_id: b.landing.id,
      offers: [{ offer_id: b.offer.id, weight: 30 }, { offer_id: a.offer.id, weight: 100 }],
      landings: [{ landing_id: b.landing.id, weight: 1 }, { landing_id: a.landing.id, weight: 10000 }],
    })
    const noLanding = await s.api('POST', '/admin/api/campaigns', { name: 'Direct', slug: 'direct', offer_id: a.offer.id })
    expect(noLanding.body).toMatchObject({ landing_id: null, landings: [] })
  })

  test('rejects bad rotations and references with a 400 naming the field, writing nothing', async () => {
    const { source, offer, landing } = await seedCatalog(s, 'rej')
    const before = catalogSignals
    const base = { name: 'R', slug: 'rejected' }
    await expect400('POST', '/admin/api/campaigns', base, 'offers')
    await expect400('POST', '/admin/api/campaigns', { ...base, offers: [] }, 'offers')
    await expect400('POST', '/admin/api/campaigns', { ...base, offer_id: null }, 'offer_id')
    await expect400('POST', '/admin/api/campaigns', { ...base, offer_id: offer.id, offers: [{ offer_id: offer.id }] }, 'offers')
    await expect400('POST', '/admin/api/campaigns', { ...base, offers: [{ offer_id: offer.id }, { offer_id: offer.id, weight: 5 }] }, 'offers.1.offer_id')
    await expect400('POST', '/admin/api/campaigns', { ...base, offer_id: offer.id, landings: [{ landing_id: landing.id }, { landing_id: landing.id }] }, 'landings.1.landing_id')
    for (const weight of [0, 10001, 1.5, 'heavy']) {
      await expect400('POST', '/admin/api/campaigns', { ...base, offers: [{ offer_id: offer.id, weight }] }, 'offers.0.weight')
    }
    await expect400('POST', '/admin/api/campaigns', { ...base, offers: [{ offer_id: offer.id }, { offer_id: 987654 }] }, 'offers.1.offer_id')
    await expect400('POST', '/admin/api/campaigns', { ...base, offer_id: 987654 }, 'offer_id')
    await expect400('POST', '/admin/api/campaigns', { ...base, offer_id: offer.id, landing_id: 987654 }, 'landing_id')
    await expect400('POST', '/admin/api/campaigns', { ...base, offer_id: offer.id, source_id: 987654 }, 'source_id')
    await expect400('POST', '/admin/api/campaigns', { ...base, offer_id: offer.id, source_id: String(source.id) }, 'source_id')
    await expect400('POST', '/admin/api/campaigns', { ...base, offer_id: offer.id, active: 'yes' }, 'active')
    await expect400('POST', '/admin/api/campaigns', { ...base, offer_id: offer.id, offers: 'all' }, 'offers')
    expect(catalogSignals).toBe(before)
    const count = (await testDb(s).get<{ n: number }>("SELECT count(*) AS n FROM campaigns WHERE slug = 'rejected'"))!
    expect(count.n).toBe(0)
  })

  test('PATCH is partial; a given rotation replaces the old one; landing_id null removes landings', async () => {
    const a = await seedCatalog(s, 'pa')
    const b = await seedCatalog(s, 'pb')
    const id = a.campaign.id
    const renamed = await s.api('PATCH', `/admin/api/campaigns/${id}`, { name: 'Renamed', active: false })
    expect(renamed.body).toMatchObject({ name: 'Renamed', active: false, offers: a.campaign.offers, landings: a.campaign.landings, source_id: a.source.id })

    const swapped = await s.api('PATCH', `/admin/api/campaigns/${id}`, { offers: [{ offer_id: b.offer.id, weight: 7 }], landing_id: null, source_id: null })
    expect(swapped.status).toBe(200)
    expect(swapped.body).toMatchObject({ offer_id: b.offer.id, offers: [{ offer_id: b.offer.id, weight: 7 }], landing_id: null, landings: [], source_id: null })

    await expect400('PATCH', `/admin/api/campaigns/${id}`, { offer_id: null }, 'offer_id')
    await expect400('PATCH', `/admin/api/campaigns/${id}`, { offers: [] }, 'offers')
    await expect400('PATCH', `/admin/api/campaigns/${id}`, { landings: [{ landing_id: 555555 }] }, 'landings.0.landing_id')
    // A rejected PATCH changes nothing.
    expect((await s.api('GET', `/admin/api/campaigns/${id}`)).body).toEqual(swapped.body)

    const dup = await s.api('PATCH', `/admin/api/campaigns/${id}`, { slug: b.campaign.slug })
    expect(dup.status).toBe(409)
    expect(dup.body.error).toBe(`slug: "${b.campaign.slug}" is already used by another campaign`)
  })

  test('GET lists campaigns with their rotations and pages with next_cursor', async () => {
    const first = await s.api('GET', '/admin/api/campaigns?limit=2')
    expect(first.status).toBe(200)
    expect(first.body.items.length).toBe(2)
    expect(first.body.next_cursor).toEqual(expect.any(String))
    for (const c of first.body.items) expect(Array.isArray(c.offers) && Array.isArray(c.landings)).toBe(true)
    const rest = await s.api('GET', `/admin/api/campaigns?limit=500&cursor=${first.body.next_cursor}`)
    expect(rest.body.next_cursor).toBeNull()
    const ids = [...first.body.items, ...rest.body.items].map((c: any) => c.id)
    expect(ids).toEqual([...ids].sort((x, y) => x - y))
    expect(new Set(ids).size).toBe(ids.length)
  })
})

describe('deleting', () => {
  test('a source, offer or landing still used by a campaign is 409 naming the campaign', async () => {
    const { source, offer, landing, campaign } = await seedCatalog(s, 'inuse')
    for (const [path, what] of [[`sources/${source.id}`, 'source'], [`offers/${offer.id}`, 'offer'], [`landings/${landing.id}`, 'landing']] as const) {
      const res = await s.api('DELETE', `/admin/api/${path}`)
      expect(res.status).toBe(409)
      expect(res.body).toEqual({ error: `${what} is used by campaign "campaign-inuse" (id ${campaign.id})` })
    }
    expect((await s.api('GET', `/admin/api/offers/${offer.id}`)).status).toBe(200)
  })

  test('a campaign with clicks is 409 "campaign has clicks; set active=false instead"', async () => {
    const { campaign } = await seedCatalog(s, 'clicked')
    await addClick(campaign.id)
    const res = await s.api('DELETE', `/admin/api/campaigns/${campaign.id}`)
    expect(res.status).toBe(409)
    expect(res.body).toEqual({ error: 'campaign has clicks; set active=false instead' })
    expect((await s.api('PATCH', `/admin/api/campaigns/${campaign.id}`, { active: false })).body.active).toBe(false)
  })

  test('a campaign without clicks goes with its rotations, which frees its source, offer and landing', async () => {
    const { source, offer, landing, campaign } = await seedCatalog(s, 'free')
    const res = await s.api('DELETE', `/admin/api/campaigns/${campaign.id}`)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ ok: true })
    expect((await s.api('GET', `/admin/api/campaigns/${campaign.id}`)).status).toBe(404)
    const links = (await testDb(s).get<{ n: number }>('SELECT count(*) AS n FROM campaign_offers WHERE campaign_id = $id', { id: campaign.id }))!
    expect(links.n).toBe(0)
    for (const path of [`offers/${offer.id}`, `landings/${landing.id}`, `sources/${source.id}`]) {
      expect((await s.api('DELETE', `/admin/api/${path}`)).status).toBe(200)
      expect((await s.api('GET', `/admin/api/${path}`)).status).toBe(404)
      expect((await s.api('DELETE', `/admin/api/${path}`)).status).toBe(404)
    }
  })
})

describe('catalog writes', () => {
  test("emit 'catalog' after every successful write and not after a failed one", async () => {
    let n = catalogSignals
    const src = (await s.api('POST', '/admin/api/sources', { name: 'Sig' })).body
    expect(catalogSignals).toBe(++n)
    await s.api('PATCH', `/admin/api/sources/${src.id}`, { name: 'Sig 2' })
    expect(catalogSignals).toBe(++n)
    const offer = (await s.api('POST', '/admin/api/offers', { name: 'Sig', slug: 'sig', url: 'https://sig.example/' })).body
    expect(catalogSignals).toBe(++n)
    const landing = (await s.api('POST', '/admin/api/landings', { name: 'Sig', slug: 'sig', html: 'x' })).body
    expect(catalogSignals).toBe(++n)
    const camp = (await s.api('POST', '/admin/api/campaigns', { name: 'Sig', slug: 'sig', offer_id: offer.id, landing_id: landing.id, source_id: src.id })).body
    expect(catalogSignals).toBe(++n)
    await s.api('PATCH', `/admin/api/campaigns/${camp.id}`, { active: false })
    expect(catalogSignals).toBe(++n)
    await s.api('DELETE', `/admin/api/offers/${offer.id}`) // 409: in use
    await s.api('POST', '/admin/api/offers', { name: 'Sig', slug: 'sig', url: 'https://sig.example/' }) // 409: duplicate
    expect(catalogSignals).toBe(n)
    await s.api('DELETE', `/admin/api/campaigns/${camp.id}`)
    expect(catalogSignals).toBe(++n)
  })
})

describe('bad input on every catalog collection', () => {
  const collections = ['sources', 'offers', 'landings', 'campaigns']

  test('malformed JSON, an empty body, a non-object body and a non-JSON content type are 400', async () => {
    const cookie = await cookieFor(s, 1)
    for (const c of collections) {
      for (const [body, type] of [['{"name":', 'application/json'], ['', 'application/json'], ['[1,2]', 'application/json'], ['"x"', 'application/json'], ['null', 'application/json'],
        ['name=x&slug=y', 'application/x-www-form-urlencoded'], ['{"name":"x"}', 'text/plain']] as const) {
        const res = await send(s, 'POST', `/admin/api/${c}`, { headers: { cookie, 'content-type': type }, body })
        expect({ c, body, type, status: res.status, error: typeof res.body?.error }).toEqual({ c, body, type, status: 400, error: 'string' })
      }
      const none = await send(s, 'POST', `/admin/api/${c}`, { headers: { cookie } })
      expect({ c, status: none.status }).toEqual({ c, status: 400 })
    }
  })

  test('non-numeric, zero, negative and unknown ids are 404 on GET, PATCH and DELETE, never 500', async () => {
    for (const c of collections) {
      for (const id of ['abc', '0', '-1', '1.5', '1e3', '%00', '99999999999999999999', '424242']) {
        for (const method of ['GET', 'PATCH', 'DELETE']) {
          const res = await s.api(method, `/admin/api/${c}/${id}`, method === 'PATCH' ? { name: 'x' } : undefined)
          expect({ c, id, method, status: res.status }).toEqual({ c, id, method, status: 404 })
          expect(res.body.error).toBe(`${c.slice(0, -1)} not found`)
        }
      }
    }
  })

  test('huge strings are 400 and a body over the size limit is refused, never 500', async () => {
    await expect400('POST', '/admin/api/sources', { name: 'x'.repeat(100_000) }, 'name')
    await expect400('POST', '/admin/api/offers', { name: 'x', slug: 'huge', url: `https://h.example/?${'a'.repeat(5000)}` }, 'url')
    await expect400('POST', '/admin/api/landings', { name: 'x', slug: 'huge', html: 'h'.repeat(1_000_001) }, 'html')
    const big = await s.api('POST', '/admin/api/sources', { name: 'x'.repeat(3 * 1024 * 1024) })
    expect(big.status).toBeGreaterThanOrEqual(400)
    expect(big.status).toBeLessThan(500)
  })

  test('unknown fields are ignored', async () => {
    const res = await s.api('POST', '/admin/api/sources', { name: 'Extra', colour: 'red', id: 999 })
    expect(res.status).toBe(201)
    expect(res.body.colour).toBeUndefined()
    expect(res.body.id).not.toBe(999)
  })
})
