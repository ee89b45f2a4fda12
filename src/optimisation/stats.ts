// The Bayesian split-test statistics (docs/optimisation.md): pure functions, no I/O.
//   CR:  θ_i ~ Beta(1 + conv_i, 1 + clicks_i − conv_i)          (uniform prior, beta-binomial)
//   EPC: ε_i = θ_i × μ_i, μ_i the mean revenue per conversion    (normal approximation of the sample mean;
//        a fixed payout has no spread, so μ_i is the payout; an entry without conversions takes the pooled prior)
// P(best) and the 95 % intervals come from the same Monte Carlo draws, taken from a seeded PRNG so that the same
// data always gives the same answer (a page reload must not flip a verdict).

export const DEFAULT_DRAWS = 20_000
/** Any fixed seed: the draws only need to be the same for the same data. */
const SEED = 0x29_5eed

/** mulberry32: small, fast, good enough for Monte Carlo (not for secrets). */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Standard normal (Box-Muller; the second value is dropped for simplicity). */
function normal(rand: () => number): number {
  let u = rand()
  while (u <= 1e-300) u = rand()
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand())
}

/** Gamma(shape, 1) by Marsaglia and Tsang; shape < 1 boosted by U^(1/shape). */
function gamma(shape: number, rand: () => number): number {
  if (shape < 1) return gamma(shape + 1, rand) * Math.pow(rand() || 1e-300, 1 / shape)
  const d = shape - 1 / 3
  const c = 1 / Math.sqrt(9 * d)
  for (;;) {
    let x: number, v: number
    do {
      x = normal(rand)
      v = 1 + c * x
    } while (v <= 0)
    v = v * v * v
    const u = rand()
    if (u < 1 - 0.0331 * x * x * x * x) return d * v
    if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v
  }
}

export function betaDraw(a: number, b: number, rand: () => number): number {
  const x = gamma(a, rand)
  const y = gamma(b, rand)
  return x / (x + y)
}

/** What the model reads of one entry (one offer or landing of a rotation) over the window. */
export interface EntryData {
  id: number
  clicks: number
  /** Conversions as reports count them (negative types subtract), clamped to 0..clicks for the model. */
  conversions: number
  /** Revenue in the chosen currency (negative types subtract). */
  revenue: number
  /** Σ revenue² over the counted conversions (the spread of revenue per conversion). */
  revenueSq: number
}

export interface Interval { low: number; high: number }

export interface EntryStats {
  id: number
  clicks: number
  conversions: number
  revenue: number
  cr: number | null
  epc: number | null
  /** Posterior of the CR (a fraction 0..1): mean and 95 % credible interval. */
  cr_posterior: { mean: number; ci95: Interval }
  p_best_cr: number
  epc_posterior: { mean: number; ci95: Interval } | null
  p_best_epc: number | null
}

export type Metric = 'cr' | 'epc'

export interface Analysis {
  entries: EntryStats[]
  draws: number
  /** 95 % interval of (top − second) / second on the chosen metric, null with fewer than two entries. */
  relative_difference: { of: [number, number]; ci95: Interval } | null
}

const quantile = (sorted: Float64Array, q: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.floor(q * (sorted.length - 1))))]!

function summary(samples: Float64Array): { mean: number; ci95: Interval } {
  let sum = 0
  for (const x of samples) sum += x
  const sorted = Float64Array.from(samples).sort()
  return { mean: sum / samples.length, ci95: { low: quantile(sorted, 0.025), high: quantile(sorted, 0.975) } }
}

/**
 * The posterior of the mean revenue per conversion of each entry, as a normal (mean, sd). Its own sample mean and
 * standard error once it has conversions (the sd of one conversion from its own spread with ≥ 2, else the pooled
 * within-entry spread); the pooled mean and spread of every conversion of the rotation when it has none.
 */
