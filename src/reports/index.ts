// Reports feature: GET /admin/api/reports (rollups for campaign/source/offer/landing/day/hour, raw clicks for
// device, os, browser, referrer and sub1..sub10), its CSV form, the conversions export, and the conversion
// rollups it reads (kept in each conversion's transaction: an in-transaction subscriber of conversion.recorded).
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
    // Async subscriber writing through the conversion's transaction (the emitter awaits unit.emit()).
    ctx.events.on('conversion.recorded', 'in-transaction', 'reports.conversion-rollup', new PgConversionRollup().add)
    queries = new PgReportQueries(database.sql)
  } else {
    ctx.events.on('conversion.recorded', 'in-transaction', 'reports.conversion-rollup', new ConversionRollup(database.raw).add)
    queries = new SqliteReportQueries(database.raw)
  }
  const verbs = reportsVerbs({ service: new ReportService(queries), queries })
  return { name: 'reports', routes: reportRoutes(ctx, verbs), verbs }
}
