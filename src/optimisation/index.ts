// Split tests and auto-weights (issue 29, docs/optimisation.md): the Bayesian split test of any rotation (a
// campaign's default one or a targeting path's, offers or landings), and the opt-in job that moves a rotation's
// weights toward its better entries. The auto weights live in the catalog's link tables (auto_weight) and reach
// routing through catalog.changed, like any catalog write.
import type { AppContext, Feature } from '../context'
import type { AnyDatabase } from '../db/engine'
import { AUTO_WEIGHTS_JOB, autoWeightsJob, type AutoWeightDeps } from './auto-weights'
import { optimisationRoutes } from './routes'
import { OptimisationStore } from './store'
import { optimisationVerbs } from './verbs'

export function optimisationFeature(ctx: AppContext): Feature {
  const deps: AutoWeightDeps = {
    store: new OptimisationStore(ctx.database as AnyDatabase),
    jobs: ctx.jobs,
    events: ctx.events,
    costCurrency: () => ctx.settings.get('cost_currency'),
  }
  // Several attempts: a chain whose job fails for good stops until the rotation's settings are saved again.
  ctx.jobs.register(AUTO_WEIGHTS_JOB, autoWeightsJob(deps), { section: 'campaigns', maxAttempts: 10, target: () => null })
  const verbs = optimisationVerbs(deps)
  return { name: 'optimisation', routes: optimisationRoutes(ctx, verbs), verbs }
}
