// Reports feature: GET /admin/api/reports (rollups for campaign/source/offer/landing/day/hour, raw clicks for
// device, os, browser, referrer and sub1..sub10), its CSV form, the conversions export, and the conversion
// rollups it reads (kept in each conversion's transaction: an in-transaction subscriber of conversion.recorded).
import type { AppContext, Feature } from '../context'
import { ReportQueries } from './queries'
import { ConversionRollup } from './rollup-store'
import { reportRoutes } from './routes'
import { ReportService } from './service'
import { reportsVerbs } from './verbs'

export function reportsFeature(ctx: AppContext): Feature {
  const rollup = new ConversionRollup(ctx.database.raw)
  ctx.events.on('conversion.recorded', 'in-transaction', 'reports.conversion-rollup', rollup.add)
  const queries = new ReportQueries(ctx.database.raw)
  const verbs = reportsVerbs({ service: new ReportService(queries), queries })
  return { name: 'reports', routes: reportRoutes(ctx, verbs), verbs }
}
