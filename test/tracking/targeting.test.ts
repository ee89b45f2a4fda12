// Targeting paths on the real click path (issue 28): a campaign's paths, written through the admin API, decide
// where /c sends each visitor (first match wins, IS NOT, each action), rule sets shared by two campaigns,
// continuation on the path's own rotation, the click's path_id and trace in the click lookup, and the
// simulator. Visitors' addresses come through a trusted X-Forwarded-For and are looked up in the shipped
// IP data: 79.192.0.1 → DE (Deutsche Telekom, residential), 81.2.69.142 → GB (residential),
// 8.8.8.8 → US (AS15169, hosting), 77.88.8.8 → RU (AS13238), 2a02:6b8::1 → RU over IPv6.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { get, startServer, type TestServer } from '../helpers/server'
import { onPostgres } from '../helpers/pg'
import { clickRow, cookieClickId, SERVER_TIMEOUT_MS } from './seed'

const DESKTOP = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36'
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1'
const DE = '79.192.0.1'
const GB = '81.2.69.142'
const US_DC = '8.8.8.8'
const RU = '77.88.8.8'
const RU6 = '2a02:6b8::1'

let s: TestServer
let n = 0
const offers: Record<string, number> = {}
let landing = 0

async function make(path: string, body: unknown): Promise<any> {
  const res = await s.api('POST', path, body)
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`)
  return res.body
}

/** A campaign with the default offer and these paths; its slug. */
async function campaign(paths: unknown[], extra: Record<string, unknown> = {}): Promise<{ id: number; slug: string; body: any }> {
  const slug = `t${++n}-${Date.now().toString(36)}`
  const body = await make('/admin/api/campaigns', { name: slug, slug, offers: [{ offer_id: offers.default }], paths, ...extra })
  return { id: body.id, slug, body }
}

/** GET /c/:slug as a visitor from `ip`; the Location (or the status when there is none). */
async function visit(slug: string, ip: string, ua = DESKTOP, query = '', headers: Record<string, string> = {}): Promise<Response> {
  return get(`${s.base}/c/${slug}${query}`, { 'user-agent': ua, 'x-forwarded-for': ip, ...headers })
}
const where = async (slug: string, ip: string, ua = DESKTOP, query = '') => {
  const res = await visit(slug, ip, ua, query)
  await res.arrayBuffer()
  return res.status === 302 ? new URL(res.headers.get('location')!).host : String(res.status)
}

const rotation = (name: string) => ({ type: 'rotation', offers: [{ offer_id: offers[name] }] })

beforeAll(async () => {
  s = await startServer({ SVC_TRUST_PROXY: '1' })
  for (const name of ['default', 'de', 'mobile', 'gb', 'ru', 'sub']) {
    offers[name] = (await make('/admin/api/offers', { name, slug: `offer-${name}`, url: `https://${name}.offer.example/?c={click_id}` })).id
  }
  landing = (await make('/admin/api/landings', { name: 'lp', slug: 'lp-mobile', url: 'https://lp.example/?c={click_id}' })).id
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

