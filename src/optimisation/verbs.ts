// The verbs of split tests and auto-weights (campaigns section): the split test of a rotation, the auto-weights
// configuration of a campaign's rotations, and the history of weight changes.
import { Type } from '@sinclair/typebox'
import { Int } from '../lib/fields'
import { invalid, notFound } from '../lib/errors'
import { iso, parseMoment } from '../lib/time'
import { defineVerb, type Actor } from '../lib/verb'
import { parseLimit, parseCursor } from '../lib/paging'
import { splitTest, type Window } from './analysis'
import { saveConfig, type AutoWeightDeps } from './auto-weights'
import { DEFAULT_RULES } from './stats'
import type { ConfigRow, Kind, RotationRef, WeightChangeRow } from './store'

/** The longest window a split test reads raw clicks over (bounded scan; docs/optimisation.md). */
export const MAX_WINDOW_DAYS = 90
const DEFAULT_WINDOW_HOURS = 7 * 24
const MAX_WINDOW_HOURS = MAX_WINDOW_DAYS * 24

const KindField = Type.Union([Type.Literal('offers'), Type.Literal('landings')])
const MetricField = Type.Union([Type.Literal('cr'), Type.Literal('epc')])

export const SplitTestInput = Type.Object({
  id: Int({ minimum: 1 }),
  kind: KindField,
  path_id: Type.Optional(Type.Union([Int({ minimum: 1 }), Type.Null()], { description: "a targeting path's rotation; absent or null: the default rotation" })),
  window: Type.Optional(Type.String({ description: 'hours or days back from now: "72h", "7d" (default 7d, at most 90d)' })),
  from: Type.Optional(Type.String({ description: 'ISO 8601 or epoch; instead of window' })),
  to: Type.Optional(Type.String({ description: 'ISO 8601 or epoch (default now)' })),
  metric: Type.Optional(MetricField),
  currency: Type.Optional(Type.String({ description: 'EPC in this currency when the window holds revenue in several' })),
  min_clicks: Type.Optional(Int({ minimum: 0, maximum: 1_000_000_000, description: `every entry needs this many clicks (default ${DEFAULT_RULES.min_clicks})` })),
  min_conversions: Type.Optional(Int({ minimum: 0, maximum: 1_000_000_000, description: `the rotation needs this many conversions (default ${DEFAULT_RULES.min_conversions})` })),
  win_probability: Type.Optional(Type.Number({ minimum: 0.5, maximum: 1, description: `P(best) of a winner (default ${DEFAULT_RULES.win_probability})` })),
  tie_pct: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: `a tie: the top two's relative difference within ± this % (default ${DEFAULT_RULES.tie_pct})` })),
})

export const AutoWeightsInput = Type.Object({
  id: Int({ minimum: 1 }),
  path_id: Type.Union([Int({ minimum: 1 }), Type.Null()], { description: "null: the campaign's default rotation" }),
  kind: KindField,
  enabled: Type.Boolean(),
  metric: Type.Optional(MetricField),
  floor_pct: Type.Optional(Type.Number({ minimum: 0, maximum: 50, description: 'the least share of each entry, % (default 5; floor × entries ≤ 100)' })),
  min_clicks: Type.Optional(Int({ minimum: 0, maximum: 1_000_000_000, description: 'every entry needs this many clicks in the window before weights move (default 100)' })),
  window_hours: Type.Optional(Int({ minimum: 1, maximum: MAX_WINDOW_HOURS, description: 'the window the decision reads (default 168)' })),
  refresh_minutes: Type.Optional(Int({ minimum: 1, maximum: 10_080, description: 'time between decisions (default 60)' })),
})

const CONFIG_DEFAULTS = { metric: 'cr' as const, floorPct: 5, minClicks: 100, windowHours: 168, refreshMinutes: 60 }

/** Who acts, as weight_changes and the config record it: a person's email, a token, or the system. */
export const actorName = (a: Actor): string =>
  a.kind === 'system' ? `system:${a.name}` : a.user.agent ? `token:${a.user.agent.tokenId}` : a.user.email

function windowOf(input: { window?: string; from?: string; to?: string }, now: number): Window {
  if (input.window !== undefined && input.from !== undefined) throw invalid('window: give either window or from/to')
  const to = input.to === undefined ? now : parseMoment(input.to)
  if (to === null) throw invalid('to: must be ISO 8601 or an epoch time')
  let from: number | null
  if (input.from !== undefined) {
    from = parseMoment(input.from)
    if (from === null) throw invalid('from: must be ISO 8601 or an epoch time')
    if (from >= to) throw invalid('from: must be before to')
  } else if (input.window !== undefined) {
    const m = /^(\d{1,5})\s*([hd])$/i.exec(input.window.trim())
    if (!m || Number(m[1]) < 1) throw invalid('window: hours or days, e.g. "72h" or "7d"')
    from = to - Number(m[1]) * (m[2]!.toLowerCase() === 'd' ? 24 : 1) * 3_600_000
  } else {
    from = to - DEFAULT_WINDOW_HOURS * 3_600_000
  }
  if (to - from > MAX_WINDOW_HOURS * 3_600_000) throw invalid(`window: at most ${MAX_WINDOW_DAYS} days`)
  return { from, to }
}

