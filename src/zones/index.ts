// Blocked zones and saved views (issue 30, docs/zones.md): the dated list of zones (sub values) blocked at each
// traffic source, kept by svc because a source's own blacklist is a text box; and each user's named dashboard
// views. A source's zone list format (comma, newline…) is the templates feature's (GET …/sources/:id/zone-format).
import type { AppContext, Feature } from '../context'
import type { AnyDatabase } from '../db/engine'
import type { VerbSet } from '../lib/verb'
import { zoneRoutes } from './routes'
import { ZoneStore } from './store'
import { zoneVerbs } from './verbs'

export function zonesFeature(ctx: AppContext): Feature {
  const verbs = zoneVerbs(new ZoneStore(ctx.database as AnyDatabase))
  // The blocked-zone verbs are agent tools too; saved views are a dashboard user's and stay off the tool list.
  const set: VerbSet = {}
  for (const v of [verbs.list, verbs.get, verbs.add, verbs.delete, verbs.export]) set[v.name] = v as never
  return { name: 'zones', routes: zoneRoutes(ctx, verbs), verbs: set }
}
