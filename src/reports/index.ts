// Reports feature: GET /admin/api/reports (rollups for campaign/source/offer/landing/day/hour, raw clicks for
// device, os, browser, referrer and sub1..sub10), its CSV form, the conversions export, and the conversion
// rollups it reads (maintained in each conversion's transaction through the postback recorder's hook).
import type { AppContext, Feature } from '../context'
import type { ConversionHook } from '../postback'
import { ConversionRollup } from './conversion-rollup'
import { ReportQueries } from './queries'
import { reportRoutes } from './routes'
import { ReportService } from './service'

export interface ReportsDeps {
  /** The postback feature's hook registration (runs inside each conversion's transaction). */
  onConversionRecorded: (hook: ConversionHook) => void
}

export function reportsFeature(ctx: AppContext, deps: ReportsDeps): Feature {
  const rollup = new ConversionRollup(ctx.database.raw)
  deps.onConversionRecorded(rollup.add)
  const queries = new ReportQueries(ctx.database.raw)
  const service = new ReportService(queries)
  return { name: 'reports', routes: reportRoutes(ctx, service, queries) }
}
