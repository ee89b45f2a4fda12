// Postgres twin of queries.ts: the same reads, built from Bun SQL fragments (every value a parameter,
// every identifier from a fixed list). Local days and hours use the same arithmetic as SQLite: the
// instant plus the zone's UTC offset (a CASE over the range's DST changes, computed by tz.ts), floored
// to a day or hour with integer division. Postgres' own time zone data is not used, so both engines
// (and the service's hour corrections, which use tz.ts too) always agree on which local day an hour is.
//
// Every rollup read is an index range scan of the rollup table's primary key (hour/day first): see
// test/reports/pg-reports.test.ts, "rollup reads are served by an index", which EXPLAINs each one.
import type { SQL } from 'bun'
import { num, numCols } from '../db/pg/client'
import { BUILTIN_TYPES } from '../postback/builtin-types'
import { clickColumn, idColumn, isIdDimension, labelTable, type Dimension, type IdDimension } from './dimensions'
import type { TypeFlags } from './metrics'
import {
  FILTER_NAMES, type ClickSumsRow, type ConversionSumsRow, type ExportedConversion, type Filters, type Grouping, type ReportQueries,
  type Segment,
} from './queries'
import type { Zone } from './tz'

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000

/** A piece of SQL built by Bun's tagged template (text plus its parameters). */
type Fragment = SQL.Query<any>

export class PgReportQueries implements ReportQueries {
  /** `sql`: the pool, or the transaction of a snapshot. */
  constructor(private readonly sql: SQL, private readonly inSnapshot = false) {}

  async snapshot<T>(fn: (q: ReportQueries) => Promise<T>): Promise<T> {
    if (this.inSnapshot) return fn(this)
    return (await this.sql.begin('read only isolation level repeatable read', (tx) => fn(new PgReportQueries(tx, true)))) as T
  }

  async rollupClicks(g: Grouping, f: Filters, seg: Segment): Promise<ClickSumsRow[]> {
    return this.rows(rollupClicksQuery(this.sql, g, f, seg), g, 'u', 'clicks', 'unique_clicks', 'bot_clicks', 'cost', 'landing_views', 'landing_clicks')
  }

  async rollupConversions(g: Grouping, f: Filters, seg: Segment): Promise<ConversionSumsRow[]> {
    return this.rows(rollupConversionsQuery(this.sql, g, f, seg), g, 'u', 'conversions', 'revenue', 'revenue_abs')
  }

  async rawClicks(g: Grouping, f: Filters, from: number, to: number, limit: number): Promise<ClickSumsRow[]> {
    const sql = this.sql
    const q = sql`
      SELECT ${keys(sql, g, (d) => rawExpr(sql, d, g, 'c', 'c.created_at'))}, count(*)::float8 AS clicks,
        sum(CASE WHEN coalesce(c.bot_reason, '') = '' AND c.is_unique <> 0 THEN 1 ELSE 0 END)::float8 AS unique_clicks,
        sum(CASE WHEN coalesce(c.bot_reason, '') <> '' THEN 1 ELSE 0 END)::float8 AS bot_clicks,
        coalesce(sum(c.cost), 0)::float8 AS cost,
        count(c.landing_viewed_at)::float8 AS landing_views, count(c.landing_clicked_at)::float8 AS landing_clicks
      FROM clicks c
      WHERE c.created_at >= ${from}::bigint AND c.created_at < ${to}::bigint AND c.excluded = 0 ${rawFilters(sql, f, 'c')}
      GROUP BY ${groupBy(sql, g)} LIMIT ${limit}`
    return this.rows(q, g)
  }

  async rawConversions(g: Grouping, f: Filters, from: number, to: number, limit: number): Promise<ConversionSumsRow[]> {
    const sql = this.sql
    const q = sql`
      SELECT ${keys(sql, g, (d) => rawExpr(sql, d, g, 'v', 'v.date'))}, v.type AS type, ${conversionCurrency(sql)} AS currency,
        count(*)::float8 AS conversions,
        coalesce(sum(v.revenue), 0)::float8 AS revenue, coalesce(sum(abs(v.revenue)), 0)::float8 AS revenue_abs
      FROM conversions v JOIN clicks c ON c.id = v.click_row_id
      WHERE v.date >= ${from}::bigint AND v.date < ${to}::bigint AND c.excluded = 0 ${rawFilters(sql, f, 'v')}
      GROUP BY ${groupBy(sql, g)}, v.type, ${conversionCurrency(sql)} LIMIT ${limit}`
    return this.rows(q, g)
  }

  async sliceEnd(kind: 'clicks' | 'conversions', t: number, to: number, rows: number): Promise<number> {
    const [hit] = kind === 'clicks'
      ? await this.sql`SELECT created_at AS t FROM clicks WHERE created_at >= ${t}::bigint AND created_at < ${to}::bigint
          ORDER BY created_at LIMIT 1 OFFSET ${rows}`
      : await this.sql`SELECT date AS t FROM conversions WHERE date >= ${t}::bigint AND date < ${to}::bigint
          ORDER BY date LIMIT 1 OFFSET ${rows}`
    return hit === undefined ? to : Math.max(num(hit.t), t + 1)
  }

