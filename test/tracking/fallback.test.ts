// Dead tracking links (unknown slug, paused campaign, no usable offer): the fallback URL (campaign's, then
// the fallback_url setting), else an HTML 404 for browsers and the JSON 404 for programs. And the
// trailing-slash form of a link.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { get, startServer, type TestServer } from '../helpers/server'
import { clickCount, seeder, SERVER_TIMEOUT_MS } from './seed'

let s: TestServer
let seed: ReturnType<typeof seeder>
let offer: number
beforeAll(async () => {
  s = await startServer()
  seed = seeder(s)
  offer = await seed.offer('https://offer.example/o?c={click_id}')
  await seed.campaign({ slug: 'spring', offers: [[offer, 1]] })
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())
beforeEach(async () => {
  expect((await s.api('PUT', '/admin/api/settings', { fallback_url: null })).status).toBe(200)
})

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }

async function expectJson404(res: Response) {
  expect(res.status).toBe(404)
  expect(res.headers.get('content-type')).toBe('application/json')
  expect(await res.json()).toEqual({ error: 'campaign not found' })
}

/** A 302 to `location` that recorded no click and set no cookie. */
async function expectFallback(path: string, location: string, method = 'GET') {
  const before = await clickCount(s)
  const res = await fetch(`${s.base}${path}`, { method, redirect: 'manual', headers: HTML })
  expect(res.status).toBe(302)
  expect(res.headers.get('location')).toBe(location)
  expect(res.headers.get('cache-control')).toBe('no-store')
  expect(res.headers.getSetCookie()).toEqual([])
  expect(await clickCount(s)).toBe(before)
}

describe('a link with a trailing slash', () => {
  test('/c/spring/ and /r/spring/ redirect like /c/spring and /r/spring, query included', async () => {
    for (const path of ['/c/spring/', '/r/spring/', '/c/spring/?sub1=zone-7']) {
      const before = await clickCount(s)
      const res = await get(`${s.base}${path}`)
      expect(res.status).toBe(302)
      const clickId = res.headers.get('set-cookie')!.match(/^_svc_click=([0-9a-f-]{36});/)![1]
      expect(res.headers.get('location')).toBe(`https://offer.example/o?c=${clickId}`)
      expect(await clickCount(s)).toBe(before + 1)
    }
  })

  test('HEAD /c/spring/ previews like HEAD /c/spring', async () => {
    const res = await fetch(`${s.base}/c/spring/`, { method: 'HEAD', redirect: 'manual' })
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe('https://offer.example/o?c=')
  })

  test('a deeper path is not a tracking link: 404 {"error":"not found"}, as any unknown path', async () => {
    for (const path of ['/c/spring/x', '/c/spring//', '/r/spring/x/']) {
      const res = await get(`${s.base}${path}`)
      expect(res.status).toBe(404)
      expect(await res.json()).toEqual({ error: 'not found' })
    }
  })

  test('an unknown slug with a slash answers like one without', async () => {
    await expectJson404(await get(`${s.base}/c/nope/`))
  })
})

describe('a dead link without a fallback URL', () => {
  test('programs get the JSON 404, as before', async () => {
    await expectJson404(await get(`${s.base}/c/nope`))
    await expectJson404(await get(`${s.base}/r/nope`, { accept: 'application/json' }))
    await expectJson404(await get(`${s.base}/c/nope`, { accept: '*/*' }))
  })

  test('browsers (Accept: text/html) get a small HTML page with status 404', async () => {
    for (const path of ['/c/nope', '/r/nope', '/c/nope/']) {
      const res = await get(`${s.base}${path}`, HTML)
      expect(res.status).toBe(404)
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(res.headers.get('cache-control')).toBe('no-store')
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'")
      expect(res.headers.get('x-frame-options')).toBe('DENY')
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      const body = await res.text()
      expect(body).toStartWith('<!doctype html>')
      expect(body).toContain('<h1>Link not found</h1>')
    }
  })

  test('HEAD from a browser gets the 404 with the HTML content type', async () => {
    const res = await fetch(`${s.base}/c/nope`, { method: 'HEAD', headers: HTML })
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
  })
})

