import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { get, startServer, type TestServer } from '../helpers/server'
import { clickCount, clickRow, cookieClickId, seeder, SERVER_TIMEOUT_MS } from './seed'

let s: TestServer
let seed: ReturnType<typeof seeder>
let c: { offer: number; landing: number; campaign: number; other: number }

beforeAll(async () => {
  s = await startServer()
  seed = seeder(s)
  const source = await seed.source()
  const offer = await seed.offer('https://offer.example/go?c={click_id}&l={landing_id}&s1={sub1}&src={source_id}')
  const landing = await seed.landing({ url: 'https://lp.example/?c={click_id}&s1={sub1}' })
  const campaign = await seed.campaign({ slug: 'funnel', sourceId: source, offers: [[offer, 1]], landings: [[landing, 1]] })
  const otherOffer = await seed.offer('https://other.example/?c={click_id}')
  const other = await seed.campaign({ slug: 'other', offers: [[otherOffer, 1]] })
  c = { offer, landing, campaign, other }
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

async function newClick(slug = 'funnel', query = '?sub1=first'): Promise<string> {
  const res = await get(`${s.base}/c/${slug}${query}`)
  expect(res.status).toBe(302)
  return cookieClickId(res)!
}

describe('click_id on /c', () => {
  test('an existing click of the same campaign is continued: same id, no new row, its own stored values in the macros', async () => {
    const id = await newClick()
    const before = await clickCount(s)
    const res = await get(`${s.base}/c/funnel?click_id=${id}&sub1=second`)
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(`https://lp.example/?c=${id}&s1=first`)
    expect(cookieClickId(res)).toBe(id)
    expect(await clickCount(s)).toBe(before)
  })

  test('the id is matched case-insensitively', async () => {
    const id = await newClick()
    const res = await get(`${s.base}/c/funnel?click_id=${id.toUpperCase()}`)
    expect(cookieClickId(res)).toBe(id)
  })

  test.each([
    ['malformed', 'not-a-uuid'],
    ['unknown', '0b1c2d3e-4f50-4617-8899-aabbccddeeff'],
    ['empty', ''],
  ])('click_id %s: a new click is created as usual', async (_what, value) => {
    const before = await clickCount(s)
    const res = await get(`${s.base}/c/funnel?click_id=${value}`)
    expect(res.status).toBe(302)
    const id = cookieClickId(res)!
    expect(id).not.toBe(value)
    expect(await clickCount(s)).toBe(before + 1)
    expect((await clickRow(s, id))!.params).toBeNull() // click_id itself is not a visitor parameter
  })

  test('when the stored landing left the campaign, a new landing is picked and recorded on the click', async () => {
    const offer = await seed.offer('https://offer.example/o')
    const oldLp = await seed.landing({ url: 'https://lp.example/old?c={click_id}' })
    const newLp = await seed.landing({ url: 'https://lp.example/new?c={click_id}&l={landing_id}' })
    const campaign = await seed.campaign({ slug: 'lp-swap', offers: [[offer, 1]], landings: [[oldLp, 1]] })
    const id = await newClick('lp-swap', '')
    await seed.exec('UPDATE campaign_landings SET landing_id = $n WHERE campaign_id = $c', { n: newLp, c: campaign })
    const before = await clickCount(s)
    const res = await get(`${s.base}/c/lp-swap?click_id=${id}`)
    expect(res.headers.get('location')).toBe(`https://lp.example/new?c=${id}&l=${newLp}`)
    expect((await clickRow(s, id))!.landing_id).toBe(newLp)
    expect(await clickCount(s)).toBe(before)
  })

  test('a click of another campaign is not continued: a new click is created', async () => {
    const foreign = await newClick('other', '')
    const res = await get(`${s.base}/c/funnel?click_id=${foreign}`)
    const id = cookieClickId(res)!
    expect(id).not.toBe(foreign)
    expect((await clickRow(s, id))!.campaign_id).toBe(c.campaign)
    expect((await clickRow(s, foreign))!.campaign_id).toBe(c.other)
  })
})

describe('GET /r/:slug', () => {
  test('continues the click from the click_id query parameter to its stored offer', async () => {
    const id = await newClick()
    const before = await clickCount(s)
    const res = await get(`${s.base}/r/funnel?click_id=${id}`)
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(`https://offer.example/go?c=${id}&l=${c.landing}&s1=first&src=${(await clickRow(s, id))!.source_id}`)
    expect(res.headers.get('set-cookie')).toBe(`_svc_click=${id}; Path=/; Max-Age=2592000; SameSite=Lax`)
    expect(await clickCount(s)).toBe(before)
  })

  test('continues the click from the _svc_click cookie', async () => {
    const id = await newClick()
    const res = await get(`${s.base}/r/funnel`, { cookie: `theme=dark; _svc_click=${id}` })
    expect(cookieClickId(res)).toBe(id)
    expect(res.headers.get('location')).toStartWith(`https://offer.example/go?c=${id}&`)
  })

  test('the query parameter wins over the cookie', async () => {
    const fromQuery = await newClick()
    const fromCookie = await newClick()
    const res = await get(`${s.base}/r/funnel?click_id=${fromQuery}`, { cookie: `_svc_click=${fromCookie}` })
    expect(cookieClickId(res)).toBe(fromQuery)
  })

  test('an unusable query click_id falls back to the cookie', async () => {
    const fromCookie = await newClick()
    const foreign = await newClick('other', '')
    for (const q of ['garbage', foreign, '0b1c2d3e-4f50-4617-8899-aabbccddeeff']) {
      const res = await get(`${s.base}/r/funnel?click_id=${q}`, { cookie: `_svc_click=${fromCookie}` })
      expect(cookieClickId(res)).toBe(fromCookie)
    }
  })

  test('without a usable click, a new click is created with no landing and sent to a weighted offer', async () => {
    const foreign = await newClick('other', '')
    const before = await clickCount(s)
    const res = await get(`${s.base}/r/funnel?sub1=direct&utm_term=t`, { cookie: `_svc_click=${foreign}` })
    expect(res.status).toBe(302)
    const id = cookieClickId(res)!
    expect(id).not.toBe(foreign)
    expect(await clickCount(s)).toBe(before + 1)
    const row = (await clickRow(s, id))!
    expect(row.campaign_id).toBe(c.campaign)
    expect(row.landing_id).toBeNull()
    expect(row.offer_id).toBe(c.offer)
    expect(row.sub1).toBe('direct')
    expect(JSON.parse(row.params)).toEqual({ utm_term: 't' })
    expect(res.headers.get('location')).toBe(`https://offer.example/go?c=${id}&l=&s1=direct&src=${row.source_id}`)
  })

  test('when the stored offer left the campaign, a new offer is picked by weight and recorded on the click', async () => {
    const first = await seed.offer('https://offer.example/first?c={click_id}')
    const second = await seed.offer('https://offer.example/second?c={click_id}')
    const campaign = await seed.campaign({ slug: 'swap', offers: [[first, 1]] })
    const id = await newClick('swap', '')
    expect((await clickRow(s, id))!.offer_id).toBe(first)
    await seed.exec('DELETE FROM campaign_offers WHERE campaign_id = $c', { c: campaign })
    await seed.exec('INSERT INTO campaign_offers (campaign_id, offer_id, weight) VALUES ($c, $o, 1)', { c: campaign, o: second })
    const res = await get(`${s.base}/r/swap?click_id=${id}`)
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(`https://offer.example/second?c=${id}`)
    expect((await clickRow(s, id))!.offer_id).toBe(second)
  })

  test('an unknown campaign is a JSON 404', async () => {
    const res = await get(`${s.base}/r/nope`)
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ error: 'campaign not found' })
  })
})

describe('HEAD /c and HEAD /r', () => {
  test('answer the same 302 target with an empty {click_id}, create no click and set no cookie', async () => {
    const before = await clickCount(s)
    const lp = await fetch(`${s.base}/c/funnel?sub1=h`, { method: 'HEAD', redirect: 'manual' })
    expect(lp.status).toBe(302)
    expect(lp.headers.get('location')).toBe('https://lp.example/?c=&s1=h')
    expect(lp.headers.get('set-cookie')).toBeNull()
    expect(lp.headers.get('cache-control')).toBe('no-store')
    const id = await newClick()
    const r = await fetch(`${s.base}/r/funnel?click_id=${id}`, { method: 'HEAD', redirect: 'manual' })
    expect(r.status).toBe(302)
    expect(r.headers.get('location')).toStartWith('https://offer.example/go?c=&l=&')
    expect(r.headers.get('set-cookie')).toBeNull()
    expect(await clickCount(s)).toBe(before + 1) // only newClick()
  })

  test('HEAD on an unknown slug is a 404', async () => {
    const res = await fetch(`${s.base}/c/nope`, { method: 'HEAD' })
    expect(res.status).toBe(404)
  })
})
