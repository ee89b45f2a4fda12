// The decisions of /c (tracking link) and /r (landing → offer): which click, which target, what to store.
import type { Click, ContinuableClick } from './store/click'
import type { ClickStore } from './store/click-store'
import { pick, type CampaignRoute, type Rotation, type Target } from './routing'
import { render } from './template'
import { normalizeClickId, type VisitQuery } from './visitor'
import type { TrafficVerdict } from './quality/classify'
import { parseUserAgent, referrerDomain } from './quality/user-agent'

/** Traffic quality as the tracker sees it: a verdict per visit and the unique-visitor windows. */
export interface ClickQuality {
  classify(v: Visitor, now: number): TrafficVerdict
  /** A Promise while the unique-visitor windows are still loading (Postgres); null once isUnique() can answer. */
  whenReady?(): Promise<void> | null
  isUnique(campaignId: number, ip: string, userAgent: string | null, now: number): boolean
}

const MAX_COST = 1e6
/** The `cost` a source passes on the click URL ({cost} macro on its side): a plain non-negative decimal. */
function parseCost(raw: string | undefined): number {
  if (raw === undefined || !/^\d{1,7}(\.\d{1,8})?$/.test(raw.trim())) return 0
  const n = Number(raw.trim())
  return n <= MAX_COST ? n : 0
}

export interface Visitor {
  method: string
  headers: Headers
  query: VisitQuery
  ip: string
  userAgent: string | null
  referrer: string | null
  /** Raw `_svc_click` cookie value (only /r reads it). */
  cookieClickId: string | null
}

export type Outcome =
  | { kind: 'redirect'; location: string; clickId: string | null }
  | { kind: 'not-found' }
  | { kind: 'unavailable' }

const NOT_FOUND: Outcome = { kind: 'not-found' }
const UNAVAILABLE: Outcome = { kind: 'unavailable' }

/** Macro values vector, ordered like MACROS in template.ts. */
function macroValues(
  clickId: string | null, route: CampaignRoute, sourceId: number | null, offerId: number,
  landingId: number | null, subs: ReadonlyArray<string | null>,
): Array<string | number | null> {
  return [clickId, route.id, sourceId, offerId, landingId, route.externalId, ...subs]
}

function storedSubs(c: ContinuableClick): Array<string | null> {
  return [c.sub1, c.sub2, c.sub3, c.sub4, c.sub5, c.sub6, c.sub7, c.sub8, c.sub9, c.sub10]
}

function ofCampaign(c: ContinuableClick | undefined, route: CampaignRoute): ContinuableClick | null {
  return c && c.campaignId === route.id ? c : null
}

/** The stored target when it is still in rotation, else a fresh weighted pick. */
function keepOrPick(rotation: Rotation, storedId: number | null): Target {
  return (storedId !== null && rotation.byId.get(storedId)) || pick(rotation)
}

/** The routing table as the tracker reads it (RoutingCache). */
export interface Routes {
  /** A Promise while the table is being loaded from an async source (Postgres); null when get() can answer now. */
  whenReady?(): Promise<void> | null
  get(slug: string): CampaignRoute | undefined
  /** Fallback URL for a slug get() did not find; null = 404. */
  fallback(slug: string): string | null
}

export class Tracker {
  constructor(
    private readonly routes: Routes,
    private readonly clicks: Pick<ClickStore, 'append' | 'repoint' | 'find'>,
    private readonly quality: ClickQuality,
  ) {}

  /** GET /c/:slug. */
  async click(slug: string, v: Visitor): Promise<Outcome> {
    const ready = this.ready()
    if (ready) await ready
    const route = this.routes.get(slug)
    if (!route) return this.miss(slug)
    let cont = this.continuable(route, v.query.clickId)
    // Lookups are synchronous on SQLite (no await on its path) and Promises on Postgres.
    if (cont instanceof Promise) cont = await cont
    if (cont) {
      const offer = keepOrPick(route.offers, cont.offerId)
      const landing = route.landings ? keepOrPick(route.landings, cont.landingId) : null
      return this.resume(route, cont, offer, landing)
    }
    const landing = route.landings ? pick(route.landings) : null
    const offer = pick(route.offers)
    return this.create(route, v, offer, landing)
  }

  /** GET /r/:slug: continue the visitor's click (query click_id first, then cookie) to its offer. */
  async redirect(slug: string, v: Visitor): Promise<Outcome> {
    const ready = this.ready()
    if (ready) await ready
    const route = this.routes.get(slug)
    if (!route) return this.miss(slug)
    let cont = this.continuable(route, v.query.clickId)
    if (cont instanceof Promise) cont = await cont
    if (!cont) {
      cont = this.continuable(route, v.cookieClickId)
      if (cont instanceof Promise) cont = await cont
    }
    if (cont) {
      const offer = keepOrPick(route.offers, cont.offerId)
      return this.resume(route, cont, offer, null)
    }
    return this.create(route, v, pick(route.offers), null)
  }

