// Campaigns: a tracking link (/c/:slug) from one source, rotating weighted offers and optional landings.
import { defineVerb } from '../../lib/verb'
import { invalid } from '../../lib/errors'
import { optionalPlainUrl, optionalText, positiveId, requiredText, slug, urlTemplate } from '../../lib/fields'
import { found, IdInput, listPage, PageInput, withId } from '../../lib/verb-inputs'
import { announce, type CatalogDeps } from '../shared'
import type { CampaignValues, LinkChanges, LinkRef } from '../store/types'
import { parsePaths } from '../paths/model'
import { CampaignCreate, CampaignPatch, DEFAULT_WEIGHT, type CampaignInput } from './model'
import { rotationLinks } from './limits'

/**
 * `offer_id` / `offers` (and the landing pair) into one list with the field name each entry came from,
 * so the store's existence check can name the exact field. Undefined: the input does not touch the list.
 */
function linkList(
  input: Record<string, unknown>, one: 'offer_id' | 'landing_id', many: 'offers' | 'landings', required: boolean,
): LinkRef[] | undefined {
  const single = input[one]
  const list = input[many]
  if (single !== undefined && list !== undefined) throw invalid(`${many}: give ${one} or ${many}, not both`)
  let out: LinkRef[]
  if (single !== undefined) {
    out = single === null ? [] : [{ id: positiveId(single, one), weight: DEFAULT_WEIGHT, field: one }]
  } else if (list !== undefined) {
    out = rotationLinks(list, one, many)
  } else {
    return undefined
  }
  if (required && out.length === 0) throw invalid(`${single !== undefined ? one : many}: a campaign needs at least one offer`)
  return out
}

/** The input's fields checked and renamed for the store, and the rotations it replaces. */
function parse(input: CampaignInput): { values: Partial<CampaignValues>; links: LinkChanges } {
  const out: Partial<CampaignValues> = {}
  if (input.name !== undefined) out.name = requiredText(input.name, 'name')
  if (input.slug !== undefined) out.slug = slug(input.slug)
  if (input.source_id !== undefined) out.sourceId = input.source_id === null ? null : positiveId(input.source_id, 'source_id')
  if (input.external_id !== undefined) out.externalId = optionalText(input.external_id, 'external_id')
  if (input.active !== undefined) {
    if (typeof input.active !== 'boolean') throw invalid('active: must be true or false')
    out.active = input.active
  }
  if (input.bot_url !== undefined) out.botUrl = input.bot_url === null || input.bot_url.trim() === '' ? null : urlTemplate(input.bot_url, 'bot_url')
  if (input.fallback_url !== undefined) out.fallbackUrl = optionalPlainUrl(input.fallback_url, 'fallback_url')
  if (input.cost_model !== undefined) out.costModel = input.cost_model
  if (input.cpc !== undefined) {
    if (!Number.isFinite(input.cpc) || input.cpc < 0) throw invalid('cpc: must be a number ≥ 0')
    out.cpc = input.cpc
  }
  if (input.cpm !== undefined) {
    if (!Number.isFinite(input.cpm) || input.cpm < 0) throw invalid('cpm: must be a number ≥ 0')
    out.cpm = input.cpm
  }
  if (input.revshare_percent !== undefined) {
    if (!Number.isFinite(input.revshare_percent) || input.revshare_percent <= 0 || input.revshare_percent > 100) throw invalid('revshare_percent: must be more than 0 and at most 100')
    out.revsharePercent = input.revshare_percent
  }
  const links: LinkChanges = {}
  const offers = linkList(input as Record<string, unknown>, 'offer_id', 'offers', true)
  const landings = linkList(input as Record<string, unknown>, 'landing_id', 'landings', false)
  if (offers) links.offers = offers
  if (landings) links.landings = landings
  if (input.paths !== undefined) links.paths = parsePaths(input.paths)
  return { values: out, links }
}

export function campaignVerbs({ store, events }: CatalogDeps) {
  return {
    list: defineVerb({
      name: 'catalog.campaigns.list', summary: 'List campaigns with their offer and landing rotations', permission: 'campaigns:read', input: PageInput,
      async run(_actor, input) {
        const page = await listPage(input, async (p) => (await store.listCampaigns(p)).map((c) => ({ id: c.row.id, campaign: c })))
        return { items: page.items.map((i) => i.campaign), next_cursor: page.next_cursor }
      },
    }),
    get: defineVerb({
      name: 'catalog.campaigns.get', summary: 'Get a campaign', permission: 'campaigns:read', input: IdInput,
      run: (_actor, { id }) => found(store.findCampaign(id), 'campaign'),
    }),
    create: defineVerb({
      name: 'catalog.campaigns.create', summary: 'Create a campaign', permission: 'campaigns:write', input: CampaignCreate,
      async run(_actor, input) {
        const { values: v, links } = parse({ ...input, name: input.name ?? '', slug: input.slug ?? '' })
        if (!links.offers) throw invalid('offers: a campaign needs at least one offer (give offer_id or offers)')
        if (v.costModel === 'revshare' && v.revsharePercent === undefined) throw invalid('revshare_percent: required with cost_model revshare')
        const campaign = await store.createCampaign({
          name: v.name!, slug: v.slug!, sourceId: v.sourceId ?? null, externalId: v.externalId ?? null, active: v.active ?? true,
          botUrl: v.botUrl ?? null, fallbackUrl: v.fallbackUrl ?? null, costModel: v.costModel ?? 'none', cpc: v.cpc ?? 0, cpm: v.cpm ?? 0, revsharePercent: v.revsharePercent ?? 0,
        }, { offers: links.offers, landings: links.landings ?? [], paths: links.paths })
        announce(events, 'campaign', campaign.row.id, 'created')
        return campaign
      },
    }),
    update: defineVerb({
      name: 'catalog.campaigns.update', summary: 'Change a campaign (a given rotation replaces the old one)', permission: 'campaigns:write', input: withId(CampaignPatch),
      async run(_actor, { id, ...input }) {
        const { values, links } = parse(input)
        const campaign = await store.updateCampaign(id, values, links)
        announce(events, 'campaign', id, 'updated')
        return campaign
      },
    }),
    delete: defineVerb({
      name: 'catalog.campaigns.delete', summary: 'Delete a campaign (conflict once it has clicks: deactivate it instead)', permission: 'campaigns:write', input: IdInput,
      async run(_actor, { id }) {
        await store.deleteCampaign(id)
        announce(events, 'campaign', id, 'deleted')
        return { ok: true as const }
      },
    }),
  }
}
