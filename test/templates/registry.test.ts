// Issue 29: the built-in registry of traffic-source and affiliate-network templates, each citing the public
// document it comes from, and the operator's own templates (export, import, delete) through the admin API.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { BUILTIN_SOURCES } from '../../src/templates/sources'
import { BUILTIN_NETWORKS } from '../../src/templates/networks'
import { CONVERSION_MACROS, SUB_MACROS } from '../../src/catalog'
import { isMacroToken, REGISTRY_VERSION } from '../../src/templates/model'

let s: TestServer
let viewer: string // campaigns:read only
let nobody: string // no permission at all

beforeAll(async () => {
  s = await startServer({ SVC_PUBLIC_URL: 'https://track.example.com' })
  for (const [email, permissions] of [['viewer@example.com', { campaigns: { read: true } }], ['nobody@example.com', {}]] as const) {
    const res = await s.api('POST', '/admin/api/users', { email, password: 'long-enough-pass-1', permissions })
    expect(res.status).toBe(201)
  }
  viewer = await s.login('viewer@example.com', 'long-enough-pass-1')
  nobody = await s.login('nobody@example.com', 'long-enough-pass-1')
})
afterAll(() => s.destroy())

/** A valid custom source template (its postback reads the link parameter ext). */
const customSource = (id = 'custom-pop', over: Record<string, unknown> = {}) => ({
  id, name: 'My pop network', category: 'pop',
  fills: [{ role: 'click_id', param: 'ext', macro: '{clickid}' }, { role: 'zone', param: 'zone', macro: '{zoneid}' }],
  postback_url: 'https://pop.example/pb?cid={ext}&sum={payout}', doc_url: 'https://pop.example/docs', verified: '2026-11-26', notes: 'mine',
  ...over,
})
const customNetwork = (id = 'custom-net', over: Record<string, unknown> = {}) => ({
  id, name: 'My network', platform: 'own', click_id_param: 'aff_sub3', postback: { click_id: '{aff_sub3}', payout: '{payout}' },
  doc_url: null, notes: '', ...over,
})

describe('the built-in registry (the data)', () => {
  test('at least 20 source and 20 network templates, ids unique, each citing an https document and a verified date', () => {
    expect(BUILTIN_SOURCES.length).toBeGreaterThanOrEqual(20)
    expect(BUILTIN_NETWORKS.length).toBeGreaterThanOrEqual(20)
    for (const list of [BUILTIN_SOURCES, BUILTIN_NETWORKS]) {
      const ids = list.map((x) => x.id)
      expect(new Set(ids).size).toBe(ids.length)
      for (const x of list) {
        expect({ id: x.id, doc: new URL(x.doc_url!).protocol }).toEqual({ id: x.id, doc: 'https:' })
        expect({ id: x.id, verified: x.verified }).toEqual({ id: x.id, verified: '2026-11-26' })
        expect(x.id.startsWith('custom-')).toBe(false)
      }
    }
    const categories = new Set(BUILTIN_SOURCES.map((x) => x.category))
    for (const c of ['search', 'social', 'native', 'push', 'pop']) expect(categories.has(c as never)).toBe(true)
  })

  test('no stray macro: a source postback uses only svc macros and its own link parameters; every value is one macro', () => {
    const svc = new Set<string>([...CONVERSION_MACROS, ...SUB_MACROS])
    for (const x of BUILTIN_SOURCES) {
      const params = new Set(x.fills.map((f) => f.param))
      for (const f of x.fills) if (f.macro !== null) expect({ id: x.id, macro: f.macro, one: isMacroToken(f.macro) }).toEqual({ id: x.id, macro: f.macro, one: true })
      for (const m of (x.postback_url ?? '').matchAll(/\{([^{}]*)\}/g)) {
        expect({ id: x.id, macro: m[0], declared: svc.has(m[1]!) || params.has(m[1]!) }).toEqual({ id: x.id, macro: m[0], declared: true })
      }
      // A source that takes a postback must get its click id back: the click id parameter is in it.
      const click = x.fills.find((f) => f.role === 'click_id' && f.macro !== null)
      if (x.postback_url && click) expect(x.postback_url).toContain(`{${click.param}}`)
    }
    for (const x of BUILTIN_NETWORKS) {
      for (const m of Object.values(x.postback)) expect({ id: x.id, macro: m, one: isMacroToken(m!) }).toEqual({ id: x.id, macro: m, one: true })
    }
  })

  test('the API-only platforms say so: no postback URL, a note', () => {
    for (const id of ['google-ads', 'meta', 'tiktok']) {
      const x = BUILTIN_SOURCES.find((t) => t.id === id)!
      expect(x.postback_url).toBeNull()
      expect(x.notes).toContain('only through its own API')
    }
  })
})

