// The email feature (issue 9, first part): lists and subscribers, section email. Triggers, automations,
// the outbox and delivery, bounces and magic links build on its enroll() and the job loop's kinds.
import type { AppContext, Feature } from '../context'
import type { AnyDatabase } from '../db/engine'
import type { VerbSet } from '../lib/verb'
import { emailRoutes } from './routes'
import { emailStore } from './store'
import { emailVerbs } from './verbs'

export function emailFeature(ctx: AppContext): Feature {
  const store = emailStore(ctx.database as AnyDatabase)
  const verbs = emailVerbs({ store, events: ctx.events })
  const named: VerbSet = {}
  for (const v of [...Object.values(verbs.lists), ...Object.values(verbs.subscribers)]) named[v.name] = v as never
  return { name: 'email', routes: emailRoutes(ctx, verbs), verbs: named }
}
