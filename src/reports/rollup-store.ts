// Conversion rollups: one upsert into conversion_stats_hourly inside each conversion's own transaction
// (an in-transaction subscriber of `conversion.recorded`), so a recorded conversion is counted exactly
// once or not at all. The daily table follows by trigger. Raw count and revenue are stored; include flags
// and the sign of negative types are applied when a report reads them.
// This file: the row a conversion adds (both engines) and the SQLite writer; pg-rollup-store.ts: Postgres.
import type { RawDb, RawStatement } from '../db/client'
import type { RecordedConversion } from '../postback'

const HOUR_MS = 3_600_000

/** What a rollup row needs of a conversion. */
export type RollupConversion = Pick<RecordedConversion, 'campaignId' | 'sourceId' | 'offerId' | 'landingId' | 'revenue' | 'date' | 'excluded'> & {
  type: { slug: string }
}

/** The key and increments of the hourly row a conversion adds to; "none" is 0 (NULLs never conflict). */
export type RollupDelta = {
  hour: number
  campaign: number
  source: number
  offer: number
  landing: number
  type: string
  revenue: number
  abs: number
}

/** null: the conversion stays out of every report (the operator's own clicks are, and so are their conversions). */
export function rollupDelta(c: RollupConversion): RollupDelta | null {
  if (c.excluded) return null
  return {
    hour: c.date - (c.date % HOUR_MS),
    campaign: c.campaignId,
    source: c.sourceId ?? 0,
    offer: c.offerId ?? 0,
    landing: c.landingId ?? 0,
    type: c.type.slug,
    revenue: c.revenue,
    abs: Math.abs(c.revenue),
  }
}

export class ConversionRollup {
  private readonly upsert: RawStatement

  constructor(raw: RawDb) {
    this.upsert = raw.prepare(
      'INSERT INTO conversion_stats_hourly (hour, campaign_id, source_id, offer_id, landing_id, type, conversions, revenue, revenue_abs) ' +
        'VALUES ($hour, $campaign, $source, $offer, $landing, $type, 1, $revenue, $abs) ' +
        'ON CONFLICT (hour, campaign_id, source_id, offer_id, landing_id, type) DO UPDATE SET ' +
        'conversions = conversions + 1, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs',
    )
  }

  /** Must run inside the conversion's transaction (on SQLite the shared connection already is). */
  readonly add = (c: RollupConversion): void => {
    const d = rollupDelta(c)
    if (d) this.upsert.run(d)
  }
}
