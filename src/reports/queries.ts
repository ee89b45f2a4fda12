// SQL of the reports, one module for both engines (db/store-db.ts): grouped reads of the rollup tables,
// grouped scans of raw clicks (for groupings the rollups do not carry), labels, conversion types and the
// conversions export. Local days and hours are the same arithmetic on both: the instant plus the zone's UTC
// offset (a constant, or a CASE over the range's DST changes computed by tz.ts, written into the text as
// integers), floored with integer division. The engines' own time zone data is not used, so both (and the
// service's hour corrections, which use tz.ts too) always agree on which local day an hour is.
//
// Every rollup read is an index range scan of the rollup table's primary key (hour/day first): see
// test/reports/pg-reports.test.ts, "rollup reads are served by an index", which EXPLAINs each one.
import type { AnyDatabase } from '../db/engine'
import { join, raw, sql, type Sql } from '../db/sql'
import { storeDb, type Queries, type StoreDb } from '../db/store-db'
import { BUILTIN_TYPES } from '../postback'
import { clickColumn, idColumn, isIdDimension, labelTable, type Dimension, type LabelledDimension, type RollupFamily } from './dimensions'
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
  k3?: unknown
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
  k3?: unknown
  u?: number
  type: string
  /** Upper-case code; '' for a conversion without one (the service reads it as the cost currency). */
  currency: string
  conversions: number
  revenue: number
  revenue_abs: number
  /** revshare cost in the same currency, raw and |cost| (as revenue). */
  cost: number
  cost_abs: number
}

/**
 * A row of a report's one rollup statement (rollupSums): `part` is the index of the RollupPart it sums; a click
 * part fills the click sums (conversion sums 0), a conversion part the conversion sums, type and currency
 * (click sums 0, its revshare cost as conversion_cost).
 */
export interface RollupSumsRow extends ClickSumsRow {
  part: number
  type: string
  currency: string
  conversions: number
  revenue: number
  revenue_abs: number
  conversion_cost: number
  conversion_cost_abs: number
}

/** One slice a report reads: a segment of the click or of the conversion rollups. */
export interface RollupPart {
  kind: 'click' | 'conversion'
  seg: Segment
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
  /** The rollups read (default 'stats'): see dimensions.ts rollupFamily. */
  rollup?: RollupFamily
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

export const FILTER_NAMES = ['campaign_id', 'source_id', 'offer_id', 'landing_id'] as const
const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000


type Reader = Pick<Queries, 'all' | 'get'>

/**
 * What reports read, on either engine. Rows come back with numbers as numbers (counts, sums, epoch-ms
 * keys); time keys are epoch ms of the local day/hour start read as UTC (see localTime).
 */
export class ReportQueries {
  /** `r`: the database, or the queries of a snapshot. */
  private constructor(private readonly db: StoreDb, private readonly r: Reader, private readonly inSnapshot: boolean) {}

  static of(database: AnyDatabase | StoreDb): ReportQueries {
    const db = 'atomically' in database ? database : storeDb(database)
    return new ReportQueries(db, db, false)
  }

  /**
   * Runs `fn` over one consistent view of the data, for reads that must agree across statements (a report's
   * rollup slices no longer need it: rollupSums reads them all in one statement).
   * SQLite: the reads are synchronous on the one connection. Postgres: a read-only REPEATABLE READ transaction.
   */
  snapshot<T>(fn: (q: ReportQueries) => Promise<T>): Promise<T> {
    if (this.inSnapshot) return fn(this)
    return this.db.readSnapshot((q) => fn(new ReportQueries(this.db, q, true)))
  }

  async rollupClicks(g: Grouping, f: Filters, seg: Segment): Promise<ClickSumsRow[]> {
    return this.r.all<ClickSumsRow>(rollupClicksQuery(this.db, g, f, seg))
  }

  async rollupConversions(g: Grouping, f: Filters, seg: Segment): Promise<ConversionSumsRow[]> {
    return this.r.all<ConversionSumsRow>(rollupConversionsQuery(this.db, g, f, seg))
  }

  /**
   * Every part of a report in ONE statement (UNION ALL), each row tagged with its part: one round trip and,
   * on Postgres, one statement snapshot, so the parts agree without a REPEATABLE READ transaction (whose
   * BEGIN and COMMIT were two more round trips; on a loaded machine each costs scheduling delays on both sides).
   */
  async rollupSums(g: Grouping, f: Filters, parts: readonly RollupPart[]): Promise<RollupSumsRow[]> {
    if (parts.length === 0) return []
    return this.r.all<RollupSumsRow>(rollupSumsQuery(this.db, g, f, parts))
  }

