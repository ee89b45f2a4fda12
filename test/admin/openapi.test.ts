import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { addUser, cookieFor, send } from './helpers'

let s: TestServer
beforeAll(async () => { s = await startServer() })
afterAll(() => s.destroy())

describe('the OpenAPI document', () => {
  test('is 401 without a session, for the document and the UI', async () => {
    for (const path of ['/admin/api/openapi', '/admin/api/openapi/json']) {
      const res = await send(s, 'GET', path)
      expect(res.status).toBe(401)
      expect(res.body).toEqual({ error: 'not authenticated' })
    }
  })

  test('is served to any signed-in admin, even one without permissions', async () => {
    const cookie = cookieFor(s, await addUser(s, 'docs@example.com', {}))
    const doc = await send(s, 'GET', '/admin/api/openapi/json', { headers: { cookie } })
    expect(doc.status).toBe(200)
    expect(doc.body.openapi).toMatch(/^3\./)
    expect(doc.body.info.title).toBe('svc admin API')
    const ui = await send(s, 'GET', '/admin/api/openapi', { headers: { cookie } })
    expect(ui.status).toBe(200)
    expect(ui.headers.get('content-type')).toContain('text/html')
    expect(ui.text).toContain('/admin/api/openapi/json')
  })

  test('describes every admin route of this feature with tags and a summary, and the cookie scheme', async () => {
    const doc = (await s.api('GET', '/admin/api/openapi/json')).body
    const ours = ['/admin/api/login', '/admin/api/logout', '/admin/api/me', '/admin/api/users', '/admin/api/users/{id}', '/admin/api/sources',
      '/admin/api/sources/{id}', '/admin/api/offers', '/admin/api/offers/{id}', '/admin/api/landings', '/admin/api/landings/{id}',
      '/admin/api/campaigns', '/admin/api/campaigns/{id}', '/admin/api/settings']
    for (const path of ours) {
      expect(doc.paths[path]).toBeDefined()
      for (const [method, op] of Object.entries(doc.paths[path] as Record<string, any>)) {
        expect({ path, method, tags: op.tags?.length > 0, summary: typeof op.summary }).toEqual({ path, method, tags: true, summary: 'string' })
      }
    }
    expect(doc.paths['/admin/api/openapi/json']).toBeUndefined()
    expect(doc.components.securitySchemes.session).toEqual({ type: 'apiKey', in: 'cookie', name: 'svc_admin_session' })
    const create = doc.paths['/admin/api/campaigns'].post
    expect(JSON.stringify(create.requestBody)).toContain('offer_id')
  })

  test('includes the routes other features mount on the same app', async () => {
    const doc = (await s.api('GET', '/admin/api/openapi/json')).body
    const adminPaths = (s.server.app.routes as Array<{ path: string }>)
      .map((r) => r.path.replace(/:(\w+)/g, '{$1}'))
      .filter((p) => p.startsWith('/admin/api') && !p.startsWith('/admin/api/openapi'))
    expect(adminPaths.length).toBeGreaterThan(14)
    for (const p of adminPaths) expect({ p, documented: p in doc.paths }).toEqual({ p, documented: true })
  })
})
