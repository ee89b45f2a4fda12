import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { get, startServer, type TestServer } from '../helpers/server'
import { cookieClickId, seeder, SERVER_TIMEOUT_MS } from './seed'

let s: TestServer
let click: string
let ids: { source: number; offer: number; landing: number; campaign: number }

beforeAll(async () => {
  s = await startServer()
  const seed = seeder(s)
  const source = await seed.source()
  const offer = await seed.offer('https://offer.example/')
  const landing = await seed.landing({ url: 'https://lp.example/' })
  const campaign = await seed.campaign({ slug: 'seen', sourceId: source, offers: [[offer, 1]], landings: [[landing, 1]] })
  ids = { source, offer, landing, campaign }
  const res = await get(`${s.base}/c/seen?sub1=a&sub10=z&utm_source=news&gclid=abc`, { 'user-agent': 'Agent/1.0', referer: 'https://ref.example/' })
  click = cookieClickId(res)!
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

describe('GET /admin/api/clicks/:click_id', () => {
  test('returns the click with every field; created_at as ISO 8601, params as an object', async () => {
    const res = await s.api('GET', `/admin/api/clicks/${click}`)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      click_id: click,
      campaign_id: ids.campaign,
      source_id: ids.source,
      offer_id: ids.offer,
      landing_id: ids.landing,
      ip: '127.0.0.1',
      user_agent: 'Agent/1.0',
      referrer: 'https://ref.example/',
      sub1: 'a', sub2: null, sub3: null, sub4: null, sub5: null, sub6: null, sub7: null, sub8: null, sub9: null, sub10: 'z',
      params: { utm_source: 'news', gclid: 'abc' },
      bot_reason: null, excluded: false, is_unique: true, cost: 0,
      device_type: 'unknown', os: null, browser: null, referrer_domain: 'ref.example',
      // From 127.0.0.1 without Accept-Language (test/tracking/enrichment.test.ts has the rest).
      country: null, asn: null, as_org: null, connection: 'unknown', language: null, os_version: null, browser_version: null,
      region: null, city: null, path_id: null, path_trace: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    })
  })

  test('accepts the id in upper case', async () => {
    const res = await s.api('GET', `/admin/api/clicks/${click.toUpperCase()}`)
    expect(res.status).toBe(200)
    expect(res.body.click_id).toBe(click)
  })

  test('a malformed id is 400', async () => {
    for (const bad of ['123', 'not-a-uuid', `${click}x`, '%E0%A4%A']) {
      const res = await s.api('GET', `/admin/api/clicks/${bad}`)
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ error: 'click_id: must be a UUID' })
    }
  })

  test('an unknown id is 404', async () => {
    const res = await s.api('GET', '/admin/api/clicks/0b1c2d3e-4f50-4617-8899-aabbccddeeff')
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ error: 'click not found' })
  })

  test('without a session cookie it is 401', async () => {
    const res = await s.api('GET', `/admin/api/clicks/${click}`, undefined, '')
    expect(res.status).toBe(401)
    expect(res.body.error).toBeString()
  })

  test('without conversions:read it is 403, with it 200', async () => {
    await s.ctx.users.create({ email: 'reports@example.com', password: 'reports-password-1', permissions: { reports: { read: true, write: true } } })
    const noPerm = await s.login('reports@example.com', 'reports-password-1')
    const denied = await s.api('GET', `/admin/api/clicks/${click}`, undefined, noPerm)
    expect(denied.status).toBe(403)
    expect(denied.body.error).toBeString()

    await s.ctx.users.create({ email: 'analyst@example.com', password: 'analyst-password-1', permissions: { conversions: { read: true, write: false } } })
    const reader = await s.login('analyst@example.com', 'analyst-password-1')
    expect((await s.api('GET', `/admin/api/clicks/${click}`, undefined, reader)).status).toBe(200)
  })
})