export function renderConfig(c: ConfigRow) {
  return {
    path_id: c.pathId === 0 ? null : c.pathId, kind: c.kind, enabled: c.enabled, metric: c.metric, floor_pct: c.floorPct, min_clicks: c.minClicks,
    window_hours: c.windowHours, refresh_minutes: c.refreshMinutes, updated_by: c.updatedBy, updated_at: iso(c.updatedAt),
  }
}

export function renderChange(c: WeightChangeRow) {
  return {
    id: c.id, campaign_id: c.campaignId, path_id: c.pathId, kind: c.kind, at: iso(c.at), actor: c.actor,
    before: JSON.parse(c.before) as Record<string, number>, after: JSON.parse(c.after) as Record<string, number>, reason: c.reason,
  }
}

export function optimisationVerbs(d: AutoWeightDeps) {
  const { store } = d

  /** The rotation named by an input: the campaign exists (404), the path is one of its rotation paths (400). */
  async function rotation(id: number, pathId: number | null | undefined, kind: Kind): Promise<RotationRef> {
    if (!(await store.campaignExists(id))) throw notFound('campaign not found')
    if (pathId != null) {
      const action = await store.pathAction(id, pathId)
      if (action === undefined) throw invalid('path_id: not a targeting path of this campaign')
      if (action !== 'rotation') throw invalid(`path_id: the path's action is ${action}, not a rotation`)
    }
    return { campaignId: id, pathId: pathId ?? null, kind }
  }

  return {
    splitTest: defineVerb({
      name: 'campaigns.split_test',
      summary: "The split test of a rotation's offers or landings over a window: per entry clicks, conversions, revenue, CR, EPC, the probability of being best with 95% credible intervals (Bayesian), and a verdict.",
      permission: 'campaigns:read',
      input: SplitTestInput,
      async run(_actor, input) {
        const ref = await rotation(input.id, input.path_id, input.kind)
        const w = windowOf(input, Date.now())
        let currency: string | null = null
        if (input.currency !== undefined) {
          if (!/^[A-Za-z]{3}$/.test(input.currency)) throw invalid('currency: a 3-letter ISO 4217 code')
          currency = input.currency.toUpperCase()
        }
        const rules = {
          min_clicks: input.min_clicks ?? DEFAULT_RULES.min_clicks, min_conversions: input.min_conversions ?? DEFAULT_RULES.min_conversions,
          win_probability: input.win_probability ?? DEFAULT_RULES.win_probability, tie_pct: input.tie_pct ?? DEFAULT_RULES.tie_pct,
        }
        return (await splitTest(store, ref, w, { metric: input.metric ?? 'cr', currency, rules, costCurrency: d.costCurrency() })).result
      },
    }),

    getAutoWeights: defineVerb({
      name: 'campaigns.auto_weights.get',
      summary: "The auto-weights settings of a campaign's rotations (default and paths, offers and landings); rotations never configured are absent (off).",
      permission: 'campaigns:read',
      input: Type.Object({ id: Int({ minimum: 1 }) }),
      async run(_actor, input) {
        if (!(await store.campaignExists(input.id))) throw notFound('campaign not found')
        return { items: (await store.configs(input.id)).map(renderConfig) }
      },
    }),

    putAutoWeights: defineVerb({
      name: 'campaigns.auto_weights.update',
      summary: "Switches auto-weights of one rotation on or off and sets how it decides: weights follow each entry's probability of being best (Thompson sampling), never below the floor. Off: the manual weights apply again.",
      permission: 'campaigns:write',
      input: AutoWeightsInput,
      async run(actor, input) {
        const ref = await rotation(input.id, input.path_id, input.kind)
        const old = await store.config(ref)
        const base = old ?? CONFIG_DEFAULTS
        const values = {
          campaignId: ref.campaignId, pathId: ref.pathId ?? 0, kind: ref.kind, enabled: input.enabled, updatedBy: actorName(actor),
          metric: input.metric ?? base.metric, floorPct: input.floor_pct ?? base.floorPct, minClicks: input.min_clicks ?? base.minClicks,
          windowHours: input.window_hours ?? base.windowHours, refreshMinutes: input.refresh_minutes ?? base.refreshMinutes,
        }
        if (values.enabled) {
          const live = (await store.entries(ref)).filter((e) => e.weight > 0).length
          if (live < 2) throw invalid(`kind: the rotation has ${live} ${ref.kind} with a weight above 0; auto-weights needs at least 2`)
          if (values.floorPct * live > 100) throw invalid(`floor_pct: ${values.floorPct}% × ${live} entries is more than 100%`)
        }
        return renderConfig(await saveConfig(d, ref, values))
      },
    }),

    weightChanges: defineVerb({
      name: 'campaigns.weight_changes.list',
      summary: "Every change of a campaign's rotation weights by auto-weights (or by switching it off): when, who, before and after (% of the rotation) and why. Newest first.",
      permission: 'campaigns:read',
      input: Type.Object({ id: Int({ minimum: 1 }), limit: Type.Optional(Type.String()), cursor: Type.Optional(Type.String()) }),
      async run(_actor, input) {
        if (!(await store.campaignExists(input.id))) throw notFound('campaign not found')
        const limit = parseLimit(input.limit)
        const rows = await store.weightChanges(input.id, parseCursor(input.cursor) ?? null, limit + 1)
        const shown = rows.slice(0, limit)
        return { items: shown.map(renderChange), next_cursor: rows.length > limit ? String(shown[shown.length - 1]!.id) : null }
      },
    }),
  }
}
