import type { AppContext } from '../../context'
import type { Db } from '../../db/client'
import { invalid, conflict, notFound } from '../../lib/errors'
import { isUniqueViolation } from '../../db/errors'
import { optionalText, requiredText, slug, urlTemplate } from '../../lib/fields'
import {
  DEFAULT_WEIGHT, MAX_LINKS, MAX_WEIGHT,
  type CampaignInput, type CampaignLinks, type CampaignRow, type LandingLink, type OfferLink,
} from './model'
import {
  campaignHasClicks, campaignSlugTaken, deleteCampaign, existingLandingIds, existingOfferIds, findCampaign, insertCampaign,
  linksOf, listCampaigns, replaceLandings, replaceOffers, sourceExists, updateCampaign,
} from './queries'
import { type Page } from '../../lib/paging'

export interface Campaign { row: CampaignRow; links: CampaignLinks }

function positiveId(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw invalid(`${field}: must be a positive integer`)
  return v
}

function weightOf(v: unknown, field: string): number {
  if (v === undefined || v === null) return DEFAULT_WEIGHT
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_WEIGHT) throw invalid(`${field}: must be a whole number from 1 to ${MAX_WEIGHT}`)
  return v
}

/**
 * `offer_id` / `offers` (and the landing pair) into one list with the field name each entry came from,
 * so a later existence check can name the exact field. Undefined: the input does not touch the list.
 */
function linkList(
  input: Record<string, unknown>, one: 'offer_id' | 'landing_id', many: 'offers' | 'landings', required: boolean,
): Array<{ id: number; weight: number; field: string }> | undefined {
  const single = input[one]
  const list = input[many]
  if (single !== undefined && list !== undefined) throw invalid(`${many}: give ${one} or ${many}, not both`)
  let out: Array<{ id: number; weight: number; field: string }>
  if (single !== undefined) {
    out = single === null ? [] : [{ id: positiveId(single, one), weight: DEFAULT_WEIGHT, field: one }]
  } else if (list !== undefined) {
    if (!Array.isArray(list)) throw invalid(`${many}: must be an array`)
    if (list.length > MAX_LINKS) throw invalid(`${many}: at most ${MAX_LINKS} entries`)
    out = list.map((entry, i) => {
      if (entry === null || typeof entry !== 'object') throw invalid(`${many}.${i}: must be an object {"${one}":…,"weight":…}`)
      const e = entry as Record<string, unknown>
      return { id: positiveId(e[one], `${many}.${i}.${one}`), weight: weightOf(e.weight, `${many}.${i}.weight`), field: `${many}.${i}.${one}` }
    })
  } else {
    return undefined
  }
  if (required && out.length === 0) throw invalid(`${single !== undefined ? one : many}: a campaign needs at least one offer`)
  const seen = new Set<number>()
  for (const l of out) {
    if (seen.has(l.id)) throw invalid(`${l.field}: ${one.replace('_id', '')} ${l.id} is listed twice`)
    seen.add(l.id)
  }
  return out
}

interface Parsed {
  name?: string
  slug?: string
  sourceId?: number | null
  externalId?: string | null
  active?: boolean
  botUrl?: string | null
  costModel?: 'none' | 'cpc' | 'param'
  cpc?: number
  offers?: Array<{ id: number; weight: number; field: string }>
  landings?: Array<{ id: number; weight: number; field: string }>
}

function parse(input: CampaignInput): Parsed {
  const out: Parsed = {}
  if (input.name !== undefined) out.name = requiredText(input.name, 'name')
  if (input.slug !== undefined) out.slug = slug(input.slug)
  if (input.source_id !== undefined) out.sourceId = input.source_id === null ? null : positiveId(input.source_id, 'source_id')
  if (input.external_id !== undefined) out.externalId = optionalText(input.external_id, 'external_id')
  if (input.active !== undefined) {
    if (typeof input.active !== 'boolean') throw invalid('active: must be true or false')
    out.active = input.active
  }
  if (input.bot_url !== undefined) out.botUrl = input.bot_url === null || input.bot_url.trim() === '' ? null : urlTemplate(input.bot_url, 'bot_url')
  if (input.cost_model !== undefined) out.costModel = input.cost_model
  if (input.cpc !== undefined) {
    if (!Number.isFinite(input.cpc) || input.cpc < 0) throw invalid('cpc: must be a number ≥ 0')
    out.cpc = input.cpc
  }
  out.offers = linkList(input as Record<string, unknown>, 'offer_id', 'offers', true)
  out.landings = linkList(input as Record<string, unknown>, 'landing_id', 'landings', false)
  return out
}

