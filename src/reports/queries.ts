// SQL of the reports: grouped reads of the rollup tables, grouped scans of raw clicks (for groupings the
// rollups do not carry), labels, conversion types and the conversions export. `ReportQueries` is the
// engine-neutral boundary; this file holds the SQLite implementation, pg-queries.ts the Postgres one.
import type { RawDb, RawStatement } from '../db/client'
import { BUILTIN_TYPES } from '../postback/builtin-types'
import { clickColumn, idColumn, isIdDimension, labelTable, type Dimension, type IdDimension } from './dimensions'
import type { TypeFlags } from './metrics'
import type { Zone } from './tz'

/** Optional id filters; 0 selects "none" (a click without landing…). */
export interface Filters {
  campaign_id?: number
  source_id?: number
  offer_id?: number
  landing_id?: number
}

export interface ClickSumsRow {
  k1: unknown
  k2?: unknown
  /** UTC day of the hour ('hours' segments only). */
  u?: number
  clicks: number
  unique_clicks: number
  bot_clicks: number
  cost: number
  landing_views: number
  landing_clicks: number
}

export interface ConversionSumsRow {
  k1: unknown
  k2?: unknown
  u?: number
  type: string
  /** Upper-case code; '' for a conversion without one (the service reads it as the cost currency). */
  currency: string
  conversions: number
  revenue: number
  revenue_abs: number
}

/**
 * A slice of the rollups: hourly rows in [from, to), daily rows (UTC days) in [from, to), or the hourly
 * rows of a list of hours (`at`), read with their UTC day as `u` (see ReportService: local-day corrections).
 */
export type Segment =
  | { table: 'hourly' | 'daily'; from: number; to: number }
  | { table: 'hours'; at: number[] }

/** How grouping values are computed: the report's zone and range (for the DST CASE). */
export interface Grouping {
  dims: readonly Dimension[]
  zone: Zone
  from: number
  to: number
}

export interface ExportedConversion {
  id: number
  date: number
  click_id: string
  type: string
  status: string | null
  revenue: number
  currency: string | null
  transaction_id: string | null
  campaign_id: number
  source_id: number | null
  offer_id: number | null
  landing_id: number | null
}

/**
 * What reports read, on either engine. Rows come back with numbers as numbers (counts, sums, epoch-ms
 * keys); time keys are epoch ms of the local day/hour start read as UTC (see localDaySql).
 */
export interface ReportQueries {
  rollupClicks(g: Grouping, f: Filters, seg: Segment): Promise<ClickSumsRow[]>
  rollupConversions(g: Grouping, f: Filters, seg: Segment): Promise<ConversionSumsRow[]>
  /** Clicks created in [from, to), excluded ones left out, grouped; at most `limit` groups. */
  rawClicks(g: Grouping, f: Filters, from: number, to: number, limit: number): Promise<ClickSumsRow[]>
  /**
   * Conversions dated in [from, to) whose click still exists and is not excluded, grouped by the
   * conversion's own attribution and date plus the click's device, subs…; at most `limit` groups per type.
   */
  rawConversions(g: Grouping, f: Filters, from: number, to: number, limit: number): Promise<ConversionSumsRow[]>
  /** Where a raw scan slice starting at `t` should end so it holds about `rows` rows (or `to`). */
  sliceEnd(kind: 'clicks' | 'conversions', t: number, to: number, rows: number): Promise<number>
  /** id → name of the catalog rows of an id dimension; deleted ones are simply missing. */
  labels(d: IdDimension, ids: number[]): Promise<Map<number, string>>
  /** Built-in types in their documented order, then the operator's own by slug (byte order). */
  conversionTypes(): Promise<TypeFlags[]>
  /** Conversions dated in [from, to) after (afterDate, afterId), in (date, id) order: keyset paging for the export. */
  conversionsAfter(f: Filters, from: number, to: number, afterDate: number, afterId: number, limit: number): Promise<ExportedConversion[]>
  /**
   * Runs `fn` over one consistent view of the data, so the several rollup reads of one report agree.
   * SQLite: the reads are synchronous on the one connection and nothing can write between them.
   * Postgres: a read-only REPEATABLE READ transaction.
   */
  snapshot<T>(fn: (q: ReportQueries) => Promise<T>): Promise<T>
}

