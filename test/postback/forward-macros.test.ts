// Issue 26: the forward to a traffic source carries the source's own click id. A pop/push network puts its
// per-click id in a sub parameter of the tracking link ({sub5}) or a parameter of its own ({zoneid}); the
// forward fills those from the stored click, plus {tid} {currency} {campaign_id} {offer_id} {source_id}
// {landing_id} {type} from the conversion, each URL-encoded. A placeholder svc does not fill is sent as
// written and warned: on the conversion (forward_warning) and on the source (postback_url_warnings).
// Through the real surface: the admin API, a real tracking click on /c, /postback, a local listener.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { startListener, type Listener } from '../helpers/listener'
import { newClick } from '../../src/tracking/store/click'
import { eventually, jobsOf, postback, seedCatalog } from './seed'

const UA = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36' }
const UNKNOWN_FOO = '{foo} is not a svc macro: it is sent as written unless the click\'s tracking link carried a parameter named "foo"'
const NETWORK_PLACEHOLDER = "[IMPRESSIONID] is the network's own placeholder, not a svc macro: put the macro of the sub parameter that carries it on your tracking link, e.g. {sub1}"

let s: TestServer
const listeners: Listener[] = []

beforeAll(async () => {
  s = await startServer({ SVC_OUTBOUND_ALLOW_PRIVATE: '1', SVC_JOBS_MAX_ATTEMPTS: '1' })
})
afterAll(async () => {
  await s.destroy()
  for (const l of listeners) l.stop()
})

function listen(): Listener {
  const l = startListener()
  listeners.push(l)
  return l
}

let seq = 0
/** A source with `postbackUrl`, an offer and a campaign through the admin API. */
async function campaignWith(postbackUrl: string) {
  const n = ++seq
  const source = await s.api('POST', '/admin/api/sources', { name: `Pop network ${n}`, postback_url: postbackUrl })
  expect(source.status).toBe(201)
  const offer = await s.api('POST', '/admin/api/offers', { name: `Offer ${n}`, slug: `fwd-offer-${n}`, url: 'https://advertiser.example/?c={click_id}', payout: 2, currency: 'EUR' })
  expect(offer.status).toBe(201)
  const campaign = await s.api('POST', '/admin/api/campaigns', { name: `Pop ${n}`, slug: `fwd-pop-${n}`, source_id: source.body.id, offer_id: offer.body.id })
  expect(campaign.status).toBe(201)
  return { source: source.body, offerId: offer.body.id as number, campaignId: campaign.body.id as number, slug: campaign.body.slug as string }
}

/** A real click on the tracking link; its click id from the offer URL the 302 points to. */
async function trackingClick(slug: string, query: string): Promise<string> {
  const res = await fetch(`${s.base}/c/${slug}?${query}`, { redirect: 'manual', headers: UA })
  expect(res.status).toBe(302)
  return new URL(res.headers.get('location')!).searchParams.get('c')!
}

/** The conversion as GET /admin/api/conversions lists it, once its forward job has settled. */
async function settledConversion(clickId: string) {
  const item = await eventually(async () => (await s.api('GET', `/admin/api/conversions?click_id=${clickId}`)).body.items[0], 8000, 'the conversion')
  await eventually(async () => {
    const job = (await jobsOf(s)).find((j) => JSON.parse(j.payload).conversion_id === item.id)
    return job && (job.status === 'done' || job.status === 'failed') ? job : undefined
  }, 10_000, 'the forward job settled')
  return (await s.api('GET', `/admin/api/conversions/${item.id}`)).body
}

