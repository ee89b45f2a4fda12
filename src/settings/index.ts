// The settings feature: the admin API of settings. The store itself is ctx.settings (every feature reads it).
import type { AppContext, Feature } from '../context'
import { settingsRoutes } from './routes'
import { settingsVerbs } from './verbs'
import { settingsWarnings } from './warnings'
import { moneyFacts } from './money-facts'
import { storeDb } from '../db/store-db'
import { log } from '../lib/log'

// The registry other features read: every key with its rules (secrets: the MCP catalog masks them), and the
// shortest webhook secret accepted (commerce's payment accounts hold one too).
export { SETTINGS, WEBHOOK_SECRET_MIN } from './registry'

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
