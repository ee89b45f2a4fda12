// In-memory routing table for /c and /r: campaign slug → weighted offers and landings with compiled
// targets, plus slug → fallback URL of the campaigns that cannot route (paused, or no usable offer).
// Built from the catalog's routing rows, dropped on catalog.changed, rebuilt on next use (SQLite) or reloaded
// at once (Postgres, whose store answers asynchronously).
import type { RoutingRows, RoutingSource } from '../catalog'
import { errorFields, log } from '../lib/log'
import { compilePath, type CompiledPath, type Condition, type PathSpec } from '../rules'
import { compileUrlTemplate, encodeMacroValue, MACROS, type Template } from './template'
import { compileCaps } from './cap-rules'
import type { CapRule } from './caps'

export interface Target {
  id: number
  weight: number
  template: Template
  /** Offers only: the entry's cap, then the offer's (issue 29); absent when neither is capped. */
  caps?: CapRule[]
}

export interface Rotation {
  items: Target[]
  /** Running sums of the weights; items[i] is picked when r < cumulative[i]. */
  cumulative: number[]
  total: number
  byId: Map<number, Target>
  /** Some item has a cap: the pick goes through the cap book (track.ts). */
  capped: boolean
}

/** What a targeting path does with the visitor it takes, resolved once for the click path. */
export type PathRoute =
  | { type: 'rotation'; name: string; offers: Rotation; landings: Rotation | null }
  | { type: 'url'; name: string; template: Template }
  | { type: 'bot_url'; name: string }
  | { type: 'not_found'; name: string }

export interface CampaignRoute {
  id: number
  slug: string
  /** Active targeting paths in order (compiled conditions); empty: every visitor gets the rotation below. */
  paths: ReadonlyArray<CompiledPath<PathRoute>>
  /** The same paths with their conditions, for the simulator and the click lookup's trace. */
  pathSpecs: ReadonlyArray<PathSpec<PathRoute>>
  /** The campaign's own fallback_url (a not_found path sends visitors there, else to the setting's). */
  fallbackUrl: string | null
  /** Every landing the campaign or one of its paths rotates (a visit to any of them continues the click). */
  allLandings: Map<number, Target>
  sourceId: number | null
  externalId: string | null
  offers: Rotation
  /** Null when the campaign has no usable landing: visitors go straight to the offer. */
  landings: Rotation | null
  /** Where flagged (bot) visitors go instead; null = where people go. */
  botTarget: Template | null
  costModel: 'none' | 'cpc' | 'param'
  cpc: number
  /** Every offer by id (shared by all routes): where a cap's fallback offer sends visitors. */
  offerById: ReadonlyMap<number, Target>
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
  return { items, cumulative, total, byId: new Map(items.map((t) => [t.id, t])), capped: items.some((t) => t.caps !== undefined) }
}

export class RoutingCache {
  private routes: Map<string, CampaignRoute> | null = null
  /** Built together with `routes`: only a miss reads it, so a hit costs what it did before fallbacks. */
  private fallbacks = new Map<string, string>()
  /** Built with `routes`: routable campaigns by id, and by each landing they rotate (lowest campaign id first). */
  private byId = new Map<number, CampaignRoute>()
  private byLanding = new Map<number, CampaignRoute[]>()
  /** Whether the source answers with a Promise; null until it first answered. */
  private async: boolean | null = null
  /** The async load in flight (the newest one), or null. */
  private loading: Promise<void> | null = null
  /** Bumped by every async load: a load that finishes after a newer one started is discarded. */
  private generation = 0

  /**
   * A synchronous `source` is read inside get(), so get() never awaits on the redirect path (see
   * RoutingSource). An async one is loaded ahead: start(), then at once on every invalidate().
   * `defaultFallback` is the fallback_url setting, read on a miss only.
   */
  constructor(
    private readonly source: RoutingSource,
    private readonly publicUrl: string | null,
    private readonly defaultFallback: () => string | null = () => null,
  ) {}

