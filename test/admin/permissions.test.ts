// Security walk over every mounted /admin/api route, whichever feature added it. Data-driven from the
// running app's route list, so a new route is covered (or fails the table check) automatically.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { SECTIONS, type Section } from '../../src/lib/permissions'
import { addUser, cookieFor, send } from './helpers'

/**
 * First path segment after /admin/api/ → the section guarding it; 'session' = any signed-in admin;
 * 'user' = any signed-in admin too, for routes whose answer then depends on the body (saved views: 400, 404);
 * 'any' = the section of each record (jobs: that of their kind), so a permission in any section opens the
 * route and the record decides (tested in test/jobs/routes.test.ts).
 */
const SECTION_OF: Record<string, Section | 'session' | 'user' | 'public' | 'any'> = {
  login: 'public',
  logout: 'session',
  me: 'session',
  openapi: 'session',
  users: 'users', tokens: 'users', audit: 'users',
  sources: 'campaigns', offers: 'campaigns', campaigns: 'campaigns', 'rule-sets': 'campaigns',
  'source-templates': 'campaigns', 'network-templates': 'campaigns', 'cost-updates': 'campaigns', caps: 'campaigns',
  'blocked-zones': 'campaigns', 'saved-views': 'user',
  landings: 'landings', leads: 'landings', events: 'landings',
  clicks: 'conversions', conversions: 'conversions', 'conversion-types': 'conversions', 'status-map': 'conversions',
  'postback-errors': 'conversions', jobs: 'any',
  reports: 'reports',
  'email-lists': 'email', 'email-triggers': 'email', automations: 'email', outbox: 'email', 'mail-events': 'email',
  'payment-accounts': 'commerce', products: 'commerce', orders: 'commerce', refunds: 'commerce', subscriptions: 'commerce', 'webhook-events': 'commerce',
  settings: 'settings', 'postback-aliases': 'settings',
}

/** Routes whose section is not their collection's. */
const PATH_SECTION: Record<string, Section | 'session' | 'public' | 'any'> = { '/admin/api/events/counts': 'reports' }

const READ_METHODS = new Set(['GET', 'HEAD'])
/** POST routes that only read (they take a body but record nothing): the section's read permission. */
const READ_POSTS = new Set(['/admin/api/campaigns/:id/simulate'])
const reads = (r: { method: string; path: string }) => READ_METHODS.has(r.method) || READ_POSTS.has(r.path)
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
const PARAM_VALUES: Record<string, string> = { click_id: '6f1c2d3e-4a5b-4c6d-8e7f-0a1b2c3d4e5f', slug: 'sale' }

interface AdminRoute { method: string; path: string; url: string; section: Section | 'session' | 'user' | 'any' }

let s: TestServer
let routes: AdminRoute[]
let unmapped: string[]

beforeAll(async () => {
  s = await startServer()
  unmapped = []
  routes = []
  for (const r of s.server.app.routes as Array<{ method: string; path: string }>) {
    if (!r.path.startsWith('/admin/api')) continue
    const segment = r.path.split('/')[3] ?? ''
    const section = PATH_SECTION[r.path] ?? SECTION_OF[segment]
    if (!section || (!READ_METHODS.has(r.method) && !WRITE_METHODS.has(r.method))) {
      unmapped.push(`${r.method} ${r.path}`)
      continue
    }
    if (section === 'public') continue
    const url = r.path.replace(/:(\w+)\??/g, (_m, name: string) => PARAM_VALUES[name] ?? '1')
    routes.push({ method: r.method, path: r.path, url, section })
  }
})
afterAll(() => s.destroy())

const describeRoute = (r: AdminRoute) => `${r.method} ${r.path}`

