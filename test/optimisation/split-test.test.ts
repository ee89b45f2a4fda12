// Split tests through the server (issue 29): clicks made through /c, conversions through /postback (a chargeback
// and a reject among them), then GET /admin/api/campaigns/:id/split-test must count exactly what was made, for
// the default rotation and for a targeting path's rotation; EPC is refused across currencies; bad input is a 400
// naming the field; the verb is an MCP tool beside campaigns.simulate.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { get, startServer, type TestServer } from '../helpers/server'
import { SERVER_TIMEOUT_MS } from '../tracking/seed'
import { postback } from '../reports/seed'
import { toolName } from '../../src/agent/mcp/catalog'
import { scopeOfVerb } from '../../src/agent/scopes'

const DE = '79.192.0.1'
const GB = '81.2.69.142'

let s: TestServer
let n = 0

async function make(path: string, body: unknown): Promise<any> {
  const res = await s.api('POST', path, body)
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`)
  return res.body
}

/** An offer whose URL names it by host. */
async function offer(name: string, payout = 0, currency = 'USD'): Promise<number> {
  return (await make('/admin/api/offers', { name, slug: `${name}-${Date.now().toString(36)}-${++n}`, url: `https://${name}.example/?c={click_id}`, payout, currency })).id
}

/** `count` visits; the click ids by the offer host they were sent to. */
async function visits(slug: string, count: number, ip = GB): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>()
  for (let i = 0; i < count; i++) {
    const res = await get(`${s.base}/c/${slug}`, { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0', 'x-forwarded-for': ip })
    await res.arrayBuffer()
    expect(res.status).toBe(302)
    const loc = new URL(res.headers.get('location')!)
    const list = out.get(loc.host) ?? []
    list.push(loc.searchParams.get('c')!)
    out.set(loc.host, list)
  }
  return out
}

const splitTest = (id: number, query: string) => s.api('GET', `/admin/api/campaigns/${id}/split-test?${query}`)

beforeAll(async () => {
  s = await startServer({ SVC_TRUST_PROXY: '1' })
  // Many visits come from one address here: not bots (bot clicks are left out of split tests).
  const res = await s.api('PUT', '/admin/api/settings', { bot_clicks_per_minute: 0 })
  if (res.status !== 200) throw new Error(`settings: ${res.status} ${res.text}`)
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

describe('split test numbers equal what was made', () => {
  test('default rotation: clicks per offer, conversions as reports count them (chargeback and reject do not count), revenue, CR, EPC', async () => {
    const a = await offer('alpha', 10), b = await offer('beta', 4)
    const c = await make('/admin/api/campaigns', { name: `st${++n}`, slug: `st-${Date.now().toString(36)}`, offers: [{ offer_id: a }, { offer_id: b }] })
    const byHost = await visits(c.slug, 60)
    const ca = byHost.get('alpha.example') ?? [], cb = byHost.get('beta.example') ?? []
    expect(ca.length + cb.length).toBe(60)
    expect(ca.length).toBeGreaterThan(5)
    expect(cb.length).toBeGreaterThan(5)
    // alpha: 4 sales (10 each) then a chargeback of one of them; beta: 3 sales at 4, one at 6, and a reject.
    for (const id of ca.slice(0, 4)) await postback(s, { subid: id, payout: 10, status: 'approved', tid: `a-${id}` })
    await postback(s, { subid: ca[0]!, payout: 10, status: 'chargeback', tid: `cb-${ca[0]}` })
    for (const id of cb.slice(0, 3)) await postback(s, { subid: id, payout: 4, status: 'approved', tid: `b-${id}` })
    await postback(s, { subid: cb[3]!, payout: 6, status: 'approved', tid: `b-${cb[3]}` })
    await postback(s, { subid: cb[4]!, payout: 0, status: 'reject', tid: `r-${cb[4]}` })

    const res = await splitTest(c.id, 'kind=offers&window=2h')
    expect(res.status).toBe(200)
    const t = res.body
    expect(t.kind).toBe('offers')
    expect(t.path_id).toBeNull()
    expect(t.currency).toBe('USD')
    expect(t.window_hours).toBe(2)
    const ea = t.entries.find((e: any) => e.id === a), eb = t.entries.find((e: any) => e.id === b)
    expect([ea.clicks, ea.conversions, ea.revenue]).toEqual([ca.length, 3, 30])
    expect([eb.clicks, eb.conversions, eb.revenue]).toEqual([cb.length, 4, 18])
    expect(ea.cr).toBeCloseTo((3 / ca.length) * 100, 5)
    expect(eb.epc).toBeCloseTo(18 / cb.length, 5)
    expect(ea.weight).toBe(100)
    expect(ea.auto_weight).toBeNull()
    expect(ea.p_best_cr + eb.p_best_cr).toBeCloseTo(1, 6)
    expect(ea.cr_ci95.low).toBeLessThan(ea.cr)
    expect(ea.cr_ci95.high).toBeGreaterThan(ea.cr)
    // 30 clicks each is below the default 100: too little data, saying what is missing.
    expect(t.verdict).toBe('insufficient_data')
    expect(t.reason).toContain('needs 100')
    // The same data gives the same answer (seeded draws).
    const again = (await splitTest(c.id, 'kind=offers&window=2h')).body
    expect(again.entries.map((e: any) => e.p_best_cr)).toEqual(t.entries.map((e: any) => e.p_best_cr))
    // Per-call minimums: with 5 clicks and 1 conversion asked for, a verdict other than insufficient_data.
    const loose = (await splitTest(c.id, 'kind=offers&window=2h&min_clicks=5&min_conversions=1')).body
    expect(loose.verdict).not.toBe('insufficient_data')
    expect(loose.rules.min_clicks).toBe(5)
    // A window that ends before the clicks holds none of them.
    const before = (await splitTest(c.id, `kind=offers&from=${new Date(Date.now() - 7200_000).toISOString()}&to=${new Date(Date.now() - 3600_000).toISOString()}`)).body
    expect(before.entries.map((e: any) => e.clicks)).toEqual([0, 0])
  }, 60_000)

  test("a targeting path's rotation counts only the path's clicks", async () => {
    const d = await offer('default-o'), p1 = await offer('path-one'), p2 = await offer('path-two')
    const c = await make('/admin/api/campaigns', {
      name: `stp${++n}`, slug: `stp-${Date.now().toString(36)}`, offers: [{ offer_id: d }],
      paths: [{ name: 'DE', conditions: [{ type: 'country', values: ['DE'] }], action: { type: 'rotation', offers: [{ offer_id: p1 }, { offer_id: p2 }] } }],
    })
    const pathId = c.paths[0].id
    const de = await visits(c.slug, 40, DE)
    const gb = await visits(c.slug, 10, GB)
    expect(gb.get('default-o.example')!.length).toBe(10)
    const c1 = de.get('path-one.example') ?? [], c2 = de.get('path-two.example') ?? []
    expect(c1.length + c2.length).toBe(40)
    for (const id of c1.slice(0, 2)) await postback(s, { subid: id, payout: 5, status: 'approved' })
    const t = (await splitTest(c.id, `kind=offers&path_id=${pathId}&window=1h`)).body
    expect(t.path_id).toBe(pathId)
    expect(t.entries.map((e: any) => [e.id, e.clicks, e.conversions])).toEqual([[p1, c1.length, Math.min(2, c1.length)], [p2, c2.length, 0]])
    // The default rotation has the GB clicks only.
    const def = (await splitTest(c.id, 'kind=offers&window=1h')).body
    expect(def.entries.map((e: any) => [e.id, e.clicks])).toEqual([[d, 10]])
    expect(def.verdict).toBe('insufficient_data')
  }, 60_000)

  test('EPC never sums two currencies: refused for metric=epc, available per currency', async () => {
    const u = await offer('usd-o', 10, 'USD'), e = await offer('eur-o', 10, 'EUR')
    const c = await make('/admin/api/campaigns', { name: `stc${++n}`, slug: `stc-${Date.now().toString(36)}`, offers: [{ offer_id: u }, { offer_id: e }] })
    const byHost = await visits(c.slug, 30)
    for (const id of (byHost.get('usd-o.example') ?? []).slice(0, 1)) await postback(s, { subid: id, payout: 10, status: 'approved' })
    for (const id of (byHost.get('eur-o.example') ?? []).slice(0, 1)) await postback(s, { subid: id, payout: 10, status: 'approved' })
    const cr = (await splitTest(c.id, 'kind=offers&window=1h')).body
    expect(cr.currency).toBeNull()
    expect(cr.currencies).toEqual(['EUR', 'USD'])
    expect(cr.epc_note).toContain('never summed')
    expect(cr.entries.every((x: any) => x.epc === null && x.revenue === null)).toBe(true)
    const refused = await splitTest(c.id, 'kind=offers&window=1h&metric=epc')
    expect(refused.status).toBe(409)
    expect(refused.body.error).toStartWith('currency:')
    const eur = (await splitTest(c.id, 'kind=offers&window=1h&metric=epc&currency=eur')).body
    expect(eur.currency).toBe('EUR')
    expect(eur.entries.find((x: any) => x.id === e).revenue).toBe(10)
    expect(eur.entries.find((x: any) => x.id === u).revenue).toBe(0)
  }, 60_000)
})

describe('input', () => {
  test('400 naming the field, 404 for an unknown campaign', async () => {
    const o = await offer('in-o')
    const c = await make('/admin/api/campaigns', { name: `sti${++n}`, slug: `sti-${Date.now().toString(36)}`, offers: [{ offer_id: o }] })
    const bad = async (q: string, field: string) => {
      const res = await splitTest(c.id, q)
      expect(res.status).toBe(400)
      expect(res.body.error).toStartWith(`${field}:`)
    }
    await bad('kind=offerz', 'kind')
    await bad('window=7d', 'kind')
    await bad('kind=offers&tie_pct=101', 'tie_pct')
    await bad('kind=offers&window=3w', 'window')
    await bad('kind=offers&window=91d', 'window')
    await bad('kind=offers&window=1d&from=2026-01-01', 'window')
    await bad('kind=offers&from=yesterday', 'from')
    await bad('kind=offers&min_clicks=x', 'min_clicks')
    await bad('kind=offers&win_probability=2', 'win_probability')
    await bad('kind=offers&path_id=999999', 'path_id')
    await bad('kind=offers&metric=roi', 'metric')
    expect((await splitTest(999999, 'kind=offers')).status).toBe(404)
    expect((await s.api('GET', `/admin/api/campaigns/${c.id}/split-test?kind=offers`, undefined, '')).status).toBe(401)
  })

  test('an MCP tool and a campaigns scope', () => {
    expect(toolName('campaigns.split_test')).toBe('get_split_test')
    expect(scopeOfVerb({ name: 'campaigns.split_test', permission: 'campaigns:read' })).toBe('campaigns:read')
    expect(scopeOfVerb({ name: 'campaigns.auto_weights.update', permission: 'campaigns:write' })).toBe('campaigns:write')
    expect(toolName('campaigns.auto_weights.update')).toBe('update_auto_weights')
    expect(toolName('campaigns.weight_changes.list')).toBe('list_weight_changes')
  })
})
