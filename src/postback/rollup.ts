// Conversion rollups: upserts into conversion_stats_hourly (and the targeting rollups conversion_country_hourly
// and conversion_path_hourly) inside the conversions' own transaction (a
// before-commit subscriber of `conversion.recorded`), so a recorded conversion is counted exactly once or
// not at all. The conversions of one group commit are summed per row first: one upsert per row touched,
// not per conversion, and it runs last, so a hot campaign's row is locked only for the COMMIT (Postgres).
// The daily table follows by trigger. Raw count and revenue are stored; include flags and the sign of
// negative types are applied when a report reads them.
// This file: the row a conversion adds (both engines) and the SQLite writer; pg-rollup.ts: Postgres. The
// rollups are the reports' read model (reports/ subscribes the writer and reads the rows); the writer sits here,
// with the other hot-path twins of a conversion's transaction.
import type { RawDb, RawStatement } from '../db/client'
import type { AnyDatabase, Tx } from '../db/engine'
import { PgConversionRollup } from './pg-rollup'
import type { RecordedConversion } from '../events'

const HOUR_MS = 3_600_000

/** What a rollup row needs of a conversion. */
export type RollupConversion = Pick<RecordedConversion, 'campaignId' | 'sourceId' | 'offerId' | 'landingId' | 'country' | 'pathId' | 'revenue' | 'date' | 'excluded'> & {
  /** revshare cost (absent: 0), summed beside revenue in the same currency. */
  cost?: number
  type: { slug: string }
  /** The conversion's currency; null or absent: none ('' in the rollup key, read as the cost currency). */
  currency?: string | null
  /** -1 takes a conversion back out (its row as it was counted, before a status update moved it); default 1. */
  sign?: 1 | -1
}

/** The key and increments of the hourly row a conversion adds to; "none" is 0 (NULLs never conflict). */
export type RollupDelta = {
  hour: number
  campaign: number
  source: number
  offer: number
  landing: number
  /** The targeting rollup's key: country '' = unknown, path 0 = the default rotation. */
  country: string
  path: number
  type: string
  /** Upper-case code, '' for none (reports read it as the cost currency). */
  currency: string
  revenue: number
  abs: number
  /** revshare cost, raw and |cost|, as revenue (reports apply the type's flags to both alike). */
  cost: number
  costAbs: number
  /** 1, or -1 for a conversion taken back out. */
  count: 1 | -1
}

/** null: the conversion stays out of every report (the operator's own clicks are, and so are their conversions). */
export function rollupDelta(c: RollupConversion): RollupDelta | null {
  if (c.excluded) return null
  const sign = c.sign ?? 1
  return {
    hour: c.date - (c.date % HOUR_MS),
    campaign: c.campaignId,
    source: c.sourceId ?? 0,
    offer: c.offerId ?? 0,
    landing: c.landingId ?? 0,
    country: c.country ?? '',
    path: c.pathId ?? 0,
    type: c.type.slug,
    currency: (c.currency ?? '').toUpperCase(),
    revenue: sign * c.revenue,
    abs: sign * Math.abs(c.revenue),
    cost: sign * (c.cost ?? 0),
    costAbs: sign * Math.abs(c.cost ?? 0),
    count: sign,
  }
}

/** The increments of one hourly row, summed over the conversions of a transaction. */
export type RollupSum = Omit<RollupDelta, 'count' | 'country' | 'path'> & { conversions: number }

/** The increments of one targeting rollup row: `key` is the country ('' = unknown) or the path (0 = default rotation). */
export type TargetingSum = Pick<RollupDelta, 'hour' | 'campaign' | 'type' | 'currency' | 'revenue' | 'abs' | 'cost' | 'costAbs'> & { key: string | number; conversions: number }

const DAY_MS = 86_400_000

/**
 * The conversions of one transaction summed per hourly row, in lock order: day, campaign, source, offer,
 * landing, hour, type, currency. Day first, so that the daily rows the trigger then updates are locked in order too
 * (the click rollup's order, tracking/store/pg-commit.ts): two transactions never wait on each other in a cycle.
 */
export function rollupSums(cs: readonly RollupConversion[]): RollupSum[] {
  const rows = new Map<string, RollupSum>()
  for (const c of cs) {
    const d = rollupDelta(c)
    if (!d) continue
    const key = `${d.hour}|${d.campaign}|${d.source}|${d.offer}|${d.landing}|${d.type}|${d.currency}`
    const row = rows.get(key)
    if (row) {
      row.conversions += d.count
      row.revenue += d.revenue
      row.abs += d.abs
      row.cost += d.cost
      row.costAbs += d.costAbs
    } else {
      const { count, country: _country, path: _path, ...rest } = d
      rows.set(key, { ...rest, conversions: count })
    }
  }
  const sums = [...rows.values()]
  if (sums.length > 1) sums.sort(lockOrder)
  return sums
}

/**
 * The conversions of one transaction summed per targeting rollup row of `d` (conversion_country_hourly or
 * conversion_path_hourly), in lock order: day, campaign, key, hour, type, currency. 'countryTotal': the rows of
 * conversion_country_total_daily (per UTC day and country over all campaigns: `hour` holds the day, `campaign`
 * 0), written last (db/schema/stats.ts).
 */