describe('paths decide where /c sends a visitor', () => {
  test('country split: DE and RU (IPv4 and IPv6) get their own offer, everyone else the default rotation', async () => {
    const c = await campaign([
      { name: 'Germany', conditions: [{ type: 'country', values: ['de'] }], action: rotation('de') },
      { name: 'Russia', conditions: [{ type: 'country', values: ['RU'] }], action: rotation('ru') },
    ])
    expect(c.body.paths.map((p: any) => [p.name, p.conditions[0].values])).toEqual([['Germany', ['DE']], ['Russia', ['RU']]])
    expect(await where(c.slug, DE)).toBe('de.offer.example')
    expect(await where(c.slug, RU)).toBe('ru.offer.example')
    expect(await where(c.slug, RU6)).toBe('ru.offer.example')
    expect(await where(c.slug, GB)).toBe('default.offer.example')
  })

  test('mobile-only offer: a phone goes to the path\'s landing and offer, a desktop to the default', async () => {
    const c = await campaign([{
      name: 'Mobile', conditions: [{ type: 'device', values: ['mobile', 'tablet'] }],
      action: { type: 'rotation', offers: [{ offer_id: offers.mobile }], landings: [{ landing_id: landing }] },
    }])
    expect(await where(c.slug, GB, IPHONE)).toBe('lp.example')
    expect(await where(c.slug, GB, DESKTOP)).toBe('default.offer.example')
    // The phone's click continues from the landing to the path's offer (not the campaign's default).
    const first = await visit(c.slug, GB, IPHONE)
    const clickId = cookieClickId(first)!
    const r = await get(`${s.base}/r/${c.slug}?click_id=${clickId}`, { 'user-agent': IPHONE, 'x-forwarded-for': GB })
    expect(r.status).toBe(302)
    expect(new URL(r.headers.get('location')!).host).toBe('mobile.offer.example')
    const row = await clickRow(s, clickId)
    expect(Number(row!.path_id)).toBe(c.body.paths[0].id)
    expect(Number(row!.offer_id)).toBe(offers.mobile)
    expect(Number(row!.landing_id)).toBe(landing)
  })

  test('datacentre traffic to the bot URL: hosting networks get the campaign\'s bot_url, people the offer', async () => {
    const c = await campaign([{ name: 'Datacentres', conditions: [{ type: 'connection', values: ['hosting'] }], action: { type: 'bot_url' } }],
      { bot_url: 'https://bots.example/?c={click_id}' })
    const res = await visit(c.slug, US_DC)
    expect(res.status).toBe(302)
    const loc = new URL(res.headers.get('location')!)
    expect(loc.host).toBe('bots.example')
    // The click is recorded (the buyer paid for it) and names its path; the bot URL got its click id.
    expect(loc.searchParams.get('c')).toBe(cookieClickId(res))
    const row = await clickRow(s, cookieClickId(res)!)
    expect(Number(row!.path_id)).toBe(c.body.paths[0].id)
    expect(row!.offer_id).toBeNull()
    expect(await where(c.slug, DE)).toBe('default.offer.example')
  })

  test('first match wins; reordering the paths changes who takes the visitor; an inactive path is skipped', async () => {
    const c = await campaign([
      { name: 'any EU', conditions: [{ type: 'country', values: ['DE', 'GB'] }], action: rotation('gb') },
      { name: 'Germany', conditions: [{ type: 'country', values: ['DE'] }], action: rotation('de') },
    ])
    expect(await where(c.slug, DE)).toBe('gb.offer.example')
    const [eu, de] = c.body.paths
    const swapped = await s.api('PATCH', `/admin/api/campaigns/${c.id}`, { paths: [{ ...de }, { ...eu }] })
    expect(swapped.status).toBe(200)
    // Kept paths keep their ids (their clicks and report rows stay theirs).
    expect(swapped.body.paths.map((p: any) => p.id)).toEqual([de.id, eu.id])
    expect(await where(c.slug, DE)).toBe('de.offer.example')
    const off = await s.api('PATCH', `/admin/api/campaigns/${c.id}`, { paths: [{ ...de, active: false }, { ...eu }] })
    expect(off.status).toBe(200)
    expect(await where(c.slug, DE)).toBe('gb.offer.example')
  })

  test('IS NOT: every country but GB; a negated group is an OR of the negations', async () => {
    const c = await campaign([
      { name: 'not GB', conditions: [{ type: 'country', negate: true, values: ['GB'] }], action: rotation('ru') },
    ])
    expect(await where(c.slug, DE)).toBe('ru.offer.example')
    expect(await where(c.slug, GB)).toBe('default.offer.example')
    // NOT (DE AND mobile): a German phone is the only visitor the path leaves to the default.
    const g = await campaign([{
      name: 'not German phones', conditions: [{ type: 'group', negate: true, all: [{ type: 'country', values: ['DE'] }, { type: 'device', values: ['mobile'] }] }],
      action: rotation('gb'),
    }])
    expect(await where(g.slug, DE, IPHONE)).toBe('default.offer.example')
    expect(await where(g.slug, DE, DESKTOP)).toBe('gb.offer.example')
    expect(await where(g.slug, GB, IPHONE)).toBe('gb.offer.example')
  })

  test('a query parameter (sub1 in a list, ASN) and a direct URL template', async () => {
    const c = await campaign([
      { name: 'zone list', conditions: [{ type: 'param', name: 'sub1', op: 'in', values: ['1001', '1002'] }], action: { type: 'url', url: 'https://direct.example/{sub1}?c={click_id}' } },
      { name: 'Google ASN', conditions: [{ type: 'asn', values: [15169] }], action: rotation('sub') },
    ])
    const res = await visit(c.slug, DE, DESKTOP, '?sub1=1002')
    const loc = new URL(res.headers.get('location')!)
    expect(`${loc.host}${loc.pathname}`).toBe('direct.example/1002')
    expect(loc.searchParams.get('c')).toBe(cookieClickId(res))
    expect(await where(c.slug, DE, DESKTOP, '?sub1=9999')).toBe('default.offer.example')
    expect(await where(c.slug, US_DC)).toBe('sub.offer.example')
  })

  test('not found: the 404 page (click counted), or the campaign\'s fallback URL when it has one', async () => {
    const c = await campaign([{ name: 'block RU', conditions: [{ type: 'country', values: ['RU'] }], action: { type: 'not_found' } }])
    const res = await visit(c.slug, RU)
    expect(res.status).toBe(404)
    expect(res.headers.get('set-cookie')).toBeNull()
    await res.arrayBuffer()
    const f = await campaign([{ name: 'block RU', conditions: [{ type: 'country', values: ['RU'] }], action: { type: 'not_found' } }],
      { fallback_url: 'https://fallback.example/' })
    expect(await where(f.slug, RU)).toBe('fallback.example')
    expect(await where(f.slug, DE)).toBe('default.offer.example')
  })
})