  /** Preloads the table (an async source is awaited; a failure rejects, and is retried on next use). */
  async start(): Promise<void> {
    for (let w = this.whenReady(); w; w = this.whenReady()) await w
  }

  /**
   * Drops the table; the next lookup rebuilds it (after the writer's transaction has committed). An async
   * source starts reloading at once: a request arriving meanwhile waits on whenReady() for the new table
   * rather than being answered from the old one.
   */
  invalidate(): void {
    this.routes = null
    if (this.async) void this.reload()
  }

  /**
   * Null when get() can answer now: the table is loaded, or the source is synchronous (get() builds it).
   * Else the Promise of the load in flight (a new one when the last failed); it rejects when that load fails.
   * An invalidate() may land between its settling and the caller's get(): loop until null
   * (`for (let w = c.whenReady(); w; w = c.whenReady()) await w`) to rule that out.
   */
  whenReady(): Promise<void> | null {
    if (this.routes !== null || this.async === false) return null
    if (this.async === null && this.probe()) return null
    return this.loading ?? this.reload()
  }

  /** Every cap of the routable campaigns' rotations and of the offers (the caps status API). */
  capRules(): CapRule[] {
    if (this.routes === null) this.load()
    const out = new Map<string, CapRule>()
    const add = (r: Rotation | null) => { for (const t of r?.items ?? []) for (const c of t.caps ?? []) if (!out.has(c.key)) out.set(c.key, c) }
    for (const route of this.byId.values()) {
      add(route.offers)
      for (const p of route.pathSpecs) if (p.action.type === 'rotation') add(p.action.offers)
      for (const t of route.offerById.values()) for (const c of t.caps ?? []) if (!out.has(c.key)) out.set(c.key, c)
    }
    return [...out.values()]
  }

  /** Active campaign with at least one usable offer, or undefined. */
  get(slug: string): CampaignRoute | undefined {
    return (this.routes ?? this.load()).get(slug)
  }

  /** The routable campaign with this id (after whenReady(), like get()). */
  campaign(id: number): CampaignRoute | undefined {
    if (this.routes === null) this.load()
    return this.byId.get(id)
  }

  /** The routable campaigns that rotate this landing (weight > 0), lowest campaign id first. */
  campaignsOf(landingId: number): readonly CampaignRoute[] {
    if (this.routes === null) this.load()
    return this.byLanding.get(landingId) ?? []
  }

  /**
   * Where a visitor goes when get(slug) found no route: the campaign's own fallback_url (paused, or no
   * usable offer), else the fallback_url setting; null when neither is set (the link answers 404).
   */
  fallback(slug: string): string | null {
    if (this.routes === null) this.load()
    return this.fallbacks.get(slug) ?? this.defaultFallback()
  }

  /** The table for get(): built now from a synchronous source; an async one must have been awaited. */
  private load(): Map<string, CampaignRoute> {
    if (this.async === null && this.probe()) return this.routes!
    if (this.async) {
      this.loading ??= this.reload()
      throw new Error('routing table not loaded: await RoutingCache.whenReady() before get()')
    }
    return this.install(this.source.routingRows() as RoutingRows)
  }

  /** First read of the source: true when it answered synchronously (the table is built), else its load is in flight. */
  private probe(): boolean {
    const rows = this.source.routingRows()
    if (typeof (rows as Partial<PromiseLike<RoutingRows>>).then === 'function') {
      this.async = true
      this.track(Promise.resolve(rows))
      return false
    }
    this.async = false
    this.install(rows as RoutingRows)
    return true
  }

  private reload(): Promise<void> {
    let rows: Promise<RoutingRows>
    try {
      rows = Promise.resolve(this.source.routingRows())
    } catch (err) {
      rows = Promise.reject(err)
    }
    return this.track(rows)
  }