  /**
   * Null when the routing table is loaded (always on SQLite: nothing to await on its path). On Postgres a
   * Promise while the table (re)loads; it loops, because a change can land between the end of one load
   * and the read.
   */
  ready(): Promise<void> | null {
    const w = this.routes.whenReady?.()
    if (!w) return null
    return (async () => {
      for (let next: Promise<void> | null | undefined = w; next; next = this.routes.whenReady?.()) await next
    })()
  }

  /** HEAD /c and HEAD /r (after ready()): where a visitor would go now, without a click ({click_id} renders empty). */
  preview(slug: string, v: Visitor, step: 'c' | 'r'): Outcome {
    const route = this.routes.get(slug)
    if (!route) return this.miss(slug)
    const landing = step === 'c' && route.landings ? pick(route.landings) : null
    const offer = pick(route.offers)
    const values = macroValues(null, route, route.sourceId, offer.id, landing?.id ?? null, v.query.subs)
    return { kind: 'redirect', location: render((landing ?? offer).template, values), clickId: null }
  }

  /** Paid traffic is not thrown away: a slug that cannot route goes to a fallback URL, with no click recorded. */
  private miss(slug: string): Outcome {
    const location = this.routes.fallback(slug)
    return location === null ? NOT_FOUND : { kind: 'redirect', location, clickId: null }
  }

  /** The stored click `raw` names when it belongs to this campaign; a Promise of it when the store is async. */
  private continuable(route: CampaignRoute, raw: string | null): ContinuableClick | null | Promise<ContinuableClick | null> {
    const id = normalizeClickId(raw)
    if (!id) return null
    const c = this.clicks.find(id)
    if (c instanceof Promise) return c.then((found) => ofCampaign(found, route))
    return ofCampaign(c, route)
  }

  /** New click; the visitor goes to the landing when there is one, else to the offer. */
  private async create(route: CampaignRoute, v: Visitor, offer: Target, landing: Target | null): Promise<Outcome> {
    const windows = this.quality.whenReady?.()
    if (windows) await windows
    const clickId = crypto.randomUUID()
    const now = Date.now()
    const s = v.query.subs
    const verdict = this.quality.classify(v, now)
    // Bots are neither unique nor paid for; the operator's own clicks are left out of reports anyway.
    const human = verdict.bot === null && !verdict.excluded
    const unique = human && this.quality.isUnique(route.id, v.ip, v.userAgent, now)
    const cost = verdict.bot !== null ? 0 : route.costModel === 'cpc' ? route.cpc : route.costModel === 'param' ? parseCost(v.query.params?.cost) : 0
    const ua = parseUserAgent(v.userAgent)
    const click: Click = {
      clickId, campaignId: route.id, sourceId: route.sourceId, offerId: offer.id, landingId: landing ? landing.id : null,
      ip: v.ip, userAgent: v.userAgent, referrer: v.referrer,
      sub1: s[0]!, sub2: s[1]!, sub3: s[2]!, sub4: s[3]!, sub5: s[4]!, sub6: s[5]!, sub7: s[6]!, sub8: s[7]!, sub9: s[8]!, sub10: s[9]!,
      params: v.query.params ? JSON.stringify(v.query.params) : null,
      botReason: verdict.bot, excluded: verdict.excluded, isUnique: unique, cost,
      deviceType: ua.device_type, os: ua.os, browser: ua.browser, referrerDomain: referrerDomain(v.referrer), createdAt: now,
    }
    try {
      await this.clicks.append(click)
    } catch {
      return UNAVAILABLE
    }
    const values = macroValues(clickId, route, route.sourceId, offer.id, landing ? landing.id : null, s)
    // A flagged visitor keeps a click_id (attribution still works) but may be sent elsewhere.
    const template = verdict.bot !== null && route.botTarget ? route.botTarget : (landing ?? offer).template
    return { kind: 'redirect', location: render(template, values), clickId }
  }

  /**
   * Existing click; goes to `landing` when given, else to the offer. A null `landing` keeps the stored
   * landing id (the /r step, or a campaign that no longer has landings).
   */
  private async resume(route: CampaignRoute, c: ContinuableClick, offer: Target, landing: Target | null): Promise<Outcome> {
    const landingId = landing ? landing.id : c.landingId
    if (offer.id !== c.offerId || landingId !== c.landingId) {
      // The stored offer/landing left the rotation: record where the visitor really goes, so a later
      // conversion is attributed to it. Committed before the 302, like a new click.
      try {
        await this.clicks.repoint(c.row, offer.id, landingId)
      } catch {
        return UNAVAILABLE
      }
    }
    const values = macroValues(c.clickId, route, c.sourceId, offer.id, landingId, storedSubs(c))
    return { kind: 'redirect', location: render((landing ?? offer).template, values), clickId: c.clickId }
  }
}
