// In-memory routing table for /c and /r: campaign slug → weighted offers and landings with compiled
// targets, plus slug → fallback URL of the campaigns that cannot route (paused, or no usable offer).
// Built from the catalog's routing rows, dropped on catalog.changed, rebuilt on next use.
import type { RoutingRows, RoutingSource } from '../catalog/store/types'
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

export class RoutingCache {
  private routes: Map<string, CampaignRoute> | null = null
  /** Built together with `routes`: only a miss reads it, so a hit costs what it did before fallbacks. */
  private fallbacks = new Map<string, string>()

  /**
   * `source` is read synchronously, so get() never awaits on the redirect path (see RoutingSource).
   * `defaultFallback` is the fallback_url setting, read on a miss only.
   */
  constructor(
    private readonly source: RoutingSource,
    private readonly publicUrl: string | null,
    private readonly defaultFallback: () => string | null = () => null,
  ) {}

  /** Drops the table; the next lookup rebuilds it (after the writer's transaction has committed). */
  invalidate(): void {
    this.routes = null
  }

  /** Active campaign with at least one usable offer, or undefined. */
  get(slug: string): CampaignRoute | undefined {
    return (this.routes ??= this.build()).get(slug)
  }

  /**
   * Where a visitor goes when get(slug) found no route: the campaign's own fallback_url (paused, or no
   * usable offer), else the fallback_url setting; null when neither is set (the link answers 404).
   */
  fallback(slug: string): string | null {
    this.routes ??= this.build()
    return this.fallbacks.get(slug) ?? this.defaultFallback()
  }

  private build(): Map<string, CampaignRoute> {
    const rows: RoutingRows = this.source.routingRows()
    const fallbacks = new Map<string, string>()
    const offersBy = new Map<number, Target[]>()
    for (const o of rows.offers) {
      const template = compileUrlTemplate(o.url)
      if (!template) continue
      push(offersBy, o.campaignId, { id: o.offerId, weight: weightOf(o.weight), template })
    }
    const landingsBy = new Map<number, Target[]>()
    for (const l of rows.landings) {
      const template = l.url ? compileUrlTemplate(l.url) : l.hasHtml ? literalTemplate(this.landingPage(l.slug)) : null
      if (!template) continue
      push(landingsBy, l.campaignId, { id: l.landingId, weight: weightOf(l.weight), template })
    }
    const routes = new Map<string, CampaignRoute>()
    for (const c of rows.campaigns) {
      const offers = c.active ? rotation(offersBy.get(c.id) ?? []) : null
      if (!offers || offers.total <= 0) {
        // Paused, or no usable offer: the campaign answers like an unknown one, through its own fallback if set.
        if (c.fallbackUrl) fallbacks.set(c.slug, c.fallbackUrl)
        continue
      }
      const landings = rotation(landingsBy.get(c.id) ?? [])
      routes.set(c.slug, {
        id: c.id,
        slug: c.slug,
        sourceId: c.sourceId ?? null,
        externalId: c.externalId ?? null,
        offers,
        landings: landings.total > 0 ? landings : null,
        botTarget: c.botUrl ? compileUrlTemplate(c.botUrl) : null,
        costModel: c.costModel === 'cpc' || c.costModel === 'param' ? c.costModel : 'none',
        cpc: Number.isFinite(c.cpc) && c.cpc > 0 ? c.cpc : 0,
      })
    }
    this.fallbacks = fallbacks
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
