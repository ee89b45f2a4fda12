// Conversion rollups: upserts into conversion_stats_hourly inside the conversions' own transaction (a
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
export type RollupConversion = Pick<RecordedConversion, 'campaignId' | 'sourceId' | 'offerId' | 'landingId' | 'revenue' | 'date' | 'excluded'> & {
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
  type: string
  /** Upper-case code, '' for none (reports read it as the cost currency). */
  currency: string
  revenue: number
  abs: number
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
    type: c.type.slug,
    currency: (c.currency ?? '').toUpperCase(),
    revenue: sign * c.revenue,
    abs: sign * Math.abs(c.revenue),
    count: sign,
  }
}

/** The increments of one hourly row, summed over the conversions of a transaction. */
export type RollupSum = Omit<RollupDelta, 'count'> & { conversions: number }

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
    } else {
      const { count, ...rest } = d
      rows.set(key, { ...rest, conversions: count })
    }
  }
  const sums = [...rows.values()]
  if (sums.length > 1) sums.sort(lockOrder)
  return sums
}

function lockOrder(a: RollupSum, b: RollupSum): number {
  return (a.hour - (a.hour % DAY_MS)) - (b.hour - (b.hour % DAY_MS)) || a.campaign - b.campaign || a.source - b.source ||
    a.offer - b.offer || a.landing - b.landing || a.hour - b.hour || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0) ||
    (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0)
}

export class ConversionRollup {
  private readonly upsert: RawStatement

  constructor(raw: RawDb) {
    this.upsert = raw.prepare(
      'INSERT INTO conversion_stats_hourly (hour, campaign_id, source_id, offer_id, landing_id, type, currency, conversions, revenue, revenue_abs) ' +
        'VALUES ($hour, $campaign, $source, $offer, $landing, $type, $currency, $conversions, $revenue, $abs) ' +
        'ON CONFLICT (hour, campaign_id, source_id, offer_id, landing_id, type, currency) DO UPDATE SET ' +
        'conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs',
    )
  }

  /** The before-commit subscriber: runs inside the conversions' transaction (on SQLite the shared connection already is). */
  readonly addAll = (cs: readonly RollupConversion[]): void => {
    for (const row of rollupSums(cs)) this.upsert.run(row)
  }
}

/** The rollup writer for the engine: a before-commit subscriber body (`tx` is the conversions' transaction on Postgres). */
export function createConversionRollup(db: AnyDatabase): (cs: readonly RollupConversion[], tx: Tx) => void | Promise<void> {
  return db.engine === 'postgres' ? new PgConversionRollup().addAll : new ConversionRollup(db.raw).addAll
}
