// Issue 30 (docs/zones.md): the blocked zones of a traffic source through the admin API, on either engine: values
// trimmed and deduplicated, a value already blocked kept (the answer says which were new), the dated list newest
// first with cursor paging, the CSV export, unblocking, the field-named 400s, the campaigns permission, and the
// zone list format read back from the source's template.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { catalog } from '../reports/seed'
import { parseCsv } from '../../src/lib/csv'

let s: TestServer
let src = 0
let other = 0
let camp = 0
let reader: string // campaigns:read only
let reportsOnly: string

const block = (body: Record<string, unknown>, cookie?: string) => s.api('POST', '/admin/api/blocked-zones', body, cookie)
const list = (query: string, cookie?: string) => s.api('GET', `/admin/api/blocked-zones?${query}`, undefined, cookie)

beforeAll(async () => {
  s = await startServer()
  const c = catalog(s)
  src = (await s.api('POST', '/admin/api/sources', { name: 'Pop Net' })).body.id
  other = await c.source('Other')
  const offer = await c.offer('O')
  camp = await c.campaign({ name: 'Camp A', source: src, offers: [offer] })
  for (const [email, permissions] of [['reader@example.com', { campaigns: { read: true } }], ['reports@example.com', { reports: { read: true, write: true } }]] as const) {
    expect((await s.api('POST', '/admin/api/users', { email, password: 'long-enough-pass-1', permissions })).status).toBe(201)
  }
  reader = await s.login('reader@example.com', 'long-enough-pass-1')
  reportsOnly = await s.login('reports@example.com', 'long-enough-pass-1')
})
afterAll(() => s.destroy())

describe('POST /admin/api/blocked-zones', () => {
  test('values trimmed, empty ones and repeats dropped; a second call keeps what is there and says which are new', async () => {
    const first = await block({ source_id: src, dimension: 'sub3', values: [' z1 ', 'z2', '', 'z1', 'z3'], reason: 'ROI < -50%' })
    expect(first.status).toBe(201)
    expect(first.body.items.map((i: any) => [i.value, i.new])).toEqual([['z1', true], ['z2', true], ['z3', true]])
    expect(first.body).toMatchObject({ added: 3, kept: 0 })
    const z1 = first.body.items[0]
    expect(z1).toMatchObject({ source_id: src, source_name: 'Pop Net', campaign_id: null, campaign_name: null, dimension: 'sub3', reason: 'ROI < -50%', blocked_by: 'owner@example.com' })
    expect(new Date(z1.blocked_at).toISOString()).toBe(z1.blocked_at)

    const again = await block({ source_id: src, dimension: 'sub3', values: ['z3', 'z4'], reason: 'later' })
    expect(again.status).toBe(201)
    expect(again.body.items.map((i: any) => [i.value, i.new, i.reason])).toEqual([['z3', false, 'ROI < -50%'], ['z4', true, 'later']])
    expect(again.body).toMatchObject({ added: 1, kept: 1 })
    // The same value for one campaign, another dimension or another source is a row of its own.
    const scoped = await block({ source_id: src, campaign_id: camp, dimension: 'sub3', values: ['z1'] })
    expect(scoped.body.items[0]).toMatchObject({ value: 'z1', new: true, campaign_id: camp, campaign_name: 'Camp A' })
    expect((await block({ source_id: src, campaign_id: camp, dimension: 'sub3', values: ['z1'] })).body.items[0].new).toBe(false)
    expect((await block({ source_id: src, dimension: 'sub4', values: ['z1'] })).body.items[0].new).toBe(true)
    expect((await block({ source_id: other, dimension: 'sub3', values: ['z1'] })).body.items[0].new).toBe(true)
  })

  test('400s name the field; never a 500', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ source_id: 999999, dimension: 'sub1', values: ['a'] }, /^source_id: /],
      [{ source_id: src, dimension: 'zone', values: ['a'] }, /^dimension: /],
      [{ source_id: src, dimension: 'sub11', values: ['a'] }, /^dimension: /],
      [{ source_id: src, dimension: 'sub1', values: [] }, /^values: /],
      [{ source_id: src, dimension: 'sub1', values: ['  ', ''] }, /^values: /],
      [{ source_id: src, dimension: 'sub1', values: Array.from({ length: 1001 }, (_, i) => `v${i}`) }, /^values: /],
      [{ source_id: src, dimension: 'sub1', values: ['ok', 'x'.repeat(201)] }, /^values\.1: /],
      [{ source_id: src, dimension: 'sub1', values: [7] }, /^values\.0: /],
      [{ source_id: src, campaign_id: 999999, dimension: 'sub1', values: ['a'] }, /^campaign_id: /],
      [{ source_id: other, campaign_id: camp, dimension: 'sub1', values: ['a'] }, /^campaign_id: campaign \d+ runs on another source/],
      [{ source_id: 'x', dimension: 'sub1', values: ['a'] }, /^source_id: /],
      [{ dimension: 'sub1', values: ['a'] }, /^source_id: /],
    ]
    for (const [body, error] of cases) {
      const res = await block(body)
      expect({ body: JSON.stringify(body).slice(0, 80), status: res.status }).toEqual({ body: JSON.stringify(body).slice(0, 80), status: 400 })
      expect(res.body.error).toMatch(error)
    }
    // 1000 values is the limit, not past it.
    const many = await block({ source_id: other, dimension: 'sub9', values: Array.from({ length: 1000 }, (_, i) => `m${i}`) })
    expect(many.status).toBe(201)
    expect(many.body.added).toBe(1000)
  })
})