export function revenuePerConversion(entries: readonly EntryData[]): Array<{ mean: number; sd: number }> {
  let n = 0, sum = 0, sq = 0, withinSs = 0, withinDf = 0
  for (const e of entries) {
    if (e.conversions <= 0) continue
    n += e.conversions
    sum += e.revenue
    sq += e.revenueSq
    if (e.conversions >= 2) {
      const m = e.revenue / e.conversions
      withinSs += Math.max(0, e.revenueSq - e.conversions * m * m)
      withinDf += e.conversions - 1
    }
  }
  const pooledMean = n > 0 ? sum / n : 0
  const pooledVar = n > 1 ? Math.max(0, (sq - n * pooledMean * pooledMean) / (n - 1)) : 0
  const withinVar = withinDf > 0 ? withinSs / withinDf : pooledVar
  return entries.map((e) => {
    if (e.conversions <= 0) return { mean: pooledMean, sd: Math.sqrt(pooledVar) }
    const m = e.revenue / e.conversions
    const v = e.conversions >= 2 ? Math.max(0, (e.revenueSq - e.conversions * m * m) / (e.conversions - 1)) : withinVar
    return { mean: m, sd: Math.sqrt(v / e.conversions) }
  })
}

/**
 * CR and EPC posteriors, P(best) of each entry and the relative difference of the top two on `metric`.
 * `epc` false: no EPC (revenue in several currencies and none chosen). Cost: ~2 gamma draws per entry and draw.
 */
export function analyse(entries: readonly EntryData[], opts: { metric: Metric; epc: boolean; draws?: number }): Analysis {
  const draws = opts.draws ?? DEFAULT_DRAWS
  const rand = prng(SEED)
  const k = entries.length
  const cr = entries.map(() => new Float64Array(draws))
  const epc = opts.epc ? entries.map(() => new Float64Array(draws)) : null
  const perConv = opts.epc ? revenuePerConversion(entries) : null
  for (let i = 0; i < k; i++) {
    const e = entries[i]!
    const conv = Math.min(Math.max(e.conversions, 0), e.clicks)
    const a = 1 + conv, b = 1 + e.clicks - conv
    for (let d = 0; d < draws; d++) {
      const theta = betaDraw(a, b, rand)
      cr[i]![d] = theta
      if (epc) epc[i]![d] = theta * (perConv![i]!.mean + perConv![i]!.sd * normal(rand))
    }
  }
  const bestCr = bestCounts(cr, draws)
  const bestEpc = epc ? bestCounts(epc, draws) : null
  const stats: EntryStats[] = entries.map((e, i) => ({
    id: e.id,
    clicks: e.clicks,
    conversions: e.conversions,
    revenue: e.revenue,
    cr: e.clicks > 0 ? e.conversions / e.clicks : null,
    epc: opts.epc && e.clicks > 0 ? e.revenue / e.clicks : null,
    cr_posterior: summary(cr[i]!),
    p_best_cr: bestCr[i]! / draws,
    epc_posterior: epc ? summary(epc[i]!) : null,
    p_best_epc: bestEpc ? bestEpc[i]! / draws : null,
  }))
  const samples = opts.metric === 'epc' ? epc : cr
  const pBest = opts.metric === 'epc' ? bestEpc : bestCr
  let relative_difference: Analysis['relative_difference'] = null
  if (samples && pBest && k >= 2) {
    const order = [...pBest.keys()].sort((x, y) => pBest[y]! - pBest[x]! || x - y)
    const [top, second] = [order[0]!, order[1]!]
    const rel = new Float64Array(draws)
    for (let d = 0; d < draws; d++) {
      const s = samples[second]![d]!
      rel[d] = s === 0 ? (samples[top]![d]! === 0 ? 0 : Infinity) : (samples[top]![d]! - s) / Math.abs(s)
    }
    rel.sort()
    relative_difference = { of: [entries[top]!.id, entries[second]!.id], ci95: { low: quantile(rel, 0.025), high: quantile(rel, 0.975) } }
  }
  return { entries: stats, draws, relative_difference }
}

/** How many draws each entry was the best of (ties: the first). */
function bestCounts(samples: Float64Array[], draws: number): number[] {
  const counts = samples.map(() => 0)
  for (let d = 0; d < draws; d++) {
    let best = 0
    for (let i = 1; i < samples.length; i++) if (samples[i]![d]! > samples[best]![d]!) best = i
    counts[best]!++
  }
  return counts
}

export type Verdict = 'insufficient_data' | 'winner' | 'tie' | 'keep_testing'

