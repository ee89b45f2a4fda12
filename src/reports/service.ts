// Runs a report: which tables to read (rollups or raw clicks), merging clicks and conversions per group,
// metrics, sorting, paging and labels.
import { invalid } from '../lib/errors'
import { isLabelled, labelOf, rollupFamily, toKey, type Dimension, type Key, type RollupFamily } from './dimensions'
import { computeMetrics, moneyCurrencies, MONEY_METRICS, Sums, type Currencies, type Metrics, type MoneyMetric, type TypeFlags } from './metrics'
import type { HavingOp, ReportRequest, SortKey } from './params'
import type { ClickSumsRow, ConversionSumsRow, Grouping, ReportQueries, RollupPart, RollupSumsRow, Segment } from './queries'
import { hoursOffTheirUtcDay } from './tz'

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000
/** Distinct groups a raw-click report may produce (a sub1 holding click-level ids would produce millions). */
export const MAX_RAW_GROUPS = 100_000
/** Raw scans read about this many rows per statement, yielding in between so redirects keep flowing. */
const RAW_SLICE_ROWS = 25_000

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

export interface ReportRow extends Metrics {
  key: Key
  label: string | null
  children?: ReportRow[]
}

export interface ReportResult {
  dims: Dimension[]
  /** rollups: the hourly/daily tables (hour-granular range); raw: a scan of raw clicks (exact range, retention-bound). */
  source: 'rollups' | 'raw'
  /** The range actually covered: rollup reports cover whole UTC hours. */
  from: number
  to: number
  rows: ReportRow[]
  total: Metrics
  /** Top-level rows that pass min_clicks and having (all of them without those). */
  totalRows: number
  /** The total of those rows; only when the request has min_clicks ≥ 1 or having. */
  matchedTotal?: Metrics
  /** The currencies that hold money in the range (sorted) and the cost currency; more than one: see Metrics.money. */
  currencies: Currencies
}

/** How a report's SQL values become row keys: its groupings, and the currency a conversion without one is in. */
interface Keying {
  dims: Dimension[]
  cost: string
}

/** One group of the SQL rows: its key per level (k1, k2, k3). */
interface Group {
  keys: Key[]
  sums: Sums
}

/** A row of the tree before metrics: its own sums (those of every group under it) and its children by key. */
interface Node {
  key: Key
  sums: Sums
  children: Map<string, Node>
}

const ceilTo = (t: number, unit: number) => Math.ceil(t / unit) * unit
const floorTo = (t: number, unit: number) => Math.floor(t / unit) * unit

/**
 * Rollup slices of [a, b) (whole UTC hours): daily rows for the whole UTC days inside, hourly rows for
 * the edges; only hourly rows when the grouping needs hours or local days that are not UTC days.
 */
export function segmentsOf(a: number, b: number, daily: boolean): Segment[] {
  if (a >= b) return []
  const d0 = ceilTo(a, DAY_MS)
  const d1 = floorTo(b, DAY_MS)
  if (!daily || d0 >= d1) return [{ table: 'hourly', from: a, to: b }]
  const out: Segment[] = []
  if (a < d0) out.push({ table: 'hourly', from: a, to: d0 })
  out.push({ table: 'daily', from: d0, to: d1 })
  if (d1 < b) out.push({ table: 'hourly', from: d1, to: b })
  return out
}

export class ReportService {
  /**
   * `costCurrency`: the cost_currency setting, read per report. `settle`: counts the committed clicks into the
   * targeting rollups before a report reads them (the click store's settle(); SQLite folds them a moment late).
   */
  constructor(
    private readonly q: ReportQueries,
    private readonly costCurrency: () => string = () => 'USD',
    private readonly settle: () => void = () => {},
  ) {}