describe('GET /admin/api/blocked-zones', () => {
  test('newest first, per source, paged by cursor without gaps or repeats', async () => {
    const ids: number[] = []
    for (let i = 0; i < 7; i++) ids.push((await block({ source_id: src, dimension: 'sub5', values: [`p${i}`] })).body.items[0].id)
    const seen: any[] = []
    let cursor: string | null = null
    do {
      const page: any = await list(`source_id=${src}&limit=4${cursor ? `&cursor=${cursor}` : ''}`)
      expect(page.status).toBe(200)
      seen.push(...page.body.items)
      cursor = page.body.next_cursor
    } while (cursor)
    expect(seen.every((r) => r.source_id === src)).toBe(true)
    const byId = seen.map((r) => r.id)
    expect(byId).toEqual([...byId].sort((a, b) => b - a))
    expect(new Set(byId).size).toBe(byId.length)
    expect(byId.slice(0, 7)).toEqual([...ids].reverse())
    expect(seen.map((r) => r.blocked_at)).toEqual([...seen.map((r) => r.blocked_at)].sort().reverse())
    // 3 + 1 (z1..z4) + 1 campaign z1 + 1 sub4 z1 + 7 = 13 rows of src.
    expect(seen.length).toBe(13)
  })

  test('campaign_id: its own rows and the source-wide ones; bad filters are 400s', async () => {
    const res = await list(`source_id=${src}&campaign_id=${camp}&limit=500`)
    expect(res.body.items.every((r: any) => r.campaign_id === null || r.campaign_id === camp)).toBe(true)
    expect(res.body.items.some((r: any) => r.campaign_id === camp)).toBe(true)
    for (const q of ['source_id=abc', 'campaign_id=-1', 'limit=0', 'cursor=x', 'format=xml']) {
      const bad = await list(q)
      expect({ q, status: bad.status }).toEqual({ q, status: 400 })
      expect(bad.body.error).toMatch(new RegExp(`^${q.split('=')[0]}: `))
    }
  })

  test('format=csv: blocked-zones-<source>.csv, the whole list newest first, blocked_at ISO', async () => {
    const res = await fetch(`${s.base}/admin/api/blocked-zones?source_id=${src}&format=csv`, { headers: { cookie: await s.login() } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/csv')
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="blocked-zones-Pop_Net.csv"')
    const parsed = parseCsv(await res.text())
    if (!('rows' in parsed)) throw new Error(parsed.error)
    const [head, ...rows] = parsed.rows
    expect(head).toEqual(['blocked_at', 'value', 'dimension', 'campaign', 'reason', 'by'])
    expect(rows.length).toBe(13)
    expect(rows[0]).toEqual([expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), 'p6', 'sub5', '', '', 'owner@example.com'])
    expect(rows.find((r) => r[1] === 'z1' && r[3] === 'Camp A')).toBeDefined()
    expect(rows.find((r) => r[1] === 'z2')![4]).toBe('ROI < -50%')
    // 1000 rows of another source cross the export's pages.
    const big = await fetch(`${s.base}/admin/api/blocked-zones?source_id=${other}&format=csv`, { headers: { cookie: await s.login() } })
    const all = parseCsv(await big.text())
    if (!('rows' in all)) throw new Error(all.error)
    expect(all.rows.length).toBe(1 + 1001)
    expect(new Set(all.rows.slice(1).map((r) => r[1])).size).toBe(1001)
    expect((await list('format=csv')).body.error).toMatch(/^source_id: /)
  })
})

describe('DELETE /admin/api/blocked-zones/:id and permissions', () => {
  test('unblock: 204, then gone (404); the value can be blocked again', async () => {
    const row = (await block({ source_id: src, dimension: 'sub6', values: ['gone'] })).body.items[0]
    const del = await s.api('DELETE', `/admin/api/blocked-zones/${row.id}`)
    expect(del.status).toBe(204)
    expect((await s.api('GET', `/admin/api/blocked-zones/${row.id}`)).status).toBe(404)
    expect((await s.api('DELETE', `/admin/api/blocked-zones/${row.id}`)).status).toBe(404)
    expect((await block({ source_id: src, dimension: 'sub6', values: ['gone'] })).body.items[0].new).toBe(true)
  })

  test('campaigns:read lists but cannot block; a reports-only user is refused (403)', async () => {
    expect((await list(`source_id=${src}`, reader)).status).toBe(200)
    expect((await block({ source_id: src, dimension: 'sub1', values: ['r'] }, reader)).status).toBe(403)
    const anyRow = (await list(`source_id=${src}`)).body.items[0]
    expect((await s.api('DELETE', `/admin/api/blocked-zones/${anyRow.id}`, undefined, reader)).status).toBe(403)
    expect((await list(`source_id=${src}`, reportsOnly)).status).toBe(403)
    expect((await block({ source_id: src, dimension: 'sub1', values: ['r'] }, reportsOnly)).status).toBe(403)
    expect((await s.api('GET', `/admin/api/sources/${src}/zone-format`, undefined, reportsOnly)).status).toBe(403)
    expect((await list(`source_id=${src}`, '')).status).toBe(401)
  })

  test('deleting the source deletes its list', async () => {
    const gone = await catalog(s).source('Short-lived')
    await block({ source_id: gone, dimension: 'sub1', values: ['a', 'b'] })
    expect((await s.api('DELETE', `/admin/api/sources/${gone}`)).status).toBe(200)
    expect((await list(`source_id=${gone}`)).body.items).toEqual([])
  })
})

describe('GET /admin/api/sources/:id/zone-format', () => {
  test('no template: one per line; a source made from a template names it', async () => {
    expect((await s.api('GET', `/admin/api/sources/${src}/zone-format`)).body).toEqual({ separator: '\n', template_id: null, note: 'one per line' })
    const made = await s.api('POST', '/admin/api/source-templates/clickadu/create-source', { name: 'From Clickadu' })
    expect(made.status).toBe(201)
    const fmt = (await s.api('GET', `/admin/api/sources/${made.body.id}/zone-format`)).body
    expect(fmt).toMatchObject({ separator: '\n', template_id: 'clickadu' })
    // Edited link parameters that still carry the platform's zone macro: the template is still recognised.
    const edited = await s.api('POST', '/admin/api/sources', { name: 'Edited', link_params: 'zone={zoneid}&x={foo}' })
    expect((await s.api('GET', `/admin/api/sources/${edited.body.id}/zone-format`)).body.template_id).toBe('clickadu')
    expect((await s.api('GET', '/admin/api/sources/999999/zone-format')).status).toBe(404)
    expect((await s.api('GET', '/admin/api/sources/abc/zone-format')).status).toBe(400)
  })

  test("an imported template's zone_list is the format of the sources made from it", async () => {
    const tpl = {
      id: 'custom-commas', name: 'Comma net', category: 'pop', postback_url: null, doc_url: null,
      fills: [{ role: 'click_id', param: 'cid', macro: '{clickid}' }, { role: 'zone', param: 'spot', macro: '{spotid}' }],
      zone_list: { separator: ',', note: 'Campaign > Zones > Blacklist, comma-separated' },
    }
    const imported = await s.api('POST', '/admin/api/source-templates/import', { templates: [tpl] })
    expect(imported.status).toBe(200)
    const made = await s.api('POST', '/admin/api/source-templates/custom-commas/create-source', { name: 'Commas' })
    expect((await s.api('GET', `/admin/api/sources/${made.body.id}/zone-format`)).body)
      .toEqual({ separator: ',', template_id: 'custom-commas', note: 'Campaign > Zones > Blacklist, comma-separated' })
    const bad = await s.api('POST', '/admin/api/source-templates/import', { templates: [{ ...tpl, id: 'custom-bad', zone_list: { separator: '|', note: '' } }] })
    expect(bad.status).toBe(400)
    expect(bad.body.error).toMatch(/^templates\.0\.zone_list\.separator: /)
  })
})