  /** Installs the rows of the newest load; an older load hands its waiters over to the newer one. */
  private track(rows: Promise<RoutingRows>): Promise<void> {
    const gen = ++this.generation
    const load: Promise<void> = rows.then(
      (r) => {
        if (gen !== this.generation) return this.loading ?? undefined
        this.install(r)
        this.loading = null
      },
      (err) => {
        if (gen !== this.generation) return this.loading ?? undefined
        this.loading = null
        log.error('tracking: loading the routing table failed (retried on the next request)', errorFields(err))
        throw err
      },
    )
    // invalidate() starts loads nobody awaits: their failure is logged above, not an unhandled rejection.
    load.catch(() => {})
    this.loading = load
    return load
  }

  private install(rows: RoutingRows): Map<string, CampaignRoute> {
    const { routes, fallbacks } = compile(rows, (slug) => this.landingPage(slug))
    const byId = new Map<number, CampaignRoute>()
    const byLanding = new Map<number, CampaignRoute[]>()
    for (const r of routes.values()) {
      byId.set(r.id, r)
      for (const id of r.allLandings.keys()) push(byLanding, id, r)
    }
    for (const list of byLanding.values()) list.sort((a, b) => a.id - b.id)
    this.fallbacks = fallbacks
    this.byId = byId
    this.byLanding = byLanding
    return (this.routes = routes)
  }

  /**
   * The hosted page of an html landing, carrying the click id in the URL as well as in the cookie: a
   * browser that blocks cookies keeps its attribution through the landing.
   */
  private landingPage(slug: string): Template {
    return [`${this.publicUrl ?? ''}/lp/${encodeMacroValue(slug)}?click_id=`, MACROS.indexOf('click_id')]
  }
}

/** The routing table of a set of routing rows (pure). */
function compile(rows: RoutingRows, landingPage: (slug: string) => Template): { routes: Map<string, CampaignRoute>; fallbacks: Map<string, string> } {
  const fallbacks = new Map<string, string>()
  const offerById = new Map<number, Target>()
  for (const o of rows.allOffers) {
    const template = compileUrlTemplate(o.url)
    if (template) offerById.set(o.id, withCaps({ id: o.id, weight: 0, template }, compileCaps(null, o.cap, 0, 0, o.id)))
  }
  const offersBy = new Map<number, Target[]>()
  for (const o of rows.offers) {
    const template = compileUrlTemplate(o.url)
    if (!template) continue
    const caps = compileCaps(o.cap, o.offerCap, o.campaignId, 0, o.offerId)
    push(offersBy, o.campaignId, withCaps({ id: o.offerId, weight: weightOf(o.autoWeight ?? o.weight), template }, caps))
  }
  const landingsBy = new Map<number, Target[]>()
  for (const l of rows.landings) {
    const template = l.url ? compileUrlTemplate(l.url) : l.hasHtml ? landingPage(l.slug) : null
    if (!template) continue
    push(landingsBy, l.campaignId, { id: l.landingId, weight: weightOf(l.autoWeight ?? l.weight), template })
  }
  const pathsBy = compilePaths(rows, landingPage)
  const routes = new Map<string, CampaignRoute>()
  for (const c of rows.campaigns) {
    const offers = c.active ? rotation(offersBy.get(c.id) ?? []) : null
    if (!offers || offers.total <= 0) {
      // Paused, or no usable offer: the campaign answers like an unknown one, through its own fallback if set.
      if (c.fallbackUrl) fallbacks.set(c.slug, c.fallbackUrl)
      continue
    }
    const landings = rotation(landingsBy.get(c.id) ?? [])
    const paths = pathsBy.get(c.id) ?? []
    const allLandings = new Map(landings.byId)
    for (const { spec: { action } } of paths) {
      if (action.type === 'rotation') for (const l of action.landings?.items ?? []) if (!allLandings.has(l.id)) allLandings.set(l.id, l)
    }
    routes.set(c.slug, {
      id: c.id,
      slug: c.slug,
      paths: paths.map((p) => p.compiled),
      pathSpecs: paths.map((p) => p.spec),
      fallbackUrl: c.fallbackUrl ?? null,
      allLandings,
      sourceId: c.sourceId ?? null,
      externalId: c.externalId ?? null,
      offers,
      landings: landings.total > 0 ? landings : null,
      botTarget: c.botUrl ? compileUrlTemplate(c.botUrl) : null,
      // cpm is a cpc of cpm / 1000 to the click (track.ts): one rule, bots cost nothing under both.
      costModel: c.costModel === 'cpc' || c.costModel === 'param' ? c.costModel : c.costModel === 'cpm' ? 'cpc' : 'none',
      offerById,
      cpc: c.costModel === 'cpm' ? (Number.isFinite(c.cpm) && c.cpm > 0 ? c.cpm / 1000 : 0) : Number.isFinite(c.cpc) && c.cpc > 0 ? c.cpc : 0,
    })
  }
  return { routes, fallbacks }
}

