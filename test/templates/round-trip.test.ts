// Issue 29, the whole loop through templates: a source created from a template (its postback URL points at a
// local listener), an offer from the CAKE network template, a campaign joining them. A click on the tracking
// link with the source's parameters lands on the offer with svc's click id in s2; the network's postback, built
// from the template's URL with CAKE's macros filled as CAKE would, records the conversion; the forward reaches
// the source with the source's own click id and the payout.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { startListener, type Listener } from '../helpers/listener'
import { eventually } from '../postback/seed'

const UA = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36' }

let s: TestServer
let l: Listener

beforeAll(async () => {
  s = await startServer({ SVC_OUTBOUND_ALLOW_PRIVATE: '1', SVC_JOBS_MAX_ATTEMPTS: '1' })
  l = startListener()
})
afterAll(async () => {
  await s.destroy()
  l.stop()
})

describe('source template → source, network template → offer, campaign, click, network postback, forward', () => {
  test('the source gets its click id and the payout back; the campaign shows the tracking URL with the link parameters', async () => {
    // The operator's own template of a pop network whose postback lives at the local listener.
    const tpl = {
      id: 'custom-local-pop', name: 'Local pop', category: 'pop',
      fills: [
        { role: 'click_id', param: 'ext', macro: '{clickid}' },
        { role: 'zone', param: 'zone', macro: '{zoneid}' },
        { role: 'cost', param: 'cost', macro: '{cost}' },
      ],
      postback_url: `${l.base}/pb?cid={ext}&sum={payout}&z={zone}&t={tid}`, doc_url: null,
    }
    expect((await s.api('POST', '/admin/api/source-templates/import', { templates: [tpl] })).status).toBe(200)

    const source = await s.api('POST', '/admin/api/source-templates/custom-local-pop/create-source', { name: 'Local pop network' })
    expect(source.status).toBe(201)
    expect(source.body).toMatchObject({ name: 'Local pop network', postback_url: tpl.postback_url, link_params: 'ext={clickid}&zone={zoneid}&cost={cost}' })
    expect(source.body.postback_url_warnings).toBeUndefined() // {ext} and {zone} are link parameters the click carries
    // Stored: the source reads back the same.
    expect((await s.api('GET', `/admin/api/sources/${source.body.id}`)).body.link_params).toBe('ext={clickid}&zone={zoneid}&cost={cost}')

    // The network's offer link: its own s2 replaced by svc's click id, the rest kept.
    const offer = await s.api('POST', '/admin/api/network-templates/cake/create-offer', {
      name: 'CAKE offer', slug: 'cake-offer', url: 'http://127.0.0.1:9/offer?a=1&s2=old&b=2', payout: 3, currency: 'USD',
    })
    expect(offer.status).toBe(201)
    expect(offer.body.offer).toMatchObject({ slug: 'cake-offer', url: 'http://127.0.0.1:9/offer?a=1&b=2&s2={click_id}', payout: 3, currency: 'USD' })
    // No SVC_PUBLIC_URL: the postback URL is built on the address the request came to.
    expect(offer.body.postback_url).toBe(`${s.base}/postback?click_id=#s2#&payout=#price#&tid=#leadid#`)

    const campaign = await s.api('POST', '/admin/api/campaigns', { name: 'Templates', slug: 'tpl-loop', source_id: source.body.id, offer_id: offer.body.offer.id })
    expect(campaign.status).toBe(201)
    expect(campaign.body.tracking_url).toBe('/c/tpl-loop?ext={clickid}&zone={zoneid}&cost={cost}')
    expect((await s.api('GET', `/admin/api/campaigns/${campaign.body.id}`)).body.tracking_url).toBe('/c/tpl-loop?ext={clickid}&zone={zoneid}&cost={cost}')

    // The source fills its macros: the click lands on the offer with svc's click id in s2.
    const click = await fetch(`${s.base}/c/tpl-loop?ext=SRC-777%2Fx&zone=Z9&cost=0.01`, { redirect: 'manual', headers: UA })
    expect(click.status).toBe(302)
    const location = new URL(click.headers.get('location')!)
    expect(location.pathname).toBe('/offer')
    expect(location.searchParams.get('a')).toBe('1')
    const clickId = location.searchParams.get('s2')!
    expect(clickId).toMatch(/^[0-9a-f-]{36}$/)

    // CAKE fires the postback URL it was given with its tokens filled.
    const fired = offer.body.postback_url.replace('#s2#', clickId).replace('#price#', '4.50').replace('#leadid#', 'L-88')
    const pb = await fetch(fired)
    expect(pb.status).toBe(200)
    expect(await pb.text()).toBe('OK')

    const conversion = await eventually(async () => (await s.api('GET', `/admin/api/conversions?click_id=${clickId}`)).body.items[0], 8000, 'the conversion')
    expect(conversion).toMatchObject({ revenue: 4.5, transaction_id: 'L-88' })

    const [req] = await l.waitFor(1)
    expect(req!.url.pathname).toBe('/pb')
    expect(Object.fromEntries(req!.url.searchParams)).toEqual({ cid: 'SRC-777/x', sum: '4.5', z: 'Z9', t: 'L-88' })
  })

  test('a campaign of a source without link parameters shows the bare tracking path; 404 and 400s of create', async () => {
    const plain = await s.api('POST', '/admin/api/sources', { name: 'Plain' })
    expect(plain.body.link_params).toBeNull()
    const offer = await s.api('POST', '/admin/api/offers', { name: 'O', slug: 'plain-offer', url: 'https://a.example/?c={click_id}' })
    const campaign = await s.api('POST', '/admin/api/campaigns', { name: 'Plain', slug: 'plain-c', source_id: plain.body.id, offer_id: offer.body.id })
    expect(campaign.body.tracking_url).toBe('/c/plain-c')

    expect((await s.api('POST', '/admin/api/source-templates/nope/create-source', { name: 'x' })).status).toBe(404)
    expect((await s.api('POST', '/admin/api/network-templates/nope/create-offer', { name: 'x', slug: 'x', url: 'https://a.example/' })).status).toBe(404)
    const noName = await s.api('POST', '/admin/api/source-templates/mgid/create-source', {})
    expect(noName.status).toBe(400)
    expect(noName.body.error).toStartWith('name')
    const badUrl = await s.api('POST', '/admin/api/network-templates/cake/create-offer', { name: 'x', slug: 'bad-url', url: 'not a url' })
    expect(badUrl.status).toBe(400)
    expect(badUrl.body.error).toStartWith('url')
    const taken = await s.api('POST', '/admin/api/network-templates/cake/create-offer', { name: 'x', slug: 'plain-offer', url: 'https://a.example/' })
    expect(taken.status).toBe(409)
    // A source's link_params: svc's own names are refused, naming the field.
    const reserved = await s.api('POST', '/admin/api/sources', { name: 'Bad', link_params: 'click_id={clickid}' })
    expect(reserved.status).toBe(400)
    expect(reserved.body.error).toStartWith('link_params: click_id is a name svc fills itself')
    const patched = await s.api('PATCH', `/admin/api/sources/${plain.body.id}`, { link_params: '?zone={zoneid}&&src={source}' })
    expect(patched.body.link_params).toBe('zone={zoneid}&src={source}')
    expect((await s.api('GET', `/admin/api/campaigns/${campaign.body.id}`)).body.tracking_url).toBe('/c/plain-c?zone={zoneid}&src={source}')
  })

  test('the source created from a built-in template carries its postback URL and link parameters', async () => {
    const res = await s.api('POST', '/admin/api/source-templates/trafficstars/create-source', { name: 'TS' })
    expect(res.status).toBe(201)
    expect(res.body.link_params).toBe('ts_click={click_id}&spot={adspot_id}&site={site_id}&creative={creative_id}&campaign={campaign_id}&cost={cost}')
    expect(res.body.postback_url).toBe('https://tsyndicate.com/api/v1/cpa/action?clickid={ts_click}&value={payout}&key=YOUR_KEY')
  })
})
