// Leads and visitor events through the admin API on a real server, on either engine (SVC_TEST_ENGINE=postgres
// runs it on Postgres). The rows are written straight through the stores (the public endpoints that collect
// them are tested with them): list, filters, paging, get, delete, CSV export, event counts, 401/403/400/404.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { AnyDatabase } from '../../src/db/engine'
import { leadStore, visitorEventStore } from '../../src/landings/store'
import type { LeadRow, LeadStore, NewLead, NewVisitorEvent, VisitorEventStore } from '../../src/landings/store/types'
import { startServer, type TestServer } from '../helpers/server'

let s: TestServer
let leads: LeadStore
let events: VisitorEventStore

const CLICK_A = '6f1c0c3e-8a4b-4f7e-9c2d-1a2b3c4d5e01'
const CLICK_B = '6f1c0c3e-8a4b-4f7e-9c2d-1a2b3c4d5e02'
/** 2026-03-01 10:00 UTC, the next day 23:59:59.999, and two days later. */
const T1 = Date.UTC(2026, 2, 1, 10, 0)
const T2 = Date.UTC(2026, 2, 2, 23, 59, 59, 999)
const T3 = Date.UTC(2026, 2, 4, 8, 0)
const iso = (ms: number) => new Date(ms).toISOString()

const newLead = (email: string, over: Partial<NewLead> = {}): NewLead => ({
  landingId: 5, campaignId: 7, clickId: CLICK_A, email, name: 'Ann', fields: {}, ip: '203.0.113.9', userAgent: 'UA/1', createdAt: T1, ...over,
})
const newEvent = (name: string, over: Partial<NewVisitorEvent> = {}): NewVisitorEvent => ({
  name, clickId: CLICK_A, campaignId: 7, landingId: 5, props: null, url: 'https://lp.example.com/', ip: '203.0.113.9', createdAt: T1, ...over,
})

let ann: LeadRow
let bob: LeadRow
let cat: LeadRow

beforeAll(async () => {
  s = await startServer()
  leads = leadStore(s.ctx.database as AnyDatabase)
  events = visitorEventStore(s.ctx.database as AnyDatabase)
  ann = await leads.insert(newLead('ann@example.com', { fields: { city: 'Oslo', phone: '+47 1234' } }))
  bob = await leads.insert(newLead('bob@example.com', { name: null, landingId: 6, campaignId: null, clickId: CLICK_B, ip: null, userAgent: null, createdAt: T2 }))
  cat = await leads.insert(newLead('cat@example.com', { name: 'Cat, "the" cat', landingId: 6, campaignId: 8, clickId: null, createdAt: T3 }))
  await events.insert(newEvent('page_view'))
  await events.insert(newEvent('page_view', { landingId: 6, campaignId: 8, clickId: CLICK_B, createdAt: T2 }))
  await events.insert(newEvent('signup', { props: '{"plan":"pro","seats":3}', createdAt: T3 }))
  await events.insert(newEvent('page_view', { landingId: null, campaignId: null, clickId: null, url: null, ip: null, createdAt: T3 + 1 }))
}, 60_000)
afterAll(() => s?.destroy())

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const ids = (body: { items: Array<{ id: number }> }) => body.items.map((r) => r.id)

async function limitedUser(email: string, permissions: Record<string, { read?: boolean; write?: boolean }>): Promise<string> {
  await s.ctx.users.create({ email, password: 'limited-password-1', permissions })
  return s.login(email, 'limited-password-1')
}

