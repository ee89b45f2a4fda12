// Hostile requests, generated from a seeded Rng: random bytes in paths and queries, huge and duplicated
// parameters, broken percent-encoding, wrong methods, odd content types and headers, deep and huge JSON,
// and clients that stop half-way. Shared by `npm run fuzz` (scripts/fuzz.ts) and the CI smoke test
// (test/core/fuzz-smoke.test.ts).
import type { Rng } from './prng'

export interface FuzzRequest {
  /** The route family it counts under in the report: /c, /r, /postback, /healthz, admin. */
  route: string
  method: string
  /** Request target as sent; each char is one byte (latin1), so it may hold bytes no URL parser allows. */
  target: string
  headers: Array<[string, string]>
  body?: Uint8Array | string
  /**
   * A control byte or space (0x00–0x20) inside the request target, or a method with a byte outside the
   * token characters: not an HTTP/1.1 request line. Bun's HTTP parser answers these itself with 505
   * before any JavaScript runs (a bare Bun.serve does the same).
   */
  brokenRequestLine?: boolean
  /** Send only part of the request, pause, then close: a slow or broken client. */
  stallAfterBytes?: number
}

/** What the generator knows of the server under test. */
export interface FuzzTargets {
  slug: string
  /** click_ids the server handed out (valid and known). */
  clickIds: string[]
  /** Session cookie (`name=value`) of an admin with every permission; admin requests carry it. */
  cookie: string
  /** Admin routes as `METHOD /path/{param}` (from the OpenAPI document), with their documented query and body fields. */
  adminRoutes: AdminRoute[]
  /** Ids that must not be PATCHed or DELETEd through users/{id} (the fuzzing admin's own account). */
  protectedUserIds: number[]
  /** An agent token with every read scope (for /mcp; the admin fuzzer may revoke it, then /mcp is 401s). */
  agentToken: string
  /** MCP tool names, for tools/call. */
  toolNames: string[]
}

export interface AdminRoute {
  method: string
  path: string
  query: string[]
  bodyFields: string[]
}

/** encodeURIComponent, except that a lone surrogate becomes the (invalid) UTF-8 bytes of one instead of an exception. */
function enc(s: string): string {
  try {
    return encodeURIComponent(s)
  } catch {
    return encodeURIComponent(s.toWellFormed()).replace(/%EF%BF%BD/g, '%ED%A0%80')
  }
}

const BROKEN_ESCAPES = ['%', '%z', '%5', '%zz', '%%', '%00', '%ff', '%FF%FE', '%C0%AF', '%ED%A0%80', '%E0%A4', '%F4%90%80%80', '%0d%0a', '%u0041', '%2e%2e%2f', '%252e']
const ODD_STRINGS = [
  '', ' ', '+', '++', '0', '-1', '1e309', 'NaN', 'Infinity', '-0', '0x10', '1,5', '12,50', '$5', '5 USD', ' 5 ', '9'.repeat(40),
  'null', 'undefined', 'true', '[]', '{}', '__proto__', 'constructor', 'toString', '{click_id}', '{sub1}', '../../etc/passwd',
  '<script>alert(1)</script>', "' OR 1=1 --", '"; DROP TABLE clicks; --', '=cmd|/C calc!A0', '＝1+1', '\u202e', '😀', '\ud800', 'a\u0000b',
  'http://evil.example/', '//evil.example', 'javascript:alert(1)', '2026-02-30', '2026-13-01T25:61:61Z', '99999999999999', '1700000000',
]
const METHODS = ['GET', 'GET', 'GET', 'GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE']
const RAW_METHODS = ['CONNECT', 'get', 'FOO', 'G\u00e9T', 'PROPFIND', '', 'GET GET']
const CONTENT_TYPES = [
  'application/json', 'application/json; charset=utf-16', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data',
  'multipart/form-data; boundary=', 'application/xml', 'application/octet-stream', 'image/png', 'application/json; charset=x"y',
  'application/JSON', ' application/json ', 'json', '*/*', '', 'a'.repeat(4000),
]
const SUBID_NAMES = ['subid', 'sub_id', 'click_id', 'clickid', 'trackID', 'aff_sub', 'cid', 'sub1', 'SubID', 'trackingCodes']
const POSTBACK_NAMES = ['status', 'type', 'payout', 'revenue', 'amount', 'value', 'tid', 'txid', 'transaction_id', 'date', 'time', 'sig', 'email', 'currency']

