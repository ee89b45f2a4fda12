// Targeting paths and rule sets over HTTP and MCP (issue 28, docs/rules.md): input schemas, the records the
// API returns, and the checks that turn an input path into what the store writes.
import { Type as t } from '@sinclair/typebox'
import { checkConditions, ConditionSchema, ConditionsInput, MAX_PATHS, type Condition } from '../../rules'
import { invalid } from '../../lib/errors'
import { Int, positiveId, requiredText, urlTemplate } from '../../lib/fields'
import { iso } from '../../lib/time'
import type { CampaignPath, LinkRef, PathWrite, RuleSet } from '../store/types'
import { DEFAULT_WEIGHT, MAX_LINKS, MAX_WEIGHT, rotationLinks } from '../campaigns/limits'
import { CapField, CapRecord, readCap } from '../caps/model'

const weight = t.Optional(Int({ minimum: 1, maximum: MAX_WEIGHT, description: `rotation weight 1..${MAX_WEIGHT} (default ${DEFAULT_WEIGHT})` }))
const ACTIONS = ['rotation', 'url', 'bot_url', 'not_found'] as const

export const PathActionInput = t.Object({
  type: t.Union(ACTIONS.map((a) => t.Literal(a)), {
    description: "rotation: the path's own weighted offers (and landings); url: a direct URL template; bot_url: the campaign's bot URL; not_found: the 404 page or the fallback URL",
  }),
  offers: t.Optional(t.Array(t.Object({ offer_id: Int(), weight, cap: CapField }), { maxItems: MAX_LINKS, description: 'rotation: at least one offer' })),
  landings: t.Optional(t.Array(t.Object({ landing_id: Int(), weight }), { maxItems: MAX_LINKS, description: 'rotation: landings before the offer (may be empty)' })),
  url: t.Optional(t.Union([t.String({ maxLength: 4096 }), t.Null()], { description: 'url: absolute http(s) URL template ({click_id}, {sub1}… as in offer URLs)' })),
})

export const PathInput = t.Object({
  id: t.Optional(Int({ minimum: 1, description: 'an existing path of this campaign to keep (its clicks stay with it); leave out for a new path' })),
  name: t.Optional(t.String({ maxLength: 200, description: 'default "Path N"' })),
  active: t.Optional(t.Boolean({ description: 'default true; an inactive path is skipped' })),
  rule_set_id: t.Optional(t.Union([Int(), t.Null()], { description: "a saved rule set whose conditions must hold as well as the path's own" })),
  conditions: t.Optional(ConditionsInput),
  action: PathActionInput,
})
export const PathsInput = t.Array(PathInput, {
  maxItems: MAX_PATHS, description: 'targeting paths in order, tried before the default rotation; replaces the whole list ([] removes every path)',
})

const PathActionRecord = t.Object({
  type: t.Union(ACTIONS.map((a) => t.Literal(a))),
  offers: t.Array(t.Object({ offer_id: Int(), weight: Int(), auto_weight: t.Union([Int(), t.Null()], { description: 'the weight auto-weights set (routed instead of weight); null: off' }), cap: CapRecord })),
  landings: t.Array(t.Object({ landing_id: Int(), weight: Int(), auto_weight: t.Union([Int(), t.Null()], { description: 'the weight auto-weights set (routed instead of weight); null: off' }) })),
  url: t.Union([t.String(), t.Null()]),
})
export const PathRecord = t.Object({
  id: Int(),
  name: t.String(),
  active: t.Boolean(),
  rule_set_id: t.Union([Int(), t.Null()]),
  conditions: t.Array(ConditionSchema),
  action: PathActionRecord,
})

export const renderPath = ({ row, offers, landings }: CampaignPath): typeof PathRecord.static => ({
  id: row.id,
  name: row.name,
  active: row.active,
  rule_set_id: row.ruleSetId,
  conditions: JSON.parse(row.conditions) as Condition[],
  action: {
    type: row.action,
    offers: offers.map((o) => ({ offer_id: o.offerId, weight: o.weight, auto_weight: o.autoWeight ?? null, cap: readCap(o.cap) })),
    landings: landings.map((l) => ({ landing_id: l.landingId, weight: l.weight, auto_weight: l.autoWeight ?? null })),
    url: row.url,
  },
})