describe('GET /admin/api/source-templates and network-templates', () => {
  test('lists every built-in with what it fills and its document, version first', async () => {
    const res = await s.api('GET', '/admin/api/source-templates')
    expect(res.status).toBe(200)
    expect(res.body.version).toBe(REGISTRY_VERSION)
    expect(res.body.items.length).toBeGreaterThanOrEqual(20)
    const mgid = res.body.items.find((x: any) => x.id === 'mgid')
    expect(mgid).toMatchObject({
      name: 'MGID', category: 'native', builtin: true, doc_url: 'https://help.mgid.com/postback-setup',
      link_params: 'mgid_click={click_id}&widget={widget_id}&teaser={teaser_id}&campaign={campaign_id}&cost={click_price}',
      postback_url: 'https://a.mgid.com/postback?c={mgid_click}&e={status}&r={payout}',
    })
    expect(mgid.fills[0]).toEqual({ role: 'click_id', param: 'mgid_click', macro: '{click_id}' })

    const nets = await s.api('GET', '/admin/api/network-templates')
    expect(nets.status).toBe(200)
    expect(nets.body.items.length).toBeGreaterThanOrEqual(20)
    // The postback URL to paste is built on SVC_PUBLIC_URL with the parameter names /postback reads.
    expect(nets.body.items.find((x: any) => x.id === 'cake')).toMatchObject({
      builtin: true, platform: 'cake', click_id_param: 's2', suffix: 's2={click_id}',
      postback_url: 'https://track.example.com/postback?click_id=#s2#&payout=#price#&tid=#leadid#',
      doc_url: 'https://support.getcake.com/en/support/solutions/articles/5000546096',
    })
  })

  test('GET …/:id answers one template; an unknown id is a 404', async () => {
    const one = await s.api('GET', '/admin/api/network-templates/affise')
    expect(one.status).toBe(200)
    expect(one.body.postback_url).toBe('https://track.example.com/postback?click_id={sub1}&payout={sum}&status={status}&tid={transactionid}')
    expect((await s.api('GET', '/admin/api/source-templates/taboola')).body.postback_url).toContain('click-id={tbl_click}')
    expect((await s.api('GET', '/admin/api/source-templates/nope')).status).toBe(404)
    expect((await s.api('GET', '/admin/api/network-templates/mgid')).status).toBe(404)
  })

  test('401 without a session, 403 without the permission; reading needs campaigns:read, writing campaigns:write', async () => {
    for (const path of ['/admin/api/source-templates', '/admin/api/network-templates/cake', '/admin/api/source-templates/export']) {
      expect((await fetch(`${s.base}${path}`)).status).toBe(401)
      expect((await s.api('GET', path, undefined, nobody)).status).toBe(403)
      expect((await s.api('GET', path, undefined, viewer)).status).toBe(200)
    }
    const importing = await s.api('POST', '/admin/api/source-templates/import', { templates: [customSource()] }, viewer)
    expect(importing.status).toBe(403)
    expect((await s.api('POST', '/admin/api/source-templates/mgid/create-source', { name: 'x' }, viewer)).status).toBe(403)
    expect((await s.api('DELETE', '/admin/api/network-templates/custom-x', undefined, viewer)).status).toBe(403)
    const anon = await fetch(`${s.base}/admin/api/network-templates/import`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"templates":[]}' })
    expect(anon.status).toBe(401)
  })
})