/** A value for a query parameter: usually odd, sometimes huge, sometimes raw bytes. */
function value(rng: Rng, known: string[] = []): { text: string; raw: boolean } {
  const r = rng.int(100)
  if (r < 15 && known.length) return { text: enc(rng.pick(known)), raw: false }
  if (r < 45) return { text: enc(rng.pick(ODD_STRINGS)), raw: false }
  if (r < 60) return { text: rng.pick(BROKEN_ESCAPES) + rng.pick(BROKEN_ESCAPES), raw: false }
  if (r < 70) return { text: 'x'.repeat(rng.pick([257, 1025, 4096, 9000])), raw: false }
  if (r < 80) return { text: latin1(rng.bytes(1 + rng.int(40))), raw: true }
  if (r < 90) return { text: String(rng.int(1e9) - 5e8), raw: false }
  return { text: enc(String.fromCharCode(...Array.from({ length: 1 + rng.int(20) }, () => rng.int(0xffff)))), raw: false }
}

/**
 * Bytes as a latin1 string for a request target: any byte but the controls and space (0x00–0x20), which
 * end a target; those are sent on purpose, rarely, as broken request lines.
 */
const latin1 = (b: Uint8Array) => String.fromCharCode(...b.map((x) => (x <= 0x20 ? x + 0x41 : x)))

/** A query string built from `names`: duplicated, huge, broken or random. */
function query(rng: Rng, names: string[], known: string[] = []): { text: string; raw: boolean } {
  let raw = false
  const parts: string[] = []
  const style = rng.int(10)
  if (style === 0) return { text: '', raw }
  if (style === 1) {
    // Very many parameters, some repeated.
    const n = rng.pick([60, 300, 2000])
    for (let i = 0; i < n; i++) parts.push(`${rng.chance(0.5) ? rng.pick(names) : `p${rng.int(500)}`}=${rng.int(1000)}`)
    return { text: parts.join('&'), raw }
  }
  if (style === 2) {
    const b = rng.bytes(1 + rng.int(300))
    return { text: latin1(b), raw: true }
  }
  if (style === 3) return { text: rng.pick(['&&&', '=', '==&=', '&=x&', '?', '??a=1', 'a=1#frag', '#', 'a[]=1&a[x]=2', '__proto__[x]=1&constructor[prototype][y]=2']), raw }
  const n = 1 + rng.int(6)
  for (let i = 0; i < n; i++) {
    const name = rng.chance(0.85) ? rng.pick(names) : rng.pick([...BROKEN_ESCAPES, 'utm_source', '__proto__', 'x'.repeat(300)])
    const v = value(rng, known)
    raw ||= v.raw
    parts.push(rng.chance(0.1) ? name : `${name}=${v.text}`)
    if (rng.chance(0.2)) parts.push(`${name}=${value(rng, known).text}`) // duplicated
  }
  return { text: parts.join('&'), raw }
}

/** JSON bodies: valid-looking objects of the documented fields with wrong types, deep nesting, huge documents. */
export function jsonBody(rng: Rng, fields: string[]): string {
  const r = rng.int(10)
  if (r === 0) {
    const depth = rng.pick([100, 5000, 100000])
    return rng.chance(0.5) ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
  }
  if (r === 1) {
    // About 1 or 3 MB (the server's body limit is a little over 2 MB).
    const size = rng.pick([1, 3]) * 1024 * 1024
    return JSON.stringify({ [fields[0] ?? 'name']: 'x'.repeat(size) })
  }
  if (r === 2) return rng.pick(['', '{', '}', 'null', '[]', '"s"', '1', 'true', '{"a":1,}', "{'a':1}", '\ufeff{}', '{"a":NaN}', '{"__proto__":{"x":1}}', '\u0000'])
  const obj: Record<string, unknown> = {}
  for (const f of fields) if (rng.chance(0.7)) obj[f] = jsonValue(rng, 3)
  if (rng.chance(0.3)) obj[rng.pick(['__proto__', 'constructor', 'extra', 'x'.repeat(100)])] = jsonValue(rng, 2)
  return JSON.stringify(obj)
}