function links(raw: unknown, key: 'offer_id' | 'landing_id', field: string): LinkRef[] {
  return raw === undefined || raw === null ? [] : rotationLinks(raw, key, field)
}

/** An input path list checked into what the store writes; every error names its field ("paths.2.action.url: …"). */
export function parsePaths(raw: unknown): PathWrite[] {
  if (!Array.isArray(raw)) throw invalid('paths: must be an array')
  if (raw.length > MAX_PATHS) throw invalid(`paths: at most ${MAX_PATHS} paths per campaign`)
  const ids = new Set<number>()
  return raw.map((p, i): PathWrite => {
    const field = `paths.${i}`
    if (p === null || typeof p !== 'object' || Array.isArray(p)) throw invalid(`${field}: must be an object`)
    const input = p as Record<string, unknown>
    const id = input.id === undefined || input.id === null ? null : positiveId(input.id, `${field}.id`)
    if (id !== null) {
      if (ids.has(id)) throw invalid(`${field}.id: path ${id} is listed twice`)
      ids.add(id)
    }
    if (input.active !== undefined && typeof input.active !== 'boolean') throw invalid(`${field}.active: must be true or false`)
    const action = input.action as Record<string, unknown> | undefined
    if (!action || typeof action !== 'object') throw invalid(`${field}.action: required ({"type":"rotation"|"url"|"bot_url"|"not_found",…})`)
    const type = action.type as PathWrite['action']
    if (!ACTIONS.includes(type)) throw invalid(`${field}.action.type: must be one of ${ACTIONS.join(', ')}`)
    const offers = type === 'rotation' ? links(action.offers, 'offer_id', `${field}.action.offers`) : []
    const landings = type === 'rotation' ? links(action.landings, 'landing_id', `${field}.action.landings`) : []
    if (type === 'rotation' && offers.length === 0) throw invalid(`${field}.action.offers: a rotation needs at least one offer`)
    // A record read back may be sent as it is: empty lists on other actions are fine.
    const listed = (v: unknown) => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0)
    if (type !== 'rotation' && (listed(action.offers) || listed(action.landings))) {
      throw invalid(`${field}.action: offers and landings belong to a rotation (type ${type} has none)`)
    }
    if (type !== 'url' && action.url !== undefined && action.url !== null) throw invalid(`${field}.action.url: only a url action has a URL`)
    const url = type === 'url' ? urlTemplate(action.url, `${field}.action.url`) : null
    const ruleSetId = input.rule_set_id === undefined || input.rule_set_id === null ? null : positiveId(input.rule_set_id, `${field}.rule_set_id`)
    const conditions = checkConditions(input.conditions ?? [], `${field}.conditions`)
    const name = input.name === undefined || input.name === null || input.name === '' ? `Path ${i + 1}` : requiredText(input.name, `${field}.name`)
    return { id, field, name, active: input.active !== false, ruleSetId, conditions: JSON.stringify(conditions), action: type, url, offers, landings }
  })
}

// Rule sets: saved conditions several campaigns' paths share (a change applies to all of them).

export const RuleSetCreate = t.Object({
  name: t.String({ maxLength: 200 }),
  conditions: ConditionsInput,
})
export const RuleSetPatch = t.Partial(RuleSetCreate)
export const RuleSetRecord = t.Object({
  id: Int(),
  name: t.String(),
  conditions: t.Array(ConditionSchema),
  campaign_ids: t.Array(Int(), { description: 'the campaigns whose paths use this rule set' }),
  created_at: t.String({ format: 'date-time' }),
  updated_at: t.String({ format: 'date-time' }),
})

export const renderRuleSet = ({ row, campaignIds }: RuleSet): typeof RuleSetRecord.static => ({
  id: row.id,
  name: row.name,
  conditions: JSON.parse(row.conditions) as Condition[],
  campaign_ids: campaignIds,
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
})

/** A rule set input checked: the name, and the conditions normalised as they are stored. */
export function parseRuleSet(input: Partial<typeof RuleSetCreate.static>): { name?: string; conditions?: string } {
  const out: { name?: string; conditions?: string } = {}
  if (input.name !== undefined) out.name = requiredText(input.name, 'name')
  if (input.conditions !== undefined) out.conditions = JSON.stringify(checkConditions(input.conditions, 'conditions'))
  return out
}
