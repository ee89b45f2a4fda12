// addRollupDeltas skips the map key while a click shares the previous click's row; a click of another row
// (campaign, source, offer, landing or hour) must still land in its own row, also when rows interleave.
import { describe, expect, test } from 'bun:test'
import { addRollupDeltas, type RollupDelta } from '../../src/tracking/store/click-rollup'
import { newClick, type Click } from '../../src/tracking/store/click'

const HOUR = 3_600_000
const T = Date.UTC(2026, 10, 24, 10, 0, 0)

function click(f: Partial<Click>): Click {
  return newClick({ clickId: crypto.randomUUID(), campaignId: 1, sourceId: 1, offerId: 1, createdAt: T + 60_000, ...f })
}

describe('addRollupDeltas', () => {
  test('interleaved rows are each counted in their own row, with their flags and cost', () => {
    const clicks = [
      click({ isUnique: true, cost: 0.5 }),
      click({ offerId: 2 }),
      click({ cost: 0.25 }),
      click({ landingId: 7, botReason: 'ip_rate' }),
      click({ createdAt: T + HOUR + 1 }),
      click({ isUnique: true }),
      click({ sourceId: null, landingViewedAt: T, landingClickedAt: T }),
      click({ campaignId: 2 }),
      click({ excluded: true }),
      click({ offerId: 2, isUnique: true }),
    ]
    const deltas = new Map<string, RollupDelta>()
    addRollupDeltas(deltas, clicks, 1)
    const rows = [...deltas.values()].map((d) => ({ ...d })).sort((a, b) =>
      a.hour - b.hour || a.campaign - b.campaign || a.source - b.source || a.offer - b.offer || a.landing - b.landing)
    const row = (hour: number, campaign: number, source: number, offer: number, landing: number, rest: Partial<RollupDelta>): RollupDelta =>
      ({ hour, campaign, source, offer, landing, clicks: 0, unique: 0, bots: 0, cost: 0, views: 0, throughs: 0, ...rest })
    expect(rows).toEqual([
      row(T, 1, 0, 1, 0, { clicks: 1, views: 1, throughs: 1 }),
      row(T, 1, 1, 1, 0, { clicks: 3, unique: 2, cost: 0.75 }),
      row(T, 1, 1, 1, 7, { clicks: 1, bots: 1 }),
      row(T, 1, 1, 2, 0, { clicks: 2, unique: 1 }),
      row(T, 2, 1, 1, 0, { clicks: 1 }),
      row(T + HOUR, 1, 1, 1, 0, { clicks: 1 }),
    ])
  })

  test('sign -1 takes the same clicks back out of the same rows', () => {
    const clicks = [click({}), click({ offerId: 2 }), click({})]
    const deltas = new Map<string, RollupDelta>()
    addRollupDeltas(deltas, clicks, 1)
    addRollupDeltas(deltas, clicks, -1)
    expect(deltas.size).toBe(2)
    for (const d of deltas.values()) expect(d.clicks).toBe(0)
  })
})