  /**
   * `all`: every top-level row (CSV), otherwise the requested page. `raw`: scan raw clicks even where the
   * rollups could answer (the benchmark's baseline).
   */
  async run(req: ReportRequest, opts: { all?: boolean; raw?: boolean } = {}): Promise<ReportResult> {
    const family = opts.raw ? null : rollupFamily(req.dims, req.filters)
    const rollups = family !== null
    if (rollups) this.settle()
    let from = req.from
    let to = req.to
    const groups = new Map<string, Group>()
    const k: Keying = { dims: req.dims, cost: this.costCurrency() }
    let types: TypeFlags[]
    if (rollups) {
      // An hour bucket counts when its start lies in [from, to).
      from = ceilTo(req.from, HOUR_MS)
      to = ceilTo(req.to, HOUR_MS)
      // Side by side (two pooled connections on Postgres): the types do not depend on the rollups.
      ;[types] = await Promise.all([this.q.conversionTypes(), this.readRollups(groups, k, req, from, to, family)])
    } else {
      types = await this.q.conversionTypes()
      await this.scanRaw(groups, k, req)
    }
    return await this.shape(req, k, groups, types, opts.all === true, rollups ? 'rollups' : 'raw', from, to)
  }

  /**
   * Daily rows where whole UTC days lie inside the range, hourly rows elsewhere (and for hour grouping).
   * Grouped by local day, a daily row counts on its UTC day first; then the hours that belong to another
   * local day (23:00 UTC in Berlin, 00:00-04:00 UTC in New York…) are read hourly and moved over. The
   * result equals grouping every hourly row by its local day, from ~24x fewer rows.
   */
  private async readRollups(
    groups: Map<string, Group>, k: Keying, req: ReportRequest, from: number, to: number, rollup: RollupFamily,
  ): Promise<void> {
    const g: Grouping = { dims: req.dims, zone: req.zone, from, to, rollup }
    const dayAt = req.dims.indexOf('day')
    // Every slice in one statement (ReportQueries.rollupSums); `moved`: the hours read to move to their local day.
    const parts: Array<RollupPart & { moved?: boolean }> = []
    for (const seg of segmentsOf(from, to, !req.dims.includes('hour'))) {
      parts.push({ kind: 'click', seg }, { kind: 'conversion', seg })
      if (seg.table !== 'daily' || dayAt < 0) continue
      const at = hoursOffTheirUtcDay(req.zone, seg.from, seg.to)
      if (at.length === 0) continue
      const hours: Segment = { table: 'hours', at }
      parts.push({ kind: 'click', seg: hours, moved: true }, { kind: 'conversion', seg: hours, moved: true })
    }
    // Summed part by part in the order of the parts, as when each was its own statement.
    const byPart: RollupSumsRow[][] = parts.map(() => [])
    for (const r of await this.q.rollupSums(g, req.filters, parts)) byPart[r.part]!.push(r)
    const utcKey = `k${dayAt + 1}`
    parts.forEach((p, i) => {
      for (const r of byPart[i]!) {
        const cur = r.currency || k.cost
        const add = (row: RollupSumsRow, sign: 1 | -1) => {
          const sums = this.group(groups, k, row).sums
          if (p.kind === 'click') sums.addClicks(r, sign)
          else sums.addConversions(r.type, cur, sign * r.conversions, sign * r.revenue, sign * r.revenue_abs, sign * r.conversion_cost, sign * r.conversion_cost_abs)
        }
        add(r, 1)
        // An hour of another local day: counted on its local day above, taken off its UTC day's daily row.
        if (p.moved) add({ ...r, [utcKey]: r.u }, -1)
      }
    })
  }

  private async scanRaw(groups: Map<string, Group>, k: Keying, req: ReportRequest): Promise<void> {
    const g: Grouping = { dims: req.dims, zone: req.zone, from: req.from, to: req.to }
    const tooMany = () => {
      if (groups.size > MAX_RAW_GROUPS) {
        throw invalid(`group_by: more than ${MAX_RAW_GROUPS} distinct values in the range; narrow the range or add a filter`)
      }
    }
    for (let t = req.from; t < req.to; ) {
      const end = await this.q.sliceEnd('clicks', t, req.to, RAW_SLICE_ROWS)
      this.addClicks(groups, k, await this.q.rawClicks(g, req.filters, t, end, MAX_RAW_GROUPS + 1))
      tooMany()
      t = end
      if (t < req.to) await yieldToEventLoop()
    }
    for (let t = req.from; t < req.to; ) {
      const end = await this.q.sliceEnd('conversions', t, req.to, RAW_SLICE_ROWS)
      this.addConversions(groups, k, await this.q.rawConversions(g, req.filters, t, end, MAX_RAW_GROUPS + 1))
      tooMany()
      t = end
      if (t < req.to) await yieldToEventLoop()
    }
  }