describe('rule sets', () => {
  test('one rule set used by two campaigns: a change to it re-routes both', async () => {
    const rs = await make('/admin/api/rule-sets', { name: 'Tier 1', conditions: [{ type: 'country', values: ['DE'] }] })
    const a = await campaign([{ name: 'T1', rule_set_id: rs.id, action: rotation('de') }])
    const b = await campaign([{ name: 'T1 phones', rule_set_id: rs.id, conditions: [{ type: 'device', values: ['mobile'] }], action: rotation('mobile') }])
    expect(await where(a.slug, DE)).toBe('de.offer.example')
    expect(await where(b.slug, DE, IPHONE)).toBe('mobile.offer.example')
    expect(await where(b.slug, DE, DESKTOP)).toBe('default.offer.example')
    expect(await where(a.slug, GB)).toBe('default.offer.example')
    const got = await s.api('GET', `/admin/api/rule-sets/${rs.id}`)
    expect(got.body.campaign_ids).toEqual([a.id, b.id])

    const changed = await s.api('PATCH', `/admin/api/rule-sets/${rs.id}`, { conditions: [{ type: 'country', values: ['GB'] }] })
    expect(changed.status).toBe(200)
    expect(await where(a.slug, GB)).toBe('de.offer.example')
    expect(await where(a.slug, DE)).toBe('default.offer.example')
    expect(await where(b.slug, GB, IPHONE)).toBe('mobile.offer.example')

    const del = await s.api('DELETE', `/admin/api/rule-sets/${rs.id}`)
    expect(del.status).toBe(409)
    expect(del.body.error).toBe(`rule set is used by a path of campaign "${a.slug}" (id ${a.id}); remove it from the path first`)
  })

  test('rule set CRUD: 400 names the field, 404 for an unknown id, delete when unused', async () => {
    const bad = await s.api('POST', '/admin/api/rule-sets', { name: 'x', conditions: [{ type: 'country', values: ['Germany'] }] })
    expect(bad.status).toBe(400)
    expect(bad.body.error).toStartWith('conditions.0.values.0:')
    expect((await s.api('GET', '/admin/api/rule-sets/999999')).status).toBe(404)
    const rs = await make('/admin/api/rule-sets', { name: 'unused', conditions: [] })
    expect((await s.api('DELETE', `/admin/api/rule-sets/${rs.id}`)).body).toEqual({ ok: true })
    expect((await s.api('GET', `/admin/api/rule-sets/${rs.id}`)).status).toBe(404)
  })
})