function jsonValue(rng: Rng, depth: number): unknown {
  switch (rng.int(depth > 0 ? 9 : 6)) {
    case 0: return null
    case 1: return rng.pick([0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, 1e-320, 42])
    case 2: return rng.pick(ODD_STRINGS)
    case 3: return rng.chance(0.5)
    case 4: return 'y'.repeat(rng.pick([0, 65, 257, 5000, 70000]))
    case 5: return rng.pick(['https://offer.example/?c={click_id}', 'http://[::1]/', 'ftp://x', 'https://exa mple.com', 'fuzz', 'sale', 'approved'])
    case 6: return Array.from({ length: rng.int(5) }, () => jsonValue(rng, depth - 1))
    case 7: return { offer_id: jsonValue(rng, 0), weight: jsonValue(rng, 0), landing_id: jsonValue(rng, 0) }
    default: return Object.fromEntries(Array.from({ length: rng.int(4) }, (_, i) => [`k${i}`, jsonValue(rng, depth - 1)]))
  }
}

/** Odd headers every request may carry: proxies' forwarding headers, cookies, agents, encodings. */
function headers(rng: Rng, base: Array<[string, string]> = []): { list: Array<[string, string]>; raw: boolean } {
  const list = [...base]
  let raw = false
  // A fresh client address most of the time, so per-IP limits do not turn the whole run into 429s.
  if (rng.chance(0.9)) list.push(['x-forwarded-for', rng.chance(0.8) ? `10.${rng.int(256)}.${rng.int(256)}.${rng.int(256)}` : rng.pick(['', 'garbage', '1.2.3.4, 5.6.7.8', '::1', '[::1]:80', '999.1.1.1', '2001:db8::1%eth0', 'unknown', 'x'.repeat(5000)])])
  if (rng.chance(0.2)) list.push(['user-agent', rng.pick(['', 'Googlebot/2.1', 'curl/8', 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)', 'U'.repeat(9000)])])
  if (rng.chance(0.15)) list.push(['referer', rng.pick(['', 'not a url', 'https://ref.example/a?b=c', 'http://' + 'r'.repeat(3000) + '.example/'])])
  if (rng.chance(0.15)) list.push(['cookie', rng.pick(['_svc_click=not-a-uuid', '_svc_click=', '_svc_click=%ff%00', 'a=b; ; ;=;_svc_click=1', 'c='.repeat(2000), 'svc_admin_session=forged.value'])])
  if (rng.chance(0.1)) list.push(['accept-encoding', rng.pick(['gzip', 'br, gzip;q=0', '*', 'x'.repeat(300)])])
  if (rng.chance(0.05)) list.push(['x-huge', 'h'.repeat(rng.pick([8000, 70000]))])
  if (rng.chance(0.04)) {
    list.push([rng.pick(['bad header', 'x:y', 'ünïcode', '']), 'v'])
    raw = true
  }
  if (rng.chance(0.03)) {
    list.push(['x-ctl', 'a\u0000b\u0007c'])
    raw = true
  }
  return { list, raw }
}

/** How a request is finished: a body (optionally with a content type), or a stalled or lying client. */
function finish(rng: Rng, req: FuzzRequest, bodyFields: string[]): FuzzRequest {
  if (req.method !== 'GET' && req.method !== 'HEAD' && rng.chance(0.6)) {
    req.body = rng.chance(0.8) ? jsonBody(rng, bodyFields) : latinBody(rng)
    if (rng.chance(0.85)) req.headers.push(['content-type', rng.pick(CONTENT_TYPES)])
  }
  const r = rng.int(100)
  if (r < 3) req.stallAfterBytes = rng.int(Math.max(1, 40 + (req.target.length >> 1)))
  else if (r < 5) req.headers.push(['content-length', String(rng.pick([-1, 0, 5, 1e12, 99999999999999999999]))])
  else if (r < 7) req.headers.push(['transfer-encoding', rng.pick(['chunked', 'gzip', 'chunked, chunked', 'identity'])])
  return req
}

const latinBody = (rng: Rng) => latin1(rng.bytes(rng.pick([1, 100, 5000])))

const MCP_METHODS = ['initialize', 'ping', 'tools/list', 'tools/call', 'tools/call', 'tools/call', 'resources/list', 'resources/read',
  'resources/templates/list', 'notifications/initialized', 'prompts/list', 'nope', '', 'tools/call/']
const MCP_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '1999-01-01', '', 'x'.repeat(300)]

/** /mcp: JSON-RPC with hostile ids, methods, params and tool arguments; tokens valid, forged or missing. */
function mcpRequest(rng: Rng, t: FuzzTargets): FuzzRequest {
  const method = rng.chance(0.9) ? 'POST' : rng.pick(['GET', 'DELETE', 'PUT', 'OPTIONS', 'HEAD'])
  const h = headers(rng)
  const auth = rng.int(10)
  if (auth < 7) h.list.push(['authorization', `Bearer ${t.agentToken}`])
  else if (auth < 9) h.list.push(['authorization', rng.pick(['Bearer svc_ap_' + 'A'.repeat(43), 'Bearer ', 'Basic eDp5', 'Bearer ' + 'x'.repeat(5000), `bearer ${t.agentToken}`])])
  if (rng.chance(0.85)) h.list.push(['accept', rng.pick(['application/json, text/event-stream', 'application/json', 'text/event-stream', '*/*'])])
  if (rng.chance(0.85)) h.list.push(['content-type', rng.pick(['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded'])])
  if (rng.chance(0.5)) h.list.push(['mcp-protocol-version', rng.pick(MCP_VERSIONS)])
  if (rng.chance(0.1)) h.list.push(['origin', rng.pick(['https://evil.example', 'null', 'http://127.0.0.1'])])
  const rpc = rng.pick(MCP_METHODS)
  const id = rng.pick<unknown>([1, 'a', null, -1, 1e308, {}, [], 'x'.repeat(1000)])
  let params: unknown
  if (rpc === 'tools/call') {
    const args: Record<string, unknown> = {}
    for (const f of ['id', 'slug', 'name', 'click_id', 'group_by', 'from', 'to', 'limit', 'cursor', 'confirm_token', 'email', 'uri']) if (rng.chance(0.4)) args[f] = jsonValue(rng, 2)
    params = { name: rng.chance(0.8) && t.toolNames.length ? rng.pick(t.toolNames) : value(rng).text, arguments: rng.chance(0.9) ? args : jsonValue(rng, 2) }
  } else if (rpc === 'initialize') {
    params = { protocolVersion: rng.pick(MCP_VERSIONS), capabilities: rng.chance(0.8) ? {} : jsonValue(rng, 2), clientInfo: { name: 'fuzz', version: '1' } }
  } else if (rpc === 'resources/read') {
    params = { uri: rng.pick(['svc://scopes', 'svc://token', 'svc://campaigns/1', 'svc://campaigns/99999999999999999', 'svc://reports/campaign', 'svc://reports/nope', 'file:///etc/passwd', value(rng).text]) }
  } else params = rng.chance(0.7) ? {} : jsonValue(rng, 2)
  const envelope: Record<string, unknown> = { jsonrpc: rng.chance(0.95) ? '2.0' : '1.0', method: rpc, params }
  if (!rpc.startsWith('notifications/') || rng.chance(0.2)) envelope.id = id
  const req: FuzzRequest = { route: '/mcp', method, target: '/mcp', headers: h.list }
  if (method !== 'GET' && method !== 'HEAD') req.body = rng.chance(0.85) ? JSON.stringify(envelope) : jsonBody(rng, ['jsonrpc', 'method', 'params', 'id'])
  return req
}

/** One hostile request to a public route (PUBLIC_ROUTES in run.ts). */
export function publicRequest(rng: Rng, route: string, t: FuzzTargets): FuzzRequest {
  const methodRaw = rng.chance(0.04)
  let method = methodRaw ? rng.pick(RAW_METHODS) : rng.chance(0.8) ? 'GET' : rng.pick(METHODS)
  let raw = methodRaw
  let path: string
  let names: string[]
  if (route === '/c' || route === '/r') {
    const segment = rng.int(10) < 6 ? t.slug : rng.chance(0.5) ? value(rng).text : rng.pick(['', '.', '..', '%2f', 'a/b', t.slug + '%00', t.slug.toUpperCase(), 'x'.repeat(3000)])
    raw ||= /[^\x21-\x7e]/.test(segment)
    path = `${route}/${segment}${rng.chance(0.1) ? '/' : ''}`
    names = ['sub1', 'sub2', 'sub3', 'sub10', 'sub11', 'click_id', 'cost', 'utm_source', 'utm_campaign', 'gclid', 'fbclid']
  } else if (route === '/postback') {
    path = rng.chance(0.95) ? '/postback' : rng.pick(['/postback/', '/Postback', '/postback%00', '//postback', '/postback;x'])
    names = [...SUBID_NAMES, ...POSTBACK_NAMES]
  } else if (route === '/webhook/mail') {
    const provider = rng.pick(['generic', 'ses', 'postmark', 'mailgun', 'sendgrid', 'nope', '', 'GENERIC'])
    path = `/webhook/mail/${provider}`
    method = methodRaw ? method : rng.chance(0.85) ? 'POST' : method
    names = ['token', 'x']
  } else if (route === '/api/account') {
    const sub = rng.pick(['magic-link', 'magic-link', 'verify', 'me', 'orders', 'subscriptions', 'logout', 'me/../me', ''])
    path = `/api/account/${sub}`
    if (sub === 'magic-link' || sub === 'logout') method = methodRaw ? method : rng.chance(0.8) ? 'POST' : method
    names = sub === 'verify' ? ['token', 'redirect'] : ['email', 'redirect', 'x']
  } else if (route === '/email/unsubscribe') {
    // Tokens shaped like real ones (v1.<id>.<list>.<22 chars>) but not signed, and anything else.
    const token = rng.chance(0.5)
      ? `v1.${rng.int(1e6)}.${rng.int(1e3)}.${latin1(rng.bytes(22)).replace(/[^A-Za-z0-9_-]/g, 'A')}`
      : rng.chance(0.5) ? value(rng).text : rng.pick(['', '.', 'v1', 'v1....', '%00', 'x'.repeat(3000), 'v1.1.1.' + 'A'.repeat(22) + '/x'])
    raw ||= /[^\x21-\x7e]/.test(token)
    path = `/email/unsubscribe/${token}`
    method = methodRaw ? method : rng.chance(0.5) ? 'POST' : method
    names = ['List-Unsubscribe', 'x']
  } else if (route === '/lp') {
    const slug = rng.int(10) < 6 ? 'fuzz-lp' : rng.chance(0.5) ? value(rng).text : rng.pick(['', '.', '..', '%2f', 'fuzz-lp%00', 'FUZZ-LP', 'x'.repeat(3000)])
    const deep = rng.chance(0.3) ? `/${rng.pick(['', 'img/a.png', '../x', '%2e%2e/x', 'a//b.css', value(rng).text, 'x'.repeat(500)])}` : ''
    raw ||= /[^\x21-\x7e]/.test(slug + deep)
    path = `/lp/${slug}${deep}`
    names = ['click_id', 'campaign', 'utm_source', 'q', 'sub1']
  } else if (route === '/api/lead' || route === '/api/cloak') {
    path = route
    method = methodRaw ? method : rng.chance(0.85) ? 'POST' : method
    names = route === '/api/lead' ? ['email', 'name', 'landing_id', 'click_id', '_svc_t', '_svc_hp', 'company'] : ['click_id', 'signals']
  } else if (route === '/webhook/ecom') {
    path = `/webhook/${rng.pick(['ecom-a', 'ecom-b', 'ecom-a', 'ecom-b', 'ecom-c', 'ecom-a/', 'ECOM-A'])}`
    method = methodRaw ? method : rng.chance(0.9) ? 'POST' : method
    names = ['key', 'id', 'total_price', 'note_attributes', 'landing_site', 'tags', 'customer_note', 'meta_data', 'status']
  } else if (route === '/webhook/pay') {
    const account = rng.pick(['acct_abcdefghijklmnopqrst', 'native-pending', '', '%00', value(rng).text.replace(/[/?#]/g, ''), 'x'.repeat(300)])
    path = rng.pick(['/webhook/pay-a-ecom', `/webhook/pay-a/${account}`, `/webhook/pay-b/${account}`])
    raw ||= /[^\x21-\x7e]/.test(path)
    method = methodRaw ? method : rng.chance(0.9) ? 'POST' : method
    names = ['id', 'type', 'data', 'event_type', 'resource']
  } else if (route === '/api/checkout') {
    path = '/api/checkout'
    method = methodRaw ? method : rng.chance(0.85) ? 'POST' : method
    names = ['product_id', 'email', 'click_id']
  } else if (route === '/api/events') {
    path = '/api/events'
    method = methodRaw ? method : rng.chance(0.5) ? 'POST' : method
    names = ['name', 'click_id', 'landing_id', 'url', 'props']
  } else if (route === '/mcp') {
    return mcpRequest(rng, t)
  } else {
    path = rng.chance(0.9) ? '/healthz' : rng.pick(['/healthz/', '/HEALTHZ', '/healthz%2f', '/healthz/../healthz', '/./healthz'])
    names = ['x', 'verbose', 'probe']
  }
  const q = query(rng, names, route === '/healthz' ? [] : t.clickIds)
  raw ||= q.raw
  const h = headers(rng)
  raw ||= h.raw
  let target = q.text === '' && rng.chance(0.5) ? path : `${path}?${q.text}`
  const broken = rng.chance(0.01)
  if (broken) target += rng.pick([' x', ' HTTP/1.1 x', '\rx', ' ', '\t', '\u0000', '\u001f', '\u0008a'])
  const bodyFields = ['/api/lead', '/api/events', '/api/cloak', '/webhook/ecom', '/webhook/pay', '/api/checkout'].includes(route) ? names : ['payout', 'subid']
  if (route === '/webhook/pay' && rng.chance(0.6)) {
    h.list.push([rng.pick(['paya-signature', 'stripe-signature', 'paypal-transmission-sig']), rng.pick(['', 't=1,v1=' + '0'.repeat(64), 't=abc', value(rng).text.replace(/[\r\n]/g, '')])])
  }
  if (route === '/webhook/ecom' && rng.chance(0.5)) {
    // Signature and topic headers, forged (the secrets are not set): the 401 path and the header parsing.
    h.list.push([rng.pick(['x-shopify-hmac-sha256', 'x-ecoma-hmac-sha256', 'x-wc-webhook-signature', 'x-ecomb-webhook-signature']), rng.pick(['', 'AAAA', value(rng).text.replace(/[\r\n]/g, '')])])
    h.list.push([rng.pick(['x-shopify-topic', 'x-wc-webhook-topic']), rng.pick(['orders/create', 'orders/cancelled', 'order.updated', 'x'])])
  }
  return finish(rng, { route, method, target, headers: h.list, ...(broken || !isToken(method) ? { brokenRequestLine: true } : {}) }, bodyFields)
}

/** One hostile request to the admin API, with the admin's valid session cookie (most of the time). */
export function adminRequest(rng: Rng, t: FuzzTargets): FuzzRequest {
  const route = rng.pick(t.adminRoutes)
  let method = rng.chance(0.85) ? route.method : rng.pick([...METHODS, ...(rng.chance(0.2) ? RAW_METHODS : [])])
  let path = route.path.replace(/\{(\w+)\}/g, () => {
    const r = rng.int(10)
    if (r < 4) return String(1 + rng.int(5))
    if (r < 8) return value(rng).text
    return rng.pick(['0', '-1', '1.0', '01', '1e3', '99999999999999999999', '%20', '', 'null', 'sale', 'lead'])
  })
  // Never lock the fuzzer out: its own account is not changed, its session not ended.
  const own = /^\/admin\/api\/users\/([^/?]*)$/.exec(path)
  if (own && /^\d{1,15}$/.test(own[1]!) && t.protectedUserIds.includes(Number(own[1])) && method !== 'GET') path = '/admin/api/users/999999'
  if (path === '/admin/api/logout') path = '/admin/api/me'
  if (path === '/admin/api/login' && rng.chance(0.9)) method = 'GET' // keep most of the 5-per-15-minutes login budget
  const q = rng.chance(0.6) ? query(rng, route.query.length ? route.query : ['limit', 'cursor']) : { text: '', raw: false }
  const base: Array<[string, string]> = rng.chance(0.95) ? [['cookie', t.cookie]] : []
  const h = headers(rng, base)
  const req: FuzzRequest = {
    route: 'admin',
    method,
    target: q.text ? `${path}?${q.text}` : path,
    headers: h.list,
    ...(isToken(method) ? {} : { brokenRequestLine: true }),
  }
  if (method !== 'GET' && method !== 'HEAD' && rng.chance(0.9)) {
    req.body = jsonBody(rng, route.bodyFields)
    req.headers.push(['content-type', rng.chance(0.8) ? 'application/json' : rng.pick(CONTENT_TYPES)])
  }
  const r = rng.int(100)
  if (r < 2) req.stallAfterBytes = rng.int(60)
  else if (r < 4) req.headers.push(['content-length', String(rng.pick([0, 3, 1e12]))])
  return req
}

const isToken = (s: string) => /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(s)

/** Whether the request can go through fetch() unchanged; anything else is written to a raw socket. */
export function fetchable(req: FuzzRequest): boolean {
  if (req.stallAfterBytes !== undefined) return false
  if (!/^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)$/.test(req.method)) return false
  if (/[^\x21-\x7e]/.test(req.target) || req.target.includes('#')) return false
  for (const [k, v] of req.headers) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(k) || /[\x00-\x08\x0a-\x1f\x7f-\xff]/.test(v)) return false
    if (k === 'content-length' || k === 'transfer-encoding') return false
  }
  if ((req.method === 'GET' || req.method === 'HEAD') && req.body !== undefined) return false
  return true
}