export const FILTER_NAMES = ['campaign_id', 'source_id', 'offer_id', 'landing_id'] as const
const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000
const STATEMENT_CACHE = 200

/** SQLite: prepared statements on the shared connection, synchronous inside, resolved Promises outside. */
export class SqliteReportQueries implements ReportQueries {
  private readonly statements = new Map<string, RawStatement>()
  private readonly types: RawStatement
  private readonly exportChunk = new Map<string, RawStatement>()

  constructor(private readonly raw: RawDb) {
    // Built-in types in their documented order, then the operator's own by slug (the slugs are our own constants).
    const order = BUILTIN_TYPES.map((slug, i) => `WHEN '${slug}' THEN ${i}`).join(' ')
    this.types = raw.prepare(
      'SELECT slug, include_in_conversions, include_in_revenue, negative FROM conversion_types ORDER BY ' +
        `CASE slug ${order} ELSE ${BUILTIN_TYPES.length} END, slug`,
    )
  }

  /** Statements are built per grouping, filters and DST changes, so they are cached by their text. */
  private stmt(sql: string): RawStatement {
    let st = this.statements.get(sql)
    if (!st) {
      if (this.statements.size >= STATEMENT_CACHE) this.statements.clear()
      st = this.raw.prepare(sql)
      this.statements.set(sql, st)
    }
    return st
  }

  async snapshot<T>(fn: (q: ReportQueries) => Promise<T>): Promise<T> {
    return fn(this)
  }

  async rollupClicks(g: Grouping, f: Filters, seg: Segment): Promise<ClickSumsRow[]> {
    const r = rollupRead('click', g, seg)
    const sql =
      `SELECT ${r.keys}, sum(clicks) AS clicks, sum(unique_clicks) AS unique_clicks, ` +
      `sum(bot_clicks) AS bot_clicks, total(cost) AS cost, sum(landing_views) AS landing_views, ` +
      `sum(landing_clicks) AS landing_clicks ` +
      `FROM ${r.table} WHERE ${r.where}${rollupFilters(f)} GROUP BY ${r.groupBy}`
    return this.stmt(sql).all({ ...r.params, ...filterParams(f, false) }) as ClickSumsRow[]
  }

  async rollupConversions(g: Grouping, f: Filters, seg: Segment): Promise<ConversionSumsRow[]> {
    const r = rollupRead('conversion', g, seg)
    const sql =
      `SELECT ${r.keys}, type, currency, sum(conversions) AS conversions, total(revenue) AS revenue, ` +
      `total(revenue_abs) AS revenue_abs FROM ${r.table} WHERE ${r.where}${rollupFilters(f)} GROUP BY ${r.groupBy}, type, currency`
    return this.stmt(sql).all({ ...r.params, ...filterParams(f, false) }) as ConversionSumsRow[]
  }

  async rawClicks(g: Grouping, f: Filters, from: number, to: number, limit: number): Promise<ClickSumsRow[]> {
    const sql =
      `SELECT ${keys(g, (d) => rawExpr(d, g, 'c', 'c.created_at'))}, count(*) AS clicks, ` +
      `sum(CASE WHEN coalesce(c.bot_reason, '') = '' AND c.is_unique <> 0 THEN 1 ELSE 0 END) AS unique_clicks, ` +
      `sum(CASE WHEN coalesce(c.bot_reason, '') <> '' THEN 1 ELSE 0 END) AS bot_clicks, total(c.cost) AS cost, ` +
      `count(c.landing_viewed_at) AS landing_views, count(c.landing_clicked_at) AS landing_clicks ` +
      `FROM clicks c WHERE c.created_at >= $from AND c.created_at < $to AND c.excluded = 0${rawFilters(f, 'c')} ` +
      `GROUP BY ${groupBy(g)} LIMIT $limit`
    return this.stmt(sql).all({ from, to, limit, ...filterParams(f, true) }) as ClickSumsRow[]
  }

