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
//
// Currencies are never added together (spec rule 8: svc does not convert). Conversion sums are kept per type
// and currency; cost is in the cost_currency setting. A report whose range holds money in one currency reads
// as above. With more than one, revenue, profit, epc and roi are null and `money` gives them per currency:
//   revenue_C = the revenue formula over C's conversions
//   cost_C = click cost when C is the cost currency (else 0) + the revenue formula over C's conversions' revshare cost
//            (a conversion's cost is in its own currency, so a EUR conversion's revshare cost stays under EUR)
//   profit_C = revenue_C − cost_C   epc_C = revenue_C / clicks   roi_C = profit_C / cost_C × 100 (only where cost_C > 0)

/** Raw sums of one type in one currency in one group. */
export interface TypeSums {
  type: string
  /** Upper-case code; a conversion without one was counted in the cost currency before it got here. */
  currency: string
  n: number
  revenue: number
  abs: number
  /** revshare cost of these conversions, raw and |cost|, in `currency` (docs/costs.md). */
  cost: number
  costAbs: number
}

export class Sums {
  clicks = 0
  unique = 0
  bots = 0
  cost = 0
  views = 0
  throughs = 0
  /** Keyed by currency and type. */
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

  addConversions(type: string, currency: string, n: number, revenue: number, abs: number, cost = 0, costAbs = 0): void {
    const key = `${currency} ${type}`
    const t = this.types.get(key)
    if (t) {
      t.n += n
      t.revenue += revenue
      t.abs += abs
      t.cost += cost
      t.costAbs += costAbs
    } else {
      this.types.set(key, { type, currency, n, revenue, abs, cost, costAbs })
    }
  }

  addAll(o: Sums): void {
    this.clicks += o.clicks
    this.unique += o.unique
    this.bots += o.bots
    this.cost += o.cost
    this.views += o.views
    this.throughs += o.throughs
    for (const t of o.types.values()) this.addConversions(t.type, t.currency, t.n, t.revenue, t.abs, t.cost, t.costAbs)
  }