export interface VerdictRules {
  /** Every entry needs this many clicks in the window. */
  min_clicks: number
  /** The rotation needs this many conversions in the window. */
  min_conversions: number
  /** P(best) a winner needs (0.5..1). */
  win_probability: number
  /** Practically equal: the 95 % interval of the top two's relative difference lies within ± this % . */
  tie_pct: number
}

export const DEFAULT_RULES: VerdictRules = { min_clicks: 100, min_conversions: 10, win_probability: 0.95, tie_pct: 10 }

const pct = (x: number, digits = 1) => `${(x * 100).toFixed(digits)}%`
const num = (x: number) => x.toLocaleString('en-US')
/** P(best) in words: three decimals, never a certain-looking 1.000. */
export const prob = (p: number) => (p >= 0.9995 ? '> 0.999' : p < 0.0005 && p > 0 ? '< 0.001' : p.toFixed(3))

/** The verdict on `metric` and why, in plain words. `name(id)` says which entry ("offer 12"). */
export function verdict(a: Analysis, metric: Metric, rules: VerdictRules, name: (id: number) => string): { verdict: Verdict; reason: string } {
  const label = metric === 'cr' ? 'CR' : 'EPC'
  const conversions = a.entries.reduce((s, e) => s + Math.max(e.conversions, 0), 0)
  const short = a.entries.filter((e) => e.clicks < rules.min_clicks)
  if (a.entries.length < 2) return { verdict: 'insufficient_data', reason: 'the rotation has fewer than two entries: nothing to compare' }
  if (short.length > 0 || conversions < rules.min_conversions) {
    const parts: string[] = []
    if (short.length > 0) parts.push(`${short.map((e) => `${name(e.id)} has ${num(e.clicks)} clicks`).join(', ')} (each entry needs ${num(rules.min_clicks)})`)
    if (conversions < rules.min_conversions) parts.push(`the rotation has ${num(conversions)} conversions (it needs ${num(rules.min_conversions)})`)
    return { verdict: 'insufficient_data', reason: `too little data: ${parts.join('; ')}` }
  }
  const p = (e: EntryStats) => (metric === 'cr' ? e.p_best_cr : e.p_best_epc ?? 0)
  const ranked = [...a.entries].sort((x, y) => p(y) - p(x))
  const top = ranked[0]!
  const rd = a.relative_difference
  if (p(top) >= rules.win_probability) {
    return { verdict: 'winner', reason: `${name(top.id)} is the best on ${label} with probability ${prob(p(top))} (at least ${rules.win_probability} wins)` }
  }
  if (rd && rd.ci95.low >= -rules.tie_pct / 100 && rd.ci95.high <= rules.tie_pct / 100) {
    return {
      verdict: 'tie',
      reason: `${name(rd.of[0])} and ${name(rd.of[1])} are practically equal on ${label}: the 95% interval of their relative difference, ` +
        `${pct(rd.ci95.low)} to ${pct(rd.ci95.high)}, lies within ±${rules.tie_pct}%`,
    }
  }
  const spread = rd ? `; their relative difference is ${pct(rd.ci95.low)} to ${pct(rd.ci95.high)} (95%)` : ''
  return {
    verdict: 'keep_testing',
    reason: `no winner yet: ${name(top.id)} leads on ${label} with probability ${prob(p(top))} (a winner needs ${rules.win_probability})${spread}`,
  }
}

/**
 * Probability matching: weight_i = floor + (1 − n × floor) × P(best_i), as integer basis points summing to
 * 10,000 (largest remainder). Every entry keeps at least the floor; `floorPct` × n must be ≤ 100.
 */
export function matchedWeights(pBest: readonly number[], floorPct: number): number[] {
  const n = pBest.length
  const floor = floorPct / 100
  const free = Math.max(0, 1 - n * floor)
  const exact = pBest.map((p) => (floor + free * p) * 10_000)
  const out = exact.map((x) => Math.floor(x))
  let left = 10_000 - out.reduce((s, x) => s + x, 0)
  const byRemainder = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((x, y) => y[0] - x[0] || x[1] - y[1])
  for (let j = 0; left > 0 && n > 0; j = (j + 1) % n, left--) out[byRemainder[j]![1]]!++
  return out
}
