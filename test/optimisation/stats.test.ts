// The split-test model against known cases (issue 29): a clear winner, a tie, too little data, EPC that changes
// the winner against CR, EPC with no conversions yet (pooled prior), the seeded result, intervals, and the
// probability-matching weights with their floor. Pure functions: the same on both engines.
import { describe, expect, test } from 'bun:test'
import { analyse, betaDraw, DEFAULT_RULES, matchedWeights, prng, revenuePerConversion, verdict, type EntryData } from '../../src/optimisation/stats'

const e = (id: number, clicks: number, conversions: number, payout = 1): EntryData =>
  ({ id, clicks, conversions, revenue: conversions * payout, revenueSq: conversions * payout * payout })
const name = (id: number) => `offer ${id}`

describe('CR', () => {
  test('a clear winner: 1000/50 vs 1000/20 → winner, P(best) > 0.99', () => {
    const a = analyse([e(1, 1000, 50), e(2, 1000, 20)], { metric: 'cr', epc: false })
    expect(a.entries[0]!.p_best_cr).toBeGreaterThan(0.99)
    expect(a.entries[0]!.p_best_cr + a.entries[1]!.p_best_cr).toBeCloseTo(1, 9)
    const v = verdict(a, 'cr', DEFAULT_RULES, name)
    expect(v.verdict).toBe('winner')
    expect(v.reason).toContain('offer 1')
    // The posterior mean of Beta(51, 951) and an interval around it.
    expect(a.entries[0]!.cr_posterior.mean).toBeCloseTo(51 / 1002, 3)
    expect(a.entries[0]!.cr_posterior.ci95.low).toBeGreaterThan(0.036)
    expect(a.entries[0]!.cr_posterior.ci95.high).toBeLessThan(0.067)
  })

  test('a tie: two identical large entries → tie, P(best) ≈ 0.5', () => {
    const a = analyse([e(1, 60_000, 3000), e(2, 60_000, 3000)], { metric: 'cr', epc: false })
    expect(Math.abs(a.entries[0]!.p_best_cr - 0.5)).toBeLessThan(0.03)
    expect(verdict(a, 'cr', DEFAULT_RULES, name).verdict).toBe('tie')
    // Equal but small: not enough to call it a tie (the difference could still be ±30 %).
    const small = analyse([e(1, 1000, 50), e(2, 1000, 50)], { metric: 'cr', epc: false })
    expect(verdict(small, 'cr', DEFAULT_RULES, name).verdict).toBe('keep_testing')
  })

  test('too little data → insufficient_data, naming the minimum; configurable per call', () => {
    const a = analyse([e(1, 50, 5), e(2, 400, 1)], { metric: 'cr', epc: false })
    const v = verdict(a, 'cr', DEFAULT_RULES, name)
    expect(v.verdict).toBe('insufficient_data')
    expect(v.reason).toContain('offer 1 has 50 clicks')
    expect(v.reason).toContain('needs 100')
    expect(verdict(a, 'cr', { ...DEFAULT_RULES, min_clicks: 50, min_conversions: 5 }, name).verdict).not.toBe('insufficient_data')
    const fewConversions = verdict(analyse([e(1, 500, 2), e(2, 500, 3)], { metric: 'cr', epc: false }), 'cr', DEFAULT_RULES, name)
    expect(fewConversions.verdict).toBe('insufficient_data')
    expect(fewConversions.reason).toContain('5 conversions (it needs 10)')
    expect(verdict(analyse([e(1, 500, 2)], { metric: 'cr', epc: false }), 'cr', DEFAULT_RULES, name).verdict).toBe('insufficient_data')
  })

  test('the seeded draws give the same answer for the same data', () => {
    const data = [e(1, 300, 12), e(2, 280, 9), e(3, 310, 15)]
    const x = analyse(data, { metric: 'cr', epc: true })
    const y = analyse(data, { metric: 'cr', epc: true })
    expect(y).toEqual(x)
    expect(x.entries.reduce((s, v) => s + v.p_best_cr, 0)).toBeCloseTo(1, 9)
  })

  test('beta draws: the sample mean and variance of Beta(3, 7)', () => {
    const rand = prng(1)
    let sum = 0, sq = 0
    const n = 50_000
    for (let i = 0; i < n; i++) {
      const x = betaDraw(3, 7, rand)
      sum += x
      sq += x * x
    }
    const mean = sum / n
    expect(mean).toBeCloseTo(0.3, 2)
    expect(sq / n - mean * mean).toBeCloseTo((3 * 7) / (100 * 11), 3)
  })
})

describe('EPC', () => {
  test('different payouts change the winner: CR picks 1, EPC picks 2 (payout 5 vs 1)', () => {
    const data = [e(1, 1000, 50, 1), e(2, 1000, 20, 5)]
    const cr = analyse(data, { metric: 'cr', epc: true })
    const epc = analyse(data, { metric: 'epc', epc: true })
    expect(verdict(cr, 'cr', DEFAULT_RULES, name).reason).toContain('offer 1')
    const v = verdict(epc, 'epc', DEFAULT_RULES, name)
    expect(v.verdict).toBe('winner')
    expect(v.reason).toContain('offer 2')
    expect(epc.entries[1]!.p_best_epc).toBeGreaterThan(0.95)
    // EPC = CR × payout: the posterior mean of offer 2 is about 21/1002 × 5.
    expect(epc.entries[1]!.epc_posterior!.mean).toBeCloseTo((21 / 1002) * 5, 2)
  })

  test('a fixed payout has no spread; an entry without conversions takes the pooled mean', () => {
    const [a, b, c] = revenuePerConversion([e(1, 100, 10, 3), e(2, 100, 4, 3), e(3, 100, 0)])
    expect(a).toEqual({ mean: 3, sd: 0 })
    expect(b).toEqual({ mean: 3, sd: 0 })
    expect(c!.mean).toBe(3)
    // Varying revenue: the standard error of the mean, sd / √n.
    const [v] = revenuePerConversion([{ id: 1, clicks: 100, conversions: 4, revenue: 2 + 4 + 6 + 8, revenueSq: 4 + 16 + 36 + 64 }])
    expect(v!.mean).toBe(5)
    expect(v!.sd).toBeCloseTo(Math.sqrt(20 / 3 / 4), 9)
  })
})

describe('probability matching', () => {
  test('weights ∝ P(best) above a floor, summing to 10,000 basis points', () => {
    expect(matchedWeights([0.91, 0.06, 0.03], 5)).toEqual([8235, 1010, 755])
    expect(matchedWeights([1, 0, 0], 5)).toEqual([9000, 500, 500])
    expect(matchedWeights([0.5, 0.5], 50)).toEqual([5000, 5000])
    for (const w of [matchedWeights([0.333, 0.333, 0.334], 10), matchedWeights([0.7, 0.2, 0.1, 0], 0)]) {
      expect(w.reduce((s, x) => s + x, 0)).toBe(10_000)
    }
  })
})
