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
    const cookie = await cookieFor(s, await addUser(s, 'docs@example.com', {}))
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

describe('what the document describes (issue 14)', () => {
  test('every request body has a JSON schema that says something (no content: {}, no empty schema)', async () => {
    const doc = (await s.api('GET', '/admin/api/openapi/json')).body
    const bodies: string[] = []
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        if (!op.requestBody) continue
        bodies.push(`${method} ${path}`)
        const schema = op.requestBody.content?.['application/json']?.schema
        expect({ at: `${method} ${path}`, types: Object.keys(op.requestBody.content ?? {}) }).toEqual({ at: `${method} ${path}`, types: ['application/json'] })
        expect({ at: `${method} ${path}`, describes: Boolean(schema?.properties || schema?.additionalProperties || schema?.anyOf) })
          .toEqual({ at: `${method} ${path}`, describes: true })
      }
    }
    // The 14 that were content: {} plus the two lenient bodies that had no schema at all.
    expect(bodies.sort()).toEqual([
      'patch /admin/api/automations/{id}', 'patch /admin/api/campaigns/{id}', 'patch /admin/api/conversion-types/{slug}', 'patch /admin/api/email-lists/{id}', 'patch /admin/api/email-triggers/{id}',
      'patch /admin/api/landings/{id}', 'patch /admin/api/offers/{id}', 'patch /admin/api/payment-accounts/{id}', 'patch /admin/api/products/{id}',
      'patch /admin/api/rule-sets/{id}', 'patch /admin/api/sources/{id}', 'patch /admin/api/tokens/{id}', 'patch /admin/api/users/{id}', 'post /admin/api/automations', 'post /admin/api/blocked-zones', 'post /admin/api/campaigns', 'post /admin/api/campaigns/{id}/simulate', 'post /admin/api/conversion-types', 'post /admin/api/cost-updates',
      'post /admin/api/email-lists', 'post /admin/api/email-lists/{id}/broadcasts', 'post /admin/api/email-lists/{id}/subscribers', 'post /admin/api/email-triggers',
      'post /admin/api/landings', 'post /admin/api/landings/preview', 'post /admin/api/login',
      'post /admin/api/network-templates/import', 'post /admin/api/network-templates/{id}/create-offer', 'post /admin/api/offers', 'post /admin/api/orders/{id}/refund', 'post /admin/api/payment-accounts', 'post /admin/api/products', 'post /admin/api/rule-sets', 'post /admin/api/saved-views',
      'post /admin/api/source-templates/import', 'post /admin/api/source-templates/{id}/create-source', 'post /admin/api/sources', 'post /admin/api/tokens', 'post /admin/api/users',
      'put /admin/api/campaigns/{id}/auto-weights', 'put /admin/api/postback-aliases', 'put /admin/api/settings', 'put /admin/api/status-map',
    ])
    const settings = doc.paths['/admin/api/settings'].put.requestBody.content['application/json'].schema
    expect(settings.properties.postback_secret.type).toEqual(['string', 'null'])
    expect(settings.properties.click_cookie_days).toEqual({ type: 'integer', default: 30 })
    const aliases = doc.paths['/admin/api/postback-aliases'].put.requestBody.content['application/json'].schema
    expect(Object.keys(aliases.properties)).toEqual(['subid', 'status', 'payout', 'tid', 'date', 'sig', 'email'])
  })

  test('lists the query parameters of reports, conversions, jobs and postback errors', async () => {
    const doc = (await s.api('GET', '/admin/api/openapi/json')).body
    const names = (path: string) => (doc.paths[path].get.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name)
    expect(names('/admin/api/reports')).toEqual([
      'group_by', 'from', 'to', 'tz', 'campaign_id', 'source_id', 'offer_id', 'landing_id', 'format', 'sort', 'order', 'limit', 'offset', 'cursor',
      'min_clicks', 'having',
    ])
    expect(names('/admin/api/reports/conversions')).toEqual(['from', 'to', 'tz', 'campaign_id', 'source_id', 'offer_id', 'landing_id', 'format'])
    expect(names('/admin/api/conversions')).toEqual(['click_id', 'campaign_id', 'type', 'from', 'to', 'limit', 'cursor'])
    expect(names('/admin/api/jobs')).toEqual(['status', 'kind', 'section', 'conversion_id', 'limit', 'cursor'])
    expect(names('/admin/api/postback-errors')).toEqual(['reason', 'limit', 'cursor'])
    for (const path of ['/admin/api/reports', '/admin/api/conversions', '/admin/api/jobs', '/admin/api/postback-errors']) {
      for (const p of doc.paths[path].get.parameters.filter((x: any) => x.in === 'query')) {
        expect({ path, name: p.name, required: p.required, described: p.schema.description?.length > 5 }).toEqual({ path, name: p.name, required: false, described: true })
      }
    }
    expect(doc.paths['/admin/api/postback-errors'].get.parameters[0].schema.description).toContain('unknown_click')
  })

  test('documenting the queries changed no answer: repeated, unknown and malformed parameters reach the verbs as before', async () => {
    const cases: Array<[string, number, string]> = [
      ['/admin/api/reports?limit=abc&limit=1', 200, '"rows":[]'],
      ['/admin/api/reports?limit=1&limit=abc', 400, 'limit: must be a whole number from 1 to 1000'],
      ['/admin/api/reports?bogus=1&limit[]=3', 200, '"rows":[]'],
      ['/admin/api/conversions?from=nope', 400, 'from: must be an ISO 8601 date or epoch seconds/milliseconds'],
      ['/admin/api/jobs?status=x&status=failed', 200, '"items":[]'],
      ['/admin/api/postback-errors?reason=nope', 400, 'reason: must be one of'],
    ]
    for (const [path, status, text] of cases) {
      const res = await s.api('GET', path)
      expect({ path, status: res.status, has: res.text.includes(text) }).toEqual({ path, status, has: true })
    }
  })

  test('describes the public routes /c, /r and /postback, tagged public, without a session', async () => {
    const doc = (await s.api('GET', '/admin/api/openapi/json')).body
    for (const path of ['/c/{slug}', '/r/{slug}']) {
      const op = doc.paths[path].get
      expect({ path, tags: op.tags, security: op.security }).toEqual({ path, tags: ['public'], security: [] })
      expect(Object.keys(op.responses).sort()).toEqual(['302', '404', '503'])
      expect(op.responses['302'].headers.Location).toBeDefined()
      const names = op.parameters.map((p: any) => p.name)
      for (const n of ['slug', 'sub1', 'sub10', 'click_id', 'cost']) expect({ path, n, listed: names.includes(n) }).toEqual({ path, n, listed: true })
      expect(doc.paths[path].head.tags).toEqual(['public'])
    }
    const postback = doc.paths['/postback'].get
    expect(postback.tags).toEqual(['public'])
    expect(postback.security).toEqual([])
    expect(postback.parameters.map((p: any) => p.name)).toEqual(['subid', 'status', 'payout', 'tid', 'date', 'sig', 'email'])
    expect(postback.parameters[0].description).toContain('click_id')
    expect(postback.responses['200'].content['text/plain'].schema.example).toBe('OK')
    expect(Object.keys(postback.responses).sort()).toEqual(['200', '401', '429'])
  })
})

