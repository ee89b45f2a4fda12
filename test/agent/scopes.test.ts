// The 42 scopes cover the whole admin API: every verb and every /admin/api path belongs to one of the 21
// resources, and every verb (but the public unsubscribe) is an MCP tool with a usable description and schema.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { RESOURCE_NAMES, SCOPES, resourceOfPath, scopeOfVerb } from '../../src/agent/scopes'
import { toolCatalog } from '../../src/agent/mcp/catalog'
import { redact } from '../../src/agent/audit'

let s: TestServer
beforeAll(async () => { s = await startServer() })
afterAll(() => s.destroy())

/** Routes any signed-in principal may use, whatever its scopes. */
const SESSION_PATHS = new Set(['/admin/api/login', '/admin/api/logout', '/admin/api/me'])

describe('scopes', () => {
  test('42 scopes: read and write over 21 resources', () => {
    expect(RESOURCE_NAMES).toHaveLength(21)
    expect(SCOPES).toHaveLength(42)
    expect(new Set(SCOPES).size).toBe(42)
  })

  test('every verb needs exactly one scope, with the action its permission names', () => {
    const missing: string[] = []
    for (const verb of s.server.verbs.values()) {
      if (verb.name === 'email.unsubscribe') continue // public: the signed link is the permission
      const scope = scopeOfVerb(verb)
      if (!scope) { missing.push(verb.name); continue }
      if (verb.permission) expect({ verb: verb.name, action: scope.split(':')[1] }).toEqual({ verb: verb.name, action: verb.permission.split(':')[1]! })
    }
    expect(missing).toEqual([])
    expect(s.server.verbs.size).toBeGreaterThan(100)
  })

  test('every mounted /admin/api path belongs to a resource', () => {
    const missing: string[] = []
    for (const r of s.server.app.routes as Array<{ method: string; path: string }>) {
      if (!r.path.startsWith('/admin/api') || SESSION_PATHS.has(r.path) || r.path.startsWith('/admin/api/openapi')) continue
      if (!resourceOfPath(r.path.replace(/:(\w+)/g, '7'))) missing.push(`${r.method} ${r.path}`)
    }
    expect(missing).toEqual([])
  })

  test('paths and verbs agree where resources fold several collections', () => {
    const cases: Array<[string, string]> = [
      ['/admin/api/postback-aliases', 'conversion_types'], ['/admin/api/status-map', 'conversion_types'],
      ['/admin/api/conversion-types/sale', 'conversion_types'], ['/admin/api/postback-errors', 'conversions'],
      ['/admin/api/events', 'leads'], ['/admin/api/events/counts', 'reports'], ['/admin/api/email-lists/3/broadcasts', 'email_sends'],
      ['/admin/api/email-lists/3/subscribers/9', 'email_lists'], ['/admin/api/landings/2/assets/img/a.png', 'landings'],
      ['/admin/api/refunds/1', 'orders'], ['/admin/api/subscriptions', 'orders'], ['/admin/api/audit', 'tokens'],
    ]
    for (const [path, resource] of cases) expect({ path, resource: resourceOfPath(path) }).toEqual({ path, resource: resource as never })
    const verbs: Array<[string, string]> = [
      ['postback-aliases.replace', 'conversion_types:write'], ['status-map.get', 'conversion_types:read'], ['landings.events.list', 'leads:read'],
      ['landings.events.counts', 'reports:read'], ['email.broadcasts.send', 'email_sends:write'], ['jobs.retry', 'jobs:write'], ['jobs.list', 'jobs:read'],
      ['commerce.refunds.list', 'orders:read'], ['audit.list', 'tokens:read'], ['landings.assets.put', 'landings:write'],
    ]
    for (const [name, scope] of verbs) expect({ name, scope: scopeOfVerb(s.server.verbs.get(name)!) }).toEqual({ name, scope: scope as never })
  })
})