  /**
   * Nothing left: a rollup row a repoint moved to zero, or a UTC day whose hours all moved to another
   * local day. Money below 1e-9 is float residue of such moves, not money.
   */
  get empty(): boolean {
    if (this.clicks !== 0 || this.unique !== 0 || this.bots !== 0 || this.views !== 0 || this.throughs !== 0 || Math.abs(this.cost) > 1e-9) return false
    for (const t of this.types.values()) if (t.n !== 0 || Math.abs(t.revenue) > 1e-9 || Math.abs(t.cost) > 1e-9) return false
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

/** Revenue, profit, epc and roi of one currency (a report with money in more than one). */
export interface Money {
  currency: string
  revenue: number
  cost: number
  profit: number
  epc: number | null
  roi: number | null
}

export interface Metrics {
  clicks: number
  unique_clicks: number
  bot_clicks: number
  landing_views: number
  landing_clicks: number
  landing_ctr: number | null
  conversions: number
  /** null when the report holds more than one currency: see `money`. */
  revenue: number | null
  cost: number
  profit: number | null
  roi: number | null
  cr: number | null
  epc: number | null
  types: Record<string, number>
  /** Only in a report with money in more than one currency: one entry per currency of the report, sorted. */
  money?: Money[]
}

/** The currencies of a report: `list` holds money in the range (sorted); `cost` is the cost_currency setting. */
export interface Currencies {
  cost: string
  list: string[]
}

/** MONEY_METRICS are split per currency when a report holds more than one. */
export const MONEY_METRICS = ['revenue', 'profit', 'epc', 'roi'] as const
export type MoneyMetric = (typeof MONEY_METRICS)[number]

export const METRIC_NAMES = [
  'clicks', 'unique_clicks', 'bot_clicks', 'landing_views', 'landing_clicks', 'landing_ctr', 'conversions', 'revenue', 'cost', 'profit', 'roi', 'cr', 'epc',
] as const
export type MetricName = (typeof METRIC_NAMES)[number]

/** Rounds to 6 decimals; keeps -0 out of the JSON. */
export function round6(x: number): number {
  const r = Math.round(x * 1e6) / 1e6
  return r === 0 ? 0 : r
}

/** Money below this is float residue of sums that add and take back out, not money (see Sums.empty). */
const MONEY_EPSILON = 1e-9

const ratio = (num: number, den: number, scale: number): number | null => (den === 0 ? null : round6((num / den) * scale))

/**
 * Revenue (or, `of` cost, the revshare cost) per currency: the formula of the header, over the types that count
 * in revenue; a negative type (a refund) takes its |cost| back out as it takes its |revenue|.
 */
function revenueByCurrency(s: Sums, types: ReadonlyMap<string, TypeFlags>, of: 'revenue' | 'cost' = 'revenue'): Map<string, number> {
  const out = new Map<string, number>()
  for (const t of s.types.values()) {
    const f = types.get(t.type)
    // A type that no longer exists counts in its own column only.
    if (!f || !f.include_in_revenue) continue
    const v = of === 'revenue' ? (f.negative ? -t.abs : t.revenue) : (f.negative ? -t.costAbs : t.cost)
    out.set(t.currency, (out.get(t.currency) ?? 0) + v)
  }
  return out
}

/**
 * The currencies that hold money in these sums: every currency of a conversion that counts in revenue with
 * an amount, plus the cost currency when there is cost. Sorted.
 */
export function moneyCurrencies(s: Sums, types: ReadonlyMap<string, TypeFlags>, cost: string): string[] {
  const out = new Set<string>()
  for (const t of s.types.values()) if (types.get(t.type)?.include_in_revenue && (Math.abs(t.abs) > 1e-9 || Math.abs(t.costAbs) > 1e-9)) out.add(t.currency)
  if (Math.abs(s.cost) > 1e-9) out.add(cost)
  return [...out].sort()
}

export function computeMetrics(s: Sums, types: ReadonlyMap<string, TypeFlags>, slugs: readonly string[], cur?: Currencies): Metrics {
  let conversions = 0
  const perType: Record<string, number> = {}
  for (const slug of slugs) perType[slug] = 0
  for (const t of s.types.values()) {
    perType[t.type] = (perType[t.type] ?? 0) + t.n
    const f = types.get(t.type)
    if (f?.include_in_conversions) conversions += f.negative ? -t.n : t.n
  }
  const byCurrency = revenueByCurrency(s, types)
  const costByCurrency = revenueByCurrency(s, types, 'cost')
  const counts = {
    clicks: s.clicks,
    unique_clicks: s.unique,
    bot_clicks: s.bots,
    landing_views: s.views,
    landing_clicks: s.throughs,
    landing_ctr: ratio(s.throughs, s.views, 100),
    conversions,
  }
  if (cur && cur.list.length > 1) {
    // Never a sum of two currencies: the money columns are per currency.
    const money = cur.list.map((currency): Money => {
      const revenue = byCurrency.get(currency) ?? 0
      const cost = (currency === cur.cost ? s.cost : 0) + (costByCurrency.get(currency) ?? 0)
      return {
        currency, revenue: round6(revenue), cost: round6(cost), profit: round6(revenue - cost), epc: ratio(revenue, s.clicks, 1),
        roi: cost > MONEY_EPSILON ? ratio(revenue - cost, cost, 100) : null,
      }
    })
    // `cost` stays the cost currency's (clicks and revshare in it); `money` has every currency's.
    const inCost = money.find((m) => m.currency === cur.cost)?.cost ?? s.cost
    return {
      ...counts, revenue: null, cost: round6(inCost), profit: null, roi: null, cr: ratio(conversions, s.clicks, 100), epc: null, types: perType, money,
    }
  }
  // One currency (or none): the sums below add amounts of that one currency only.
  let revenue = 0
  for (const r of byCurrency.values()) revenue += r
  let cost = s.cost
  for (const c of costByCurrency.values()) cost += c
  const profit = revenue - cost
  return {
    ...counts,
    revenue: round6(revenue),
    cost: round6(cost),
    profit: round6(profit),
    // Cost that only float residue keeps from 0 (a daily row's hours moved out and back) is no cost: no roi of 1e20.
    roi: ratio(profit, Math.abs(cost) < MONEY_EPSILON ? 0 : cost, 100),
    cr: ratio(conversions, s.clicks, 100),
    epc: ratio(revenue, s.clicks, 1),
    types: perType,
  }
}