describe('the reference page works offline', () => {
  test('the page names no other origin and its CSP allows only this server', async () => {
    const cookie = await cookieFor(s, await addUser(s, 'offline@example.com', {}))
    const page = await send(s, 'GET', '/admin/api/openapi', { headers: { cookie } })
    expect(page.status).toBe(200)
    expect(page.text).not.toMatch(/https?:\/\//)
    expect(page.text).not.toMatch(/src="\/\//)
    const csp = page.headers.get('content-security-policy')!
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("script-src 'self';")
    expect(csp).toContain("connect-src 'self'")
    expect(csp).not.toMatch(/https?:|\*/)
    const src = /<script src="([^"]+)"><\/script>/.exec(page.text)![1]!
    expect(src).toMatch(/^\/admin\/api\/openapi\/scalar-[\d.]+\.js$/)
    const config = JSON.parse(/data-configuration='([^']+)'/.exec(page.text)![1]!)
    expect(config).toMatchObject({ url: '/admin/api/openapi/json', withDefaultFonts: false, telemetry: false })

    // Served from this server, as JavaScript, gzipped when asked, and only to a signed-in admin.
    const plain = await fetch(s.base + src, { headers: { cookie, 'accept-encoding': 'identity' } })
    expect(plain.status).toBe(200)
    expect(plain.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    const js = await plain.text()
    expect(js.length).toBeGreaterThan(1_000_000)
    expect(js).toContain('api-reference')
    const zipped = await fetch(s.base + src, { headers: { cookie, 'accept-encoding': 'gzip' }, decompress: false } as RequestInit)
    expect(zipped.headers.get('content-encoding')).toBe('gzip')
    expect(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await zipped.arrayBuffer())))).toBe(js)
    expect((await send(s, 'GET', src)).status).toBe(401)
  })
})
