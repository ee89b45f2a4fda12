// Macros in the scheme or host of a redirect or postback target are an open redirect (`http://{sub1}/`
// with sub1=evil.example): refused on write with a 400 naming the field, and a row written before that
// rule is left out of rotation at redirect time.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { get, startServer, type TestServer } from '../helpers/server'
import { seeder } from '../tracking/seed'

let s: TestServer
beforeAll(async () => { s = await startServer() })
afterAll(() => s.destroy())

const HOSTILE = ['http://{sub1}/', 'https://{click_id}.shop.example/', 'https://shop.example:{sub2}/', 'https://{sub1}@shop.example/', '{sub1}://shop.example/']
const MESSAGE = 'macros such as {sub1} are allowed in the path, query and fragment only, not in the scheme or host'

describe('macros in the scheme or host are refused on write', () => {
  test.each(HOSTILE)('offer url %s → 400 naming url', async (url) => {
    const res = await s.api('POST', '/admin/api/offers', { name: 'O', slug: 'o-hostile', url })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ error: `url: ${MESSAGE}` })
  })

  test('landing url, campaign bot_url and source postback_url, on create and on update', async () => {
    const landing = await s.api('POST', '/admin/api/landings', { name: 'L', slug: 'l-hostile', url: 'http://{sub1}/' })
    expect(landing).toMatchObject({ status: 400, body: { error: `url: ${MESSAGE}` } })

    const source = await s.api('POST', '/admin/api/sources', { name: 'S', postback_url: 'https://{external_id}.push.example/pb' })
    expect(source).toMatchObject({ status: 400, body: { error: `postback_url: ${MESSAGE}` } })

    const offer = (await s.api('POST', '/admin/api/offers', { name: 'Ok', slug: 'o-ok', url: 'https://shop.example/{sub1}?c={click_id}#{sub2}' }))
    expect(offer.status).toBe(201)
    const patched = await s.api('PATCH', `/admin/api/offers/${offer.body.id}`, { url: 'https://{sub1}/' })
    expect(patched).toMatchObject({ status: 400, body: { error: `url: ${MESSAGE}` } })

    const campaign = await s.api('POST', '/admin/api/campaigns', { name: 'C', slug: 'c-hostile', offer_id: offer.body.id, bot_url: 'http://{sub3}/' })
    expect(campaign).toMatchObject({ status: 400, body: { error: `bot_url: ${MESSAGE}` } })
  })

  test('macros in path, query and fragment stay allowed', async () => {
    const res = await s.api('POST', '/admin/api/sources', { name: 'Fine', postback_url: 'https://push.example/{external_id}/pb?cid={click_id}#{status}' })
    expect(res.status).toBe(201)
  })
})

describe('a stored host macro (written before the rule) never redirects', () => {
  test('the offer is left out of rotation; the other offer takes every click', async () => {
    const seed = seeder(s)
    const bad = await seed.offer('http://{sub1}/')
    const good = await seed.offer('https://good.example/?c={click_id}')
    await seed.campaign({ slug: 'legacy-host-macro', offers: [[bad, 50], [good, 50]] })
    for (let i = 0; i < 10; i++) {
      const res = await get(`${s.base}/c/legacy-host-macro?sub1=evil.example`)
      expect(res.status).toBe(302)
      expect(res.headers.get('location')!.startsWith('https://good.example/?c=')).toBe(true)
    }
  })
})