  async labels(d: IdDimension, ids: number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map()
    // labelTable is a fixed map of our own table names; sql(name) quotes it as an identifier.
    const rows: Array<{ id: number; name: string }> = await this.sql`
      SELECT id, name FROM ${this.sql(labelTable[d])} WHERE id = ANY(${this.sql.array(ids, 'INT8')})`
    return new Map(rows.map((r) => [num(r.id), r.name]))
  }

  async conversionTypes(): Promise<TypeFlags[]> {
    // COLLATE "C": byte order, as SQLite's BINARY, whatever the database's locale.
    const rows: Array<{ slug: string; include_in_conversions: number; include_in_revenue: number; negative: number }> = await this.sql`
      SELECT slug, include_in_conversions, include_in_revenue, negative FROM conversion_types
      ORDER BY coalesce(array_position(${this.sql.array([...BUILTIN_TYPES], 'TEXT')}, slug), ${BUILTIN_TYPES.length + 1}), slug COLLATE "C"`
    return rows.map((r) => ({
      slug: r.slug,
      include_in_conversions: r.include_in_conversions === 1,
      include_in_revenue: r.include_in_revenue === 1,
      negative: r.negative === 1,
    }))
  }

  async conversionsAfter(f: Filters, from: number, to: number, afterDate: number, afterId: number, limit: number): Promise<ExportedConversion[]> {
    const rows: Array<ExportedConversion & Record<string, unknown>> = await this.sql`
      SELECT v.id, v.date, v.click_id, v.type, v.status, v.revenue, v.currency, v.transaction_id, v.campaign_id, v.source_id,
        v.offer_id, v.landing_id
      FROM conversions v
      WHERE v.date >= ${from}::bigint AND v.date < ${to}::bigint
        AND (v.date > ${afterDate}::bigint OR (v.date = ${afterDate}::bigint AND v.id > ${afterId}::bigint)) ${rawFilters(this.sql, f, 'v')}
      ORDER BY v.date, v.id LIMIT ${limit}`
    return numCols([...rows], 'id', 'date')
  }

  /** Runs a grouped read; int8 values (time keys, the UTC day `u`) back to numbers. */
  private async rows<T extends { k1: unknown; k2?: unknown }>(q: Fragment, g: Grouping, ...cols: string[]): Promise<T[]> {
    const rows = [...((await q) as unknown as T[])]
    const timeKeys = g.dims.flatMap((d, i) => (d === 'day' || d === 'hour' ? [`k${i + 1}`] : []))
    return numCols(rows as Array<Record<string, unknown>>, ...timeKeys, ...cols) as T[]
  }
}

/** The SELECT of a rollup segment of clicks (exported for the EXPLAIN test). */
export function rollupClicksQuery(sql: SQL, g: Grouping, f: Filters, seg: Segment): Fragment {
  const r = rollupRead(sql, 'click', g, seg)
  return sql`
    SELECT ${r.keys}, sum(clicks)::float8 AS clicks, sum(unique_clicks)::float8 AS unique_clicks, sum(bot_clicks)::float8 AS bot_clicks,
      sum(cost)::float8 AS cost, sum(landing_views)::float8 AS landing_views,
      sum(landing_clicks)::float8 AS landing_clicks
    FROM ${r.table} WHERE ${r.where} ${rollupFilters(sql, f)} GROUP BY ${r.groupBy}`
}

/** The SELECT of a rollup segment of conversions (exported for the EXPLAIN test). */
export function rollupConversionsQuery(sql: SQL, g: Grouping, f: Filters, seg: Segment): Fragment {
  const r = rollupRead(sql, 'conversion', g, seg)
  return sql`
    SELECT ${r.keys}, type, currency, sum(conversions)::float8 AS conversions, sum(revenue)::float8 AS revenue,
      sum(revenue_abs)::float8 AS revenue_abs
    FROM ${r.table} WHERE ${r.where} ${rollupFilters(sql, f)} GROUP BY ${r.groupBy}, type, currency`
}

/** Table, key expressions, WHERE and GROUP BY of one rollup segment (as in queries.ts). */
function rollupRead(sql: SQL, kind: 'click' | 'conversion', g: Grouping, seg: Segment) {
  if (seg.table === 'daily') {
    return {
      table: sql(`${kind}_stats_daily`), keys: keys(sql, g, (d) => rollupExpr(sql, d, g, 'day', `${kind}_stats_daily`)), groupBy: groupBy(sql, g),
      where: sql`day >= ${seg.from}::bigint AND day < ${seg.to}::bigint`,
    }
  }
  const table = sql(`${kind}_stats_hourly`)
  const k = keys(sql, g, (d) => rollupExpr(sql, d, g, 'hour', `${kind}_stats_hourly`))
  if (seg.table !== 'hours') {
    return { table, keys: k, groupBy: groupBy(sql, g), where: sql`hour >= ${seg.from}::bigint AND hour < ${seg.to}::bigint` }
  }
  return {
    table, keys: sql`${k}, hour / ${DAY_MS} * ${DAY_MS} AS u`, groupBy: sql`${groupBy(sql, g)}, u`,
    where: sql`hour = ANY(${sql.array(seg.at, 'INT8')})`,
  }
}

