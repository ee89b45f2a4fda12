// Campaigns over HTTP and MCP: input schemas (with the rotation limits) and the public record shape.
import { Type as t } from '@sinclair/typebox'
import type { Campaign } from '../store/types'
import { iso } from '../../lib/time'
import { Int } from '../../lib/fields'
import { MAX_LINKS, DEFAULT_WEIGHT, MAX_WEIGHT } from './limits'
import { PathRecord, PathsInput, renderPath } from '../paths/model'
import { CapField, CapRecord, readCap } from '../caps/model'
export { MAX_LINKS, DEFAULT_WEIGHT, MAX_WEIGHT }

const weight = t.Optional(Int({ minimum: 1, maximum: MAX_WEIGHT, description: `rotation weight 1..${MAX_WEIGHT} (default ${DEFAULT_WEIGHT})` }))

export const CampaignCreate = t.Object({
  name: t.String({ maxLength: 200 }),
  slug: t.String({ maxLength: 64, description: '^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$, unique among campaigns; the tracking link is /c/:slug' }),
  source_id: t.Optional(t.Union([Int(), t.Null()])),
  external_id: t.Optional(t.Union([t.String({ maxLength: 200, description: "the campaign's id on the source side ({external_id})" }), t.Null()])),
  offer_id: t.Optional(t.Union([Int(), t.Null()], { description: 'shorthand for offers:[{offer_id}]' })),
  offers: t.Optional(t.Array(t.Object({ offer_id: Int(), weight, cap: CapField }), { maxItems: MAX_LINKS, description: 'replaces the whole rotation; at least one offer' })),
  landing_id: t.Optional(t.Union([Int(), t.Null()], { description: 'shorthand for landings:[{landing_id}]; null removes every landing' })),
  landings: t.Optional(t.Array(t.Object({ landing_id: Int(), weight }), { maxItems: MAX_LINKS, description: 'replaces the whole rotation; may be empty' })),
  active: t.Optional(t.Boolean({ description: 'default true' })),
  bot_url: t.Optional(t.Union([t.String({ maxLength: 4096, description: 'absolute http(s) URL template where flagged (bot) visitors go instead; null = same as people' }), t.Null()])),
  fallback_url: t.Optional(t.Union([t.String({ maxLength: 4096, description: 'absolute http(s) URL (no macros) where visitors go while the campaign is paused or has no usable offer; no click is recorded. Null = the fallback_url setting' }), t.Null()])),
  cost_model: t.Optional(t.Union([t.Literal('none'), t.Literal('cpc'), t.Literal('param'), t.Literal('cpm'), t.Literal('revshare')], { description: "none (default), cpc (every click costs `cpc`), cpm (every click costs `cpm` / 1000), param (the source passes the cost in the click URL's `cost` parameter): in the cost_currency setting, bot clicks cost nothing, cost updates (POST /admin/api/cost-updates) replace it with the real spend; revshare (each conversion costs `revshare_percent` % of its revenue, in its currency, reversed with it)" })),
  cpc: t.Optional(t.Number({ minimum: 0, maximum: 1000000, description: 'cost per click for cost_model cpc' })),
  cpm: t.Optional(t.Number({ minimum: 0, maximum: 1000000000, description: 'cost per 1,000 clicks for cost_model cpm' })),
  revshare_percent: t.Optional(t.Number({ exclusiveMinimum: 0, maximum: 100, description: 'for cost_model revshare: the share of each conversion\'s revenue that is its cost, 0 < p ≤ 100' })),
  paths: t.Optional(PathsInput),
}, { description: 'give offer_id or offers (not both), landing_id or landings (not both)' })
export const CampaignPatch = t.Partial(CampaignCreate)
export type CampaignInput = Partial<typeof CampaignCreate.static>

export const CampaignRecord = t.Object({
  id: Int(),
  name: t.String(),
  slug: t.String(),
  source_id: t.Union([Int(), t.Null()]),
  external_id: t.Union([t.String(), t.Null()]),
  active: t.Boolean(),
  bot_url: t.Union([t.String(), t.Null()]),
  fallback_url: t.Union([t.String(), t.Null()]),
  cost_model: t.Union([t.Literal('none'), t.Literal('cpc'), t.Literal('param'), t.Literal('cpm'), t.Literal('revshare')]),
  cpc: t.Number(),
  cpm: t.Number(),
  revshare_percent: t.Number(),
  offer_id: t.Union([Int(), t.Null()], { description: 'the first offer of the rotation' }),
  offers: t.Array(t.Object({ offer_id: Int(), weight: Int(), auto_weight: t.Union([Int(), t.Null()], { description: 'the weight auto-weights set (routed instead of weight); null: off' }), cap: CapRecord })),
  landing_id: t.Union([Int(), t.Null()], { description: 'the first landing of the rotation, null when none' }),
  landings: t.Array(t.Object({ landing_id: Int(), weight: Int(), auto_weight: t.Union([Int(), t.Null()], { description: 'the weight auto-weights set (routed instead of weight); null: off' }) })),
  paths: t.Array(PathRecord, { description: 'targeting paths in order; the first whose conditions hold takes the visitor, none → the rotation above' }),
  tracking_url: t.String({ description: "the link to paste into the traffic source: /c/<slug> with the source's link_params, on SVC_PUBLIC_URL when set (else a path)" }),
  created_at: t.String({ format: 'date-time' }),
  updated_at: t.String({ format: 'date-time' }),
})

/** /c/<slug> with the source's link parameters, on `base` (SVC_PUBLIC_URL) when given. */
const trackingUrl = (base: unknown, slug: string, params: string | null | undefined) =>
  `${typeof base === 'string' ? base : ''}/c/${slug}${params ? `?${params}` : ''}`

export const renderCampaign = ({ row: r, links, paths, sourceLinkParams }: Campaign, base?: unknown): typeof CampaignRecord.static => ({
  id: r.id,
  name: r.name,
  slug: r.slug,
  source_id: r.sourceId,
  external_id: r.externalId,
  active: r.active,
  bot_url: r.botUrl,
  fallback_url: r.fallbackUrl,
  cost_model: r.costModel,
  cpc: r.cpc,
  cpm: r.cpm,
  revshare_percent: r.revsharePercent,
  offer_id: links.offers[0]?.offerId ?? null,
  offers: links.offers.map((o) => ({ offer_id: o.offerId, weight: o.weight, auto_weight: o.autoWeight ?? null, cap: readCap(o.cap) })),
  landing_id: links.landings[0]?.landingId ?? null,
  landings: links.landings.map((l) => ({ landing_id: l.landingId, weight: l.weight, auto_weight: l.autoWeight ?? null })),
  paths: paths.map(renderPath),
  tracking_url: trackingUrl(base, r.slug, sourceLinkParams),
  created_at: iso(r.createdAt),
  updated_at: iso(r.updatedAt),
})