describe('/admin/api/leads', () => {
  test('list: every lead in id order, rendered (fields as an object, ISO time)', async () => {
    const res = await s.api('GET', '/admin/api/leads')
    expect(res.status).toBe(200)
    expect(res.body.next_cursor).toBeNull()
    expect(ids(res.body)).toEqual([ann.id, bob.id, cat.id])
    expect(res.body.items[0]).toEqual({
      id: ann.id, email: 'ann@example.com', name: 'Ann', landing_id: 5, campaign_id: 7, click_id: CLICK_A,
      fields: { city: 'Oslo', phone: '+47 1234' }, ip: '203.0.113.9', user_agent: 'UA/1', created_at: iso(T1),
    })
    expect(res.body.items[1]).toEqual({
      id: bob.id, email: 'bob@example.com', name: null, landing_id: 6, campaign_id: null, click_id: CLICK_B,
      fields: {}, ip: null, user_agent: null, created_at: iso(T2),
    })
    expect(res.body.items[2].created_at).toMatch(ISO)
  })

  test('filters: landing_id, campaign_id, click_id (any case), email (normalised), from/to (ISO or epoch ms)', async () => {
    const list = async (q: string) => {
      const res = await s.api('GET', `/admin/api/leads?${q}`)
      expect(res.status).toBe(200)
      return ids(res.body)
    }
    expect(await list('landing_id=6')).toEqual([bob.id, cat.id])
    expect(await list('campaign_id=7')).toEqual([ann.id])
    expect(await list(`click_id=${CLICK_B.toUpperCase()}`)).toEqual([bob.id])
    expect(await list(`email=${encodeURIComponent('  Cat@EXAMPLE.com ')}`)).toEqual([cat.id])
    expect(await list('from=2026-03-02')).toEqual([bob.id, cat.id])
    expect(await list(`from=2026-03-02&to=${T3}`)).toEqual([bob.id])
    expect(await list('to=2026-03-02T23:59:59.999Z')).toEqual([ann.id])
    expect(await list('landing_id=6&campaign_id=8')).toEqual([cat.id])
    expect(await list('email=nobody@example.com')).toEqual([])
    // An empty parameter is no filter; a repeated one counts once (the last, as on every admin list), never an array in SQL.
    expect(await list('landing_id=&email=')).toEqual([ann.id, bob.id, cat.id])
    expect(await list('landing_id=6&landing_id=5')).toEqual([ann.id])
  })

  test('paging: limit and cursor', async () => {
    const first = await s.api('GET', '/admin/api/leads?limit=2')
    expect(ids(first.body)).toEqual([ann.id, bob.id])
    expect(first.body.next_cursor).toBe(String(bob.id))
    const second = await s.api('GET', `/admin/api/leads?limit=2&cursor=${first.body.next_cursor}`)
    expect(ids(second.body)).toEqual([cat.id])
    expect(second.body.next_cursor).toBeNull()
    const filtered = await s.api('GET', '/admin/api/leads?landing_id=6&limit=1')
    expect({ ids: ids(filtered.body), next: filtered.body.next_cursor }).toEqual({ ids: [bob.id], next: String(bob.id) })
  })

  test('bad filters: 400 naming the parameter', async () => {
    const cases: Array<[string, string]> = [
      ['landing_id=abc', 'landing_id: must be a positive whole number'],
      ['campaign_id=-1', 'campaign_id: must be a positive whole number'],
      ['landing_id=99999999999', 'landing_id: must be a positive whole number'],
      ['click_id=not-a-click', 'click_id: must be a click id (UUID)'],
      ['email=not-an-address', 'email: not a valid email address'],
      ['from=yesterday', 'from: must be an ISO 8601 date or epoch seconds/milliseconds'],
      ['to=2026-02-30', 'to: must be an ISO 8601 date or epoch seconds/milliseconds'],
      ['from=2026-03-02&to=2026-03-01', 'to: must be later than from'],
      ['limit=0', 'limit: must be a whole number from 1 to 500'],
      ['cursor=x', 'cursor: invalid cursor'],
    ]
    for (const [q, error] of cases) {
      expect({ q, ...(await s.api('GET', `/admin/api/leads?${q}`)) }).toMatchObject({ q, status: 400, body: { error } })
    }
    // The export checks the same filters before any CSV is sent.
    expect(await s.api('GET', '/admin/api/leads/export?email=nope')).toMatchObject({ status: 400, body: { error: 'email: not a valid email address' } })
  })

  test('get one; unknown or malformed id is 404', async () => {
    const res = await s.api('GET', `/admin/api/leads/${cat.id}`)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      id: cat.id, email: 'cat@example.com', name: 'Cat, "the" cat', landing_id: 6, campaign_id: 8, click_id: null,
      fields: {}, ip: '203.0.113.9', user_agent: 'UA/1', created_at: iso(T3),
    })
    expect(await s.api('GET', '/admin/api/leads/999999')).toMatchObject({ status: 404, body: { error: 'lead not found' } })
    expect(await s.api('GET', '/admin/api/leads/abc')).toMatchObject({ status: 404, body: { error: 'lead not found' } })
  })

  test('export: CSV with the exact header, one line per lead, filters applied', async () => {
    const res = await fetch(`${s.base}/admin/api/leads/export`, { headers: { cookie: await s.login() } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="leads.csv"')
    const lines = (await res.text()).split('\r\n')
    expect(lines[0]).toBe('id,email,name,landing_id,campaign_id,click_id,ip,created_at,fields')
    expect(lines[1]).toBe(`${ann.id},ann@example.com,Ann,5,7,${CLICK_A},203.0.113.9,${iso(T1)},"{""city"":""Oslo"",""phone"":""+47 1234""}"`)
    expect(lines[2]).toBe(`${bob.id},bob@example.com,,6,,${CLICK_B},,${iso(T2)},`)
    expect(lines[3]).toBe(`${cat.id},cat@example.com,"Cat, ""the"" cat",6,8,,203.0.113.9,${iso(T3)},`)
    expect(lines.slice(4)).toEqual([''])

    const filtered = await s.api('GET', '/admin/api/leads/export?landing_id=5')
    expect(filtered.status).toBe(200)
    expect(filtered.text.split('\r\n').map((l) => l.split(',')[0])).toEqual(['id', String(ann.id), ''])
    // Nothing matches: the header alone.
    expect((await s.api('GET', '/admin/api/leads/export?landing_id=999')).text).toBe('id,email,name,landing_id,campaign_id,click_id,ip,created_at,fields\r\n')
  })

  test('delete: {ok:true}, then 404; the other leads stay', async () => {
    const doomed = await leads.insert(newLead('doomed@example.com', { landingId: 77 }))
    expect(await s.api('DELETE', `/admin/api/leads/${doomed.id}`)).toMatchObject({ status: 200, body: { ok: true } })
    expect(await s.api('GET', `/admin/api/leads/${doomed.id}`)).toMatchObject({ status: 404, body: { error: 'lead not found' } })
    expect(await s.api('DELETE', `/admin/api/leads/${doomed.id}`)).toMatchObject({ status: 404, body: { error: 'lead not found' } })
    expect(await s.api('DELETE', '/admin/api/leads/abc')).toMatchObject({ status: 404, body: { error: 'lead not found' } })
    expect(ids((await s.api('GET', '/admin/api/leads')).body)).toEqual([ann.id, bob.id, cat.id])
  })
})

