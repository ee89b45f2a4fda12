// The agent API feature (issue 12): `svc_ap_` tokens with 42 scopes, /mcp (every verb as an MCP tool, two
// rate buckets, Tier-2 confirmation, an audit row per call) and the admin collections tokens and audit.
// Bearer tokens also open /admin/api (http/admin-guard.ts, through ctx.agents).
import { Elysia } from 'elysia'
import type { AppContext, Feature } from '../context'
import { errorFields, log } from '../lib/log'
import type { Verb, VerbSet } from '../lib/verb'
import { Retention } from '../lib/retention'
import { toolCatalog, type Tool } from './mcp/catalog'
import { AgentCalls } from './mcp/calls'
import { Confirmations } from './mcp/confirm'
import { mcpRoutes, tokenRoutes } from './routes'
import { agentVerbs } from './verbs'

/** Used confirmations are kept a day: a repeat within it replays the first result. */
const CONFIRMATION_KEEP_MS = 86_400_000

export function agentFeature(ctx: AppContext, deps: { verbs: () => ReadonlyMap<string, Verb> }): Feature {
  const store = ctx.agents.store
  const verbs = agentVerbs(store, (id) => ctx.users.findById(id))
  const audit = ctx.agents.audit
  let tools: ReadonlyMap<string, Tool> | null = null
  // Built on first use: every feature's verbs are known by then (this feature's own included).
  const catalog = () => (tools ??= toolCatalog(deps.verbs()))
  const calls = new AgentCalls({ store, verbs: deps.verbs, buckets: ctx.agents.buckets, audit, confirmations: new Confirmations(ctx.config.secret) })
  const retention = new Retention({
    prune: async (cutoff, limit) => {
      await store.pruneConfirmations(Date.now() - CONFIRMATION_KEEP_MS)
      return store.pruneAudit(cutoff, limit)
    },
  }, {
    days: () => ctx.settings.get('audit_retention_days'),
    onError: (err) => log.error('agent: audit retention failed', errorFields(err)),
  })
  const named: VerbSet = {}
  for (const v of [...Object.values(verbs.tokens), ...Object.values(verbs.audit)]) named[v.name] = v as never
  return {
    name: 'agent',
    routes: new Elysia({ name: 'agent-feature' })
      .use(tokenRoutes(ctx, verbs))
      .use(mcpRoutes(ctx, { tools: catalog, verbs: deps.verbs, calls, audit, buckets: ctx.agents.buckets })),
    verbs: named,
    start: () => { catalog(); retention.start() },
    stop: async () => {
      await retention.stop()
      await audit.drain()
    },
  }
}