/**
 * Each campaign's active paths with their conditions (the rule set's, then the path's own) and resolved
 * action. A path that cannot route (a rotation left without a usable offer, conditions that no longer parse)
 * is left out and logged: the visitor falls through to the next path, never to an error.
 */
interface BuiltPath { spec: PathSpec<PathRoute>; compiled: CompiledPath<PathRoute> }

function compilePaths(rows: RoutingRows, landingPage: (slug: string) => Template): Map<number, BuiltPath[]> {
  const campaignOf = new Map(rows.paths.map((p) => [p.id, p.campaignId]))
  const offersBy = new Map<number, Target[]>()
  for (const o of rows.pathOffers) {
    const template = compileUrlTemplate(o.url ?? '')
    const caps = compileCaps(o.cap, o.offerCap, campaignOf.get(o.pathId) ?? 0, o.pathId, o.offerId)
    if (template) push(offersBy, o.pathId, withCaps({ id: o.offerId, weight: weightOf(o.autoWeight ?? o.weight), template }, caps))
  }
  const landingsBy = new Map<number, Target[]>()
  for (const l of rows.pathLandings) {
    const template = l.url ? compileUrlTemplate(l.url) : l.hasHtml ? landingPage(l.slug) : null
    if (template) push(landingsBy, l.pathId, { id: l.landingId, weight: weightOf(l.autoWeight ?? l.weight), template })
  }
  const out = new Map<number, BuiltPath[]>()
  for (const p of rows.paths) {
    let action: PathRoute | null = null
    if (p.action === 'rotation') {
      const offers = rotation(offersBy.get(p.id) ?? [])
      const landings = rotation(landingsBy.get(p.id) ?? [])
      if (offers.total > 0) action = { type: 'rotation', name: p.name, offers, landings: landings.total > 0 ? landings : null }
    } else if (p.action === 'url') {
      const template = p.url ? compileUrlTemplate(p.url) : null
      if (template) action = { type: 'url', name: p.name, template }
    } else if (p.action === 'bot_url' || p.action === 'not_found') {
      action = { type: p.action, name: p.name }
    }
    if (!action) {
      log.warn('tracking: a targeting path has no usable target; skipped', { path_id: p.id })
      continue
    }
    let built: BuiltPath
    try {
      const conditions = [...(p.ruleConditions ? (JSON.parse(p.ruleConditions) as Condition[]) : []), ...(JSON.parse(p.conditions) as Condition[])]
      built = { spec: { id: p.id, conditions, action }, compiled: compilePath(p.id, conditions, action) }
    } catch (err) {
      log.error('tracking: a targeting path does not compile; skipped', { path_id: p.id, ...errorFields(err) })
      continue
    }
    push(out, p.campaignId, built)
  }
  return out
}

function withCaps(t: Target, caps: CapRule[] | null): Target {
  if (caps) t.caps = caps
  return t
}

function push<T>(m: Map<number, T[]>, k: number, v: T) {
  const list = m.get(k)
  if (list) list.push(v)
  else m.set(k, [v])
}

function weightOf(w: unknown): number {
  const n = Number(w)
  return Number.isFinite(n) && n > 0 ? Math.min(n, 1e9) : 0
}