  /** Clicks created in [from, to), excluded ones left out, grouped; at most `limit` groups. */
  async rawClicks(g: Grouping, f: Filters, from: number, to: number, limit: number): Promise<ClickSumsRow[]> {
    return this.r.all<ClickSumsRow>(sql`
      SELECT ${keys(g, (d) => rawExpr(d, g, 'c', raw('c.created_at')))}, count(*) AS clicks,
        sum(CASE WHEN coalesce(c.bot_reason, '') = '' AND c.is_unique <> 0 THEN 1 ELSE 0 END) AS unique_clicks,
        sum(CASE WHEN coalesce(c.bot_reason, '') <> '' THEN 1 ELSE 0 END) AS bot_clicks, coalesce(sum(c.cost), 0) AS cost,
        count(c.landing_viewed_at) AS landing_views, count(c.landing_clicked_at) AS landing_clicks
      FROM clicks c
      WHERE c.created_at >= ${from} AND c.created_at < ${to} AND c.excluded = 0${rawFilters(f, 'c')}
      GROUP BY ${groupBy(g)} LIMIT ${limit}`)
  }

  /**
   * Conversions dated in [from, to) whose click still exists and is not excluded, grouped by the
   * conversion's own attribution and date plus the click's device, subs…; at most `limit` groups per type.
   */
  async rawConversions(g: Grouping, f: Filters, from: number, to: number, limit: number): Promise<ConversionSumsRow[]> {
    if (this.db.engine === 'postgres') return this.rawConversionsByClickDay(g, f, from, to, limit)
    // CROSS JOIN keeps conversions (date index) as SQLite's outer loop: one click lookup per conversion.
    // The condition sits in WHERE: Postgres takes no ON after CROSS JOIN (and plans it as any inner join).
    return this.r.all<ConversionSumsRow>(sql`${conversionSums(g, f, from, to, sql``)} LIMIT ${limit}`)
  }

  /**
   * Postgres, whose clicks are partitioned by UTC day (docs/postgres.md): the click's created_at, copied into
   * the conversion, names its day. A probe through the partitioned parent re-prunes the partitions for every
   * conversion (35-60 µs each, measured), so each day of the slice's click times gets its own branch joining
   * that day's conversions to that day's partition (a plain index probe each), the branches' sums added up in
   * one statement: 180 ms against 335-375 ms for one join over the span's clicks (7 days of conversions, 110k
   * clicks a day; docs/performance.md). A span of more than MAX_CLICK_DAY_BRANCHES days is joined at once,
   * bounded by the span.
   */
  private async rawConversionsByClickDay(g: Grouping, f: Filters, from: number, to: number, limit: number): Promise<ConversionSumsRow[]> {
    // 0: a conversion recorded before the column, whose click retention had removed: it joins nothing.
    const span = await this.r.get<{ lo: number | null; hi: number | null }>(sql`
      SELECT min(click_created_at) AS lo, max(click_created_at) AS hi FROM conversions
      WHERE date >= ${from} AND date < ${to} AND click_created_at > 0`, ['lo', 'hi'])
    if (!span || span.lo === null || span.hi === null) return []
    const first = span.lo - (((span.lo % DAY_MS) + DAY_MS) % DAY_MS)
    const days = Math.floor((span.hi - first) / DAY_MS) + 1
    if (days > MAX_CLICK_DAY_BRANCHES) {
      const within = sql` AND c.created_at >= ${span.lo} AND c.created_at <= ${span.hi}`
      return this.r.all<ConversionSumsRow>(sql`${conversionSums(g, f, from, to, within)} LIMIT ${limit}`)
    }
    const branches = Array.from({ length: days }, (_, i) => {
      const d = first + i * DAY_MS
      return conversionSums(g, f, from, to, sql`
        AND v.click_created_at >= ${d} AND v.click_created_at < ${d + DAY_MS} AND c.created_at >= ${d} AND c.created_at < ${d + DAY_MS}`)
    })
    const statement = sql`
      SELECT ${groupBy(g)}, type, currency, sum(conversions)::int8 AS conversions, sum(revenue) AS revenue,
        sum(revenue_abs) AS revenue_abs, sum(cost) AS cost, sum(cost_abs) AS cost_abs
      FROM (${join(branches, ' UNION ALL ')}) AS b
      GROUP BY ${groupBy(g)}, type, currency LIMIT ${limit}`
    // Two planner settings for this statement alone (SET LOCAL, so in a read-only transaction of its own, or
    // the snapshot's it is read in). No parallel workers: each is a fresh process that pays a new backend's
    // first costs (catalog entries, first touches of shared memory), 70 ms of a 95 ms statement at 3M clicks. Custom plans only: the
    // generic plan Postgres builds at a prepared statement's sixth run covers every day partition in every
    // branch, 280-330 ms to plan once per connection and statement shape (docs/performance.md, session 22).
    const read = async (q: Reader) => {
      await q.all(sql`SELECT set_config('max_parallel_workers_per_gather', '0', true), set_config('plan_cache_mode', 'force_custom_plan', true)`)
      return q.all<ConversionSumsRow>(statement)
    }
    return this.inSnapshot ? read(this.r) : this.db.readSnapshot(read)
  }