describe('the click\'s and the conversion\'s macros in a forwarded postback', () => {
  test('{sub5}, a stored parameter, {tid} {currency} (the offer\'s) {campaign_id} {offer_id} {source_id} {landing_id} {type} arrive substituted and URL-encoded', async () => {
    const l = listen()
    const c = await campaignWith(`${l.base}/pb?visitor_id={sub5}&zone={zoneid}&tid={tid}&cur={currency}&cmp={campaign_id}&off={offer_id}` +
      '&src={source_id}&lp={landing_id}&type={type}&st={status}&p={payout}&cid={click_id}')
    // {zoneid} may be a parameter of the tracking link: the source says so, and saves.
    expect(c.source.postback_url_warnings).toEqual(['{zoneid} is not a svc macro: it is sent as written unless the click\'s tracking link carried a parameter named "zoneid"'])

    const clickId = await trackingClick(c.slug, 'sub5=Imp%2042/a%26b&zoneid=z%C3%A9%201&utm_source=pop')
    expect((await postback(s, `subid=${clickId}&status=approved&payout=12.50&tid=T%201%2F2`)).status).toBe(200)

    const [req] = await l.waitFor(1)
    expect(req!.url.pathname).toBe('/pb')
    expect(req!.url.search).toBe(`?visitor_id=Imp%2042%2Fa%26b&zone=z%C3%A9%201&tid=T%201%2F2&cur=EUR&cmp=${c.campaignId}&off=${c.offerId}` +
      `&src=${c.source.id}&lp=&type=sale&st=sale&p=12.5&cid=${clickId}`)
    expect(Object.fromEntries(req!.url.searchParams)).toMatchObject({ visitor_id: 'Imp 42/a&b', zone: 'zé 1', tid: 'T 1/2', cur: 'EUR' })

    // Everything was filled: no warning on the conversion.
    const conversion = await settledConversion(clickId)
    expect(conversion.forward_warning).toBeUndefined()
    expect(conversion).toMatchObject({ click_id: clickId, transaction_id: 'T 1/2', currency: 'EUR', type: 'sale' })
  })

  test('a sub the tracking link did not carry is empty, not a warning', async () => {
    const l = listen()
    const c = await campaignWith(`${l.base}/pb?v={sub5}&c={click_id}`)
    expect(c.source.postback_url_warnings).toBeUndefined()
    const clickId = await trackingClick(c.slug, 'sub1=x')
    await postback(s, `subid=${clickId}`)
    const [req] = await l.waitFor(1)
    expect(req!.url.search).toBe(`?v=&c=${clickId}`)
    expect((await settledConversion(clickId)).forward_warning).toBeUndefined()
  })

  test('an unknown {foo} and a network\'s [IMPRESSIONID] are sent as written and warned on the conversion and the source', async () => {
    const l = listen()
    const c = await campaignWith(`${l.base}/pb?v={sub1}&x={foo}&y=[IMPRESSIONID]&c={click_id}`)
    expect(c.source.postback_url_warnings).toEqual([UNKNOWN_FOO, NETWORK_PLACEHOLDER])
    const got = await s.api('GET', `/admin/api/sources/${c.source.id}`)
    expect(got.status).toBe(200)
    expect(got.body).toEqual({
      id: c.source.id, name: c.source.name, postback_url: `${l.base}/pb?v={sub1}&x={foo}&y=[IMPRESSIONID]&c={click_id}`, link_params: null,
      postback_url_warnings: [UNKNOWN_FOO, NETWORK_PLACEHOLDER], created_at: c.source.created_at, updated_at: c.source.updated_at,
    })
    expect((await s.api('GET', '/admin/api/sources')).body.items.find((r: { id: number }) => r.id === c.source.id).postback_url_warnings)
      .toEqual([UNKNOWN_FOO, NETWORK_PLACEHOLDER])

    const clickId = await trackingClick(c.slug, 'sub1=pop-1&bar=2')
    await postback(s, `subid=${clickId}&status=approved`)
    // Still sent: the network ignores what it does not read, and the click id it does read is there.
    const [req] = await l.waitFor(1)
    expect(req!.url.search).toBe(`?v=pop-1&x={foo}&y=[IMPRESSIONID]&c=${clickId}`)
    const conversion = await settledConversion(clickId)
    expect(conversion.forward_warning).toBe('sent with {foo}, [IMPRESSIONID] as written: no macro or parameter of the click has that name')
    const listed = (await s.api('GET', `/admin/api/conversions?click_id=${clickId}`)).body.items[0]
    expect(listed.forward_warning).toBe(conversion.forward_warning)
    const job = (await jobsOf(s)).find((j) => JSON.parse(j.payload).conversion_id === conversion.id)!
    expect(job).toMatchObject({ status: 'done', result: expect.stringMatching(/^HTTP 200 in \d+ ms$/) })

    // Fixing the template clears the source's warnings.
    const fixed = await s.api('PATCH', `/admin/api/sources/${c.source.id}`, { postback_url: `${l.base}/pb?v={sub1}&c={click_id}` })
    expect(fixed.status).toBe(200)
    expect(fixed.body.postback_url_warnings).toBeUndefined()
  })

  test('a value never decides the host: a stored template with a macro in its host (saved before the rule) is sent unfilled, never to the click\'s host', async () => {
    const l = listen()
    const port = new URL(l.base).port
    // Written with SQL, as a row from before the save-time rule would be.
    const cat = await seedCatalog(s, { postbackUrl: `http://{sub1}/pb?c={click_id}` })
    const clickId = crypto.randomUUID()
    await s.server.clicks.import([newClick({
      clickId, campaignId: cat.campaignId, sourceId: cat.sourceId, offerId: cat.offerId, landingId: cat.landingId,
      sub1: `127.0.0.1:${port}`, createdAt: Date.now(),
    })])
    await postback(s, `subid=${clickId}&status=approved`)
    const conversion = await settledConversion(clickId)
    expect(conversion.forward_warning).toBe('sent with {sub1} in the scheme or host as written (macros are never filled there)')
    const job = (await jobsOf(s)).find((j) => JSON.parse(j.payload).conversion_id === conversion.id)!
    expect(job).toMatchObject({
      status: 'failed', attempts: 1,
      last_error: "the source's postback_url has a macro in its scheme or host: save it again with the macro in the path or query (attempt 1 of 1; not retryable)",
    })
    expect(JSON.parse(job.payload).url).toBe(`http://{sub1}/pb?c=${clickId}`)
    await Bun.sleep(100)
    expect(l.received).toHaveLength(0)

    // Such a template is refused when saved, the new macros and a click parameter's name included.
    for (const macro of ['{tid}', '{currency}', '{offer_id}', '{zoneid}']) {
      const res = await s.api('POST', '/admin/api/sources', { name: 'Hostile', postback_url: `https://${macro}.push.example/pb` })
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ error: 'postback_url: macros such as {sub1} are allowed in the path, query and fragment only, not in the scheme or host' })
    }
  })
})