describe('/admin/api/events', () => {
  test('list: rendered events (props as an object or null), filters, paging', async () => {
    const res = await s.api('GET', '/admin/api/events')
    expect(res.status).toBe(200)
    expect(res.body.items).toHaveLength(4)
    expect(res.body.next_cursor).toBeNull()
    const [pv1, pv2, signup, pv3] = res.body.items
    expect(pv1).toEqual({
      id: pv1.id, name: 'page_view', click_id: CLICK_A, campaign_id: 7, landing_id: 5, props: null, url: 'https://lp.example.com/',
      ip: '203.0.113.9', created_at: iso(T1),
    })
    expect(signup).toMatchObject({ name: 'signup', props: { plan: 'pro', seats: 3 }, created_at: iso(T3) })
    expect(pv3).toEqual({ id: pv3.id, name: 'page_view', click_id: null, campaign_id: null, landing_id: null, props: null, url: null, ip: null, created_at: iso(T3 + 1) })

    const list = async (q: string) => ids((await s.api('GET', `/admin/api/events?${q}`)).body)
    expect(await list('name=page_view')).toEqual([pv1.id, pv2.id, pv3.id])
    expect(await list(`click_id=${CLICK_B}`)).toEqual([pv2.id])
    expect(await list('campaign_id=7')).toEqual([pv1.id, signup.id])
    expect(await list('landing_id=6')).toEqual([pv2.id])
    expect(await list(`from=${T2}&to=2026-03-04T08:00:00Z`)).toEqual([pv2.id])
    const first = await s.api('GET', '/admin/api/events?name=page_view&limit=2')
    expect({ ids: ids(first.body), next: first.body.next_cursor }).toEqual({ ids: [pv1.id, pv2.id], next: String(pv2.id) })
    expect(await list(`name=page_view&limit=2&cursor=${first.body.next_cursor}`)).toEqual([pv3.id])
  })

  test('counts per name, campaign, landing and UTC day, largest first; filters apply', async () => {
    const counts = async (q: string) => {
      const res = await s.api('GET', `/admin/api/events/counts?${q}`)
      expect(res.status).toBe(200)
      return res.body
    }
    expect(await counts('group_by=name')).toEqual({ rows: [{ key: 'page_view', count: 3 }, { key: 'signup', count: 1 }] })
    expect(await counts('group_by=campaign')).toEqual({ rows: [{ key: 7, count: 2 }, { key: 8, count: 1 }, { key: null, count: 1 }] })
    expect(await counts('group_by=landing&name=page_view')).toEqual({ rows: [{ key: 5, count: 1 }, { key: 6, count: 1 }, { key: null, count: 1 }] })
    expect(await counts('group_by=day')).toEqual({ rows: [{ key: '2026-03-04', count: 2 }, { key: '2026-03-01', count: 1 }, { key: '2026-03-02', count: 1 }] })
    expect(await counts(`group_by=day&landing_id=5&to=${T3}`)).toEqual({ rows: [{ key: '2026-03-01', count: 1 }] })
  })

  test('bad parameters: 400 naming them; group_by is required', async () => {
    const cases: Array<[string, string]> = [
      ['/admin/api/events/counts', 'group_by: must be one of name, campaign, landing, day'],
      ['/admin/api/events/counts?group_by=week', 'group_by: must be one of name, campaign, landing, day'],
      ['/admin/api/events/counts?group_by=name&landing_id=x', 'landing_id: must be a positive whole number'],
      ['/admin/api/events?campaign_id=1.5', 'campaign_id: must be a positive whole number'],
      ['/admin/api/events?click_id=abc', 'click_id: must be a click id (UUID)'],
      ['/admin/api/events?from=soon', 'from: must be an ISO 8601 date or epoch seconds/milliseconds'],
      ['/admin/api/events?limit=abc', 'limit: must be a whole number from 1 to 500'],
    ]
    for (const [path, error] of cases) expect({ path, ...(await s.api('GET', path)) }).toMatchObject({ path, status: 400, body: { error } })
  })
})

