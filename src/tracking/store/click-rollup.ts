// Click rollups: hourly counts per campaign/source/offer/landing, maintained in the same transaction that
// commits the clicks (commit.ts on SQLite, pg-click-store.ts on Postgres), so every committed click is counted exactly once.
import type { RawDb, RawStatement } from '../../db/client'
import type { RollupClick } from './click'

const HOUR_MS = 3_600_000

/** One rollup row's change: the engine-neutral part both engines upsert. */
export interface RollupDelta { hour: number; campaign: number; source: number; offer: number; landing: number; clicks: number; unique: number; bots: number; cost: number; views: number; throughs: number }

/** Adds (sign 1) or removes (sign -1) clicks to `deltas`, one entry per rollup row. */
export function addRollupDeltas(deltas: Map<string, RollupDelta>, clicks: readonly RollupClick[], sign: 1 | -1): void {
  // The clicks of one commit mostly share their row: compare with the previous click's row before building a
  // map key (a key string per click was a measurable share of the redirect's allocations).
  let last: RollupDelta | undefined
  for (const r of clicks) {
    // The operator's own clicks redirect like any other but stay out of every report.
    if (r.excluded) continue
    const hour = r.createdAt - (r.createdAt % HOUR_MS)
    const source = r.sourceId ?? 0
    const offer = r.offerId ?? 0
    const landing = r.landingId ?? 0
    let d = last
    if (!d || d.hour !== hour || d.campaign !== r.campaignId || d.source !== source || d.offer !== offer || d.landing !== landing) {
      const key = `${hour}|${r.campaignId}|${source}|${offer}|${landing}`
      d = deltas.get(key)
      if (!d) {
        d = { hour, campaign: r.campaignId, source, offer, landing, clicks: 0, unique: 0, bots: 0, cost: 0, views: 0, throughs: 0 }
        deltas.set(key, d)
      }
      last = d
    }
    d.clicks += sign
    if (r.botReason) d.bots += sign
    else if (r.isUnique) d.unique += sign
    d.cost += sign * r.cost
    // Landing views and click-throughs count once per click, in the click's own row (so CTR ≤ 100 %).
    if (r.landingViewedAt) d.views += sign
    if (r.landingClickedAt) d.throughs += sign
  }
}

export class ClickRollup {
  private readonly upsert: RawStatement

  constructor(raw: RawDb) {
    this.upsert = raw.prepare(
      'INSERT INTO click_stats_hourly (hour, campaign_id, source_id, offer_id, landing_id, clicks, unique_clicks, bot_clicks, cost, landing_views, landing_clicks) ' +
        'VALUES ($hour, $campaign, $source, $offer, $landing, $clicks, $unique, $bots, $cost, $views, $throughs) ' +
        'ON CONFLICT (hour, campaign_id, source_id, offer_id, landing_id) DO UPDATE SET ' +
        'clicks = clicks + excluded.clicks, unique_clicks = unique_clicks + excluded.unique_clicks, ' +
        'bot_clicks = bot_clicks + excluded.bot_clicks, cost = cost + excluded.cost, ' +
        'landing_views = landing_views + excluded.landing_views, landing_clicks = landing_clicks + excluded.landing_clicks',
    )
  }

  /** Adds (sign 1) or removes (sign -1) clicks; call inside the caller's transaction. */
  apply(clicks: readonly RollupClick[], sign: 1 | -1 = 1): void {
    const deltas = new Map<string, RollupDelta>()
    addRollupDeltas(deltas, clicks, sign)
    for (const d of deltas.values()) this.upsert.run({ ...d })
  }
}
