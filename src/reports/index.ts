// Reports feature: GET /admin/api/reports (rollups for campaign/source/offer/landing/day/hour, targeting rollups
// for country and path, raw clicks for device, os, browser, referrer, sub1..sub10 and the other visitor values), its CSV form, the conversions export, and the conversion
// rollups it reads (kept in the conversions' transaction: a before-commit subscriber of conversion.recorded).
import type { AppContext, Feature } from '../context'
import type { AnyDatabase } from '../db/engine'
import { ReportQueries } from './queries'
import { createConversionRollup, type RollupConversion } from '../postback'
import type { ConversionUpdated } from '../events'
import { reportRoutes } from './routes'
import { ReportService } from './service'
import { reportsVerbs } from './verbs'
import { foldShards } from './pg-fold-shards'
import { Retention } from '../lib/retention'
import { errorFields, log } from '../lib/log'

// A report's time zone, for other features that take local dates (cost updates).
export { Zone } from './tz'
// The reports' from/to/tz, for lists that take the same range (the clicks list, issue 30).
export { parseRange } from './params'

/** A status update moves a conversion between rollup rows exactly: its old row out, its new one in. */
const moved = (us: readonly ConversionUpdated[]): RollupConversion[] => us.flatMap((u) => [{ ...u.before, sign: -1 as const }, u.after])

/** `settle`: the click store's settle() (committed clicks into the targeting rollups before a report reads them). */
export function reportsFeature(ctx: AppContext, deps: { settle?: () => void } = {}): Feature {
  // Widened until AppContext.database is AnyDatabase (the integrator's change).
  const database = ctx.database as AnyDatabase
  // Written through the conversions' own transaction (the emitter awaits bus.beforeCommit() on Postgres).
  const rollup = createConversionRollup(database)
  ctx.events.on('conversion.recorded', 'before-commit', 'reports.conversion-rollup', rollup)
  ctx.events.on('conversion.updated', 'before-commit', 'reports.conversion-rollup-move', (us, tx) => rollup(moved(us), tx))
  const queries = ReportQueries.of(database)
  const verbs = reportsVerbs({
    service: new ReportService(queries, () => ctx.settings.get('cost_currency'), deps.settle), queries,
    // A request without tz reads days in the instance's zone (the time_zone setting).
    timeZone: () => ctx.settings.get('time_zone'),
  })
  // Postgres: the striped rollup rows of closed hours and days folded into shard 0, at start and hourly, on the
  // retention schedule (lib/retention.ts; "days" only switches it on, the fold takes its own cut-offs).
  const fold = database.engine === 'postgres'
    ? new Retention({ prune: async () => (await foldShards(database.sql, Date.now()), 0) }, {
      days: () => 1,
      onError: (err) => log.error('reports: folding rollup shards failed', errorFields(err)),
    })
    : null
  return {
    name: 'reports', routes: reportRoutes(ctx, verbs), verbs,
    start: () => fold?.start(),
    stop: async () => { await fold?.stop() },
  }
}
