// Caps on the real click path (issue 29): an offer's daily click cap and a rotation entry's cap take the offer
// out of the rotation (its weight to the others), send its visitors to a fallback offer or URL, cap 0 pauses,
// conversion caps count recorded conversions, the status API shows counts and the soft-cap warning, a restart
// keeps the count (SQLite: committed with the clicks), and on Postgres two instances together never exceed a
// click cap (leases granted by one conditional UPDATE).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { engineEnv, get, startServer, type TestServer } from '../helpers/server'
import { onPostgres } from '../helpers/pg'
import { SERVER_TIMEOUT_MS } from './seed'
import { createCapLedger } from '../../src/tracking/store/cap-ledger'

let s: TestServer
let n = 0
const offers: Record<string, number> = {}

async function make(path: string, body: unknown): Promise<any> {
  const res = await s.api('POST', path, body)
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`)
  return res.body
}

async function offer(name: string, extra: Record<string, unknown> = {}): Promise<number> {
  const slug = `${name}-${++n}`
  return (await make('/admin/api/offers', { name, slug, url: `https://${name}.offer.example/?c={click_id}`, ...extra })).id
}

async function campaign(body: Record<string, unknown>): Promise<{ id: number; slug: string }> {
  const slug = `cap${++n}-${Date.now().toString(36)}`
  const c = await make('/admin/api/campaigns', { name: slug, slug, ...body })
  return { id: c.id, slug }
}

let ip = 0
/** One visit as a new person; the host it was sent to, or the status. */
async function where(slug: string, server: TestServer = s): Promise<string> {
  ip++
  const res = await get(`${server.base}/c/${slug}`, {
    'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
    'x-forwarded-for': `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}`,
  })
  await res.arrayBuffer()
  return res.status === 302 ? new URL(res.headers.get('location')!).host : String(res.status)
}

async function tally(slug: string, visits: number, server: TestServer = s): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (let i = 0; i < visits; i++) {
    const host = await where(slug, server)
    out[host] = (out[host] ?? 0) + 1
  }
  return out
}

async function caps(query = ''): Promise<any[]> {
  const res = await s.api('GET', `/admin/api/caps${query}`)
  expect(res.status).toBe(200)
  return res.body.caps
}