describe('permissions', () => {
  const paths = ['/admin/api/leads', `/admin/api/leads/1`, '/admin/api/leads/export', '/admin/api/events', '/admin/api/events/counts?group_by=name']

  test('a stranger gets 401 everywhere', async () => {
    for (const path of paths) expect({ path, status: (await s.api('GET', path, undefined, '')).status }).toEqual({ path, status: 401 })
    expect((await s.api('DELETE', `/admin/api/leads/${ann.id}`, undefined, '')).status).toBe(401)
  })

  test('leads and events need landings (read; write to delete); counts need reports:read', async () => {
    const reports = await limitedUser('reports-only@example.com', { reports: { read: true } })
    for (const path of paths.slice(0, 4)) expect({ path, status: (await s.api('GET', path, undefined, reports)).status }).toEqual({ path, status: 403 })
    // Bad input from someone without the section is still 403, never a 400 describing it.
    expect((await s.api('GET', '/admin/api/leads?landing_id=abc', undefined, reports)).status).toBe(403)
    expect(await s.api('GET', '/admin/api/events/counts?group_by=name', undefined, reports))
      .toMatchObject({ status: 200, body: { rows: [{ key: 'page_view', count: 3 }, { key: 'signup', count: 1 }] } })

    const reader = await limitedUser('landings-reader@example.com', { landings: { read: true } })
    expect((await s.api('GET', '/admin/api/leads', undefined, reader)).status).toBe(200)
    expect((await s.api('GET', '/admin/api/events', undefined, reader)).status).toBe(200)
    expect((await s.api('GET', '/admin/api/leads/export', undefined, reader)).status).toBe(200)
    expect((await s.api('GET', '/admin/api/events/counts?group_by=day', undefined, reader)).status).toBe(403)
    expect((await s.api('DELETE', `/admin/api/leads/${ann.id}`, undefined, reader)).status).toBe(403)
    expect((await s.api('GET', `/admin/api/leads/${ann.id}`)).status).toBe(200)
  })
})

describe('a large export', () => {
  test('runs page after page (1,000 leads per read) and keeps every lead once, in id order', async () => {
    const made: number[] = []
    for (let i = 0; i < 1005; i++) made.push((await leads.insert(newLead(`bulk${i}@example.com`, { landingId: 900, createdAt: T1 + i }))).id)
    const res = await s.api('GET', '/admin/api/leads/export?landing_id=900')
    expect(res.status).toBe(200)
    const lines = res.text.split('\r\n')
    expect(lines.length).toBe(1 + 1005 + 1)
    expect(lines.slice(1, -1).map((l) => Number(l.split(',')[0]))).toEqual(made)
    expect(lines[1005]).toBe(`${made[1004]},bulk1004@example.com,Ann,900,7,${CLICK_A},203.0.113.9,${iso(T1 + 1004)},`)
  }, 60_000)
})