  async rawConversions(g: Grouping, f: Filters, from: number, to: number, limit: number): Promise<ConversionSumsRow[]> {
    // CROSS JOIN keeps conversions (date index) as the outer loop: one click lookup per conversion.
    const sql =
      `SELECT ${keys(g, (d) => rawExpr(d, g, 'v', 'v.date'))}, v.type AS type, ${CONVERSION_CURRENCY} AS currency, count(*) AS conversions, ` +
      `total(v.revenue) AS revenue, total(abs(v.revenue)) AS revenue_abs ` +
      `FROM conversions v CROSS JOIN clicks c ON c.id = v.click_row_id ` +
      `WHERE v.date >= $from AND v.date < $to AND c.excluded = 0${rawFilters(f, 'v')} ` +
      `GROUP BY ${groupBy(g)}, v.type, ${CONVERSION_CURRENCY} LIMIT $limit`
    return this.stmt(sql).all({ from, to, limit, ...filterParams(f, true) }) as ConversionSumsRow[]
  }

  /**
   * Where a raw scan slice starting at `t` should end so it holds about `rows` rows: the time of the row
   * `rows` places ahead (an index-only walk), or `to`. Slices bound how long one statement blocks.
   */
  async sliceEnd(kind: 'clicks' | 'conversions', t: number, to: number, rows: number): Promise<number> {
    const sql = kind === 'clicks'
      ? 'SELECT created_at AS t FROM clicks WHERE created_at >= $t AND created_at < $to ORDER BY created_at LIMIT 1 OFFSET $rows'
      : 'SELECT date AS t FROM conversions WHERE date >= $t AND date < $to ORDER BY date LIMIT 1 OFFSET $rows'
    const hit = this.stmt(sql).get({ t, to, rows }) as { t: number } | undefined
    return hit === undefined ? to : Math.max(hit.t, t + 1)
  }

  async labels(d: IdDimension, ids: number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map()
    const rows = this.stmt(`SELECT id, name FROM ${labelTable[d]} WHERE id IN (SELECT value FROM json_each($ids))`).all({ ids: JSON.stringify(ids) }) as Array<{ id: number; name: string }>
    return new Map(rows.map((r) => [r.id, r.name]))
  }

  /** Read per report, so a flag edit applies to every past conversion at once. */
  async conversionTypes(): Promise<TypeFlags[]> {
    return (this.types.all() as Array<{ slug: string; include_in_conversions: number; include_in_revenue: number; negative: number }>).map((r) => ({
      slug: r.slug,
      include_in_conversions: r.include_in_conversions === 1,
      include_in_revenue: r.include_in_revenue === 1,
      negative: r.negative === 1,
    }))
  }

  async conversionsAfter(f: Filters, from: number, to: number, afterDate: number, afterId: number, limit: number): Promise<ExportedConversion[]> {
    const where = rawFilters(f, 'v')
    let st = this.exportChunk.get(where)
    if (!st) {
      st = this.raw.prepare(
        'SELECT v.id, v.date, v.click_id, v.type, v.status, v.revenue, v.currency, v.transaction_id, v.campaign_id, v.source_id, ' +
          'v.offer_id, v.landing_id FROM conversions v WHERE v.date >= $from AND v.date < $to ' +
          `AND (v.date > $afterDate OR (v.date = $afterDate AND v.id > $afterId))${where} ORDER BY v.date, v.id LIMIT $limit`,
      )
      this.exportChunk.set(where, st)
    }
    return st.all({ from, to, afterDate, afterId, limit, ...filterParams(f, true) }) as ExportedConversion[]
  }
}

/** Table, key expressions, WHERE and parameters of one rollup segment. */
function rollupRead(kind: 'click' | 'conversion', g: Grouping, seg: Segment) {
  if (seg.table === 'daily') {
    const table = `${kind}_stats_daily`
    return {
      table, keys: keys(g, (d) => rollupExpr(d, g, 'day', table)), groupBy: groupBy(g),
      where: 'day >= $from AND day < $to', params: { from: seg.from, to: seg.to } as Record<string, unknown>,
    }
  }
  const table = `${kind}_stats_hourly`
  const k = keys(g, (d) => rollupExpr(d, g, 'hour', table))
  if (seg.table !== 'hours') return { table, keys: k, groupBy: groupBy(g), where: 'hour >= $from AND hour < $to', params: { from: seg.from, to: seg.to } }
  return {
    table, keys: `${k}, hour / ${DAY_MS} * ${DAY_MS} AS u`, groupBy: `${groupBy(g)}, u`,
    where: 'hour IN (SELECT value FROM json_each($hours))', params: { hours: JSON.stringify(seg.at) },
  }
}

