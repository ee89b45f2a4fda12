// The templates feature (issue 29, docs/templates.md): a built-in, versioned registry of traffic-source and
// affiliate-network templates, each citing the public document it comes from, the operator's own templates
// (imported JSON), and sources and offers created from a template through the catalog's own verbs.
import type { TSchema } from '@sinclair/typebox'
import type { AppContext, Feature } from '../context'
import type { AnyDatabase } from '../db/engine'
import type { Verb, VerbSet } from '../lib/verb'
import { templateRoutes } from './routes'
import { TemplateStore } from './store'
import { templateVerbs } from './verbs'

export { REGISTRY_VERSION } from './model'

export function templatesFeature(ctx: AppContext, deps: { createSource: Verb<TSchema, unknown>; createOffer: Verb<TSchema, unknown> }): Feature {
  const store = new TemplateStore(ctx.database as AnyDatabase)
  const verbs = templateVerbs({ store, ...deps, publicUrl: ctx.config.publicUrl })
  const set: VerbSet = {}
  for (const v of [...Object.values(verbs.sources), ...Object.values(verbs.networks)]) set[v.name] = v as never
  return { name: 'templates', routes: templateRoutes(ctx, verbs), verbs: set }
}