describe('every mounted /admin/api route', () => {
  test('is listed in the section table (add new collections to SECTION_OF with their section)', () => {
    expect(unmapped).toEqual([])
    // The walk must actually see the admin feature's own routes, or it proves nothing.
    expect(routes.map(describeRoute)).toEqual(expect.arrayContaining([
      'GET /admin/api/me', 'POST /admin/api/logout', 'GET /admin/api/users', 'DELETE /admin/api/campaigns/:id',
      'PUT /admin/api/settings', 'GET /admin/api/openapi/json',
    ]))
  })

  test('answers 401 {"error":"not authenticated"} without a cookie, and sends no CORS headers', async () => {
    for (const r of routes) {
      const res = await send(s, r.method, r.url, { headers: { origin: 'https://evil.example' } })
      expect({ route: describeRoute(r), status: res.status, body: res.body }).toEqual({ route: describeRoute(r), status: 401, body: { error: 'not authenticated' } })
      expect([...res.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([])
    }
  })

  test('answers 401 to a forged, an expired, a malformed and a revoked cookie', async () => {
    const id = await addUser(s, 'revoked@example.com', { campaigns: { read: true, write: true } })
    const revoked = await cookieFor(s, id)
    await s.ctx.users.revokeSessions(id)
    const valid = (await cookieFor(s, 1)).split('=')[1]!
    const forged = `svc_admin_session=${valid.slice(0, -2)}${valid.endsWith('AA') ? 'BB' : 'AA'}`
    const otherUser = `svc_admin_session=${valid.replace(/^v1\.1\./, 'v1.2.')}`
    const cookies = [forged, otherUser, await cookieFor(s, 1, { expired: true }), 'svc_admin_session=garbage', 'svc_admin_session=%E0%A4%A', revoked]
    for (const r of routes) {
      for (const cookie of cookies) {
        const res = await send(s, r.method, r.url, { headers: { cookie } })
        expect({ route: describeRoute(r), cookie, status: res.status, body: res.body }).toEqual({ route: describeRoute(r), cookie, status: 401, body: { error: 'not authenticated' } })
      }
    }
  })

  test('answers 401 before looking at the body: a bad body without a session is still 401', async () => {
    for (const r of routes.filter((r) => WRITE_METHODS.has(r.method) && r.method !== 'DELETE')) {
      const res = await send(s, r.method, r.url, { headers: { 'content-type': 'application/json' }, body: '{"broken' })
      expect({ route: describeRoute(r), status: res.status }).toEqual({ route: describeRoute(r), status: 401 })
    }
  })

  test('answers 403 to a signed-in user without permissions, except the session routes', async () => {
    const cookie = await cookieFor(s, await addUser(s, 'nobody@example.com', {}))
    for (const r of routes) {
      if (r.path === '/admin/api/logout') continue // would revoke this cookie; checked below
      const res = await send(s, r.method, r.url, { headers: { cookie, 'content-type': 'application/json' }, body: r.method === 'GET' ? undefined : '{"broken' })
      if (r.section === 'user') {
        expect({ route: describeRoute(r), allowed: res.status !== 401 && res.status !== 403 && res.status < 500 }).toEqual({ route: describeRoute(r), allowed: true })
      } else if (r.section === 'session') {
        expect({ route: describeRoute(r), status: res.status }).toEqual({ route: describeRoute(r), status: 200 })
      } else {
        expect({ route: describeRoute(r), status: res.status }).toEqual({ route: describeRoute(r), status: 403 })
        const action = reads(r) ? 'read' : 'write'
        if (r.section === 'any') expect(res.body.error).toStartWith(`missing permission <section>:${action} `)
        else expect(res.body.error).toBe(`missing permission ${r.section}:${action}`)
      }
    }
    const out = await send(s, 'POST', '/admin/api/logout', { headers: { cookie, 'content-type': 'application/json' } })
    expect(out.status).toBe(200)
  })

  test('lets a <section>:read user read that section and nothing else, and refuses its writes', async () => {
    const sections = [...new Set(routes.map((r) => r.section))].filter((x): x is Section => x !== 'session' && x !== 'user' && x !== 'any')
    expect(sections.length).toBeGreaterThan(3)
    for (const section of sections) {
      const cookie = await cookieFor(s, await addUser(s, `read-${section}@example.com`, { [section]: { read: true } }))
      for (const r of routes) {
        if (r.section === 'session' || r.section === 'user') continue
        const res = await send(s, r.method, r.url, { headers: { cookie } })
        const tag = { as: `${section}:read`, route: describeRoute(r) }
        if ((r.section === section || r.section === 'any') && reads(r)) {
          expect({ ...tag, allowed: res.status !== 401 && res.status !== 403 && res.status < 500 }).toEqual({ ...tag, allowed: true })
        } else {
          expect({ ...tag, status: res.status }).toEqual({ ...tag, status: 403 })
        }
      }
    }
  })

  test('does not let write imply read: a <section>:write-only user gets 403 on that section\'s GET routes', async () => {
    const cookie = await cookieFor(s, await addUser(s, 'write-only@example.com', Object.fromEntries(SECTIONS.map((x) => [x, { write: true }]))))
    for (const r of routes.filter((r) => r.section !== 'session' && r.section !== 'user' && READ_METHODS.has(r.method))) {
      const res = await send(s, r.method, r.url, { headers: { cookie } })
      expect({ route: describeRoute(r), status: res.status }).toEqual({ route: describeRoute(r), status: 403 })
    }
  })
})

describe('the admin API and CORS', () => {
  test('a preflight to an admin route gets no CORS allowance', async () => {
    const res = await send(s, 'OPTIONS', '/admin/api/campaigns', {
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    })
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
    expect(res.headers.get('access-control-allow-credentials')).toBeNull()
  })

  test('a signed-in request from another origin gets no CORS headers either', async () => {
    const res = await send(s, 'GET', '/admin/api/me', { headers: { cookie: await cookieFor(s, 1), origin: 'https://evil.example' } })
    expect(res.status).toBe(200)
    expect([...res.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([])
  })
})