describe('saving paths: what a stranger can send', () => {
  test('each error names its field and nothing is half-written', async () => {
    const c = await campaign([{ name: 'keep', conditions: [{ type: 'country', values: ['DE'] }], action: rotation('de') }])
    const cases: Array<[unknown, string]> = [
      [[{ action: { type: 'teleport' } }], 'paths.0.action.type: must be one of rotation, url, bot_url, not_found'],
      [[{ action: { type: 'rotation' } }], 'paths.0.action.offers: a rotation needs at least one offer'],
      [[{ action: { type: 'rotation', offers: [{ offer_id: 987654 }] } }], 'paths.0.action.offers.0.offer_id: offer 987654 does not exist'],
      [[{ action: { type: 'url', url: 'javascript:alert(1)' } }], 'paths.0.action.url: must be an absolute http(s) URL'],
      [[{ rule_set_id: 987654, action: { type: 'not_found' } }], 'paths.0.rule_set_id: rule set 987654 does not exist'],
      [[{ id: 987654, action: { type: 'not_found' } }], 'paths.0.id: path 987654 is not a path of this campaign (leave id out for a new path)'],
      [[{ action: { type: 'not_found' }, conditions: [{ type: 'ip', values: ['10.0.0.0/33'] }] }], 'paths.0.conditions.0.values.0:'],
    ]
    for (const [paths, error] of cases) {
      const res = await s.api('PATCH', `/admin/api/campaigns/${c.id}`, { name: 'renamed', paths })
      expect(res.status).toBe(400)
      expect(res.body.error).toStartWith(error)
    }
    const after = await s.api('GET', `/admin/api/campaigns/${c.id}`)
    expect(after.body.name).toBe(c.slug)
    expect(after.body.paths.map((p: any) => p.name)).toEqual(['keep'])
  })

  test('an offer or landing a path rotates cannot be deleted (409 names the campaign); [] removes every path', async () => {
    const o = await make('/admin/api/offers', { name: 'path only', slug: `po-${Date.now()}`, url: 'https://po.example/' })
    const c = await campaign([{ action: { type: 'rotation', offers: [{ offer_id: o.id }] } }])
    expect(c.body.paths[0].name).toBe('Path 1')
    const del = await s.api('DELETE', `/admin/api/offers/${o.id}`)
    expect(del.status).toBe(409)
    expect(del.body.error).toBe(`offer is used by campaign "${c.slug}" (id ${c.id})`)
    expect((await s.api('PATCH', `/admin/api/campaigns/${c.id}`, { paths: [] })).body.paths).toEqual([])
    expect((await s.api('DELETE', `/admin/api/offers/${o.id}`)).status).toBe(200)
  })
})