beforeAll(async () => {
  s = await startServer({ SVC_TRUST_PROXY: '1' })
  offers.other = await offer('other')
  offers.backup = await offer('backup')
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

describe('click caps', () => {
  test("an offer's daily click cap takes it out of the rotation after exactly `limit` clicks; its weight goes to the others", async () => {
    const capped = await offer('capped', { cap: { metric: 'clicks', limit: 5, time_zone: 'America/New_York' } })
    const c = await campaign({ offers: [{ offer_id: capped, weight: 9000 }, { offer_id: offers.other, weight: 1 }] })
    const seen = await tally(c.slug, 30)
    expect(seen['capped.offer.example']).toBe(5)
    expect(seen['other.offer.example']).toBe(25)
    const [status] = await caps(`?offer_id=${capped}`)
    expect(status).toMatchObject({ key: `o${capped}`, metric: 'clicks', limit: 5, count: 5, state: 'reached', period: 'day', time_zone: 'America/New_York' })
    // The period is the day in New York, and it resets at New York's next midnight.
    const nyDate = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(new Date())
    expect(status.period_key).toBe(nyDate)
    expect(Date.parse(status.resets_at)).toBeGreaterThan(Date.now())
    expect(Date.parse(status.resets_at) - Date.now()).toBeLessThanOrEqual(25 * 3600_000)
  })

  test("a rotation entry's cap counts only that campaign's clicks; the offer keeps going in another campaign", async () => {
    const shared = await offer('shared')
    const a = await campaign({ offers: [{ offer_id: shared, weight: 10000, cap: { metric: 'clicks', limit: 3, period: 'total' } }, { offer_id: offers.other, weight: 1 }] })
    const b = await campaign({ offers: [{ offer_id: shared }] })
    expect((await tally(a.slug, 10))['shared.offer.example']).toBe(3)
    expect(await tally(b.slug, 4)).toEqual({ 'shared.offer.example': 4 })
    const entry = (await caps(`?campaign_id=${a.id}`))[0]
    expect(entry).toMatchObject({ key: `c${a.id}p0o${shared}`, campaign_id: a.id, path_id: null, count: 3, limit: 3, state: 'reached', period_key: 'total', resets_at: null })
  })

  test('on_reached offer sends the visitors to the fallback offer; on_reached url to the fallback URL; cap 0 pauses', async () => {
    const toOffer = await offer('tooffer', { cap: { metric: 'clicks', limit: 2, on_reached: 'offer', fallback_offer_id: offers.backup } })
    const c1 = await campaign({ offers: [{ offer_id: toOffer }] })
    expect(await tally(c1.slug, 5)).toEqual({ 'tooffer.offer.example': 2, 'backup.offer.example': 3 })
    const toUrl = await offer('tourl')
    const c2 = await campaign({ offers: [{ offer_id: toUrl, cap: { metric: 'clicks', limit: 1, on_reached: 'url', fallback_url: 'https://fallback.example/?c={campaign_id}' } }] })
    expect(await tally(c2.slug, 3)).toEqual({ 'tourl.offer.example': 1, 'fallback.example': 2 })
    const paused = await offer('paused', { cap: { metric: 'clicks', limit: 0 } })
    const c3 = await campaign({ offers: [{ offer_id: paused }, { offer_id: offers.other }] })
    expect(await tally(c3.slug, 6)).toEqual({ 'other.offer.example': 6 })
    // Every offer capped (rotate): the campaign's fallback_url, the click still counted without an offer.
    const alone = await offer('alone', { cap: { metric: 'clicks', limit: 0 } })
    const c4 = await campaign({ offers: [{ offer_id: alone }], fallback_url: 'https://sold-out.example/' })
    expect(await where(c4.slug)).toBe('sold-out.example')
  })

  test('a path rotation entry is capped on its own key', async () => {
    const pathOffer = await offer('pathoffer')
    const c = await campaign({
      offers: [{ offer_id: offers.other }],
      paths: [{ name: 'all', conditions: [{ type: 'ip', values: ['10.0.0.0/8'] }], action: { type: 'rotation', offers: [{ offer_id: pathOffer, cap: { metric: 'clicks', limit: 2 } }, { offer_id: offers.backup, weight: 1 }] } }],
    })
    const seen = await tally(c.slug, 8)
    expect(seen['pathoffer.offer.example']).toBe(2)
    expect(seen['backup.offer.example']).toBe(6)
    const [status] = await caps(`?campaign_id=${c.id}`)
    expect(status.key).toMatch(new RegExp(`^c${c.id}p\\d+o${pathOffer}$`))
    expect(status.path_id).toBeGreaterThan(0)
  })

  test('the soft-cap warning shows at warn_percent', async () => {
    const warned = await offer('warned', { cap: { metric: 'clicks', limit: 10, warn_percent: 50 } })
    const c = await campaign({ offers: [{ offer_id: warned }] })
    await tally(c.slug, 4)
    expect((await caps(`?offer_id=${warned}`))[0]).toMatchObject({ count: 4, state: 'ok', percent: 40 })
    await tally(c.slug, 1)
    expect((await caps(`?offer_id=${warned}`))[0]).toMatchObject({ count: 5, state: 'warning', percent: 50 })
    expect((await caps('?state=warning')).some((x) => x.offer_id === warned)).toBe(true)
  })
})

describe('conversion caps', () => {
  test('an offer leaves the rotation once its recorded conversions reach the cap', async () => {
    const conv = await offer('conv', { cap: { metric: 'conversions', limit: 2 } })
    const c = await campaign({ offers: [{ offer_id: conv, weight: 10000 }, { offer_id: offers.other, weight: 1 }] })
    const clickIds: string[] = []
    while (clickIds.length < 2) {
      ip++
      const res = await get(`${s.base}/c/${c.slug}`, { 'x-forwarded-for': `10.200.${(ip >> 8) & 255}.${ip & 255}`, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0' })
      const loc = new URL(res.headers.get('location')!)
      if (loc.host === 'conv.offer.example') clickIds.push(loc.searchParams.get('c')!)
    }
    for (const id of clickIds) {
      const pb = await get(`${s.base}/postback?click_id=${id}&payout=3`)
      expect(pb.status).toBe(200)
    }
    // Counted after commit: the next visitors no longer get the offer.
    const seen = await tally(c.slug, 6)
    expect(seen['conv.offer.example']).toBeUndefined()
    expect((await caps(`?offer_id=${conv}`))[0]).toMatchObject({ metric: 'conversions', count: 2, state: 'reached' })
  })
})

describe('validation', () => {
  test('a cap is checked field by field', async () => {
    const bad = async (cap: unknown) => (await s.api('POST', '/admin/api/offers', { name: 'x', slug: `bad-${++n}`, url: 'https://x.example/', cap })).body.error
    expect(await bad({ metric: 'leads', limit: 1 })).toContain('cap.metric')
    expect(await bad({ metric: 'clicks', limit: -1 })).toContain('cap.limit')
    expect(await bad({ metric: 'clicks', limit: 1, time_zone: 'Mars/Base' })).toBe('cap.time_zone: must be an IANA time zone such as Europe/Berlin')
    expect(await bad({ metric: 'clicks', limit: 1, on_reached: 'offer' })).toContain('cap.fallback_offer_id')
    expect(await bad({ metric: 'clicks', limit: 1, on_reached: 'offer', fallback_offer_id: 999999 })).toBe('cap.fallback_offer_id: offer 999999 does not exist')
    expect(await bad({ metric: 'clicks', limit: 1, on_reached: 'url', fallback_url: 'ftp://x' })).toContain('cap.fallback_url')
    const res = await s.api('POST', '/admin/api/campaigns', { name: 'v', slug: `v-${++n}`, offers: [{ offer_id: offers.other, cap: { metric: 'clicks', limit: 1, on_reached: 'offer', fallback_offer_id: 999999 } }] })
    expect(res.status).toBe(400)
    expect(res.body.error).toBe('offers.0.cap.fallback_offer_id: offer 999999 does not exist')
    const ok = await s.api('POST', '/admin/api/offers', { name: 'ok', slug: `ok-${++n}`, url: 'https://ok.example/', cap: { metric: 'clicks', limit: 7 } })
    expect(ok.status).toBe(201)
    expect(ok.body.cap).toEqual({ metric: 'clicks', limit: 7, period: 'day', time_zone: 'UTC', on_reached: 'rotate', fallback_offer_id: null, fallback_url: null, warn_percent: 80 })
    const cleared = await s.api('PATCH', `/admin/api/offers/${ok.body.id}`, { cap: null })
    expect(cleared.body.cap).toBeNull()
    expect((await s.api('GET', '/admin/api/caps?offer_id=abc')).status).toBe(400)
  })
})

describe('durability', () => {
  test('a restart keeps the count (SQLite: committed with the clicks; Postgres: the granted slots)', async () => {
    const dir = s.dataDir
    const kept = await offer('kept', { cap: { metric: 'clicks', limit: 4 } })
    const c = await campaign({ offers: [{ offer_id: kept, weight: 10000 }, { offer_id: offers.other, weight: 1 }] })
    expect((await tally(c.slug, 3))['kept.offer.example']).toBe(3)
    await s.stop()
    s = await startServer({ SVC_TRUST_PROXY: '1' }, dir)
    await s.login()
    const seen = await tally(c.slug, 5)
    expect(seen['kept.offer.example']).toBe(1)
  }, SERVER_TIMEOUT_MS)

  // The lease of the next slot is asked for while a slot is left (refill runs ahead of the clicks). A shutdown
  // right after a click used to leave that request on its way: the slot was granted after the instance stopped,
  // never used, and the cap reached one click early after the restart (a flaky CI run found it).
  test.skipIf(!onPostgres)('Postgres: a lease still on its way at shutdown is waited for and given back', async () => {
    const dir = s.dataDir
    const late = await offer('late', { cap: { metric: 'clicks', limit: 4 } })
    const c = await campaign({ offers: [{ offer_id: late, weight: 10000 }, { offer_id: offers.other, weight: 1 }] })
    expect((await tally(c.slug, 2))['late.offer.example']).toBe(2)
    await Bun.sleep(300) // the third slot's lease, asked for by the second click, is granted
    const db = new SQL((await engineEnv(dir)).SVC_DATABASE_URL!, { max: 1 })
    const lock = await db.reserve()
    let stopping: Promise<unknown> = Promise.resolve()
    try {
      // Every grant now waits: the third click uses the slot it has, and its lease of the fourth waits here.
      await lock`BEGIN`
      await lock`LOCK TABLE cap_counters IN EXCLUSIVE MODE`
      expect(await where(c.slug)).toBe('late.offer.example')
      stopping = s.stop()
      await Bun.sleep(300)
      await lock`COMMIT`
    } finally {
      lock.release()
    }
    await stopping
    const [row] = await db`SELECT clicks FROM cap_counters WHERE cap = ${`o${late}`}`
    await db.close()
    expect(row.clicks).toBe(3)
    s = await startServer({ SVC_TRUST_PROXY: '1' }, dir)
    await s.login()
    expect((await tally(c.slug, 5))['late.offer.example']).toBe(1)
  }, SERVER_TIMEOUT_MS)
})

describe.skipIf(!onPostgres)('Postgres: two instances share a click cap', () => {
  test('grants asked at once add up to the limit exactly, and a lowered limit grants nothing', async () => {
    const ledger = createCapLedger(s.ctx.database)
    const key = `test-${Date.now()}`
    const grants = await Promise.all(Array.from({ length: 20 }, () => ledger.grant!(key, 'total', 10, 50)))
    expect(grants.reduce((sum, g) => sum + g.granted, 0)).toBe(50)
    expect(Math.max(...grants.map((g) => g.total))).toBe(50)
    expect(await ledger.grant!(key, 'total', 10, 40)).toEqual({ granted: 0, total: 50 })
    await ledger.release!(key, 'total', 15)
    expect(await ledger.clicks(key, 'total')).toBe(35)
  })

  test('concurrent clicks on two instances never exceed the cap', async () => {
    const other = await startServer({ SVC_TRUST_PROXY: '1' }, s.dataDir)
    try {
      const limit = 50
      const hot = await offer('hot', { cap: { metric: 'clicks', limit } })
      const c = await campaign({ offers: [{ offer_id: hot, weight: 10000 }, { offer_id: offers.other, weight: 1 }] })
      // The second instance learns the campaign by LISTEN/NOTIFY.
      for (let since = Date.now(); (await where(c.slug, other)) === '404';) if (Date.now() - since > 2000) throw new Error('no route on the second instance')
      const hits = await Promise.all(Array.from({ length: 160 }, (_, i) => where(c.slug, i % 2 ? other : s)))
      const onHot = hits.filter((h) => h === 'hot.offer.example').length
      // One click to the hot offer may have come from the route probe above.
      expect(onHot).toBeLessThanOrEqual(limit)
      // Leases are returned after 10 s idle at the latest; the two instances used nearly every slot.
      expect(onHot).toBeGreaterThanOrEqual(limit - 2 * 32)
    } finally {
      await other.destroy()
    }
  }, 60_000)
})