  /**
   * Where a raw scan slice starting at `t` should end so it holds about `rows` rows: the time of the row
   * `rows` places ahead (an index-only walk), or `to`. Slices bound how long one statement blocks.
   */
  async sliceEnd(kind: 'clicks' | 'conversions', t: number, to: number, rows: number): Promise<number> {
    const col = raw(kind === 'clicks' ? 'created_at' : 'date')
    const hit = await this.r.get<{ t: number }>(sql`
      SELECT ${col} AS t FROM ${raw(kind)} WHERE ${col} >= ${t} AND ${col} < ${to} ORDER BY ${col} LIMIT 1 OFFSET ${rows}`)
    return hit === undefined ? to : Math.max(hit.t, t + 1)
  }

  /** id → name of the catalog rows of an id dimension (or of paths); deleted ones are simply missing. */
  async labels(d: LabelledDimension, ids: number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map()
    const rows = await this.r.all<{ id: number; name: string }>(
      sql`SELECT id, name FROM ${raw(labelTable[d])} WHERE ${this.db.inInts(raw('id'), ids)}`)
    return new Map(rows.map((r) => [r.id, r.name]))
  }

  /** Built-in types in their documented order, then the operator's own by slug (byte order). Read per report, so a flag edit applies to every past conversion at once. */
  async conversionTypes(): Promise<TypeFlags[]> {
    const rows = await this.r.all<{ slug: string; include_in_conversions: number; include_in_revenue: number; negative: number }>(sql`
      SELECT slug, include_in_conversions, include_in_revenue, negative FROM conversion_types
      ORDER BY ${BUILTIN_ORDER}, slug ${this.db.byteOrder}`)
    return rows.map((r) => ({
      slug: r.slug,
      include_in_conversions: r.include_in_conversions === 1,
      include_in_revenue: r.include_in_revenue === 1,
      negative: r.negative === 1,
    }))
  }

