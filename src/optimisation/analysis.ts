// A rotation's split test: its entries, their clicks and conversions over the window (store.ts), counted the
// way reports count them (reports/metrics.ts), then the model and the verdict (stats.ts).
import { conflict } from '../lib/errors'
import { analyse, DEFAULT_DRAWS, verdict, type Analysis, type EntryData, type Metric, type Verdict, type VerdictRules } from './stats'
import type { Entry, OptimisationStore, RotationRef } from './store'

export interface Window { from: number; to: number }

export interface SplitTestEntry {
  /** The offer's or landing's id. */
  id: number
  name: string | null
  /** The manual weight, and the weight auto-weights set (null: off, the manual one applies). */
  weight: number
  auto_weight: number | null
  clicks: number
  conversions: number
  /** In `currency`; null when EPC is not available (see `epc_note`). */
  revenue: number | null
  /** Percent, as reports give it. */
  cr: number | null
  cr_ci95: { low: number; high: number }
  p_best_cr: number
  epc: number | null
  epc_ci95: { low: number; high: number } | null
  p_best_epc: number | null
  /** P(best) on the chosen metric. */
  p_best: number | null
}

export interface SplitTest {
  campaign_id: number
  path_id: number | null
  kind: 'offers' | 'landings'
  metric: Metric
  from: string
  to: string
  window_hours: number
  /** The currency of revenue and EPC; null when the window holds revenue in several and none was chosen. */
  currency: string | null
  /** Every currency with revenue in the window. */
  currencies: string[]
  epc_note: string | null
  entries: SplitTestEntry[]
  relative_difference: { of: [number, number]; ci95: { low: number; high: number } } | null
  verdict: Verdict
  reason: string
  rules: VerdictRules & { draws: number }
}

const round6 = (x: number) => {
  const r = Math.round(x * 1e6) / 1e6
  return r === 0 ? 0 : r
}

export interface SplitTestOptions {
  metric: Metric
  /** Upper-case ISO code, or null: the one currency of the window. */
  currency: string | null
  rules: VerdictRules
  costCurrency: string
}

/** The numbers of one rotation over the window, the model's analysis and its verdict. */
export async function splitTest(store: OptimisationStore, ref: RotationRef, w: Window, o: SplitTestOptions): Promise<{ result: SplitTest; analysis: Analysis; entries: Entry[] }> {
  const [entries, clicks, sums, types] = await Promise.all([
    store.entries(ref), store.clicks(ref, w.from, w.to), store.conversions(ref, w.from, w.to), store.types(),
  ])
  const names = await store.names(ref.kind, entries.map((e) => e.id))
  const flags = new Map(types.map((t) => [t.slug, t]))
  const clicksOf = new Map(clicks.map((c) => [Number(c.id), Number(c.clicks)]))
  // Currencies with money, as reports read them: '' is the cost currency.
  const currencies = [...new Set(sums.filter((s) => flags.get(s.type)?.revenue && Math.abs(Number(s.abs)) > 1e-9).map((s) => s.currency || o.costCurrency))].sort()
  const currency = o.currency ?? (currencies.length <= 1 ? (currencies[0] ?? o.costCurrency) : null)
  const epcNote = currency === null
    ? `revenue in ${currencies.join(', ')}: EPC is never summed across currencies; pass currency= one of them for EPC in that currency`
    : null
  if (o.metric === 'epc' && currency === null) throw conflict(`currency: ${epcNote}`)

  const data: EntryData[] = entries.map((e) => ({ id: e.id, clicks: clicksOf.get(e.id) ?? 0, conversions: 0, revenue: 0, revenueSq: 0 }))
  const byId = new Map(data.map((d) => [d.id, d]))
  for (const s of sums) {
    const d = byId.get(Number(s.id))
    const f = flags.get(s.type)
    // An entry no longer in the rotation, or a type that no longer exists (reports count it in no total either).
    if (!d || !f) continue
    if (f.conversions) d.conversions += f.negative ? -Number(s.n) : Number(s.n)
    if (f.revenue && currency !== null && (s.currency || o.costCurrency) === currency) {
      d.revenue += f.negative ? -Number(s.abs) : Number(s.revenue)
      if (!f.negative) d.revenueSq += Number(s.sq)
    }
  }
  // The model takes each counted conversion as one success of its click (a chargeback takes one back).
  for (const d of data) d.conversions = Math.max(0, Math.min(d.conversions, d.clicks))

  const analysis = analyse(data, { metric: o.metric, epc: currency !== null, draws: DEFAULT_DRAWS })
  const name = (id: number) => `${ref.kind === 'offers' ? 'offer' : 'landing'} ${names.get(id) ? `"${names.get(id)}" (${id})` : id}`
  const v = verdict(analysis, o.metric, o.rules, name)
  const result: SplitTest = {
    campaign_id: ref.campaignId,
    path_id: ref.pathId,
    kind: ref.kind,
    metric: o.metric,
    from: new Date(w.from).toISOString(),
    to: new Date(w.to).toISOString(),
    window_hours: round6((w.to - w.from) / 3_600_000),
    currency,
    currencies,
    epc_note: epcNote,
    entries: analysis.entries.map((s, i) => ({
      id: s.id,
      name: names.get(s.id) ?? null,
      weight: entries[i]!.weight,
      auto_weight: entries[i]!.autoWeight,
      clicks: s.clicks,
      conversions: s.conversions,
      revenue: currency === null ? null : round6(s.revenue),
      cr: s.cr === null ? null : round6(s.cr * 100),
      cr_ci95: { low: round6(s.cr_posterior.ci95.low * 100), high: round6(s.cr_posterior.ci95.high * 100) },
      p_best_cr: s.p_best_cr,
      epc: s.epc === null ? null : round6(s.epc),
      epc_ci95: s.epc_posterior ? { low: round6(s.epc_posterior.ci95.low), high: round6(s.epc_posterior.ci95.high) } : null,
      p_best_epc: s.p_best_epc,
      p_best: o.metric === 'cr' ? s.p_best_cr : s.p_best_epc,
    })),
    relative_difference: analysis.relative_difference
      ? { of: analysis.relative_difference.of, ci95: { low: round6(analysis.relative_difference.ci95.low), high: round6(analysis.relative_difference.ci95.high) } }
      : null,
    verdict: v.verdict,
    reason: v.reason,
    rules: { ...o.rules, draws: analysis.draws },
  }
  return { result, analysis, entries }
}

/** "P(best) 0.91/0.06/0.03 on CR over 72 h, 4,210 clicks": the reason a weight change records. */
export function changeReason(t: SplitTest): string {
  const clicks = t.entries.reduce((s, e) => s + e.clicks, 0)
  const p = t.entries.map((e) => (e.p_best ?? 0).toFixed(2)).join('/')
  return `P(best) ${p} on ${t.metric.toUpperCase()} over ${t.window_hours} h, ${clicks.toLocaleString('en-US')} clicks`
}
