// The 42 agent scopes: `<resource>:read` and `<resource>:write` over 21 resources that together cover the
// whole admin API. Each verb and each /admin/api path belongs to exactly one resource (tables below, checked
// complete by test/agent/scopes.test.ts), so a token's scopes decide the same thing on /mcp and on REST.
import type { Action, Permissions, Section } from '../lib/permissions'

interface Resource {
  /** The admin section it belongs to (CONTRACT.md §2); null: none (jobs carry the section of their kind). */
  section: Section | null
  covers: string
  /** Verb names or dotted prefixes (the longest match wins). */
  verbs: string[]
  /** First path segment after /admin/api/, or a longer path prefix (the longest match wins). */
  paths: string[]
}

export const RESOURCES = {
  campaigns: {
    section: 'campaigns', covers: 'campaigns, their offer and landing rotations, targeting paths, rule sets, the targeting simulator, split tests, auto-weights and cost updates',
    verbs: ['catalog.campaigns.', 'catalog.rule_sets.', 'campaigns.simulate', 'campaigns.split_test', 'campaigns.auto_weights.', 'campaigns.weight_changes.', 'cost-updates.'], paths: ['campaigns', 'rule-sets', 'cost-updates'],
  },
  sources: {
    section: 'campaigns', covers: 'traffic sources and their postback templates, the traffic-source template registry, blocked zones',
    verbs: ['catalog.sources.', 'templates.source-templates.', 'blocked-zones.'], paths: ['sources', 'source-templates', 'blocked-zones'],
  },
  offers: {
    section: 'campaigns', covers: 'offers (url templates, payouts, caps), the caps status, the affiliate-network template registry',
    verbs: ['catalog.offers.', 'caps.', 'templates.network-templates.'], paths: ['offers', 'caps', 'network-templates'],
  },
  landings: { section: 'landings', covers: 'landings, their static assets and previews', verbs: ['catalog.landings.', 'landings.assets.'], paths: ['landings'] },
  leads: { section: 'landings', covers: 'leads captured by landing forms, visitor events (page views, custom events)', verbs: ['landings.leads.', 'landings.events.list'], paths: ['leads', 'events'] },
  clicks: { section: 'conversions', covers: 'single clicks by click_id and the click export (CSV)', verbs: ['clicks.'], paths: ['clicks'] },
  conversions: { section: 'conversions', covers: 'conversions (list, get, record) and postback errors', verbs: ['conversions.', 'postback-errors.'], paths: ['conversions', 'postback-errors'] },
  conversion_types: { section: 'conversions', covers: 'conversion types, the status map and postback parameter aliases', verbs: ['conversion-types.', 'status-map.', 'postback-aliases.'], paths: ['conversion-types', 'status-map', 'postback-aliases'] },
  jobs: { section: null, covers: 'the outbound job queue of every kind (forwarded postbacks, mail): list, retry, cancel', verbs: ['jobs.'], paths: ['jobs'] },
  reports: { section: 'reports', covers: 'reports, the conversions export and visitor event counts (saved views: a dashboard user\'s own)', verbs: ['reports.', 'landings.events.counts'], paths: ['reports', 'events/counts', 'saved-views'] },
  email_lists: { section: 'email', covers: 'email lists and their subscribers (add, import, export, remove, restart automations)', verbs: ['email.lists.', 'email.subscribers.', 'email.purchases.'], paths: ['email-lists'] },
  email_triggers: { section: 'email', covers: 'email triggers (a conversion of an offer enrols the buyer)', verbs: ['email.triggers.'], paths: ['email-triggers'] },
  email_automations: { section: 'email', covers: 'email automations (timed message sequences)', verbs: ['email.automations.'], paths: ['automations'] },
  email_sends: { section: 'email', covers: 'broadcasts, the outbox and mail-provider events', verbs: ['email.broadcasts.', 'email.outbox.', 'email.mail-events.'], paths: ['outbox', 'mail-events', 'email-lists/*/broadcasts'] },
  payment_accounts: { section: 'commerce', covers: 'payment processor accounts and their secrets', verbs: ['commerce.payment-accounts.'], paths: ['payment-accounts'] },
  products: { section: 'commerce', covers: 'native-commerce products', verbs: ['commerce.products.'], paths: ['products'] },
  orders: { section: 'commerce', covers: 'orders, refunds and subscriptions', verbs: ['commerce.orders.', 'commerce.refunds.', 'commerce.subscriptions.'], paths: ['orders', 'refunds', 'subscriptions'] },
  webhook_events: { section: 'commerce', covers: 'stored incoming webhook deliveries', verbs: ['commerce.webhook-events.'], paths: ['webhook-events'] },
  settings: { section: 'settings', covers: 'settings (secrets masked on read)', verbs: ['settings.'], paths: ['settings'] },
  users: { section: 'users', covers: 'admin users and their permissions', verbs: ['users.'], paths: ['users'] },
  tokens: { section: 'users', covers: 'agent tokens and the audit log', verbs: ['tokens.', 'audit.'], paths: ['tokens', 'audit'] },
} as const satisfies Record<string, Resource>