  private group(groups: Map<string, Group>, k: Keying, r: { k1: unknown; k2?: unknown; k3?: unknown }): Group {
    const values = [r.k1, r.k2, r.k3]
    const keys = k.dims.map((d, i) => toKey(d, values[i], k.cost))
    const id = JSON.stringify(keys)
    let g = groups.get(id)
    if (!g) groups.set(id, (g = { keys, sums: new Sums() }))
    return g
  }

  private addClicks(groups: Map<string, Group>, k: Keying, rows: ClickSumsRow[]): void {
    for (const r of rows) this.group(groups, k, r).sums.addClicks(r)
  }

  /** A conversion without a currency ('') is in the cost currency. */
  private addConversions(groups: Map<string, Group>, k: Keying, rows: ConversionSumsRow[]): void {
    for (const r of rows) this.group(groups, k, r).sums.addConversions(r.type, r.currency || k.cost, r.conversions, r.revenue, r.revenue_abs, r.cost, r.cost_abs)
  }

  private async shape(
    req: ReportRequest, k: Keying, groups: Map<string, Group>, typeList: TypeFlags[], all: boolean, source: 'rollups' | 'raw', from: number, to: number,
  ): Promise<ReportResult> {
    const types = new Map(typeList.map((t) => [t.slug, t]))
    const slugs = typeList.map((t) => t.slug)
    const total = new Sums()
    const top = new Map<string, Node>()
    for (const g of groups.values()) {
      if (g.sums.empty) continue
      total.addAll(g.sums)
      // Each level's node holds the sums of every group under it.
      let level = top
      for (const key of g.keys) {
        const id = JSON.stringify(key)
        let node = level.get(id)
        if (!node) level.set(id, (node = { key, sums: new Sums(), children: new Map() }))
        node.sums.addAll(g.sums)
        level = node.children
      }
    }
    for (const t of total.types.values()) if (!types.has(t.type) && !slugs.includes(t.type)) slugs.push(t.type)
    const currencies: Currencies = { cost: k.cost, list: moneyCurrencies(total, types, k.cost) }
    const row = (d: Dimension, labels: Map<number, string>) => (n: Node) => toRow(d, n, labels, types, slugs, currencies)

    const labels = await this.labelsFor(req.dims[0]!, [...top.values()].map((n) => n.key))
    const nodeOf = new Map<ReportRow, Node>()
    const filtered = req.minClicks > 0 || req.having.length > 0
    const keep = rowFilter(req, currencies)
    const rows: ReportRow[] = []
    const matched = new Sums()
    for (const n of top.values()) {
      const r = row(req.dims[0]!, labels)(n)
      if (!keep(r)) continue
      rows.push(r)
      nodeOf.set(r, n)
      if (filtered) matched.addAll(n.sums)
    }
    sortRows(rows, req.sort, req.order, currencies)
    const page = all ? rows : rows.slice(req.offset, req.offset + req.limit)
    // Children of the page only, level by level (one label read per level), sorted like the top.
    let parents = page
    for (let level = 1; level < req.dims.length; level++) {
      const d = req.dims[level]!
      const childLabels = await this.labelsFor(d, parents.flatMap((r) => [...nodeOf.get(r)!.children.values()].map((c) => c.key)))
      const next: ReportRow[] = []
      for (const r of parents) {
        const kids = [...nodeOf.get(r)!.children.values()]
        r.children = kids.map((c) => {
          const child = row(d, childLabels)(c)
          nodeOf.set(child, c)
          return child
        })
        sortRows(r.children, req.sort, req.order, currencies)
        next.push(...r.children)
      }
      parents = next
    }
    return {
      dims: req.dims, source, from, to, rows: page, total: computeMetrics(total, types, slugs, currencies), totalRows: rows.length, currencies,
      ...(filtered ? { matchedTotal: computeMetrics(matched, types, slugs, currencies) } : {}),
    }
  }