/** Referenced rows must exist; run inside the write transaction so nothing is deleted in between. */
function checkReferences(db: Db, p: Parsed): void {
  if (p.sourceId != null && !sourceExists(db, p.sourceId)) throw invalid(`source_id: source ${p.sourceId} does not exist`)
  if (p.offers) {
    const found = existingOfferIds(db, p.offers.map((o) => o.id))
    const missing = p.offers.find((o) => !found.has(o.id))
    if (missing) throw invalid(`${missing.field}: offer ${missing.id} does not exist`)
  }
  if (p.landings) {
    const found = existingLandingIds(db, p.landings.map((l) => l.id))
    const missing = p.landings.find((l) => !found.has(l.id))
    if (missing) throw invalid(`${missing.field}: landing ${missing.id} does not exist`)
  }
}

const toOfferLinks = (l: Array<{ id: number; weight: number }>): OfferLink[] => l.map((x) => ({ offerId: x.id, weight: x.weight }))
const toLandingLinks = (l: Array<{ id: number; weight: number }>): LandingLink[] => l.map((x) => ({ landingId: x.id, weight: x.weight }))
const slugTaken = (s: string) => conflict(`slug: "${s}" is already used by another campaign`)

function load(db: Db, id: number): Campaign {
  const row = findCampaign(db, id)
  if (!row) throw notFound('campaign not found')
  return { row, links: linksOf(db, [id]).get(id)! }
}

export const getCampaignOrThrow = (ctx: AppContext, id: number): Campaign => load(ctx.database.db, id)

export function listCampaignsWithLinks(ctx: AppContext, page: Page): Campaign[] {
  const rows = listCampaigns(ctx.database.db, page)
  const links = linksOf(ctx.database.db, rows.map((r) => r.id))
  return rows.map((row) => ({ row, links: links.get(row.id)! }))
}

/** The campaign row and its rotations are written in one transaction: never a campaign without offers. */
export function createCampaign(ctx: AppContext, input: CampaignInput): Campaign {
  const p = parse({ ...input, name: input.name ?? '', slug: input.slug ?? '' })
  if (!p.offers) throw invalid('offers: a campaign needs at least one offer (give offer_id or offers)')
  const db = ctx.database.db
  const write = ctx.database.raw.transaction(() => {
    checkReferences(db, p)
    if (campaignSlugTaken(db, p.slug!)) throw slugTaken(p.slug!)
    const now = Date.now()
    const row = insertCampaign(db, {
      name: p.name!, slug: p.slug!, sourceId: p.sourceId ?? null, externalId: p.externalId ?? null, active: p.active ?? true,
      botUrl: p.botUrl ?? null, costModel: p.costModel ?? 'none', cpc: p.cpc ?? 0,
      createdAt: now, updatedAt: now,
    })
    replaceOffers(db, row.id, toOfferLinks(p.offers!))
    replaceLandings(db, row.id, toLandingLinks(p.landings ?? []))
    return load(db, row.id)
  })
  const campaign = withUniqueSlug(write, p.slug)
  ctx.events.committed('catalog.changed', { entity: 'campaign', id: campaign.row.id, action: 'created' })
  return campaign
}

/** Partial update; a given offers/landings list (or offer_id/landing_id) replaces that whole rotation. */
export function patchCampaign(ctx: AppContext, id: number, input: CampaignInput): Campaign {
  const p = parse(input)
  const db = ctx.database.db
  const write = ctx.database.raw.transaction(() => {
    load(db, id)
    checkReferences(db, p)
    if (p.slug !== undefined && campaignSlugTaken(db, p.slug, id)) throw slugTaken(p.slug)
    updateCampaign(db, id, {
      ...(p.name !== undefined && { name: p.name }),
      ...(p.slug !== undefined && { slug: p.slug }),
      ...(p.sourceId !== undefined && { sourceId: p.sourceId }),
      ...(p.externalId !== undefined && { externalId: p.externalId }),
      ...(p.active !== undefined && { active: p.active }),
      ...(p.botUrl !== undefined && { botUrl: p.botUrl }),
      ...(p.costModel !== undefined && { costModel: p.costModel }),
      ...(p.cpc !== undefined && { cpc: p.cpc }),
      updatedAt: Date.now(),
    })
    if (p.offers) replaceOffers(db, id, toOfferLinks(p.offers))
    if (p.landings) replaceLandings(db, id, toLandingLinks(p.landings))
    return load(db, id)
  })
  const campaign = withUniqueSlug(write, p.slug)
  ctx.events.committed('catalog.changed', { entity: 'campaign', id, action: 'updated' })
  return campaign
}

/** Clicks point at campaigns without a foreign key; deleting one with clicks would orphan its history. */
export function removeCampaign(ctx: AppContext, id: number): void {
  const db = ctx.database.db
  ctx.database.raw.transaction(() => {
    load(db, id)
    if (campaignHasClicks(db, id)) throw conflict('campaign has clicks; set active=false instead')
    deleteCampaign(db, id)
  })()
  ctx.events.committed('catalog.changed', { entity: 'campaign', id, action: 'deleted' })
}

function withUniqueSlug(run: () => Campaign, slugValue: string | undefined): Campaign {
  try {
    return run()
  } catch (err) {
    if (isUniqueViolation(err)) throw slugTaken(slugValue ?? '')
    throw err
  }
}
