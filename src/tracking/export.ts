// The click export (GET /admin/api/clicks/export, the clicks.export verb and MCP tool): every stored field
// of the clicks created in a range, as CSV, in CLICK_COLUMNS order under the column names. Streamed a
// page at a time, keyset-paged on (created_at, id): a million clicks never sit in memory, and a page
// never rescans the ones before it. Text cells go through lib/csv.ts (formula injection neutralised).
import { Type } from '@sinclair/typebox'
import { csvHeaders, csvLine, csvStream, fileName, type Cell } from '../lib/csv'
import { invalid } from '../lib/errors'
import { iso, momentFilter } from '../lib/time'
import { defineVerb } from '../lib/verb'
import { CLICK_COLUMNS, type StoredClick } from './store/click'
import type { ClickRange, ClickStore } from './store/types'

/** The header row: the clicks table's column names, in CLICK_COLUMNS order. */
export const CLICK_EXPORT_COLUMNS: readonly string[] = CLICK_COLUMNS.map(([, column]) => column)

/** Clicks per store read (and per streamed chunk). */
const PAGE = 1000
const DEFAULT_DAYS = 30
const DAY = 86_400_000
export const MAX_EXPORT_LIMIT = 100_000_000

const TIMES = new Set<string>(['createdAt', 'landingViewedAt', 'landingClickedAt'])
const FLAGS = new Set<string>(['excluded', 'isUnique'])

/** Times as ISO 8601 UTC, flags as true/false (as GET /admin/api/clicks/:click_id shows them), the rest as stored. */
const cells = CLICK_COLUMNS.map(([field]): ((c: StoredClick) => Cell) => {
  if (TIMES.has(field)) return (c) => (c[field] == null ? null : iso(c[field] as number))
  if (FLAGS.has(field)) return (c) => (c[field] ? 'true' : 'false')
  return (c) => c[field] as Cell
})
const line = (c: StoredClick) => csvLine(cells.map((cell) => cell(c)))

export const ClickExportInput = Type.Object({
  from: Type.Optional(Type.String()),
  to: Type.Optional(Type.String()),
  campaign_id: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
})

/** The route's query documentation (the verb parses each value: a 400 names the field). */
export const CLICK_EXPORT_QUERY = {
  from: 'start (inclusive): an ISO 8601 date or date-time (no zone = UTC) or epoch seconds/milliseconds; default 30 UTC days before to',
  to: 'end (exclusive), the same forms; default the next UTC midnight',
  campaign_id: 'only this campaign',
  limit: `at most this many clicks, 1..${MAX_EXPORT_LIMIT} (default all of the range)`,
}

/** A repeated query parameter counts once, first occurrence (as everywhere else). */
export function flatQuery(query: Record<string, unknown>): typeof ClickExportInput.static {
  const out: Record<string, string | undefined> = {}
  for (const [k, v] of Object.entries(query)) out[k] = Array.isArray(v) ? String(v[0] ?? '') : v === undefined ? undefined : String(v)
  return out
}

export interface ClickExportRequest extends ClickRange {
  /** Most clicks to write; undefined: all of the range. */
  limit?: number
}

const present = (v: string | undefined): v is string => v !== undefined && v !== ''

function wholeNumber(raw: string | undefined, name: string, min: number, max: number): number | undefined {
  if (!present(raw)) return undefined
  const v = raw.trim()
  if (!/^\d{1,15}$/.test(v) || Number(v) < min || Number(v) > max) throw invalid(`${name}: must be a whole number from ${min} to ${max}`)
  return Number(v)
}

/**
 * `from` (inclusive) and `to` (exclusive): ISO 8601 (no zone = UTC) or epoch seconds/milliseconds, as the
 * conversions list takes them. Default: the last 30 UTC days including today.
 */
export function parseClickExport(q: typeof ClickExportInput.static, now = Date.now()): ClickExportRequest {
  const to = momentFilter(q.to, 'to') ?? (Math.floor(now / DAY) + 1) * DAY
  const from = momentFilter(q.from, 'from') ?? (Math.floor((to - 1) / DAY) + 1 - DEFAULT_DAYS) * DAY
  if (from >= to) throw invalid('to: must be after from')
  const campaignId = wholeNumber(q.campaign_id, 'campaign_id', 1, Number.MAX_SAFE_INTEGER)
  const limit = wholeNumber(q.limit, 'limit', 1, MAX_EXPORT_LIMIT)
  return { from, to, ...(campaignId === undefined ? {} : { campaignId }), ...(limit === undefined ? {} : { limit }) }
}

/** A file a verb produces (the shape reports' CsvFile has, which MCP reads as `csv` + `file_name`). */
export class ClickCsvFile {
  constructor(readonly name: string, readonly body: ReadableStream<Uint8Array>) {}

  toResponse(): Response {
    return new Response(this.body, { headers: csvHeaders(this.name) })
  }
}

/** `clicks-<first day>-<last day>.csv` (UTC days of the range). */
const exportName = (r: ClickRange) => fileName(['clicks', iso(r.from).slice(0, 10), iso(r.to - 1).slice(0, 10)])

/**
 * The CSV of a request. The first page is read before the file starts, so a failing read is an error
 * answer rather than a broken file; each later page is read when the client has taken the previous one.
 */
export async function clickExport(store: Pick<ClickStore, 'clicksAfter'>, req: ClickExportRequest): Promise<ClickCsvFile> {
  let left = req.limit ?? Infinity
  const read = async (createdAt: number, row: number) => {
    const n = Math.min(PAGE, left)
    const rows = n > 0 ? await store.clicksAfter(req, createdAt, row, n) : []
    left -= rows.length
    return { rows, more: rows.length === n && left > 0 }
  }
  let page: { rows: StoredClick[]; more: boolean } | null = await read(req.from - 1, 0)
  let out = csvLine(CLICK_EXPORT_COLUMNS)
  const body = csvStream(async () => {
    if (!page) return null
    const { rows, more } = page
    for (const c of rows) out += line(c)
    const last = rows[rows.length - 1]
    page = more && last ? await read(last.createdAt, last.row) : null
    const chunk = out
    out = ''
    return chunk
  })
  return new ClickCsvFile(exportName(req), body)
}

export function clickExportVerb(store: Pick<ClickStore, 'clicksAfter'>) {
  return defineVerb({
    name: 'clicks.export',
    summary: 'CSV export of the clicks created in a range (from, to; campaign_id, limit), oldest first: every stored field, ' +
      'with country, asn, as_org, connection, language, os/browser versions, region, city and path_id',
    permission: 'conversions:read',
    input: ClickExportInput,
    run: async (_actor, input) => clickExport(store, parseClickExport(input)),
  })
}
