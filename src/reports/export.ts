// The CSV forms of a report and the conversions export.
import { csvLine, csvStream, type Cell } from '../lib/csv'
import { isLabelled, type Dimension } from './dimensions'
import { METRIC_NAMES, MONEY_METRICS, type MoneyMetric } from './metrics'
import type { ExportRequest } from './params'
import type { ExportedConversion, ReportQueries } from './queries'
import type { ReportResult, ReportRow } from './service'

const LINES_PER_CHUNK = 500
const CONVERSIONS_PER_CHUNK = 1000

const dimColumns = (d: Dimension) => (isLabelled(d) ? [`${d}_id`, `${d}_name`] : [d])
const dimCells = (d: Dimension, r: ReportRow): Cell[] => (isLabelled(d) ? [r.key, r.label] : [r.key])

/**
 * The metric columns and cells. Several currencies: revenue, profit, epc and roi become one column per
 * currency (`revenue_EUR`, `revenue_USD`, …) and cost is headed with its currency (`cost_USD`).
 */
function metricColumns(result: ReportResult): { header: string[]; cells: (r: ReportRow) => Cell[] } {
  const { list, cost } = result.currencies
  if (list.length <= 1) return { header: [...METRIC_NAMES], cells: (r) => METRIC_NAMES.map((m) => r[m]) }
  const header: string[] = []
  const picks: Array<(r: ReportRow) => Cell> = []
  for (const m of METRIC_NAMES) {
    if (m === 'cost') {
      header.push(`cost_${cost}`)
      picks.push((r) => r.cost)
    } else if ((MONEY_METRICS as readonly string[]).includes(m)) {
      for (const [i, c] of list.entries()) {
        header.push(`${m}_${c}`)
        picks.push((r) => r.money?.[i]?.[m as MoneyMetric] ?? null)
      }
    } else {
      header.push(m)
      picks.push((r) => r[m])
    }
  }
  return { header, cells: (r) => picks.map((p) => p(r)) }
}

/** One CSV line per row of the deepest level (carrying every level's key), in the report's order. */
export function reportCsv(result: ReportResult): ReadableStream<Uint8Array> {
  const slugs = Object.keys(result.total.types)
  const metrics = metricColumns(result)
  const metricCells = (r: ReportRow): Cell[] => [...metrics.cells(r), ...slugs.map((s) => r.types[s] ?? 0)]
  const dims = result.dims
  const header = csvLine([...dims.flatMap(dimColumns), ...metrics.header, ...slugs.map((s) => `type_${s}`)])
  const leaves = function* (rows: readonly ReportRow[], level: number, keys: Cell[]): Generator<string> {
    for (const r of rows) {
      const cells = [...keys, ...dimCells(dims[level]!, r)]
      if (level === dims.length - 1) yield csvLine([...cells, ...metricCells(r)])
      else yield* leaves(r.children ?? [], level + 1, cells)
    }
  }
  const lines = function* (): Generator<string> {
    yield header
    yield* leaves(result.rows, 0, [])
  }
  return csvStream(chunked(lines(), LINES_PER_CHUNK))
}

export const CONVERSION_COLUMNS = [
  'id', 'date', 'click_id', 'type', 'status', 'revenue', 'currency', 'transaction_id', 'campaign_id', 'source_id', 'offer_id', 'landing_id',
] as const

/** Conversions dated in the range, oldest first, read 1000 at a time as the client consumes the stream. */
export function conversionsCsv(q: ReportQueries, req: ExportRequest): ReadableStream<Uint8Array> {
  let afterDate = req.from - 1
  let afterId = 0
  let started = false
  let done = false
  const row = (c: ExportedConversion): Cell[] => [
    c.id, new Date(c.date).toISOString(), c.click_id, c.type, c.status, c.revenue, c.currency, c.transaction_id,
    c.campaign_id, c.source_id, c.offer_id, c.landing_id,
  ]
  return csvStream(async () => {
    if (done) return null
    let out = ''
    if (!started) {
      started = true
      out = csvLine(CONVERSION_COLUMNS)
    }
    const rows = await q.conversionsAfter(req.filters, req.from, req.to, afterDate, afterId, CONVERSIONS_PER_CHUNK)
    for (const c of rows) out += csvLine(row(c))
    if (rows.length < CONVERSIONS_PER_CHUNK) done = true
    else {
      afterDate = rows[rows.length - 1]!.date
      afterId = rows[rows.length - 1]!.id
    }
    return out
  })
}

function chunked(lines: Iterator<string>, per: number): () => string | null {
  return () => {
    let out = ''
    for (let i = 0; i < per; i++) {
      const n = lines.next()
      if (n.done) return out === '' ? null : out
      out += n.value
    }
    return out
  }
}