  private async labelsFor(d: Dimension, keys: Key[]): Promise<Map<number, string>> {
    if (!isLabelled(d)) return new Map()
    const ids = [...new Set(keys.filter((k): k is number => typeof k === 'number'))]
    return this.q.labels(d, ids)
  }
}

function toRow(d: Dimension, n: Node, labels: Map<number, string>, types: Map<string, TypeFlags>, slugs: string[], cur: Currencies): ReportRow {
  return { key: n.key, label: labelOf(d, n.key, labels), ...computeMetrics(n.sums, types, slugs, cur) }
}

function compareValues(a: number | string | null, b: number | string | null): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0
}

/**
 * The value a row sorts by. `revenue.EUR` (profit, epc, roi): that currency's amount (null where the report
 * has none in it). Plain `revenue` in a report of several currencies: the cost currency's entry, or the first
 * currency's when the cost currency holds no money in the range.
 */
function sortValue(sort: SortKey, cur?: Currencies): (r: ReportRow) => number | string | null {
  if (sort === 'key') return (r) => r.key
  if (sort === 'label') return (r) => r.label
  const dot = sort.indexOf('.')
  const metric = (dot < 0 ? sort : sort.slice(0, dot)) as Exclude<SortKey, 'key' | 'label'>
  if (!(MONEY_METRICS as readonly string[]).includes(metric)) return (r) => r[metric as keyof Metrics] as number | null
  const m = metric as MoneyMetric
  const multi = cur !== undefined && cur.list.length > 1
  const currency = dot >= 0 ? sort.slice(dot + 1) : multi ? (cur.list.includes(cur.cost) ? cur.cost : cur.list[0]!) : null
  // One currency: the row's own amount when it is in the currency asked for.
  if (!multi) return (r) => (currency === null || currency === (cur?.list[0] ?? cur?.cost) ? r[m] : null)
  return (r) => r.money?.find((e) => e.currency === currency)?.[m] ?? null
}

const OPS: Record<HavingOp, (a: number, b: number) => boolean> = {
  '<': (a, b) => a < b, '<=': (a, b) => a <= b, '>': (a, b) => a > b, '>=': (a, b) => a >= b, '=': (a, b) => a === b,
}

/**
 * min_clicks and having as one predicate on top-level rows. A condition reads its metric as sort does; a null
 * value (roi without cost, cr without clicks, a currency the report holds no money in) never matches. With
 * several currencies a money metric must name its currency: a plain one would compare one currency's amount
 * while the reader thinks of all.
 */
function rowFilter(req: ReportRequest, cur: Currencies): (r: ReportRow) => boolean {
  const checks = req.having.map((c) => {
    if (cur.list.length > 1 && (MONEY_METRICS as readonly string[]).includes(c.metric)) {
      throw invalid(`having: ${c.metric} is per currency in this report (${cur.list.join(', ')}); name one, e.g. ${c.metric}.${cur.list[0]}`)
    }
    const value = sortValue(c.metric, cur)
    const op = OPS[c.op]
    return (r: ReportRow) => {
      const v = value(r)
      return typeof v === 'number' && op(v, c.value)
    }
  })
  return (r) => r.clicks >= req.minClicks && checks.every((check) => check(r))
}

/** Sorts in place by a metric, the key or the label; nulls last in either order; ties by key ascending. */
export function sortRows(rows: ReportRow[], sort: SortKey, order: 'asc' | 'desc', cur?: Currencies): void {
  const dir = order === 'asc' ? 1 : -1
  const value = sortValue(sort, cur)
  rows.sort((x, y) => {
    const a = value(x)
    const b = value(y)
    if (a === null || b === null) {
      if (a !== b) return a === null ? 1 : -1
    } else {
      const c = compareValues(a, b)
      if (c !== 0) return c * dir
    }
    if (sort === 'key') return 0
    if (x.key === null || y.key === null) return x.key === y.key ? 0 : x.key === null ? 1 : -1
    return compareValues(x.key, y.key)
  })
}
