// Reports feature: GET /admin/api/reports (rollups for campaign/source/offer/landing/day/hour, raw clicks for
// device, os, browser, referrer and sub1..sub10), its CSV form, the conversions export, and the conversion
// rollups it reads (kept in the conversions' transaction: a before-commit subscriber of conversion.recorded).
import type { AppContext, Feature } from '../context'
import type { AnyDatabase } from '../db/engine'
import { PgReportQueries } from './pg-queries'
import { PgConversionRollup } from './pg-rollup-store'
import { SqliteReportQueries, type ReportQueries } from './queries'
import { ConversionRollup } from './rollup-store'
import { reportRoutes } from './routes'
import { ReportService } from './service'
import { reportsVerbs } from './verbs'

export function reportsFeature(ctx: AppContext): Feature {
  // Widened until AppContext.database is AnyDatabase (the integrator's change).
  const database = ctx.database as AnyDatabase
  let queries: ReportQueries
  if (database.engine === 'postgres') {
    // Async subscriber writing through the conversions' transaction (the emitter awaits bus.beforeCommit()).
    ctx.events.on('conversion.recorded', 'before-commit', 'reports.conversion-rollup', new PgConversionRollup().addAll)
    queries = new PgReportQueries(database.sql)
  } else {
    ctx.events.on('conversion.recorded', 'before-commit', 'reports.conversion-rollup', new ConversionRollup(database.raw).addAll)
    queries = new SqliteReportQueries(database.raw)
  }
  const verbs = reportsVerbs({ service: new ReportService(queries), queries })
  return { name: 'reports', routes: reportRoutes(ctx, verbs), verbs }
}
