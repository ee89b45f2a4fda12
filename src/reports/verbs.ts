// Reports verbs: a report (JSON, or every row as a CSV file) and the conversions export (a CSV file).
import { Type } from '@sinclair/typebox'
import { iso } from '../lib/time'
import { defineVerb, type VerbSet } from '../lib/verb'
import { csvHeaders, fileName } from '../lib/csv'
import { conversionsCsv, reportCsv } from './export'
import { parseExportRequest, parseReportRequest, type ReportRequest } from './params'
import type { ReportQueries } from './queries'
import type { ReportResult, ReportService } from './service'
import type { Zone } from './tz'

/** A file a verb produces: streamed, never held in memory whole. */
export class CsvFile {
  constructor(readonly name: string, readonly body: ReadableStream<Uint8Array>) {}

  toResponse(): Response {
    return new Response(this.body, { headers: csvHeaders(this.name) })
  }
}

const text = () => Type.Optional(Type.String())
const range = { tz: text(), from: text(), to: text(), campaign_id: text(), source_id: text(), offer_id: text(), landing_id: text(), format: text() }

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
    // One currency (or none): the money fields are in it. Several: they are null and each row's `money` splits them.
    currency: r.currencies.list.length > 1 ? null : (r.currencies.list[0] ?? r.currencies.cost),
    ...(r.currencies.list.length > 1 ? { currencies: r.currencies.list } : {}),
    rows: r.rows,
    total: r.total,
    // The total of the rows min_clicks and having kept (all pages), beside the whole range's `total`.
    ...(r.matchedTotal ? { matched_total: r.matchedTotal } : {}),
    total_rows: r.totalRows,
    limit: req.limit,
    offset: req.offset,
    next_cursor: end < r.totalRows ? String(end) : null,
  }
}

/** `timeZone`: the time_zone setting, read per call: the zone of a request without `tz`. */
export function reportsVerbs(deps: { service: ReportService; queries: ReportQueries; timeZone?: () => string }) {
  const { service, queries } = deps
  const timeZone = deps.timeZone ?? (() => 'UTC')
  return {
    run: defineVerb({
      name: 'reports.run',
      summary: 'Report grouped by one to three of campaign, source, offer, landing, day, hour, device, os, browser, referrer, sub1..sub10, country, region, city, asn, connection, language, os_version, browser_version, path',
      permission: 'reports:read',
      input: Type.Object({
        group_by: text(), sort: text(), order: text(), limit: text(), offset: text(), cursor: text(), ...range,
        min_clicks: Type.Optional(Type.String({ description: 'leave out top-level rows with fewer clicks' })),
        having: Type.Optional(Type.String({ description: 'conditions on top-level rows, comma-separated metric op number: profit<0,clicks>=100 (op < <= > >= =)' })),
      }),
      async run(_actor, query): Promise<ReturnType<typeof toJson> | CsvFile> {
        const req = parseReportRequest(query, Date.now(), timeZone())
        if (req.format === 'csv') {
          // CSV: every top-level row that passes the filters, one line per row of the deepest level.
          const result = await service.run(req, { all: true })
          return new CsvFile(fileName(['report', req.dims.join('_'), ...days(req.zone, result.from, result.to)]), reportCsv(result))
        }
        return toJson(req, await service.run(req))
      },
    }),
    exportConversions: defineVerb({
      name: 'reports.export-conversions',
      summary: 'CSV export of the conversions dated in the range (same filters as the report)',
      permission: 'reports:read',
      input: Type.Object(range),
      async run(_actor, query) {
        const req = parseExportRequest(query, Date.now(), timeZone())
        return new CsvFile(fileName(['conversions', ...days(req.zone, req.from, req.to)]), conversionsCsv(queries, req))
      },
    }),
  } satisfies VerbSet
}

export type ReportsVerbs = ReturnType<typeof reportsVerbs>