const keys = (g: Grouping, expr: (d: Dimension) => string) => g.dims.map((d, i) => `${expr(d)} AS k${i + 1}`).join(', ')
const groupBy = (g: Grouping) => g.dims.map((_, i) => `k${i + 1}`).join(', ')

/**
 * Rollup rows carry ids (0 = none) and a UTC hour or day; local days/hours of hourly rows come from the
 * zone's offsets. A daily row stands for its UTC day (the service corrects the hours that belong elsewhere).
 */
function rollupExpr(d: Dimension, g: Grouping, time: 'hour' | 'day', table: string): string {
  if (isIdDimension(d)) return idColumn(d)
  if (d === 'currency') return table.startsWith('conversion') ? 'currency' : offerCurrencySql(`${table}.offer_id`)
  if (d === 'day') return time === 'day' ? 'day' : localDaySql(g.zone, time, g.from, g.to)
  if (d === 'hour') return localHourSql(g.zone, time, g.from, g.to)
  throw new Error(`rollups cannot group by ${d}`)
}

/** Raw rows: ids and time from `idAlias` (the conversion's own attribution and date), the rest from the click. */
function rawExpr(d: Dimension, g: Grouping, idAlias: 'c' | 'v', time: string): string {
  if (isIdDimension(d)) return `${idAlias}.${idColumn(d)}`
  if (d === 'currency') return idAlias === 'v' ? CONVERSION_CURRENCY : offerCurrencySql('c.offer_id')
  if (d === 'day') return localDaySql(g.zone, time, g.from, g.to)
  if (d === 'hour') return localHourSql(g.zone, time, g.from, g.to)
  return `c.${clickColumn(d)}`
}

/** A raw conversion's currency as the rollups key it (same SQL on both engines). */
export const CONVERSION_CURRENCY = "upper(coalesce(v.currency, ''))"

/** The currency of clicks: their offer's ('' without one, read as the cost currency). Same SQL on both engines. */
export const offerCurrencySql = (offerId: string) => `coalesce((SELECT upper(o.currency) FROM offers o WHERE o.id = ${offerId}), '')`

function rollupFilters(f: Filters): string {
  return FILTER_NAMES.filter((n) => f[n] !== undefined).map((n) => ` AND ${n} = $${n}`).join('')
}

/** Raw rows store "none" as NULL (rollups as 0). */
function rawFilters(f: Filters, alias: string): string {
  return FILTER_NAMES.filter((n) => f[n] !== undefined)
    .map((n) => (f[n] === 0 ? ` AND ${alias}.${n} IS NULL` : ` AND ${alias}.${n} = $${n}`))
    .join('')
}

/** Parameters of the filters above: rollups bind every filter, raw SQL only those not written as IS NULL. */
function filterParams(f: Filters, raw: boolean): Record<string, number> {
  const p: Record<string, number> = {}
  for (const n of FILTER_NAMES) if (f[n] !== undefined && !(raw && f[n] === 0)) p[n] = f[n]!
  return p
}

/**
 * SQL expression of the UTC offset (ms) at the instant in `column`, valid for instants in [from, to):
 * a constant, or a CASE over the range's DST changes. Numbers only, so it is safe to inline.
 */
function offsetSql(zone: Zone, column: string, from: number, to: number): string {
  const { first, changes } = zone.changes(from, to)
  if (changes.length === 0) return String(first)
  let sql = `CASE WHEN ${column} < ${changes[0]![0]} THEN ${first}`
  for (let i = 0; i < changes.length; i++) {
    const next = changes[i + 1]
    sql += next ? ` WHEN ${column} < ${next[0]} THEN ${changes[i]![1]}` : ` ELSE ${changes[i]![1]} END`
  }
  return sql
}

/** SQL of the local day (as epoch ms of local midnight read as UTC) of the instant in `column`. */
function localDaySql(zone: Zone, column: string, from: number, to: number): string {
  return `((${column} + ${offsetSql(zone, column, from, to)}) / ${DAY_MS} * ${DAY_MS})`
}

/** SQL of the local hour (epoch ms of the local hour start read as UTC) of the instant in `column`. */
function localHourSql(zone: Zone, column: string, from: number, to: number): string {
  return `((${column} + ${offsetSql(zone, column, from, to)}) / ${HOUR_MS} * ${HOUR_MS})`
}