export type ResourceName = keyof typeof RESOURCES
export type Scope = `${ResourceName}:${Action}`
export const RESOURCE_NAMES = Object.keys(RESOURCES) as ResourceName[]
export const SCOPES: Scope[] = RESOURCE_NAMES.flatMap((r) => [`${r}:read`, `${r}:write`] as Scope[])
const SCOPE_SET: ReadonlySet<string> = new Set(SCOPES)

export const isScope = (s: string): s is Scope => SCOPE_SET.has(s)

/** The resource whose prefix matches `key` longest (exact names and dotted or slashed prefixes). */
function longest(key: string, field: 'verbs' | 'paths'): ResourceName | null {
  let best: ResourceName | null = null
  let bestLength = -1
  for (const name of RESOURCE_NAMES) {
    for (const p of RESOURCES[name][field] as readonly string[]) {
      const matches = field === 'verbs' ? key === p || (p.endsWith('.') && key.startsWith(p)) : pathMatches(key, p)
      if (matches && p.length > bestLength) { best = name; bestLength = p.length }
    }
  }
  return best
}

/** "email-lists/*\/broadcasts" matches "email-lists/7/broadcasts"; "leads" matches "leads" and "leads/…". */
function pathMatches(path: string, pattern: string): boolean {
  const want = pattern.split('/')
  const got = path.split('/')
  if (got.length < want.length) return false
  return want.every((w, i) => w === '*' || w === got[i])
}

/** The scope a verb needs: its resource, and the action its permission names (null-permission verbs: by name). */
export function scopeOfVerb(verb: { name: string; permission: string | null }): Scope | null {
  const resource = longest(verb.name, 'verbs')
  if (!resource) return null
  const action: Action = verb.permission
    ? (verb.permission.split(':')[1] as Action)
    : /\.(list|get)$/.test(verb.name) ? 'read' : 'write'
  return `${resource}:${action}`
}

/** The resource of an /admin/api path (`/admin/api/email-lists/3/broadcasts` → email_sends); null: none. */
export function resourceOfPath(pathname: string): ResourceName | null {
  const rest = pathname.replace(/^\/admin\/api\/?/, '').replace(/\/+$/, '')
  return rest ? longest(rest, 'paths') : null
}

/**
 * Whether `scopes` hold `action` on every resource of `section`: what a token must hold to grant that section
 * (a section permission reaches all of its resources). jobs belong to no section.
 */
export function holdsSection(scopes: ReadonlySet<string>, section: Section, action: Action): boolean {
  return RESOURCE_NAMES.every((name) => RESOURCES[name].section !== section || scopes.has(`${name}:${action}`))
}

/**
 * The section permissions a set of scopes implies: a section's action when the token holds it on any of the
 * section's resources. Only for checks that are section-wide by nature (the OpenAPI page, `/me`); every
 * verb and path is checked against its own resource's scope.
 */
export function sectionsOf(scopes: ReadonlySet<string>): Permissions {
  const out: Permissions = {}
  for (const name of RESOURCE_NAMES) {
    const section = RESOURCES[name].section
    if (!section) continue
    for (const action of ['read', 'write'] as const) {
      if (scopes.has(`${name}:${action}`)) out[section] = { ...out[section], [action]: true }
    }
  }
  for (const s of Object.values(out)) { s.read ??= false; s.write ??= false }
  return out
}

/** Scopes as written by a person: "all", or a comma/space separated list; unknown ones are reported. */
export function parseScopes(input: readonly string[]): { scopes: Scope[] } | { error: string } {
  const wanted = new Set<Scope>()
  for (const raw of input.flatMap((s) => s.split(/[\s,]+/)).filter(Boolean)) {
    if (raw === 'all' || raw === '*') { for (const s of SCOPES) wanted.add(s); continue }
    if (raw.endsWith(':*') && (RESOURCE_NAMES as string[]).includes(raw.slice(0, -2))) {
      wanted.add(`${raw.slice(0, -2)}:read` as Scope); wanted.add(`${raw.slice(0, -2)}:write` as Scope); continue
    }
    if (!isScope(raw)) return { error: `scopes: unknown scope "${raw}" (see GET /admin/api/tokens/scopes)` }
    wanted.add(raw)
  }
  if (wanted.size === 0) return { error: 'scopes: at least one scope is required' }
  return { scopes: SCOPES.filter((s) => wanted.has(s)) }
}
