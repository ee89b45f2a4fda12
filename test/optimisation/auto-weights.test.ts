// Auto-weights through the server (issue 29): enable → the job runs → the weights move toward the winner (every
// entry at or above the floor) with a weight_changes row; /c really follows the new weights; a manual PATCH of
// the rotation drops them; switching off brings the manual weights back (recorded too); a rotation below its
// minimum sample is left alone and the job says why; bad settings are 400s naming the field; on Postgres a
// second instance routes by the weights the first one's job wrote.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { get, OWNER, startServer, type TestServer } from '../helpers/server'
import { onPostgres } from '../helpers/pg'
import { SERVER_TIMEOUT_MS } from '../tracking/seed'
import { postback } from '../reports/seed'

const DE = '79.192.0.1'
const GB = '81.2.69.142'

let s: TestServer
let n = 0

async function make(path: string, body: unknown): Promise<any> {
  const res = await s.api('POST', path, body)
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`)
  return res.body
}

async function offer(name: string): Promise<number> {
  return (await make('/admin/api/offers', { name, slug: `${name}-${Date.now().toString(36)}-${++n}`, url: `https://${name}.example/?c={click_id}`, payout: 2 })).id
}

async function campaign(offers: number[], extra: Record<string, unknown> = {}): Promise<{ id: number; slug: string; paths: any[] }> {
  return make('/admin/api/campaigns', { name: `aw${++n}`, slug: `aw-${Date.now().toString(36)}-${n}`, offers: offers.map((offer_id) => ({ offer_id })), ...extra })
}

