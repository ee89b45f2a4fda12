// The settings feature: the admin API of settings. The store itself is ctx.settings (every feature reads it).
import type { AppContext, Feature } from '../context'
import { settingsRoutes } from './routes'
import { settingsVerbs } from './verbs'
import { settingsWarnings } from './warnings'
import { moneyFacts } from './money-facts'
import { storeDb } from '../db/store-db'
import { log } from '../lib/log'

export function settingsFeature(ctx: AppContext): Feature {
  const db = storeDb(ctx.database)
  const money = () => moneyFacts(db)
  const verbs = settingsVerbs({ settings: ctx.settings, events: ctx.events, config: ctx.config, money })
  return {
    name: 'settings',
    routes: settingsRoutes(ctx, verbs),
    verbs,
    // Said at every start until fixed, next to the start line.
    start: async () => { for (const w of settingsWarnings(ctx.settings, ctx.config, await money())) log.warn(w) },
  }
}
