import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { get, startServer, type TestServer } from '../helpers/server'
import { clickCount, clickRow, cookieClickId, seeder, SERVER_TIMEOUT_MS } from './seed'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

let s: TestServer
let seed: ReturnType<typeof seeder>
let ids: { source: number; offer: number; campaign: number }

beforeAll(async () => {
  s = await startServer()
  seed = seeder(s)
  const source = await seed.source()
  const offer = await seed.offer(
    'https://offer.example/go?cid={click_id}&camp={campaign_id}&src={source_id}&o={offer_id}&l={landing_id}&ext={external_id}' +
      '&s1={sub1}&s2={sub2}&s3={sub3}&s4={sub4}&s5={sub5}&s6={sub6}&s7={sub7}&s8={sub8}&s9={sub9}&s10={sub10}&keep={payout}',
  )
  const campaign = await seed.campaign({ slug: 'direct', sourceId: source, externalId: 'ext/42 x', offers: [[offer, 1]] })
  ids = { source, offer, campaign }
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

describe('GET /c/:slug', () => {
  test('answers 302 to the offer with every macro substituted and URL-encoded', async () => {
    const subs = Array.from({ length: 10 }, (_, i) => `sub${i + 1}=v${i + 1}%20%26%2F`).join('&')
    const res = await get(`${s.base}/c/direct?${subs}`)
    expect(res.status).toBe(302)
    const id = cookieClickId(res)!
    expect(id).toMatch(UUID)
    const expectedSubs = Array.from({ length: 10 }, (_, i) => `s${i + 1}=v${i + 1}%20%26%2F`).join('&')
    expect(res.headers.get('location')).toBe(
      `https://offer.example/go?cid=${id}&camp=${ids.campaign}&src=${ids.source}&o=${ids.offer}&l=&ext=ext%2F42%20x&${expectedSubs}&keep={payout}`,
    )
    expect(res.headers.get('cache-control')).toBe('no-store')
  })

  test('sets exactly `_svc_click=<id>; Path=/; Max-Age=<30 days>; SameSite=Lax` (readable by scripts, not Secure over http)', async () => {
    const res = await get(`${s.base}/c/direct`)
    const id = cookieClickId(res)!
    expect(res.headers.getSetCookie()).toEqual([`_svc_click=${id}; Path=/; Max-Age=2592000; SameSite=Lax`])
  })

  test('the cookie lifetime follows the click_cookie_days setting', async () => {
    s.ctx.settings.update({ click_cookie_days: 2 })
    try {
      const res = await get(`${s.base}/c/direct`)
      expect(res.headers.get('set-cookie')).toContain('; Max-Age=172800;')
    } finally {
      s.ctx.settings.update({ click_cookie_days: 30 })
    }
  })

  test('the click row is committed by the time the 302 arrives, with every field', async () => {
    const longUa = 'U'.repeat(600)
    const longRef = 'https://ref.example/' + 'r'.repeat(1100)
    const res = await get(`${s.base}/c/direct?sub1=one&sub3=${'x'.repeat(300)}&utm_source=fb&utm_medium=cpc&utm_source=second`, {
      'user-agent': longUa,
      referer: longRef,
    })
    const id = cookieClickId(res)!
    const row = (await clickRow(s, id))!
    expect(row).toBeDefined()
    expect(row.campaign_id).toBe(ids.campaign)
    expect(row.source_id).toBe(ids.source)
    expect(row.offer_id).toBe(ids.offer)
    expect(row.landing_id).toBeNull()
    expect(row.ip).toBe('127.0.0.1')
    expect(row.user_agent).toBe('U'.repeat(512))
    expect(row.referrer).toBe(longRef.slice(0, 1024))
    expect(row.sub1).toBe('one')
    expect(row.sub2).toBeNull()
    expect(row.sub3).toBe('x'.repeat(256))
    expect(JSON.parse(row.params)).toEqual({ utm_source: 'fb', utm_medium: 'cpc' })
    expect(Math.abs(row.created_at - Date.now())).toBeLessThan(60_000)
  })

  test('a visit without extra parameters stores params as null', async () => {
    const id = cookieClickId(await get(`${s.base}/c/direct?sub1=a`))!
    expect((await clickRow(s, id))!.params).toBeNull()
  })

  test('every visit is a new click with a new UUID v4', async () => {
    const before = await clickCount(s)
    const a = cookieClickId(await get(`${s.base}/c/direct`))
    const b = cookieClickId(await get(`${s.base}/c/direct`))
    expect(a).not.toBe(b)
    expect(await clickCount(s)).toBe(before + 2)
  })

  test('an unknown slug is a JSON 404 and records nothing', async () => {
    const before = await clickCount(s)
    const res = await get(`${s.base}/c/no-such-campaign`)
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toContain('application/json')
    expect(await res.json()).toEqual({ error: 'campaign not found' })
    expect(await clickCount(s)).toBe(before)
  })

  test('an inactive campaign answers 404 like an unknown one', async () => {
    const offer = await seed.offer('https://offer.example/inactive')
    await seed.campaign({ slug: 'paused', active: false, offers: [[offer, 1]] })
    const res = await get(`${s.base}/c/paused`)
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ error: 'campaign not found' })
  })

  test('a campaign without an offer, or only with weight-0 or unusable offers, answers 404', async () => {
    await seed.campaign({ slug: 'no-offer' })
    const zero = await seed.offer('https://offer.example/zero')
    await seed.campaign({ slug: 'zero-offer', offers: [[zero, 0]] })
    const bad = await seed.offer('javascript:alert(1)')
    await seed.campaign({ slug: 'bad-offer', offers: [[bad, 100]] })
    for (const slug of ['no-offer', 'zero-offer', 'bad-offer']) {
      const res = await get(`${s.base}/c/${slug}`)
      expect(res.status).toBe(404)
      expect(await res.json()).toEqual({ error: 'campaign not found' })
    }
  })

  test('an offer with an unusable URL is skipped in rotation instead of failing', async () => {
    const bad = await seed.offer('not a url {click_id}')
    const good = await seed.offer('https://offer.example/good')
    await seed.campaign({ slug: 'half-bad', offers: [[bad, 1000], [good, 1]] })
    for (let i = 0; i < 10; i++) {
      const res = await get(`${s.base}/c/half-bad`)
      expect(res.status).toBe(302)
      expect(res.headers.get('location')).toBe('https://offer.example/good')
    }
  })
})

