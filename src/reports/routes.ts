// GET /admin/api/reports (JSON or CSV) and GET /admin/api/reports/conversions (CSV export): thin routes
// over the reports verbs.
import { Elysia } from 'elysia'
import type { AppContext } from '../context'
import { adminGuard } from '../http/admin-guard'
import { adminActor, invoke } from '../lib/verb'
import { docQuery } from '../http/api-docs'
import { DIMENSIONS } from './dimensions'
import { METRIC_NAMES } from './metrics'
import { DEFAULT_DAYS, DEFAULT_LIMIT, MAX_LIMIT, flatQuery } from './params'
import { CsvFile, type ReportsVerbs } from './verbs'

const moment = 'YYYY-MM-DD (local midnight in tz), a local date-time, an ISO 8601 date-time with Z or an offset, or epoch seconds/milliseconds'
const range = {
  from: `start (inclusive): ${moment}; default ${DEFAULT_DAYS} local days before to`,
  to: `end (exclusive): ${moment}; default the next local midnight`,
  tz: 'IANA time zone of days, hours and local dates (default: the time_zone setting, UTC unless set)',
}
const filters = {
  campaign_id: 'only this campaign (0 = rows without one)',
  source_id: 'only this traffic source (0 = none)',
  offer_id: 'only this offer (0 = none)',
  landing_id: 'only this landing (0 = none)',
}

/** Documentation only: params.ts parses each value (400 naming the field); unknown keys pass through. */
const reportQuery = docQuery({
  group_by: `one to three of ${DIMENSIONS.join(', ')}, comma-separated (default campaign); rows nest children per level`,
  ...range,
  ...filters,
  format: 'json (default) or csv',
  sort: `key, label or a metric: ${METRIC_NAMES.join(', ')} (default key for time groupings, else clicks); ` +
    'with several currencies revenue.EUR (profit, epc, roi) sorts by one currency, plain revenue by the cost currency',
  order: 'asc or desc (default asc for key and label, else desc)',
  limit: `rows per page, 1..${MAX_LIMIT} (default ${DEFAULT_LIMIT})`,
  offset: 'rows to skip (default 0)',
  cursor: 'next_cursor of the previous page (an offset; wins over offset)',
  min_clicks: 'leave out top-level rows with fewer clicks (before sorting and paging; total_rows counts the rest)',
  having: `conditions every top-level row must meet, comma-separated "metric op number" (URL-encoded): profit<0,clicks>=100; ` +
    `op one of < <= > >= =; metric one of ${METRIC_NAMES.join(', ')}; with several currencies money metrics name one (revenue.EUR)`,
})
const exportQuery = docQuery({ ...range, ...filters, format: 'csv (the only format)' })

export function reportRoutes(ctx: AppContext, verbs: ReportsVerbs) {
  return new Elysia({ name: 'reports' })
    .use(adminGuard(ctx))
    .get(
      '/admin/api/reports',
      async ({ admin, query }) => {
        const out = await invoke(verbs.run, adminActor(admin), flatQuery(query))
        return out instanceof CsvFile ? out.toResponse() : out
      },
      { permission: 'reports:read', query: reportQuery, detail: { tags: ['reports'], summary: verbs.run.summary } },
    )
    .get(
      '/admin/api/reports/conversions',
      async ({ admin, query }) => (await invoke(verbs.exportConversions, adminActor(admin), flatQuery(query))).toResponse(),
      { permission: 'reports:read', query: exportQuery, detail: { tags: ['reports'], summary: verbs.exportConversions.summary } },
    )
}