  /** Conversions dated in [from, to) after (afterDate, afterId), in (date, id) order: keyset paging for the export. */
  async conversionsAfter(f: Filters, from: number, to: number, afterDate: number, afterId: number, limit: number): Promise<ExportedConversion[]> {
    return this.r.all<ExportedConversion>(sql`
      SELECT v.id, v.date, v.click_id, v.type, v.status, v.revenue, v.currency, v.transaction_id, v.campaign_id, v.source_id,
        v.offer_id, v.landing_id
      FROM conversions v
      WHERE v.date >= ${from} AND v.date < ${to}
        AND (v.date > ${afterDate} OR (v.date = ${afterDate} AND v.id > ${afterId}))${rawFilters(f, 'v')}
      ORDER BY v.date, v.id LIMIT ${limit}`)
  }
}

/** The SELECT of a rollup segment of clicks (exported for the EXPLAIN test). */
export function rollupClicksQuery(db: StoreDb, g: Grouping, f: Filters, seg: Segment): Sql {
  const r = rollupRead(db, 'click', g, seg, f)
  return sql`
    SELECT ${r.keys}, sum(clicks) AS clicks, sum(unique_clicks) AS unique_clicks, sum(bot_clicks) AS bot_clicks,
      coalesce(sum(cost), 0) AS cost, sum(landing_views) AS landing_views, sum(landing_clicks) AS landing_clicks
    FROM ${r.table} WHERE ${r.where}${rollupFilters(f)} GROUP BY ${r.groupBy}`
}

/** The SELECT of a rollup segment of conversions (exported for the EXPLAIN test). */
export function rollupConversionsQuery(db: StoreDb, g: Grouping, f: Filters, seg: Segment): Sql {
  const r = rollupRead(db, 'conversion', g, seg, f)
  return sql`
    SELECT ${r.keys}, type, currency, sum(conversions) AS conversions, coalesce(sum(revenue), 0) AS revenue,
      coalesce(sum(revenue_abs), 0) AS revenue_abs, coalesce(sum(cost), 0) AS cost, coalesce(sum(cost_abs), 0) AS cost_abs
    FROM ${r.table} WHERE ${r.where}${rollupFilters(f)} GROUP BY ${r.groupBy}, type, currency`
}

/**
 * The UNION ALL of rollupSums (exported for the EXPLAIN test): each part is the GROUP BY of rollupClicksQuery or
 * rollupConversionsQuery (same table, index range and grouping) with the columns of the other kind as 0, so every
 * part has the same columns. `u` is 0 outside 'hours' segments.
 */
export function rollupSumsQuery(db: StoreDb, g: Grouping, f: Filters, parts: readonly RollupPart[]): Sql {
  return join(parts.map((p, i) => {
    const r = rollupRead(db, p.kind, g, p.seg, f)
    const head = sql`SELECT ${int(i)} AS part, ${r.keys}${p.seg.table === 'hours' ? raw('') : raw(', 0 AS u')}`
    const tail = sql`FROM ${r.table} WHERE ${r.where}${rollupFilters(f)} GROUP BY ${r.groupBy}`
    return p.kind === 'click'
      ? sql`${head}, '' AS type, '' AS currency, sum(clicks) AS clicks, sum(unique_clicks) AS unique_clicks, sum(bot_clicks) AS bot_clicks,
      coalesce(sum(cost), 0) AS cost, sum(landing_views) AS landing_views, sum(landing_clicks) AS landing_clicks,
      0 AS conversions, 0 AS revenue, 0 AS revenue_abs, 0 AS conversion_cost, 0 AS conversion_cost_abs ${tail}`
      : sql`${head}, type, currency, 0 AS clicks, 0 AS unique_clicks, 0 AS bot_clicks, 0 AS cost, 0 AS landing_views, 0 AS landing_clicks,
      sum(conversions) AS conversions, coalesce(sum(revenue), 0) AS revenue, coalesce(sum(revenue_abs), 0) AS revenue_abs,
      coalesce(sum(cost), 0) AS conversion_cost, coalesce(sum(cost_abs), 0) AS conversion_cost_abs ${tail}, type, currency`
  }), ' UNION ALL ')
}

/** Table, key expressions, WHERE and GROUP BY of one rollup segment. */
function rollupRead(db: StoreDb, kind: 'click' | 'conversion', g: Grouping, seg: Segment, f: Filters) {
  const family = g.rollup ?? 'stats'
  if (seg.table === 'daily') {
    // By country over all campaigns: the per-day totals (a row per day and country, not per campaign too).
    const total = family === 'country' && f.campaign_id === undefined && !g.dims.includes('campaign')
    const table = `${kind}_${family}_${total ? 'total_' : ''}daily`
    return {
      table: raw(table), keys: keys(g, (d) => rollupExpr(d, g, 'day', table)), groupBy: groupBy(g),
      where: sql`day >= ${seg.from} AND day < ${seg.to}`,
    }
  }
  const table = `${kind}_${family}_hourly`
  const k = keys(g, (d) => rollupExpr(d, g, 'hour', table))
  if (seg.table !== 'hours') return { table: raw(table), keys: k, groupBy: groupBy(g), where: sql`hour >= ${seg.from} AND hour < ${seg.to}` }
  return {
    table: raw(table), keys: sql`${k}, hour / ${int(DAY_MS)} * ${int(DAY_MS)} AS u`, groupBy: sql`${groupBy(g)}, u`,
    where: db.inInts(raw('hour'), seg.at),
  }
}

/** An integer computed by the code (a unit, an offset, a DST change) written into the text: same text per zone and range. */
function int(n: number): Sql {
  if (!Number.isSafeInteger(n)) throw new Error(`reports: not an integer: ${n}`)
  return raw(String(n))
}

const keys = (g: Grouping, expr: (d: Dimension) => Sql) => join(g.dims.map((d, i) => sql`${expr(d)} AS ${raw(`k${i + 1}`)}`))
const groupBy = (g: Grouping) => raw(g.dims.map((_, i) => `k${i + 1}`).join(', '))

/** Beyond this many UTC days of click times in one slice, Postgres joins the slice's conversions in one go. */
const MAX_CLICK_DAY_BRANCHES = 31

/**
 * Conversions dated in [from, to) joined to their (kept, not excluded) clicks, summed per group, type and
 * currency; `clicks`: more conditions (Postgres: the click days, see rawConversionsByClickDay). No LIMIT.
 */
const conversionSums = (g: Grouping, f: Filters, from: number, to: number, clicks: Sql): Sql => sql`
      SELECT ${keys(g, (d) => rawExpr(d, g, 'v', raw('v.date')))}, v.type AS type, ${CONVERSION_CURRENCY} AS currency,
        count(*) AS conversions, coalesce(sum(v.revenue), 0) AS revenue, coalesce(sum(abs(v.revenue)), 0) AS revenue_abs,
        coalesce(sum(v.cost), 0) AS cost, coalesce(sum(abs(v.cost)), 0) AS cost_abs
      FROM conversions v CROSS JOIN clicks c
      WHERE c.id = v.click_row_id AND c.created_at = v.click_created_at${clicks}
        AND v.date >= ${from} AND v.date < ${to} AND c.excluded = 0${rawFilters(f, 'v')}
      GROUP BY ${groupBy(g)}, v.type, ${CONVERSION_CURRENCY}`

/** Built-in types in their documented order, the operator's own after them (the slugs are our own constants). */
const BUILTIN_ORDER = raw(`CASE slug ${BUILTIN_TYPES.map((slug, i) => `WHEN '${slug}' THEN ${i}`).join(' ')} ELSE ${BUILTIN_TYPES.length} END`)

/**
 * Rollup rows carry ids (0 = none) and a UTC hour or day; local days/hours of hourly rows come from the
 * zone's offsets. A daily row stands for its UTC day (the service corrects the hours that belong elsewhere).
 */
function rollupExpr(d: Dimension, g: Grouping, time: 'hour' | 'day', table: string): Sql {
  if (isIdDimension(d)) return raw(idColumn(d))
  if (d === 'currency') return table.startsWith('conversion') ? raw('currency') : offerCurrency(`${table}.offer_id`)
  if (d === 'day') return time === 'day' ? raw('day') : localTime(g, raw(time), DAY_MS)
  if (d === 'hour') return localTime(g, raw(time), HOUR_MS)
  // The targeting rollups of that dimension (click_country_*, click_path_*…) only.
  if (d === 'country' || d === 'path') return raw(clickColumn(d))
  throw new Error(`rollups cannot group by ${d}`)
}

/** Raw rows: ids and time from `idAlias` (the conversion's own attribution and date), the rest from the click. */
function rawExpr(d: Dimension, g: Grouping, idAlias: 'c' | 'v', time: Sql): Sql {
  if (isIdDimension(d)) return raw(`${idAlias}.${idColumn(d)}`)
  if (d === 'currency') return idAlias === 'v' ? CONVERSION_CURRENCY : offerCurrency('c.offer_id')
  if (d === 'day') return localTime(g, time, DAY_MS)
  if (d === 'hour') return localTime(g, time, HOUR_MS)
  return raw(`c.${clickColumn(d)}`)
}

/** A raw conversion's currency as the rollups key it. */
const CONVERSION_CURRENCY = raw("upper(coalesce(v.currency, ''))")

/** The currency of clicks: their offer's ('' without one, read as the cost currency). */
const offerCurrency = (offerId: string): Sql => raw(`coalesce((SELECT upper(o.currency) FROM offers o WHERE o.id = ${offerId}), '')`)

const rollupFilters = (f: Filters): Sql =>
  join(FILTER_NAMES.filter((n) => f[n] !== undefined).map((n) => sql` AND ${raw(n)} = ${f[n]!}`), '')

/** Raw rows store "none" as NULL (rollups as 0). */
const rawFilters = (f: Filters, alias: 'c' | 'v'): Sql =>
  join(FILTER_NAMES.filter((n) => f[n] !== undefined).map((n) =>
    f[n] === 0 ? raw(` AND ${alias}.${n} IS NULL`) : sql` AND ${raw(`${alias}.${n}`)} = ${f[n]!}`), '')

/**
 * The local day or hour (`unit` ms) of the instant in `column`, as epoch ms of its start read as UTC:
 * (column + offset) / unit * unit in integer arithmetic on both engines (integers only in the text), the
 * offset being a constant or a CASE over the DST changes in [from, to).
 */
function localTime(g: Grouping, column: Sql, unit: number): Sql {
  return sql`((${column} + ${offset(g, column)}) / ${int(unit)} * ${int(unit)})`
}

function offset({ zone, from, to }: { zone: Zone; from: number; to: number }, column: Sql): Sql {
  const { first, changes } = zone.changes(from, to)
  if (changes.length === 0) return int(first)
  let expr = sql`CASE WHEN ${column} < ${int(changes[0]![0])} THEN ${int(first)}`
  for (let i = 0; i < changes.length; i++) {
    const next = changes[i + 1]
    expr = next
      ? sql`${expr} WHEN ${column} < ${int(next[0])} THEN ${int(changes[i]![1])}`
      : sql`${expr} ELSE ${int(changes[i]![1])} END`
  }
  return expr
}
