// Report metrics: sums collected from rollups (or raw rows) and the formulas applied on top of them.
//
//   conversions = Σ over types with include_in_conversions of count   (negative types: − count)
//   revenue     = Σ over types with include_in_revenue of revenue     (negative types: − Σ|revenue|)
//   profit = revenue − cost        roi = profit / cost × 100          (null when cost = 0)
//   cr  = conversions / clicks × 100 (null when clicks = 0)            epc = revenue / clicks (null when clicks = 0)
//   landing_views  = clicks whose landing page was viewed (pixel.js), once per click
//   landing_clicks = clicks that went on from their landing to the offer (/r), once per click (a click-through
//                    counts as a view too, so a visitor whose browser blocked the pixel still counts once)
//   landing_ctr = landing_clicks / landing_views × 100 (null when landing_views = 0)
//
// Money and ratios are rounded to 6 decimals in the output (float noise); counts stay integers.

/** Raw sums of one type in one group. */
export interface TypeSums {
  n: number
  revenue: number
  abs: number
}

export class Sums {
  clicks = 0
  unique = 0
  bots = 0
  cost = 0
  views = 0
  throughs = 0
  readonly types = new Map<string, TypeSums>()

  /** `sign` -1 takes rows back out (a daily row's hours that belong to another local day). */
  addClicks(r: { clicks: number; unique_clicks: number; bot_clicks: number; cost: number; landing_views: number; landing_clicks: number }, sign: 1 | -1 = 1): void {
    this.clicks += sign * r.clicks
    this.unique += sign * r.unique_clicks
    this.bots += sign * r.bot_clicks
    this.cost += sign * r.cost
    this.views += sign * r.landing_views
    this.throughs += sign * r.landing_clicks
  }

  addConversions(type: string, n: number, revenue: number, abs: number): void {
    const t = this.types.get(type)
    if (t) {
      t.n += n
      t.revenue += revenue
      t.abs += abs
    } else {
      this.types.set(type, { n, revenue, abs })
    }
  }

  addAll(o: Sums): void {
    this.clicks += o.clicks
    this.unique += o.unique
    this.bots += o.bots
    this.cost += o.cost
    this.views += o.views
    this.throughs += o.throughs
    for (const [type, t] of o.types) this.addConversions(type, t.n, t.revenue, t.abs)
  }

  /**
   * Nothing left: a rollup row a repoint moved to zero, or a UTC day whose hours all moved to another
   * local day. Money below 1e-9 is float residue of such moves, not money.
   */
  get empty(): boolean {
    if (this.clicks !== 0 || this.unique !== 0 || this.bots !== 0 || this.views !== 0 || this.throughs !== 0 || Math.abs(this.cost) > 1e-9) return false
    for (const t of this.types.values()) if (t.n !== 0 || Math.abs(t.revenue) > 1e-9) return false
    return true
  }
}

/** The flags of a conversion type as reports read them. */
export interface TypeFlags {
  slug: string
  include_in_conversions: boolean
  include_in_revenue: boolean
  negative: boolean
}

export interface Metrics {
  clicks: number
  unique_clicks: number
  bot_clicks: number
  landing_views: number
  landing_clicks: number
  landing_ctr: number | null
  conversions: number
  revenue: number
  cost: number
  profit: number
  roi: number | null
  cr: number | null
  epc: number | null
  types: Record<string, number>
}

export const METRIC_NAMES = [
  'clicks', 'unique_clicks', 'bot_clicks', 'landing_views', 'landing_clicks', 'landing_ctr', 'conversions', 'revenue', 'cost', 'profit', 'roi', 'cr', 'epc',
] as const
export type MetricName = (typeof METRIC_NAMES)[number]

/** Rounds to 6 decimals; keeps -0 out of the JSON. */
export function round6(x: number): number {
  const r = Math.round(x * 1e6) / 1e6
  return r === 0 ? 0 : r
}

const ratio = (num: number, den: number, scale: number): number | null => (den === 0 ? null : round6((num / den) * scale))

export function computeMetrics(s: Sums, types: ReadonlyMap<string, TypeFlags>, slugs: readonly string[]): Metrics {
  let conversions = 0
  let revenue = 0
  const perType: Record<string, number> = {}
  for (const slug of slugs) perType[slug] = 0
  for (const [slug, t] of s.types) {
    perType[slug] = (perType[slug] ?? 0) + t.n
    const f = types.get(slug)
    // A type that no longer exists counts in its own column only.
    if (!f) continue
    if (f.include_in_conversions) conversions += f.negative ? -t.n : t.n
    if (f.include_in_revenue) revenue += f.negative ? -t.abs : t.revenue
  }
  const profit = revenue - s.cost
  return {
    clicks: s.clicks,
    unique_clicks: s.unique,
    bot_clicks: s.bots,
    landing_views: s.views,
    landing_clicks: s.throughs,
    landing_ctr: ratio(s.throughs, s.views, 100),
    conversions,
    revenue: round6(revenue),
    cost: round6(s.cost),
    profit: round6(profit),
    roi: ratio(profit, s.cost, 100),
    cr: ratio(conversions, s.clicks, 100),
    epc: ratio(revenue, s.clicks, 1),
    types: perType,
  }
}