describe('explain: the click lookup and the simulator', () => {
  test('a click names its path and shows each condition\'s outcome against the current paths', async () => {
    const c = await campaign([
      { name: 'RU', conditions: [{ type: 'country', values: ['RU'] }], action: rotation('ru') },
      { name: 'DE phones', conditions: [{ type: 'country', values: ['DE'] }, { type: 'device', values: ['mobile'] }], action: rotation('mobile') },
    ])
    const res = await visit(c.slug, DE, IPHONE)
    const view = await s.api('GET', `/admin/api/clicks/${cookieClickId(res)}`)
    expect(view.status).toBe(200)
    expect(view.body.path_id).toBe(c.body.paths[1].id)
    expect(view.body.path_trace.matched_now).toBe(c.body.paths[1].id)
    expect(view.body.path_trace.paths.map((p: any) => [p.name, p.matched, p.conditions.map((x: any) => x.outcome)]))
      .toEqual([['RU', false, [false]], ['DE phones', true, [true, true]]])
    expect(view.body.path_trace.paths[0].conditions[0].detail).toContain('DE')
  })

  test('simulate answers path, offer, location and why, and records nothing', async () => {
    const c = await campaign([
      { name: 'Germany', conditions: [{ type: 'country', values: ['DE'] }], action: rotation('de') },
      { name: 'evenings', conditions: [{ type: 'time', tz: 'Europe/Berlin', from: '18:00', to: '23:00' }], action: rotation('gb') },
    ])
    const before = await s.api('GET', `/admin/api/reports?group_by=campaign&from=2020-01-01&to=2099-01-01`)
    const sim = await s.api('POST', `/admin/api/campaigns/${c.id}/simulate`, {
      ip: DE, user_agent: IPHONE, headers: { 'accept-language': 'de-DE,de;q=0.9' }, query: { sub1: 'zone7' },
    })
    expect(sim.status).toBe(200)
    expect(sim.body.path).toEqual({ id: c.body.paths[0].id, name: 'Germany', action: 'rotation' })
    expect(sim.body.offer_id).toBe(offers.de)
    expect(sim.body.location).toBe('https://de.offer.example/?c=')
    expect(sim.body.visitor).toMatchObject({ country: 'DE', asn: 3320, connection: 'residential', device_type: 'mobile', os: 'iOS', language: 'de' })
    expect(sim.body.trace).toEqual([{ path_id: c.body.paths[0].id, name: 'Germany', matched: true, conditions: [expect.objectContaining({ index: 0, type: 'country', outcome: true })] }])
    // The time of the visit decides a time-of-day path: 19:30 in Berlin (UTC+1 in winter).
    const evening = await s.api('POST', `/admin/api/campaigns/${c.id}/simulate`, { ip: GB, time: '2026-11-26T18:30:00Z' })
    expect(evening.body.path.name).toBe('evenings')
    const morning = await s.api('POST', `/admin/api/campaigns/${c.id}/simulate`, { ip: GB, time: '2026-11-26T08:30:00Z' })
    expect(morning.body.path).toBeNull()
    expect(morning.body.offer_id).toBe(offers.default)
    expect(morning.body.trace.map((p: any) => p.matched)).toEqual([false, false])
    const after = await s.api('GET', `/admin/api/reports?group_by=campaign&from=2020-01-01&to=2099-01-01`)
    expect(after.body).toEqual(before.body)
  })

  test('simulate: 400 for a bad address or time, 404 for an unknown campaign, 409 for a paused one, 401 without a session', async () => {
    const c = await campaign([])
    expect((await s.api('POST', `/admin/api/campaigns/${c.id}/simulate`, { ip: 'not-an-ip' })).body).toEqual({ error: 'ip: must be an IPv4 or IPv6 address' })
    expect((await s.api('POST', `/admin/api/campaigns/${c.id}/simulate`, { ip: DE, time: 'yesterday' })).status).toBe(400)
    expect((await s.api('POST', `/admin/api/campaigns/${c.id}/simulate`, {})).status).toBe(400)
    expect((await s.api('POST', '/admin/api/campaigns/999999/simulate', { ip: DE })).status).toBe(404)
    await s.api('PATCH', `/admin/api/campaigns/${c.id}`, { active: false })
    const paused = await s.api('POST', `/admin/api/campaigns/${c.id}/simulate`, { ip: DE })
    expect(paused.status).toBe(409)
    expect((await s.api('POST', `/admin/api/campaigns/${c.id}/simulate`, { ip: DE }, '')).status).toBe(401)
  })
})

describe.skipIf(!onPostgres)('Postgres: a second instance', () => {
  test('a path saved on one instance routes on the other within a second (LISTEN/NOTIFY)', async () => {
    const other = await startServer({ SVC_TRUST_PROXY: '1' }, s.dataDir)
    try {
      const c = await campaign([])
      const routed = async () => {
        const res = await get(`${other.base}/c/${c.slug}`, { 'user-agent': DESKTOP, 'x-forwarded-for': DE })
        await res.arrayBuffer()
        return res.status === 302 ? new URL(res.headers.get('location')!).host : String(res.status)
      }
      const within = async (host: string, since: number) => {
        while ((await routed()) !== host) {
          if (Date.now() - since > 1000) throw new Error(`the second instance did not send the visitor to ${host} within a second`)
          await Bun.sleep(20)
        }
      }
      await within('default.offer.example', Date.now())
      const saved = Date.now()
      expect((await s.api('PATCH', `/admin/api/campaigns/${c.id}`, { paths: [{ conditions: [{ type: 'country', values: ['DE'] }], action: rotation('de') }] })).status).toBe(200)
      await within('de.offer.example', saved)
      // A rule set changed on the first instance re-routes the second as well.
      const rs = await make('/admin/api/rule-sets', { name: 'GB', conditions: [{ type: 'country', values: ['GB'] }] })
      await s.api('PATCH', `/admin/api/campaigns/${c.id}`, { paths: [{ rule_set_id: rs.id, action: rotation('gb') }] })
      await within('default.offer.example', Date.now())
      const changed = Date.now()
      await s.api('PATCH', `/admin/api/rule-sets/${rs.id}`, { conditions: [{ type: 'country', values: ['DE'] }] })
      await within('gb.offer.example', changed)
    } finally {
      await other.stop()
    }
  }, SERVER_TIMEOUT_MS)
})