describe('a campaign of a source made from a template', () => {
  test('shows the tracking URL on SVC_PUBLIC_URL with the source\'s link parameters', async () => {
    const source = await s.api('POST', '/admin/api/source-templates/clickadu/create-source', { name: 'Clickadu main' })
    expect(source.status).toBe(201)
    expect(source.body.link_params).toBe('cd_subid=${SUBID}&zone={zoneid}&campaign={campaignid}&cost={cost}')
    const offer = await s.api('POST', '/admin/api/offers', { name: 'O', slug: 'reg-offer', url: 'https://a.example/?c={click_id}' })
    const campaign = await s.api('POST', '/admin/api/campaigns', { name: 'Pop', slug: 'reg-pop', source_id: source.body.id, offer_id: offer.body.id })
    expect(campaign.body.tracking_url).toBe('https://track.example.com/c/reg-pop?cd_subid=${SUBID}&zone={zoneid}&campaign={campaignid}&cost={cost}')
    const listed = (await s.api('GET', '/admin/api/campaigns')).body.items.find((c: any) => c.id === campaign.body.id)
    expect(listed.tracking_url).toBe(campaign.body.tracking_url)
  })
})

describe('custom templates: export, import, delete', () => {
  test('import, export round trip; a re-import replaces (idempotent); the list shows them after the built-ins', async () => {
    const first = await s.api('POST', '/admin/api/source-templates/import', { version: REGISTRY_VERSION, templates: [customSource(), customSource('custom-b', { name: 'B' })] })
    expect(first.status).toBe(200)
    expect(first.body).toEqual({ version: REGISTRY_VERSION, imported: ['custom-pop', 'custom-b'] })

    const exported = await s.api('GET', '/admin/api/source-templates/export')
    expect(exported.status).toBe(200)
    expect(exported.body.version).toBe(REGISTRY_VERSION)
    expect(exported.body.templates.map((x: any) => x.id)).toEqual(['custom-b', 'custom-pop'])
    expect(exported.body.templates.find((x: any) => x.id === 'custom-pop')).toEqual(customSource())

    // The export imported back as it is changes nothing; a changed name replaces the stored one.
    expect((await s.api('POST', '/admin/api/source-templates/import', exported.body)).status).toBe(200)
    expect((await s.api('GET', '/admin/api/source-templates/export')).body).toEqual(exported.body)
    expect((await s.api('POST', '/admin/api/source-templates/import', { templates: [customSource('custom-b', { name: 'B2' })] })).status).toBe(200)
    const again = (await s.api('GET', '/admin/api/source-templates/export')).body.templates
    expect(again.map((x: any) => [x.id, x.name])).toEqual([['custom-b', 'B2'], ['custom-pop', 'My pop network']])

    const list = (await s.api('GET', '/admin/api/source-templates')).body.items
    expect(list.slice(-2).map((x: any) => [x.id, x.builtin])).toEqual([['custom-b', false], ['custom-pop', false]])
    expect(list.find((x: any) => x.id === 'custom-pop').link_params).toBe('ext={clickid}&zone={zoneid}')
    // A shown template (with its derived fields) imports back too.
    const shown = (await s.api('GET', '/admin/api/source-templates/custom-pop')).body
    expect((await s.api('POST', '/admin/api/source-templates/import', { templates: [shown] })).status).toBe(200)
  })

  test('network templates: import, get with the postback URL to paste, export, delete', async () => {
    expect((await s.api('POST', '/admin/api/network-templates/import', { templates: [customNetwork()] })).status).toBe(200)
    const one = await s.api('GET', '/admin/api/network-templates/custom-net')
    expect(one.body).toMatchObject({ builtin: false, suffix: 'aff_sub3={click_id}', postback_url: 'https://track.example.com/postback?click_id={aff_sub3}&payout={payout}' })
    expect((await s.api('GET', '/admin/api/network-templates/export')).body.templates).toEqual([{ ...customNetwork(), verified: null }])
    expect((await s.api('DELETE', '/admin/api/network-templates/custom-net')).body).toEqual({ ok: true })
    expect((await s.api('GET', '/admin/api/network-templates/custom-net')).status).toBe(404)
    expect((await s.api('DELETE', '/admin/api/network-templates/custom-net')).status).toBe(404)
  })

  test('a built-in id is a 409 on import and on delete; nothing of a failed import is stored', async () => {
    const clash = await s.api('POST', '/admin/api/network-templates/import', { templates: [customNetwork('custom-ok'), customNetwork('cake')] })
    expect(clash.status).toBe(409)
    expect(clash.body.error).toContain('templates.1.id: cake is a built-in template')
    expect((await s.api('GET', '/admin/api/network-templates/custom-ok')).status).toBe(404)
    const del = await s.api('DELETE', '/admin/api/source-templates/mgid')
    expect(del.status).toBe(409)
    expect((await s.api('GET', '/admin/api/source-templates/mgid')).status).toBe(200)
  })

  test('400s name the field', async () => {
    const cases: Array<[string, unknown, string]> = [
      ['source', { templates: 'x' }, 'templates'],
      ['source', { templates: [42] }, 'templates.0: must be an object'],
      ['source', { templates: [customSource('mine')] }, 'templates.0.id: custom template ids start with custom-'],
      ['source', { templates: [customSource('custom-Bad')] }, 'templates.0.id'],
      ['source', { templates: [customSource('custom-a', { category: 'tv' })] }, 'templates.0.category'],
      ['source', { templates: [customSource('custom-a', { postback_url: 'https://p.example/?c={nope}' })] }, 'templates.0.postback_url: {nope} is neither a svc macro nor a link parameter'],
      ['source', { templates: [customSource('custom-a', { postback_url: 'ftp://p.example/' })] }, 'templates.0.postback_url'],
      ['source', { templates: [customSource('custom-a', { fills: [{ role: 'click_id', param: 'click_id', macro: '{x}' }] })] }, 'templates.0.fills: click_id is a name svc fills itself'],
      ['source', { templates: [customSource('custom-a', { fills: [{ role: 'zone', param: 'z', macro: 'a{x}' }] })] }, 'templates.0.fills.0.macro'],
      ['source', { templates: [customSource('custom-a', { surprise: 1 })] }, 'templates.0'],
      ['source', { templates: [customSource('custom-a'), customSource('custom-a')] }, 'templates.1.id: custom-a is given twice'],
      ['network', { templates: [customNetwork('custom-n', { postback: { payout: '{p}' } })] }, 'templates.0.postback.click_id'],
      ['network', { templates: [customNetwork('custom-n', { postback: { click_id: 'x{sub1}' } })] }, 'templates.0.postback.click_id: "x{sub1}" is not one macro'],
      ['network', { templates: [customNetwork('custom-n', { click_id_param: 'a b' })] }, 'templates.0.click_id_param'],
      ['network', { templates: [customNetwork('custom-n', { doc_url: 'javascript:alert(1)' })] }, 'templates.0.doc_url'],
    ]
    for (const [kind, body, error] of cases) {
      const res = await s.api('POST', `/admin/api/${kind}-templates/import`, body)
      expect({ body, status: res.status }).toEqual({ body, status: 400 })
      expect({ body, error: res.body.error }).toEqual({ body, error: expect.stringContaining(error) })
    }
    expect((await s.api('GET', '/admin/api/source-templates/custom-a')).status).toBe(404)
  })
})
