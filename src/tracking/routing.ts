// In-memory routing table for /c and /r: campaign slug → weighted offers and landings with compiled
// targets. Built from the catalog tables, dropped on the 'catalog' signal, rebuilt on next use.
import type { RawDb, RawStatement } from '../db/client'
import { compileUrlTemplate, encodeMacroValue, literalTemplate, type Template } from './template'

export interface Target {
  id: number
  weight: number
  template: Template
}

export interface Rotation {
  items: Target[]
  /** Running sums of the weights; items[i] is picked when r < cumulative[i]. */
  cumulative: number[]
  total: number
  byId: Map<number, Target>
}

export interface CampaignRoute {
  id: number
  slug: string
  sourceId: number | null
  externalId: string | null
  offers: Rotation
  /** Null when the campaign has no usable landing: visitors go straight to the offer. */
  landings: Rotation | null
  /** Where flagged (bot) visitors go instead; null = where people go. */
  botTarget: Template | null
  costModel: 'none' | 'cpc' | 'param'
  cpc: number
}

/** Weighted random pick; `rotation.total` must be > 0. Math.random is fine: rotation is not a secret. */
export function pick(rotation: Rotation): Target {
  const r = Math.random() * rotation.total
  const { cumulative, items } = rotation
  for (let i = 0; i < items.length; i++) if (r < cumulative[i]!) return items[i]!
  return items[items.length - 1]!
}

function rotation(targets: Target[]): Rotation {
  // Weight 0 means "paused": linked to the campaign but never picked and not continued to.
  const items = targets.filter((t) => t.weight > 0).sort((a, b) => a.id - b.id)
  const cumulative: number[] = []
  let total = 0
  for (const t of items) cumulative.push((total += t.weight))
  return { items, cumulative, total, byId: new Map(items.map((t) => [t.id, t])) }
}

interface CampaignRow {
  id: number; slug: string; source_id: number | null; external_id: string | null
  bot_url: string | null; cost_model: string; cpc: number
}
interface OfferRow { campaign_id: number; offer_id: number; weight: number; url: string | null }
interface LandingRow { campaign_id: number; landing_id: number; weight: number; slug: string; url: string | null; has_html: number }

export class RoutingCache {
  private routes: Map<string, CampaignRoute> | null = null
  private readonly campaigns: RawStatement
  private readonly offers: RawStatement
  private readonly landings: RawStatement

  constructor(raw: RawDb, private readonly publicUrl: string | null) {
    this.campaigns = raw.prepare('SELECT id, slug, source_id, external_id, bot_url, cost_model, cpc FROM campaigns WHERE active = 1')
    this.offers = raw.prepare(
      'SELECT co.campaign_id, co.offer_id, co.weight, o.url FROM campaign_offers co JOIN offers o ON o.id = co.offer_id',
    )
    this.landings = raw.prepare(
      "SELECT cl.campaign_id, cl.landing_id, cl.weight, l.slug, l.url, (l.html IS NOT NULL AND l.html <> '') AS has_html " +
        'FROM campaign_landings cl JOIN landings l ON l.id = cl.landing_id',
    )
  }

  /** Drops the table; the next lookup rebuilds it (after the writer's transaction has committed). */
  invalidate(): void {
    this.routes = null
  }

  /** Active campaign with at least one usable offer, or undefined. */
  get(slug: string): CampaignRoute | undefined {
    return (this.routes ??= this.build()).get(slug)
  }

  private build(): Map<string, CampaignRoute> {
    const offersBy = new Map<number, Target[]>()
    for (const o of this.offers.all() as OfferRow[]) {
      const template = compileUrlTemplate(o.url)
      if (!template) continue
      push(offersBy, o.campaign_id, { id: o.offer_id, weight: weightOf(o.weight), template })
    }
    const landingsBy = new Map<number, Target[]>()
    for (const l of this.landings.all() as LandingRow[]) {
      const template = l.url ? compileUrlTemplate(l.url) : l.has_html ? literalTemplate(this.landingPage(l.slug)) : null
      if (!template) continue
      push(landingsBy, l.campaign_id, { id: l.landing_id, weight: weightOf(l.weight), template })
    }
    const routes = new Map<string, CampaignRoute>()
    for (const c of this.campaigns.all() as CampaignRow[]) {
      const offers = rotation(offersBy.get(c.id) ?? [])
      if (offers.total <= 0) continue // no usable offer: the campaign answers 404 like an unknown one
      const landings = rotation(landingsBy.get(c.id) ?? [])
      routes.set(c.slug, {
        id: c.id,
        slug: c.slug,
        sourceId: c.source_id ?? null,
        externalId: c.external_id ?? null,
        offers,
        landings: landings.total > 0 ? landings : null,
        botTarget: c.bot_url ? compileUrlTemplate(c.bot_url) : null,
        costModel: c.cost_model === 'cpc' || c.cost_model === 'param' ? c.cost_model : 'none',
        cpc: Number.isFinite(c.cpc) && c.cpc > 0 ? c.cpc : 0,
      })
    }
    return routes
  }

  private landingPage(slug: string): string {
    return `${this.publicUrl ?? ''}/lp/${encodeMacroValue(slug)}`
  }
}

function push(m: Map<number, Target[]>, k: number, v: Target) {
  const list = m.get(k)
  if (list) list.push(v)
  else m.set(k, [v])
}

function weightOf(w: unknown): number {
  const n = Number(w)
  return Number.isFinite(n) && n > 0 ? Math.min(n, 1e9) : 0
}