describe('GET /c/:slug with landings', () => {
  test('goes to the landing first, with the macros filled in, and records both landing and offer', async () => {
    const offer = await seed.offer('https://offer.example/after-landing?c={click_id}')
    const landing = await seed.landing({ url: 'https://lp.example/page?c={click_id}&l={landing_id}&o={offer_id}&s={sub1}' })
    const campaign = await seed.campaign({ slug: 'with-lp', offers: [[offer, 1]], landings: [[landing, 1]] })
    const res = await get(`${s.base}/c/with-lp?sub1=hi%20there`)
    expect(res.status).toBe(302)
    const id = cookieClickId(res)!
    expect(res.headers.get('location')).toBe(`https://lp.example/page?c=${id}&l=${landing}&o=${offer}&s=hi%20there`)
    const row = (await clickRow(s, id))!
    expect(row.campaign_id).toBe(campaign)
    expect(row.landing_id).toBe(landing)
    expect(row.offer_id).toBe(offer)
  })

  test('a click on a campaign with an html-only landing redirects to /lp/<slug>?click_id=… (relative without SVC_PUBLIC_URL)', async () => {
    const offer = await seed.offer('https://offer.example/o')
    const landing = await seed.landing({ html: '<h1>hi</h1>' }, 'hosted-page')
    await seed.campaign({ slug: 'hosted', offers: [[offer, 1]], landings: [[landing, 1]] })
    const res = await get(`${s.base}/c/hosted`)
    expect(res.status).toBe(302)
    // The click id rides in the URL too: a browser that blocks cookies keeps its attribution.
    expect(res.headers.get('location')).toBe(`/lp/hosted-page?click_id=${cookieClickId(res)}`)
  })

  test('a landing that is neither a usable URL nor html is skipped; with none left the visitor goes to the offer', async () => {
    const offer = await seed.offer('https://offer.example/fallback')
    const broken = await seed.landing({ url: 'ftp://lp.example/' })
    await seed.campaign({ slug: 'broken-lp', offers: [[offer, 1]], landings: [[broken, 1]] })
    const res = await get(`${s.base}/c/broken-lp`)
    expect(res.headers.get('location')).toBe('https://offer.example/fallback')
    expect((await clickRow(s, cookieClickId(res)!))!.landing_id).toBeNull()
  })
})

describe('cookie Secure flag and public URL', () => {
  test('with an https SVC_PUBLIC_URL the cookie is Secure and hosted landings are absolute', async () => {
    const t = await startServer({ SVC_PUBLIC_URL: 'https://track.example/' })
    try {
      const sd = seeder(t)
      const offer = await sd.offer('https://offer.example/o')
      const landing = await sd.landing({ html: '<p>x</p>' }, 'abs-page')
      await sd.campaign({ slug: 'abs', offers: [[offer, 1]], landings: [[landing, 1]] })
      const res = await get(`${t.base}/c/abs`)
      expect(res.headers.get('location')).toBe(`https://track.example/lp/abs-page?click_id=${cookieClickId(res)}`)
      expect(res.headers.get('set-cookie')).toBe(`_svc_click=${cookieClickId(res)}; Path=/; Max-Age=2592000; SameSite=Lax; Secure`)
    } finally {
      await t.destroy()
    }
  }, SERVER_TIMEOUT_MS)

  test('behind a trusted proxy, X-Forwarded-Proto https makes the cookie Secure and X-Forwarded-For is the click ip', async () => {
    const t = await startServer({ SVC_TRUST_PROXY: '1' })
    try {
      const sd = seeder(t)
      await sd.campaign({ slug: 'proxied', offers: [[await sd.offer('https://offer.example/o'), 1]] })
      const res = await get(`${t.base}/c/proxied`, { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7' })
      expect(res.headers.get('set-cookie')).toEndWith('; SameSite=Lax; Secure')
      expect((await clickRow(t, cookieClickId(res)!))!.ip).toBe('198.51.100.7')
      const plain = await get(`${t.base}/c/proxied`, { 'x-forwarded-proto': 'http' })
      expect(plain.headers.get('set-cookie')).toEndWith('; SameSite=Lax')
    } finally {
      await t.destroy()
    }
  }, SERVER_TIMEOUT_MS)

  test('without trust proxy, X-Forwarded-* headers are ignored', async () => {
    const res = await get(`${s.base}/c/direct`, { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7' })
    expect(res.headers.get('set-cookie')).toEndWith('; SameSite=Lax')
    expect((await clickRow(s, cookieClickId(res)!))!.ip).toBe('127.0.0.1')
  })
})
