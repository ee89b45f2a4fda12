// Conversion rollups: one upsert into conversion_stats_hourly inside each conversion's own transaction
// (an in-transaction subscriber of `conversion.recorded`), so a recorded conversion is counted exactly
// once or not at all. The daily table follows by trigger. Raw count and revenue are stored; include flags
// and the sign of negative types are applied when a report reads them.
import type { RawDb, RawStatement } from '../db/client'
import type { RecordedConversion } from '../postback'

const HOUR_MS = 3_600_000

/** What a rollup row needs of a conversion. */
export type RollupConversion = Pick<RecordedConversion, 'campaignId' | 'sourceId' | 'offerId' | 'landingId' | 'revenue' | 'date' | 'excluded'> & {
  type: { slug: string }
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

  /** Must run inside the conversion's transaction. */
  readonly add = (c: RollupConversion): void => {
    // The operator's own clicks are out of every report, and so are their conversions.
    if (c.excluded) return
    this.upsert.run({
      hour: c.date - (c.date % HOUR_MS),
      campaign: c.campaignId,
      source: c.sourceId ?? 0,
      offer: c.offerId ?? 0,
      landing: c.landingId ?? 0,
      type: c.type.slug,
      revenue: c.revenue,
      abs: Math.abs(c.revenue),
    })
  }
}