describe('the tool catalog', () => {
  test('every verb but the public one is a tool, named once, with a description, an object input schema and annotations', () => {
    const tools = toolCatalog(s.server.verbs)
    expect(tools.size).toBe(s.server.verbs.size - 1)
    for (const tool of tools.values()) {
      expect(tool.name).toMatch(/^[a-z][a-z0-9_]{1,63}$/)
      expect(tool.description.length).toBeGreaterThan(40)
      expect(tool.description).toContain(`Scope ${tool.scope}`)
      expect(tool.inputSchema.type).toBe('object')
      expect(tool.outputSchema.type).toBe('object')
      const a = tool.annotations
      if (a.readOnlyHint) expect({ tool: tool.name, destructive: a.destructiveHint }).toEqual({ tool: tool.name, destructive: false })
    }
    for (const name of ['list_campaigns', 'get_campaign', 'create_campaign', 'update_campaign', 'delete_campaign', 'get_click', 'list_conversions',
      'record_conversion', 'get_report', 'list_jobs', 'retry_job', 'get_settings', 'update_settings', 'list_email_lists', 'list_subscribers',
      'list_email_triggers', 'list_email_automations', 'list_outbox', 'list_leads', 'list_orders', 'list_refunds', 'list_subscriptions',
      'list_payment_accounts', 'create_token', 'list_audit']) {
      expect({ name, present: tools.has(name) }).toEqual({ name, present: true })
    }
  })

  test('deletions, refunds and bulk sends are destructive Tier-2 tools; reports, exports, imports and sends use the ai bucket', () => {
    const tools = toolCatalog(s.server.verbs)
    for (const name of ['delete_campaign', 'delete_source', 'remove_subscriber', 'refund_order', 'send_broadcast', 'delete_token']) {
      const t = tools.get(name)!
      expect({ name, destructive: t.annotations.destructiveHint, tier2: t.tier2({ id: 1 }), confirm: 'confirm_token' in (t.inputSchema.properties as object) })
        .toEqual({ name, destructive: true, tier2: true, confirm: true })
    }
    const settings = tools.get('update_settings')!
    expect(settings.tier2({ cors_allowlist: [] })).toBe(false)
    expect(settings.tier2({ postback_secret: 'x'.repeat(20) })).toBe(true)
    // Users, their permissions and tokens: every change is Tier 2, whatever its arguments.
    for (const name of ['create_user', 'update_user', 'delete_user', 'create_token', 'update_token', 'delete_token']) {
      const t = tools.get(name)!
      expect({ name, tier2: t.tier2({ id: 2, email: 'a@b.c' }), destructive: t.annotations.destructiveHint, confirm: 'confirm_token' in (t.inputSchema.properties as object) })
        .toEqual({ name, tier2: true, destructive: true, confirm: true })
    }
    expect(tools.get('update_user')!.tier2({ id: 2, password: 'new-password-1' })).toBe(true)
    for (const name of ['get_report', 'export_conversions', 'export_leads', 'export_subscribers', 'import_subscribers', 'send_broadcast']) {
      expect({ name, bucket: tools.get(name)!.bucket }).toEqual({ name, bucket: 'ai' })
    }
    expect(tools.get('update_payment_account')!.tier2({ id: 1, client_id: 'x' })).toBe(true)
    expect(tools.get('update_payment_account')!.tier2({ id: 1, name: 'x' })).toBe(false)
    expect(tools.get('list_campaigns')!.bucket).toBe('default')
    expect(tools.get('create_campaign')!.tier2({ name: 'x' })).toBe(false)
  })
})

test('audit redaction: secret-named keys at any depth, long values cut, ids and names kept', () => {
  expect(redact({ id: 3, token_id: 4, name: 'n', password: 'p', api_key: 'k', client_id: 'c', client_secret: 's', confirm_token: 't',
    nested: { postback_secret: 'x', ecom_a_webhook_key: 'y', list: [{ webhook_secret: 'z' }] }, html: 'h'.repeat(1500) })).toEqual({
    id: 3, token_id: 4, name: 'n', password: '[redacted]', api_key: '[redacted]', client_id: '[redacted]', client_secret: '[redacted]',
    confirm_token: '[redacted]', nested: { postback_secret: '[redacted]', ecom_a_webhook_key: '[redacted]', list: [{ webhook_secret: '[redacted]' }] },
    html: `${'h'.repeat(1000)}…[1500 chars]`,
  })
})
