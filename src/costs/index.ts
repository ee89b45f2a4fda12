// Cost updates (issue 29, docs/costs.md): the real spend of a campaign's days, spread over their clicks by the
// click store (tracking), with a history table of its own. The cost models themselves (cpc, cpm, param) are
// the campaign's (catalog) and the click's (tracking).
import type { AppContext, Feature } from '../context'
import type { AnyDatabase } from '../db/engine'
import type { ClickCosts } from './deps'
import { costRoutes } from './routes'
import { CostUpdateStore } from './store'
import { costVerbs, renderCostUpdate } from './verbs'

export function costsFeature(ctx: AppContext, deps: { clicks: () => ClickCosts }): Feature {
  const store = new CostUpdateStore(ctx.database as AnyDatabase)
  const verbs = costVerbs({ store, clicks: deps.clicks, settings: ctx.settings })
  return { name: 'costs', routes: costRoutes(ctx, verbs), verbs: Object.fromEntries(Object.values(verbs).map((v) => [v.name, v])) }
}

export { renderCostUpdate }