/** `expr AS k1, expr AS k2`. Output names are our own constants. */
function keys(sql: SQL, g: Grouping, expr: (d: Dimension) => Fragment): Fragment {
  return join(sql, g.dims.map((d, i) => sql`${expr(d)} AS ${sql(`k${i + 1}`)}`))
}

function groupBy(sql: SQL, g: Grouping): Fragment {
  return join(sql, g.dims.map((_, i) => sql(`k${i + 1}`)))
}

/** Fragments separated by commas (Bun joins an array of fragments with spaces only). */
function join(sql: SQL, parts: Fragment[]): Fragment {
  return parts.slice(1).reduce((acc, p) => sql`${acc}, ${p}`, parts[0]!)
}

function rollupExpr(sql: SQL, d: Dimension, g: Grouping, time: 'hour' | 'day', table: string): Fragment {
  if (isIdDimension(d)) return sql(idColumn(d))
  if (d === 'currency') return table.startsWith('conversion') ? sql('currency') : offerCurrency(sql, `${table}.offer_id`)
  if (d === 'day') return time === 'day' ? sql('day') : localTime(sql, g.zone, sql(time), g.from, g.to, DAY_MS)
  if (d === 'hour') return localTime(sql, g.zone, sql(time), g.from, g.to, HOUR_MS)
  throw new Error(`rollups cannot group by ${d}`)
}

function rawExpr(sql: SQL, d: Dimension, g: Grouping, idAlias: 'c' | 'v', time: 'c.created_at' | 'v.date'): Fragment {
  if (isIdDimension(d)) return sql(`${idAlias}.${idColumn(d)}`)
  if (d === 'currency') return idAlias === 'v' ? conversionCurrency(sql) : offerCurrency(sql, 'c.offer_id')
  if (d === 'day') return localTime(sql, g.zone, sql(time), g.from, g.to, DAY_MS)
  if (d === 'hour') return localTime(sql, g.zone, sql(time), g.from, g.to, HOUR_MS)
  return sql(`c.${clickColumn(d)}`)
}

/** As CONVERSION_CURRENCY and offerCurrencySql in queries.ts. */
const conversionCurrency = (sql: SQL): Fragment => sql`upper(coalesce(v.currency, ''))`
const offerCurrency = (sql: SQL, offerId: string): Fragment => sql`coalesce((SELECT upper(o.currency) FROM offers o WHERE o.id = ${sql(offerId)}), '')`

function rollupFilters(sql: SQL, f: Filters): Fragment {
  return concat(sql, FILTER_NAMES.filter((n) => f[n] !== undefined).map((n) => sql`AND ${sql(n)} = ${f[n]!}`))
}

/** Raw rows store "none" as NULL (rollups as 0). */
function rawFilters(sql: SQL, f: Filters, alias: 'c' | 'v'): Fragment {
  return concat(sql, FILTER_NAMES.filter((n) => f[n] !== undefined).map((n) =>
    f[n] === 0 ? sql`AND ${sql(`${alias}.${n}`)} IS NULL` : sql`AND ${sql(`${alias}.${n}`)} = ${f[n]!}`,
  ))
}

/** Fragments one after the other; an empty list is empty SQL (Bun would bind an empty array as a parameter). */
function concat(sql: SQL, parts: Fragment[]): Fragment {
  return parts.reduce((acc, p) => sql`${acc} ${p}`, sql``)
}

/**
 * The local day or hour (`unit` ms) of the instant in `column`, as epoch ms of its start read as UTC:
 * (column + offset) / unit * unit in bigint arithmetic, the offset being a constant or a CASE over the
 * DST changes in [from, to), exactly as localDaySql/localHourSql in queries.ts.
 */
function localTime(sql: SQL, zone: Zone, column: Fragment, from: number, to: number, unit: number): Fragment {
  return sql`((${column} + ${offset(sql, zone, column, from, to)}) / ${unit}::bigint * ${unit}::bigint)`
}

function offset(sql: SQL, zone: Zone, column: Fragment, from: number, to: number): Fragment {
  const { first, changes } = zone.changes(from, to)
  if (changes.length === 0) return sql`${first}::bigint`
  let expr = sql`CASE WHEN ${column} < ${changes[0]![0]}::bigint THEN ${first}::bigint`
  for (let i = 0; i < changes.length; i++) {
    const next = changes[i + 1]
    expr = next
      ? sql`${expr} WHEN ${column} < ${next[0]}::bigint THEN ${changes[i]![1]}::bigint`
      : sql`${expr} ELSE ${changes[i]![1]}::bigint END`
  }
  return expr
}