/** `count` visits to `base`; the click ids by the offer host they were sent to. */
async function visits(slug: string, count: number, ip = GB, base = s.base): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>()
  for (let i = 0; i < count; i++) {
    const res = await get(`${base}/c/${slug}`, { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0', 'x-forwarded-for': ip })
    await res.arrayBuffer()
    expect(res.status).toBe(302)
    const loc = new URL(res.headers.get('location')!)
    out.set(loc.host, [...(out.get(loc.host) ?? []), loc.searchParams.get('c')!])
  }
  return out
}
const share = (m: Map<string, string[]>, host: string) => (m.get(host)?.length ?? 0) / [...m.values()].reduce((t, l) => t + l.length, 0)

/** Visits until each offer host has at least `min` clicks; then converts `rate` of each host's clicks. */
async function traffic(slug: string, hosts: Record<string, number>, min: number, ip = GB): Promise<void> {
  const all = new Map<string, string[]>()
  while (Object.keys(hosts).some((h) => (all.get(h)?.length ?? 0) < min)) {
    for (const [h, ids] of await visits(slug, 20, ip)) all.set(h, [...(all.get(h) ?? []), ...ids])
  }
  for (const [h, rate] of Object.entries(hosts)) {
    const ids = all.get(h)!
    for (const id of ids.slice(0, Math.round(ids.length * rate))) await postback(s, { subid: id, payout: 2, status: 'approved' })
  }
}

const changes = async (id: number) => (await s.api('GET', `/admin/api/campaigns/${id}/weight-changes`)).body.items as any[]

async function until<T>(what: string, f: () => Promise<T | undefined | false>, ms = 10_000): Promise<T> {
  const since = Date.now()
  for (;;) {
    const v = await f()
    if (v) return v
    if (Date.now() - since > ms) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(50)
  }
}

const put = (id: number, body: Record<string, unknown>) => s.api('PUT', `/admin/api/campaigns/${id}/auto-weights`, body)
const ON = { path_id: null, kind: 'offers', enabled: true, metric: 'cr', floor_pct: 10, min_clicks: 40, window_hours: 1, refresh_minutes: 60 }

async function jobsOf(campaignId: number): Promise<any[]> {
  const items = (await s.api('GET', '/admin/api/jobs?kind=auto_weights&limit=500')).body.items as any[]
  return items.filter((j) => j.payload.campaign_id === campaignId)
}

beforeAll(async () => {
  s = await startServer({ SVC_TRUST_PROXY: '1' })
  // Many visits come from one address here: not bots (bot clicks are left out of split tests).
  const res = await s.api('PUT', '/admin/api/settings', { bot_clicks_per_minute: 0 })
  if (res.status !== 200) throw new Error(`settings: ${res.status} ${res.text}`)
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

describe('auto-weights', () => {
  test('enable → the job moves the weights toward the winner above the floor; /c follows; off → the manual weights again', async () => {
    const win = await offer('win'), lose = await offer('lose')
    const c = await campaign([win, lose])
    await traffic(c.slug, { 'win.example': 0.4, 'lose.example': 0.02 }, 45)
    const on = await put(c.id, ON)
    expect(on.status).toBe(200)
    expect(on.body).toMatchObject({ path_id: null, kind: 'offers', enabled: true, metric: 'cr', floor_pct: 10, min_clicks: 40, updated_by: OWNER.email })

    const [change] = await until('a weight change', async () => (await changes(c.id)).length > 0 && changes(c.id))
    expect(change).toMatchObject({ campaign_id: c.id, path_id: null, kind: 'offers', actor: 'auto' })
    expect(change.before).toEqual({ [win]: 50, [lose]: 50 })
    expect(change.after[win]).toBe(90)
    expect(change.after[lose]).toBe(10)
    expect(change.reason).toMatch(/^P\(best\) 1\.00\/0\.00 on CR over 1 h, \d+ clicks$/)
    const t = (await s.api('GET', `/admin/api/campaigns/${c.id}/split-test?kind=offers&window=1h&min_clicks=40`)).body
    expect(t.entries.map((e: any) => [e.id, e.weight, e.auto_weight])).toEqual([[win, 100, 9000], [lose, 100, 1000]])
    expect(t.verdict).toBe('winner')
    // The record shows the manual weight as before, and the auto weight beside it.
    const record = (await s.api('GET', `/admin/api/campaigns/${c.id}`)).body
    expect(record.offers.map((o: any) => [o.offer_id, o.weight, o.auto_weight])).toEqual([[win, 100, 9000], [lose, 100, 1000]])
    // The job is visible with its result, and its next run is pending.
    const jobs = await jobsOf(c.id)
    expect(jobs.find((j) => j.status === 'done')!.result).toStartWith('weights ')
    expect(jobs.filter((j) => j.status === 'pending').length).toBe(1)
    expect(jobs[0].section).toBe('campaigns')

    // Routing follows: ~90 % of new visitors get the winner.
    const after = await visits(c.slug, 300)
    expect(share(after, 'win.example')).toBeGreaterThan(0.82)
    expect(share(after, 'lose.example')).toBeGreaterThan(0.03)

    const off = await put(c.id, { path_id: null, kind: 'offers', enabled: false })
    expect(off.status).toBe(200)
    expect(off.body).toMatchObject({ enabled: false, floor_pct: 10, min_clicks: 40 })
    const [last] = await changes(c.id)
    expect(last).toMatchObject({ actor: OWNER.email, before: { [win]: 90, [lose]: 10 }, after: { [win]: 50, [lose]: 50 } })
    expect(last.reason).toContain('switched off')
    const back = (await s.api('GET', `/admin/api/campaigns/${c.id}/split-test?kind=offers&window=1h`)).body
    expect(back.entries.map((e: any) => e.auto_weight)).toEqual([null, null])
    expect((await jobsOf(c.id)).filter((j) => j.status === 'pending')).toEqual([])
    const manual = await visits(c.slug, 200)
    expect(share(manual, 'win.example')).toBeGreaterThan(0.35)
    expect(share(manual, 'win.example')).toBeLessThan(0.65)
    expect((await s.api('GET', `/admin/api/campaigns/${c.id}/auto-weights`)).body.items).toMatchObject([{ path_id: null, kind: 'offers', enabled: false }])
  }, 120_000)

  test("a path's rotation: only its links get auto weights; a manual PATCH of the rotation drops them", async () => {
    const d = await offer('pd'), a = await offer('pa'), b = await offer('pb')
    const c = await campaign([d], {
      paths: [{ name: 'DE', conditions: [{ type: 'country', values: ['DE'] }], action: { type: 'rotation', offers: [{ offer_id: a }, { offer_id: b }] } }],
    })
    const pathId = c.paths[0].id
    await traffic(c.slug, { 'pa.example': 0.02, 'pb.example': 0.4 }, 45, DE)
    expect((await put(c.id, { ...ON, path_id: pathId, floor_pct: 20 })).status).toBe(200)
    const [change] = await until('a weight change', async () => (await changes(c.id)).length > 0 && changes(c.id))
    expect(change).toMatchObject({ path_id: pathId, after: { [a]: 20, [b]: 80 } })
    const record = (await s.api('GET', `/admin/api/campaigns/${c.id}`)).body
    expect(record.offers[0].auto_weight).toBeNull()
    expect(record.paths[0].action.offers.map((o: any) => o.auto_weight)).toEqual([2000, 8000])
    // PATCH rewrites the path's links: the manual weights apply until the next run.
    const patched = await s.api('PATCH', `/admin/api/campaigns/${c.id}`, { paths: [{ ...record.paths[0], action: { type: 'rotation', offers: [{ offer_id: a }, { offer_id: b }] } }] })
    expect(patched.status).toBe(200)
    expect(patched.body.paths[0].action.offers.map((o: any) => o.auto_weight)).toEqual([null, null])
  }, 120_000)

  test('below the minimum sample the job changes nothing and says why', async () => {
    const x = await offer('fx'), y = await offer('fy')
    const c = await campaign([x, y])
    await visits(c.slug, 10)
    expect((await put(c.id, { ...ON, min_clicks: 100 })).status).toBe(200)
    const done = await until('the job', async () => (await jobsOf(c.id)).find((j) => j.status === 'done'))
    expect(done.result).toStartWith('no change: minimum sample not reached')
    expect(done.result).toContain('each entry needs 100 in 1 h')
    expect(await changes(c.id)).toEqual([])
    const t = (await s.api('GET', `/admin/api/campaigns/${c.id}/split-test?kind=offers&window=1h`)).body
    expect(t.entries.map((e: any) => e.auto_weight)).toEqual([null, null])
    // Re-configuring replaces the chain: one pending job, not two.
    expect((await put(c.id, { ...ON, min_clicks: 100, refresh_minutes: 30 })).status).toBe(200)
    await until('the second decision', async () => (await jobsOf(c.id)).filter((j) => j.status === 'done').length === 2)
    expect((await jobsOf(c.id)).filter((j) => j.status === 'pending').length).toBe(1)
  }, 60_000)

  test('settings are checked: 400 naming the field, 404 for an unknown campaign', async () => {
    const x = await offer('vx'), y = await offer('vy'), z = await offer('vz')
    const c = await campaign([x, y, z])
    const other = await campaign([x], { paths: [{ name: 'p', conditions: [{ type: 'country', values: ['DE'] }], action: { type: 'rotation', offers: [{ offer_id: x }] } }] })
    const bad = async (body: Record<string, unknown>, field: string, id = c.id) => {
      const res = await put(id, body)
      expect(res.status).toBe(400)
      expect(res.body.error).toStartWith(`${field}:`)
    }
    await bad({ ...ON, floor_pct: 40 }, 'floor_pct') // 3 × 40 % > 100 %
    await bad({ ...ON, floor_pct: 60 }, 'floor_pct')
    await bad({ ...ON, kind: 'sources' }, 'kind')
    await bad({ ...ON, metric: 'roi' }, 'metric')
    await bad({ ...ON, window_hours: 0 }, 'window_hours')
    await bad({ ...ON, refresh_minutes: 1.5 }, 'refresh_minutes')
    await bad({ ...ON, path_id: other.paths[0].id }, 'path_id')
    await bad({ ...ON, kind: 'landings' }, 'kind') // no landings to weigh
    await bad({ ...ON, path_id: other.paths[0].id }, 'kind', other.id) // one offer only
    const { enabled: _, ...noEnabled } = ON
    await bad(noEnabled, 'enabled')
    expect((await put(999_999, ON)).status).toBe(404)
    expect((await s.api('GET', '/admin/api/campaigns/999999/weight-changes')).status).toBe(404)
    expect((await s.api('PUT', `/admin/api/campaigns/${c.id}/auto-weights`, ON, '')).status).toBe(401)
    // A floor that fits (3 × 30 % ≤ 100 %) is taken.
    expect((await put(c.id, { ...ON, floor_pct: 30, enabled: false })).status).toBe(200)
  }, 60_000)
})

describe.skipIf(!onPostgres)('Postgres: two instances', () => {
  test("one instance's job decides; the other routes by the new weights (LISTEN/NOTIFY)", async () => {
    const other = await startServer({ SVC_TRUST_PROXY: '1' }, s.dataDir)
    try {
      const win = await offer('twin'), lose = await offer('tlose')
      const c = await campaign([win, lose])
      await traffic(c.slug, { 'twin.example': 0.4, 'tlose.example': 0.02 }, 45)
      // The other instance routes 50/50 first (its routing table holds the campaign).
      await visits(c.slug, 5, GB, other.base)
      expect((await put(c.id, ON)).status).toBe(200)
      await until('a weight change', async () => (await changes(c.id)).length > 0)
      const seen = await until('the other instance to follow', async () => {
        const m = await visits(c.slug, 100, GB, other.base)
        return share(m, 'twin.example') > 0.8 && m
      })
      expect(share(seen, 'twin.example')).toBeGreaterThan(0.8)
      // Both instances run a job loop; the job was claimed once: one decision, one change, one next run.
      expect((await changes(c.id)).length).toBe(1)
      const jobs = await jobsOf(c.id)
      expect(jobs.filter((j) => j.status === 'done').length).toBe(1)
      expect(jobs.filter((j) => j.status === 'pending').length).toBe(1)
    } finally {
      await other.stop()
    }
  }, 120_000)
})
