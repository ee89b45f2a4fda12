// What the fuzzer needs from a fresh server: a session, a campaign with a few real clicks, and the list of
// admin routes (read from the OpenAPI document, so routes added later are fuzzed too).
import type { AdminRoute, FuzzTargets } from './generate'

export const FUZZ_SLUG = 'fuzz'

export async function seedTargets(base: URL, email: string, password: string): Promise<FuzzTargets> {
  const login = await fetch(`${base.origin}/admin/api/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }),
  })
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${await login.text()}`)
  const cookie = login.headers.getSetCookie().find((c) => c.startsWith('svc_admin_session='))!.split(';')[0]!
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base.origin}${path}`, {
      method, headers: { cookie, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
    })
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
    return res.json() as Promise<any>
  }
  const me = await api('GET', '/admin/api/me')
  const source = await api('POST', '/admin/api/sources', { name: 'Fuzz source' })
  const offer = await api('POST', '/admin/api/offers', { name: 'Fuzz offer', slug: 'fuzz-offer', url: 'https://offer.example/?c={click_id}&s={sub1}', payout: 2 })
  const landing = await api('POST', '/admin/api/landings', {
    name: 'Fuzz page', slug: 'fuzz-lp', html: '<h1>{click_id}</h1><a href="{offer_url}">{utm_source}</a><form data-svc-lead></form></body>',
  })
  // The landing is in the campaign, so /lp has a campaign for its clicks and /c goes through it.
  await api('POST', '/admin/api/campaigns', {
    name: 'Fuzz', slug: FUZZ_SLUG, source_id: source.id, offer_id: offer.id, cost_model: 'param', landings: [{ landing_id: landing.id, weight: 1 }],
  })
  const clickIds: string[] = []
  for (let i = 0; i < 20; i++) {
    const res = await fetch(`${base.origin}/c/${FUZZ_SLUG}?sub1=seed${i}`, { redirect: 'manual' })
    const id = /[?&](?:c|click_id)=([0-9a-f-]{36})/.exec(res.headers.get('location') ?? '')?.[1]
    if (id) clickIds.push(id)
  }
  if (clickIds.length === 0) throw new Error('seeding made no clicks')

  const doc = await api('GET', '/admin/api/openapi/json')
  const adminRoutes: AdminRoute[] = []
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    if (!path.startsWith('/admin/api')) continue
    for (const [method, op] of Object.entries(ops)) {
      const schema = op.requestBody?.content?.['application/json']?.schema
      adminRoutes.push({
        method: method.toUpperCase(),
        path,
        query: (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name),
        bodyFields: Object.keys(schema?.properties ?? {}),
      })
    }
  }
  // The document and its page are admin routes too, though the document leaves them out.
  adminRoutes.push({ method: 'GET', path: '/admin/api/openapi', query: [], bodyFields: [] }, { method: 'GET', path: '/admin/api/openapi/json', query: [], bodyFields: [] })
  // Every read scope: tools/call reaches every read verb; write tools are refused by scope.
  const scopes = (await api('GET', '/admin/api/tokens/scopes')).items.map((s: { scope: string }) => s.scope).filter((s: string) => s.endsWith(':read'))
  const agent = await api('POST', '/admin/api/tokens', { name: 'fuzz', scopes, rate_limits: { default: 100000, ai: 100000 } })
  const tools = await fetch(`${base.origin}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  })
  const toolNames = ((await tools.json()) as any).result.tools.map((t: { name: string }) => t.name)
  return { slug: FUZZ_SLUG, clickIds, cookie, adminRoutes, protectedUserIds: [me.id], agentToken: agent.token, toolNames }
}
