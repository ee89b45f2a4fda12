// GET /admin/api/reports (JSON or CSV) and GET /admin/api/reports/conversions (CSV export).
import { Elysia } from 'elysia'
import type { AppContext } from '../context'
import { adminGuard } from '../http/admin-guard'
import { csvHeaders, fileName } from './csv'
import { conversionsCsv, reportCsv } from './export'
import { flatQuery, parseExportRequest, parseReportRequest, type ReportRequest } from './params'
import type { ReportQueries } from './queries'
import type { ReportResult, ReportService } from './service'
import type { Zone } from './tz'

const iso = (ms: number) => new Date(ms).toISOString()
const pad = (n: number, w = 2) => String(n).padStart(w, '0')
/** Local first and last day of a range, for file names. */
function days(zone: Zone, from: number, to: number): string[] {
  return [zone.dateOf(from), zone.dateOf(to - 1)].map((d) => `${pad(d.y, 4)}-${pad(d.mo)}-${pad(d.d)}`)
}

function toJson(req: ReportRequest, r: ReportResult) {
  const end = req.offset + r.rows.length
  return {
    group_by: r.dims,
    tz: req.zone.name,
    from: iso(r.from),
    to: iso(r.to),
    source: r.source,
    rows: r.rows,
    total: r.total,
    total_rows: r.totalRows,
    limit: req.limit,
    offset: req.offset,
    next_cursor: end < r.totalRows ? String(end) : null,
  }
}

export function reportRoutes(ctx: AppContext, service: ReportService, queries: ReportQueries) {
  return new Elysia({ name: 'reports' })
    .use(adminGuard(ctx))
    .get(
      '/admin/api/reports',
      async ({ query }) => {
        const req = parseReportRequest(flatQuery(query))
        if (req.format === 'csv') {
          const result = await service.run(req, { all: true })
          const name = fileName(['report', req.dims.join('_'), ...days(req.zone, result.from, result.to)])
          return new Response(reportCsv(result), { headers: csvHeaders(name) })
        }
        return toJson(req, await service.run(req))
      },
      {
        permission: 'reports:read',
        detail: {
          tags: ['reports'],
          summary: 'Report grouped by one or two of campaign, source, offer, landing, day, hour, device, os, browser, referrer, sub1..sub10',
        },
      },
    )
    .get(
      '/admin/api/reports/conversions',
      ({ query }) => {
        const req = parseExportRequest(flatQuery(query))
        const name = fileName(['conversions', ...days(req.zone, req.from, req.to)])
        return new Response(conversionsCsv(queries, req), { headers: csvHeaders(name) })
      },
      {
        permission: 'reports:read',
        detail: { tags: ['reports'], summary: 'CSV export of the conversions dated in the range (same filters as the report)' },
      },
    )
}
