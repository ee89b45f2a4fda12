// Two svc processes on one PostgreSQL database (issue 8): what a load balancer in front of them relies on.
// A click made on one instance converts through the other; a campaign made on one redirects on the other
// within a second; forward jobs are sent exactly once between them; a SIGKILLed instance loses no click
// that got its 302 and no job.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startChild, type ChildServer } from '../helpers/child-server'
import { startListener, type Listener } from '../helpers/listener'
import { freshPgUrl, pgAvailable } from '../helpers/pg'
import { OWNER, TEST_ENV } from '../helpers/server'
import { SQL } from 'bun'

const pg = pgAvailable()
if (!pg.ok) console.warn(`skipping multi-instance tests: ${pg.why}`)

const UA = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36' }

interface Instance {
  child: ChildServer
  base: string
  cookie: string
}

async function login(base: string): Promise<string> {
  const res = await fetch(`${base}/admin/api/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(OWNER),
  })
  if (res.status !== 200) throw new Error(`login on ${base}: ${res.status} ${await res.text()}`)
  return res.headers.getSetCookie().find((c) => c.startsWith('svc_admin_session='))!.split(';')[0]!
}

async function api(i: Instance, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${i.base}${path}`, {
    method,
    headers: { cookie: i.cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null }
}

/** The click id handed out in a 302 (the offer URL carries it as ?c=). */
async function click(base: string, slug: string): Promise<{ status: number; clickId: string | null }> {
  const res = await fetch(`${base}/c/${slug}`, { redirect: 'manual', headers: UA })
  await res.arrayBuffer()
  const location = res.headers.get('location')
  return { status: res.status, clickId: location ? new URL(location).searchParams.get('c') : null }
}

async function eventually<T>(probe: () => Promise<T | null | undefined | false>, ms: number, what: string): Promise<T> {
  const until = Date.now() + ms
  for (;;) {
    const v = await probe()
    if (v) return v
    if (Date.now() > until) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await Bun.sleep(25)
  }
}

describe.skipIf(!pg.ok)('two instances on one Postgres database', () => {
  let url: string
  let a: Instance
  let b: Instance
  let source: Listener
  let db: SQL
  let env: Record<string, string>

  const start = async (): Promise<Instance> => {
    const child = await startChild(env)
    return { child, base: child.base, cookie: await login(child.base) }
  }

  beforeAll(async () => {
    url = await freshPgUrl()
    source = startListener()
    env = {
      ...TEST_ENV, SVC_DATABASE_URL: url, SVC_OUTBOUND_ALLOW_PRIVATE: '1',
      // The load tests spread their postbacks over many client addresses (X-Forwarded-For), so the
      // per-IP postback limit (600 a minute, per instance) stays out of what they measure.
      SVC_TRUST_PROXY: '1',
      // A job claimed by an instance that dies is claimed again once its lease ran out.
      // The lease outlasts an attempt (its timeout), so a live instance never loses a job mid-attempt.
      SVC_JOBS_TIMEOUT_MS: '1000', SVC_JOBS_LEASE_MS: '1500',
    }
    a = await start() // migrates and creates the owner
    b = await start()
    db = new SQL(url, { max: 2 })
  }, 60_000)

  afterAll(async () => {
    await Promise.allSettled([a?.child.stop(), b?.child.stop()])
    source?.stop()
    await db?.close()
  })

  let slugSeq = 0
  async function campaignOn(i: Instance, opts: { postbackUrl?: string } = {}): Promise<{ slug: string; id: number }> {
    const n = ++slugSeq
    const s = await api(i, 'POST', '/admin/api/sources', { name: `src ${n}`, postback_url: opts.postbackUrl ?? null })
    const o = await api(i, 'POST', '/admin/api/offers', { name: `offer ${n}`, slug: `offer-${n}`, url: 'https://advertiser.example/?c={click_id}', payout: 2.5 })
    const slug = `multi-${n}`
    const c = await api(i, 'POST', '/admin/api/campaigns', { name: `campaign ${n}`, slug, source_id: s.body.id, offer_id: o.body.id })
    expect([s.status, o.status, c.status]).toEqual([201, 201, 201])
    return { slug, id: c.body.id }
  }

  test('a campaign created on A redirects on B within a second', async () => {
    const started = Date.now()
    const { slug } = await campaignOn(a)
    const first = await eventually(async () => {
      const r = await click(b.base, slug)
      return r.status === 302 ? r : null
    }, 1000, `B to route ${slug}`)
    expect(first.clickId).toMatch(/^[0-9a-f-]{36}$/)
    expect(Date.now() - started).toBeLessThan(1500) // campaign creation included
  })

  test('a settings change made on A takes effect on B within a second', async () => {
    const dead = await click(b.base, 'no-such-campaign')
    expect(dead.status).toBe(404) // no fallback_url yet
    const started = Date.now()
    const put = await api(a, 'PUT', '/admin/api/settings', { fallback_url: 'https://fallback.example/lost' })
    expect(put.status).toBe(200)
    // B's cached settings follow: its dead links redirect to the new fallback, and it reads the new value.
    const res = await eventually(async () => {
      const r = await fetch(`${b.base}/c/no-such-campaign`, { redirect: 'manual', headers: UA })
      await r.arrayBuffer()
      return r.status === 302 ? r : null
    }, 1000, 'B to use the new fallback_url')
    expect(res.headers.get('location')).toBe('https://fallback.example/lost')
    expect(Date.now() - started).toBeLessThan(1500)
    expect((await api(b, 'GET', '/admin/api/settings')).body.fallback_url).toBe('https://fallback.example/lost')
    // A traffic-quality setting made on A classifies B's clicks: B's own address becomes excluded.
    const { slug } = await campaignOn(a)
    await eventually(async () => (await click(b.base, slug)).status === 302, 1000, 'routing on B')
    expect((await api(a, 'PUT', '/admin/api/settings', { excluded_ips: ['127.0.0.1', '::1'] })).status).toBe(200)
    const excluded = await eventually(async () => {
      const { clickId } = await click(b.base, slug)
      const [row] = await db`SELECT excluded FROM clicks WHERE click_id = ${clickId}`
      return row && Number(row.excluded) === 1 ? row : null
    }, 1000, 'B to exclude clicks from 127.0.0.1')
    expect(Number(excluded.excluded)).toBe(1)
    // Back to the defaults, for the tests after this one (on both instances, as seen from B).
    expect((await api(a, 'PUT', '/admin/api/settings', { fallback_url: null, excluded_ips: [] })).status).toBe(200)
    await eventually(async () => (await click(b.base, 'no-such-campaign')).status === 404, 1000, 'B to drop the fallback_url')
  })

  test('a click on A and its postback on B make exactly one conversion, seen from both', async () => {
    // Deduplication by transaction id is off by default: turned on through A, B must apply it too.
    expect((await api(a, 'PUT', '/admin/api/settings', { postback_dedup: true })).status).toBe(200)
    await eventually(async () => (await api(b, 'GET', '/admin/api/settings')).body.postback_dedup === true, 1000, 'B to see postback_dedup')
    const { slug } = await campaignOn(a)
    await eventually(async () => (await click(b.base, slug)).status === 302, 1000, 'routing on B')
    const { status, clickId } = await click(a.base, slug)
    expect(status).toBe(302)
    const pb = await fetch(`${b.base}/postback?subid=${clickId}&payout=7.25&tid=T-${clickId}`)
    expect(pb.status).toBe(200)
    expect(await pb.text()).toBe('OK')
    // Replayed on A: the same tid is a duplicate (postback_dedup is on by default), not a second sale.
    await (await fetch(`${a.base}/postback?subid=${clickId}&payout=7.25&tid=T-${clickId}`)).text()
    for (const i of [a, b]) {
      const list = await api(i, 'GET', `/admin/api/conversions?click_id=${clickId}`)
      expect(list.status).toBe(200)
      expect(list.body.items).toHaveLength(1)
      expect(list.body.items[0].revenue).toBe(7.25)
    }
    const errors = await db`SELECT reason FROM postback_errors WHERE click_id = ${clickId}`
    expect(errors.map((r: { reason: string }) => r.reason)).toEqual(['duplicate'])
  })

  test('an email trigger and an automation made on A fire for a postback on B, within two seconds', async () => {
    const { slug, id } = await campaignOn(a)
    const offerId = (await api(a, 'GET', `/admin/api/campaigns/${id}`)).body.offer_id
    const list = (await api(a, 'POST', '/admin/api/email-lists', { name: 'multi buyers' })).body.id
    expect((await api(a, 'POST', '/admin/api/automations', { list_id: list, name: 'welcome', steps: [{ delay_minutes: 60, subject: 'Hi', text: 'x' }] })).status).toBe(201)
    expect((await api(a, 'POST', '/admin/api/email-triggers', { offer_id: offerId, target_list_id: list })).status).toBe(201)
    const started = Date.now()
    await eventually(async () => (await click(b.base, slug)).status === 302, 1000, 'routing on B')
    // Postbacks on B until B's trigger table has the new trigger (a conversion before that enrols nobody).
    let n = 0
    const sub = await eventually(async () => {
      const { clickId } = await click(b.base, slug)
      await (await fetch(`${b.base}/postback?subid=${clickId}&email=multi-buyer@example.com&tid=m-${++n}`)).text()
      const [row] = await db`SELECT id FROM email_subscribers WHERE list_id = ${list} AND email = 'multi-buyer@example.com'`
      return row ?? null
    }, 2000, 'the buyer enrolled through B')
    expect(Date.now() - started).toBeLessThan(2000)
    // Whichever instance ran the enrolment had the automation too: its step is scheduled.
    const steps = await db`SELECT status FROM jobs WHERE kind = 'email_automation_step' AND payload LIKE ${`%"subscriber_id":${Number(sub.id)},%`}`
    expect(steps.map((r: { status: string }) => r.status)).toEqual(['pending'])
  })

  test('1,000 forward jobs made on both instances are delivered exactly once', async () => {
    const { slug } = await campaignOn(a, { postbackUrl: `${source.base}/pb?cid={click_id}` })
    await eventually(async () => (await click(b.base, slug)).status === 302, 1000, 'routing on B')
    source.received.length = 0
    const ids: string[] = []
    // 1,000 conversions, clicks and postbacks alternating between the instances, 20 at a time.
    for (let round = 0; round < 50; round++) {
      await Promise.all(Array.from({ length: 20 }, async (_, k) => {
        const n = round * 20 + k
        const { clickId } = await click(n % 2 ? a.base : b.base, slug)
        const res = await fetch(`${(n % 3 ? a : b).base}/postback?subid=${clickId}&payout=1`, { headers: { 'x-forwarded-for': `10.0.${n >> 8}.${n & 255}` } })
        expect(await res.text()).toBe('OK')
        ids.push(clickId!)
      }))
    }
    await source.waitFor(1000, 60_000)
    await Bun.sleep(500) // a duplicate delivery would arrive now
    const delivered = source.received.map((r) => r.url.searchParams.get('cid')!)
    expect(delivered).toHaveLength(1000)
    expect(new Set(delivered).size).toBe(1000)
    expect(new Set(delivered)).toEqual(new Set(ids))
    const [{ done }] = await db`SELECT count(*)::int AS done FROM jobs WHERE status = 'done' AND payload LIKE ${`%${source.base}%`}`
    expect(done).toBe(1000)
  }, 120_000)

  test('SIGKILL of one instance under load loses no click that got a 302, and no job', async () => {
    const { slug } = await campaignOn(a, { postbackUrl: `${source.base}/pb?cid={click_id}` })
    await eventually(async () => (await click(b.base, slug)).status === 302, 1000, 'routing on B')
    // The source is slow, so jobs are mid-attempt (claimed, leased) on A when it dies.
    const slowSource = startListener(async () => {
      await Bun.sleep(300)
      return new Response('ok')
    })
    const { slug: slowSlug, id: slowCampaign } = await campaignOn(b, { postbackUrl: `${slowSource.base}/pb?cid={click_id}` })
    await eventually(async () => (await click(a.base, slowSlug)).status === 302, 1000, 'routing on A')
    const handedOut: string[] = []
    const converted: string[] = []
    let running = true
    const loops = Array.from({ length: 16 }, async (_, k) => {
      while (running) {
        try {
          const r = await click(a.base, k % 2 ? slug : slowSlug)
          if (r.status === 302 && r.clickId) {
            handedOut.push(r.clickId)
            if (k % 2 === 0) {
              const pb = await fetch(`${a.base}/postback?subid=${r.clickId}`)
              if ((await pb.text()) === 'OK') converted.push(r.clickId)
            }
          }
        } catch {
          // The instance died under this request: no 302, so nothing was promised.
        }
      }
    })
    await Bun.sleep(1500)
    await a.child.kill()
    running = false
    await Promise.all(loops)
    expect(handedOut.length).toBeGreaterThan(100)

    const stored = new Set((await db`SELECT click_id FROM clicks`).map((r: { click_id: string }) => r.click_id))
    const lost = handedOut.filter((id) => !stored.has(id))
    expect(lost).toEqual([])
    const conversions = new Set((await db`SELECT click_id FROM conversions`).map((r: { click_id: string }) => r.click_id))
    expect(converted.filter((id) => !conversions.has(id))).toEqual([])

    // B finishes every forward job of those conversions, including the ones A held when it died.
    const forwarded = converted.length
    await eventually(async () => {
      const [{ open }] = await db`SELECT count(*)::int AS open FROM jobs WHERE status IN ('pending', 'running') AND payload LIKE ${`%${slowSource.base}%`}`
      return open === 0
    }, 30_000, 'B to finish the dead instance\'s jobs')
    const [{ done }] = await db`SELECT count(*)::int AS done FROM jobs WHERE status = 'done' AND payload LIKE ${`%${slowSource.base}%`}`
    // A postback in flight at the kill may have committed without its OK reaching the client: it is
    // recorded and forwarded too (the reverse, an OK without a conversion, is what must never happen).
    const [{ recorded }] = await db`SELECT count(*)::int AS recorded FROM conversions WHERE campaign_id = ${slowCampaign}`
    expect(recorded).toBeGreaterThanOrEqual(forwarded)
    expect(done).toBe(recorded)
    const cids = new Set(slowSource.received.map((r) => r.url.searchParams.get('cid')))
    expect(converted.filter((id) => !cids.has(id))).toEqual([])
    slowSource.stop()
    // A comes back on the same database and serves at once.
    a = await start()
    expect((await click(a.base, slug)).status).toBe(302)
  }, 90_000)
})