export function targetingSums(cs: readonly RollupConversion[], d: 'country' | 'path' | 'countryTotal'): TargetingSum[] {
  const rows = new Map<string, TargetingSum>()
  for (const c of cs) {
    const x = rollupDelta(c)
    if (!x) continue
    const key = d === 'path' ? x.path : x.country
    if (d === 'countryTotal') {
      x.hour -= x.hour % DAY_MS
      x.campaign = 0
    }
    const id = `${x.hour}|${x.campaign}|${key}|${x.type}|${x.currency}`
    const row = rows.get(id)
    if (row) {
      row.conversions += x.count
      row.revenue += x.revenue
      row.abs += x.abs
      row.cost += x.cost
      row.costAbs += x.costAbs
    } else {
      rows.set(id, {
        hour: x.hour, campaign: x.campaign, key, type: x.type, currency: x.currency, revenue: x.revenue, abs: x.abs, cost: x.cost, costAbs: x.costAbs,
        conversions: x.count,
      })
    }
  }
  const sums = [...rows.values()]
  if (sums.length > 1) sums.sort(targetingLockOrder)
  return sums
}

const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0)

function targetingLockOrder(a: TargetingSum, b: TargetingSum): number {
  return (a.hour - (a.hour % DAY_MS)) - (b.hour - (b.hour % DAY_MS)) || a.campaign - b.campaign || cmp(a.key, b.key) ||
    a.hour - b.hour || cmp(a.type, b.type) || cmp(a.currency, b.currency)
}

function lockOrder(a: RollupSum, b: RollupSum): number {
  return (a.hour - (a.hour % DAY_MS)) - (b.hour - (b.hour % DAY_MS)) || a.campaign - b.campaign || a.source - b.source ||
    a.offer - b.offer || a.landing - b.landing || a.hour - b.hour || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0) ||
    (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0)
}

export class ConversionRollup {
  private readonly upsert: RawStatement
  private readonly upsertCountry: RawStatement
  private readonly upsertPath: RawStatement
  private readonly upsertTotal: RawStatement

  constructor(raw: RawDb) {
    this.upsert = raw.prepare(
      'INSERT INTO conversion_stats_hourly (hour, campaign_id, source_id, offer_id, landing_id, type, currency, conversions, revenue, revenue_abs, cost, cost_abs) ' +
        'VALUES ($hour, $campaign, $source, $offer, $landing, $type, $currency, $conversions, $revenue, $abs, $cost, $costAbs) ' +
        'ON CONFLICT (hour, campaign_id, source_id, offer_id, landing_id, type, currency) DO UPDATE SET ' +
        'conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs, ' +
        'cost = cost + excluded.cost, cost_abs = cost_abs + excluded.cost_abs',
    )
    const targeting = (table: string, column: string) => raw.prepare(
      `INSERT INTO ${table} (hour, campaign_id, ${column}, type, currency, conversions, revenue, revenue_abs, cost, cost_abs) ` +
        'VALUES ($hour, $campaign, $key, $type, $currency, $conversions, $revenue, $abs, $cost, $costAbs) ' +
        `ON CONFLICT (hour, campaign_id, ${column}, type, currency) DO UPDATE SET ` +
        'conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs, ' +
        'cost = cost + excluded.cost, cost_abs = cost_abs + excluded.cost_abs',
    )
    this.upsertCountry = targeting('conversion_country_hourly', 'country')
    this.upsertPath = targeting('conversion_path_hourly', 'path_id')
    this.upsertTotal = raw.prepare(
      'INSERT INTO conversion_country_total_daily (day, country, type, currency, conversions, revenue, revenue_abs, cost, cost_abs) ' +
        'VALUES ($hour, $key, $type, $currency, $conversions, $revenue, $abs, $cost, $costAbs) ON CONFLICT (day, country, type, currency) DO UPDATE SET ' +
        'conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs, ' +
        'cost = cost + excluded.cost, cost_abs = cost_abs + excluded.cost_abs',
    )
  }

  /** The before-commit subscriber: runs inside the conversions' transaction (on SQLite the shared connection already is). */
  readonly addAll = (cs: readonly RollupConversion[]): void => {
    for (const row of rollupSums(cs)) this.upsert.run(row)
    for (const row of targetingSums(cs, 'country')) this.upsertCountry.run(row)
    for (const row of targetingSums(cs, 'path')) this.upsertPath.run(row)
    for (const { campaign: _, ...row } of targetingSums(cs, 'countryTotal')) this.upsertTotal.run(row)
  }
}

/** The rollup writer for the engine: a before-commit subscriber body (`tx` is the conversions' transaction on Postgres). */
export function createConversionRollup(db: AnyDatabase): (cs: readonly RollupConversion[], tx: Tx) => void | Promise<void> {
  return db.engine === 'postgres' ? new PgConversionRollup().addAll : new ConversionRollup(db.raw).addAll
}
