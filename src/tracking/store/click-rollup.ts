// Click rollups: hourly counts per campaign/source/offer/landing, and per campaign and country and per campaign
// and path (the targeting rollups, db/schema/stats.ts), maintained in the same transaction that commits the clicks
// (commit.ts on SQLite, pg-commit.ts on Postgres), so every committed click is counted exactly once.
import type { RawDb, RawStatement } from '../../db/client'
import type { RollupClick } from './click'

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000

/** The counts a click adds to a rollup row. */
export interface ClickCounts { clicks: number; unique: number; bots: number; cost: number; views: number; throughs: number }

/** One rollup row's change: the engine-neutral part both engines upsert. */
export interface RollupDelta extends ClickCounts { hour: number; campaign: number; source: number; offer: number; landing: number }

/** One targeting rollup row's change; `key`: the country ('' = unknown) or the path (0 = the default rotation). */
export interface TargetingDelta<K extends string | number = string | number> extends ClickCounts { hour: number; campaign: number; key: K }

/**
 * The targeting rollup rows of one commit, by row. `countryTotal`: the rows of click_country_total_daily (per UTC
 * day and country, over all campaigns: `hour` holds the day, `campaign` 0), written last and sorted (stats.ts).
 */
export interface TargetingDeltas {
  country: Map<string, TargetingDelta<string>>
  path: Map<string, TargetingDelta<number>>
  countryTotal: Map<string, TargetingDelta<string>>
}

export const newTargetingDeltas = (): TargetingDeltas => ({ country: new Map(), path: new Map(), countryTotal: new Map() })

/** The country total rows in lock order (day, country: byte order), as both engines write them. */
export function sortedTotals(t: TargetingDeltas): TargetingDelta<string>[] {
  return [...t.countryTotal.values()].sort((a, b) => a.hour - b.hour || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
}

/** The entry of `map` for (hour, campaign, key); `last`: the previous click's, tried first. */
function targetingRow<K extends string | number>(
  map: Map<string, TargetingDelta<K>>, last: TargetingDelta<K> | undefined, hour: number, campaign: number, key: K,
): TargetingDelta<K> {
  if (last && last.hour === hour && last.campaign === campaign && last.key === key) return last
  const id = `${hour}|${campaign}|${key}`
  let d = map.get(id)
  if (!d) map.set(id, (d = { hour, campaign, key, clicks: 0, unique: 0, bots: 0, cost: 0, views: 0, throughs: 0 }))
  return d
}

function count(d: ClickCounts, r: RollupClick, sign: 1 | -1): void {
  d.clicks += sign
  if (r.botReason) d.bots += sign
  else if (r.isUnique) d.unique += sign
  d.cost += sign * r.cost
  // Landing views and click-throughs count once per click, in the click's own row (so CTR ≤ 100 %).
  if (r.landingViewedAt) d.views += sign
  if (r.landingClickedAt) d.throughs += sign
}

/**
 * Adds (sign 1) or removes (sign -1) clicks to `deltas`, one entry per rollup row, and to `targeting` (when
 * given), one entry per targeting rollup row.
 */
export function addRollupDeltas(
  deltas: Map<string, RollupDelta>, clicks: readonly RollupClick[], sign: 1 | -1, targeting?: TargetingDeltas,
): void {
  // The clicks of one commit mostly share their row: compare with the previous click's row before building a
  // map key (a key string per click was a measurable share of the redirect's allocations).
  let last: RollupDelta | undefined
  let lastCountry: TargetingDelta<string> | undefined
  let lastPath: TargetingDelta<number> | undefined
  let lastTotal: TargetingDelta<string> | undefined
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
    count(d, r, sign)
    if (!targeting) continue
    lastCountry = targetingRow(targeting.country, lastCountry, hour, r.campaignId, r.country ?? '')
    count(lastCountry, r, sign)
    lastPath = targetingRow(targeting.path, lastPath, hour, r.campaignId, r.pathId ?? 0)
    count(lastPath, r, sign)
    lastTotal = targetingRow(targeting.countryTotal, lastTotal, hour - (hour % DAY_MS), 0, r.country ?? '')
    count(lastTotal, r, sign)
  }
}

const SET_COUNTS =
  'clicks = clicks + excluded.clicks, unique_clicks = unique_clicks + excluded.unique_clicks, ' +
  'bot_clicks = bot_clicks + excluded.bot_clicks, cost = cost + excluded.cost, ' +
  'landing_views = landing_views + excluded.landing_views, landing_clicks = landing_clicks + excluded.landing_clicks'

export class ClickRollup {
  private readonly upsert: RawStatement
  private readonly upsertCountry: RawStatement
  private readonly upsertPath: RawStatement
  private readonly upsertTotal: RawStatement

  constructor(raw: RawDb) {
    this.upsert = raw.prepare(
      'INSERT INTO click_stats_hourly (hour, campaign_id, source_id, offer_id, landing_id, clicks, unique_clicks, bot_clicks, cost, landing_views, landing_clicks) ' +
        'VALUES ($hour, $campaign, $source, $offer, $landing, $clicks, $unique, $bots, $cost, $views, $throughs) ' +
        'ON CONFLICT (hour, campaign_id, source_id, offer_id, landing_id) DO UPDATE SET ' + SET_COUNTS,
    )
    const targeting = (table: string, column: string) => raw.prepare(
      `INSERT INTO ${table} (hour, campaign_id, ${column}, clicks, unique_clicks, bot_clicks, cost, landing_views, landing_clicks) ` +
        'VALUES ($hour, $campaign, $key, $clicks, $unique, $bots, $cost, $views, $throughs) ' +
        `ON CONFLICT (hour, campaign_id, ${column}) DO UPDATE SET ` + SET_COUNTS,
    )
    this.upsertCountry = targeting('click_country_hourly', 'country')
    this.upsertPath = targeting('click_path_hourly', 'path_id')
    this.upsertTotal = raw.prepare(
      'INSERT INTO click_country_total_daily (day, country, clicks, unique_clicks, bot_clicks, cost, landing_views, landing_clicks) ' +
        'VALUES ($hour, $key, $clicks, $unique, $bots, $cost, $views, $throughs) ON CONFLICT (day, country) DO UPDATE SET ' + SET_COUNTS,
    )
  }

  /**
   * Adds (sign 1) or removes (sign -1) clicks; call inside the caller's transaction. `targeting` false: the
   * campaign rollups only (the click store leaves the targeting rollups to the fold, targeting-fold.ts).
   */
  apply(clicks: readonly RollupClick[], sign: 1 | -1 = 1, targeting = true): void {
    const deltas = new Map<string, RollupDelta>()
    const t = targeting ? newTargetingDeltas() : undefined
    addRollupDeltas(deltas, clicks, sign, t)
    for (const d of deltas.values()) this.upsert.run({ ...d })
    if (t) this.applyTargeting(t)
  }

  /** Writes targeting deltas (country, path, then the country totals in lock order); inside the caller's transaction. */
  applyTargeting(t: TargetingDeltas): void {
    for (const d of t.country.values()) this.upsertCountry.run({ ...d })
    for (const d of t.path.values()) this.upsertPath.run({ ...d })
    for (const { campaign: _, ...d } of sortedTotals(t)) this.upsertTotal.run(d)
  }
}