describe('the fallback_url setting', () => {
  test('sends visitors of an unknown slug there (GET and HEAD, /c and /r), with no click recorded', async () => {
    const res = await s.api('PUT', '/admin/api/settings', { fallback_url: 'https://fallback.example/offers?src=svc' })
    expect(res.status).toBe(200)
    expect(res.body.fallback_url).toBe('https://fallback.example/offers?src=svc')
    await expectFallback('/c/nope', 'https://fallback.example/offers?src=svc')
    await expectFallback('/r/nope', 'https://fallback.example/offers?src=svc')
    await expectFallback('/c/nope/', 'https://fallback.example/offers?src=svc')
    await expectFallback('/c/nope?sub1=x', 'https://fallback.example/offers?src=svc', 'HEAD')
  })

  test('programs are redirected too (the fallback does not depend on Accept)', async () => {
    await s.api('PUT', '/admin/api/settings', { fallback_url: 'https://fallback.example/' })
    const res = await get(`${s.base}/c/nope`)
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe('https://fallback.example/')
  })

  test('a live campaign is not affected', async () => {
    await s.api('PUT', '/admin/api/settings', { fallback_url: 'https://fallback.example/' })
    const res = await get(`${s.base}/c/spring`)
    expect(res.headers.get('location')).toStartWith('https://offer.example/o?c=')
  })

  test.each([
    ['a relative URL', '/somewhere'],
    ['another scheme', 'ftp://fallback.example/'],
    ['javascript:', 'javascript:alert(1)'],
    ['not a URL', 'fallback dot example'],
    ['a macro', 'https://fallback.example/?c={click_id}'],
    ['a macro in the host', 'https://{sub1}/'],
    ['a number', 42],
    ['a 4097-character URL', `https://fallback.example/${'x'.repeat(4072)}`],
  ])('%s is refused with a 400 naming fallback_url, and nothing changes', async (_name, value) => {
    await s.api('PUT', '/admin/api/settings', { fallback_url: 'https://kept.example/' })
    const res = await s.api('PUT', '/admin/api/settings', { fallback_url: value })
    expect(res.status).toBe(400)
    expect(res.body.error).toStartWith('fallback_url: ')
    expect((await s.api('GET', '/admin/api/settings')).body.fallback_url).toBe('https://kept.example/')
  })

  test('the URL is stored normalised (percent-encoded, host lower-cased); null and "" clear it', async () => {
    const res = await s.api('PUT', '/admin/api/settings', { fallback_url: ' https://Fallback.EXAMPLE/a b ' })
    expect(res.body.fallback_url).toBe('https://fallback.example/a%20b')
    expect((await s.api('PUT', '/admin/api/settings', { fallback_url: '' })).body.fallback_url).toBeNull()
    await expectJson404(await get(`${s.base}/c/nope`))
  })
})

describe("a campaign's own fallback_url", () => {
  let offerId: number
  beforeAll(async () => {
    offerId = (await s.api('POST', '/admin/api/offers', { name: 'FB offer', slug: 'fb-offer', url: 'https://offer.example/fb' })).body.id
  })
  const create = (body: Record<string, unknown>) => s.api('POST', '/admin/api/campaigns', { name: 'FB', offer_id: offerId, ...body })

  test('is stored, shown, changed and cleared through the campaign record', async () => {
    const created = await create({ slug: 'fb-record', fallback_url: 'https://camp.example/fb' })
    expect(created.status).toBe(201)
    expect(created.body.fallback_url).toBe('https://camp.example/fb')
    const id = created.body.id
    expect((await s.api('GET', `/admin/api/campaigns/${id}`)).body.fallback_url).toBe('https://camp.example/fb')
    expect((await s.api('PATCH', `/admin/api/campaigns/${id}`, { fallback_url: 'http://camp.example/2' })).body.fallback_url).toBe('http://camp.example/2')
    expect((await s.api('PATCH', `/admin/api/campaigns/${id}`, { fallback_url: null })).body.fallback_url).toBeNull()
    expect((await create({ slug: 'fb-none' })).body.fallback_url).toBeNull()
  })

  test.each([['/relative'], ['ftp://x.example/'], ['https://camp.example/{sub1}'], [12]])('%p is refused with a 400 naming fallback_url', async (value) => {
    const res = await create({ slug: 'fb-bad', fallback_url: value })
    expect(res.status).toBe(400)
    expect(res.body.error).toStartWith('fallback_url')
    expect((await s.api('GET', '/admin/api/campaigns?limit=200')).body.items.some((c: { slug: string }) => c.slug === 'fb-bad')).toBe(false)
  })

  test('a paused campaign sends its visitors there, and wins over the setting; resumed, it routes again', async () => {
    await s.api('PUT', '/admin/api/settings', { fallback_url: 'https://global.example/' })
    const { id } = (await create({ slug: 'fb-paused', fallback_url: 'https://camp.example/paused', active: false })).body
    await expectFallback('/c/fb-paused', 'https://camp.example/paused')
    await expectFallback('/r/fb-paused/', 'https://camp.example/paused')
    await s.api('PATCH', `/admin/api/campaigns/${id}`, { active: true })
    const res = await get(`${s.base}/c/fb-paused`)
    expect(res.headers.get('location')).toBe('https://offer.example/fb')
    await s.api('PATCH', `/admin/api/campaigns/${id}`, { active: false })
    await expectFallback('/c/fb-paused', 'https://camp.example/paused')
  })

  test('a paused campaign without one uses the setting, then the 404', async () => {
    await create({ slug: 'fb-paused-plain', active: false })
    await expectJson404(await get(`${s.base}/c/fb-paused-plain`))
    await s.api('PUT', '/admin/api/settings', { fallback_url: 'https://global.example/' })
    await expectFallback('/c/fb-paused-plain', 'https://global.example/')
  })

  test('an active campaign without a usable offer counts as unknown and uses its own fallback', async () => {
    const broken = await seed.offer('not a url')
    const id = await seed.campaign({ slug: 'fb-no-offer', offers: [[broken, 1]] })
    await seed.exec("UPDATE campaigns SET fallback_url = 'https://camp.example/no-offer' WHERE id = $id", { id })
    s.ctx.events.committed('catalog.changed', { entity: 'campaign', id, action: 'updated' })
    await s.api('PUT', '/admin/api/settings', { fallback_url: 'https://global.example/' })
    await expectFallback('/c/fb-no-offer', 'https://camp.example/no-offer')
  })
})
