// The decisions of /c (tracking link) and /r (landing → offer): which click, which target, what to store.
import type { Click, ContinuableClick, SUB_FIELDS } from './store/click'
import type { ClickStore } from './store/click-store'
import type { ClickAmend } from './store/commit'
import { pick, type CampaignRoute, type Rotation, type Target } from './routing'
import { render, type Template } from './template'
import { firstMatch, tracePaths, type PathTrace } from '../rules'
import { clickContext, rotationOfLanding, rotationsOf } from './paths'
import { normalizeClickId, type VisitQuery } from './visitor'
import type { TrafficVerdict } from './quality/classify'
import { parseUserAgent, referrerDomain } from './quality/user-agent'
import { ClickEnricher, languageOf } from './enrich'
import type { CapBook } from './caps'

/** Traffic quality as the tracker sees it: a verdict per visit and the unique-visitor windows. */
export interface ClickQuality {
  /** `connection`: of the visitor's network (the datacenter step reads it); `dryRun`: count nothing (the simulator). */
  classify(v: Visitor, now: number, connection: string, dryRun?: boolean): TrafficVerdict
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

/**
 * A visitor on a hosted landing (/lp, a lead, a page view): the click they continue and its campaign; both
 * null when the landing is in no routable campaign (the page is served without a click).
 */
export type LandingVisit =
  | { kind: 'click'; click: ContinuableClick | Click; route: CampaignRoute; created: boolean }
  | { kind: 'none' }
  | { kind: 'unavailable' }

const NOT_FOUND: Outcome = { kind: 'not-found' }
const UNAVAILABLE = { kind: 'unavailable' } as const
const unavailable = (): Outcome => UNAVAILABLE

/** Macro values vector, ordered like MACROS in template.ts. */
function macroValues(
  clickId: string | null, route: CampaignRoute, sourceId: number | null, offerId: number | null,
  landingId: number | null, subs: ReadonlyArray<string | null>,
): Array<string | number | null> {
  return [clickId, route.id, sourceId, offerId, landingId, route.externalId, ...subs]
}

function storedSubs(c: Pick<Click, (typeof SUB_FIELDS)[number]>): Array<string | null> {
  return [c.sub1, c.sub2, c.sub3, c.sub4, c.sub5, c.sub6, c.sub7, c.sub8, c.sub9, c.sub10]
}

function ofCampaign(c: ContinuableClick | undefined, route: CampaignRoute): ContinuableClick | null {
  return c && c.campaignId === route.id ? c : null
}

/** Whether a click of `route` may be continued on (or reported from) landing `landingId`: it is already there, or its campaign rotates it. */
function onLanding(c: Pick<ContinuableClick, 'landingId'>, route: CampaignRoute, landingId: number): boolean {
  return c.landingId === landingId || route.allLandings.has(landingId)
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
  /** The routable campaign with this id. */
  campaign(id: number): CampaignRoute | undefined
  /** The routable campaigns that rotate this landing, lowest id first. */
  campaignsOf(landingId: number): readonly CampaignRoute[]
}

export class Tracker {
  constructor(
    private readonly routes: Routes,
    private readonly clicks: Pick<ClickStore, 'append' | 'amend' | 'find' | 'newClickId'>,
    private readonly quality: ClickQuality,
    /** Country, network, connection (the IP data), language; without one a click knows none of them. */
    private readonly enrich: ClickEnricher = new ClickEnricher(null, false),
    /** Caps (issue 29); null: nothing is capped (tests that build a Tracker by hand). */
    private readonly caps: CapBook | null = null,
  ) {}

  // click() and redirect() are synchronous up to the click's commit wherever the store and the tables are
  // (SQLite): no async frame on the redirect's path, one Promise per request (the commit's). Four async
  // frames allocated a generator, a Promise and an environment each per request: ~4-6 % of a redirect's
  // CPU, measured side by side (docs/performance.md, session 5).

  /** GET /c/:slug. */
  click(slug: string, v: Visitor): Outcome | Promise<Outcome> {
    const ready = this.ready()
    if (ready) return ready.then(() => this.click(slug, v))
    const route = this.routes.get(slug)
    if (!route) return this.miss(slug)
    const cont = this.continuable(route, v.query.clickId)
    // Lookups are synchronous on SQLite and Promises on Postgres.
    return cont instanceof Promise ? cont.then((c) => this.clickOn(route, v, c)) : this.clickOn(route, v, cont)
  }

  /** GET /r/:slug: continue the visitor's click (query click_id first, then cookie) to its offer. */
  redirect(slug: string, v: Visitor): Outcome | Promise<Outcome> {
    const ready = this.ready()
    if (ready) return ready.then(() => this.redirect(slug, v))
    const route = this.routes.get(slug)
    if (!route) return this.miss(slug)
    const cont = this.continuable(route, v.query.clickId)
    if (cont instanceof Promise) return cont.then((c) => this.redirectOn(route, v, c, true))
    return this.redirectOn(route, v, cont, true)
  }

  /** /c once the query's click is known: continue it, else a new click. */
  private clickOn(route: CampaignRoute, v: Visitor, cont: ContinuableClick | null): Outcome | Promise<Outcome> {
    if (cont) {
      const rotations = rotationsOf(route, cont.pathId)
      const offer = keepOrPick(rotations.offers, cont.offerId)
      const landing = rotations.landings ? keepOrPick(rotations.landings, cont.landingId) : null
      return this.resume(route, cont, offer, landing)
    }
    return this.create(route, v, 'c')
  }

  /** /r once the query's click (then, with `tryCookie`, the cookie's) is known. */
  private redirectOn(route: CampaignRoute, v: Visitor, cont: ContinuableClick | null, tryCookie: boolean): Outcome | Promise<Outcome> {
    if (!cont && tryCookie) {
      const byCookie = this.continuable(route, v.cookieClickId)
      if (byCookie instanceof Promise) return byCookie.then((c) => this.redirectOn(route, v, c, false))
      cont = byCookie
    }
    if (cont) {
      const offer = keepOrPick(rotationsOf(route, cont.pathId).offers, cont.offerId)
      // From a landing to the offer: the click-through is counted once per click (landing CTR).
      return this.resume(route, cont, offer, null, cont.landingId !== null && !cont.landingClickedAt)
    }
    return this.create(route, v, 'r')
  }

  /**
   * A visitor on landing `landingId` (GET /lp, POST /api/lead): the click of the query's click_id, else of the
   * cookie, when its campaign still routes and rotates this landing (or the click is already on it); it is
   * moved to this landing when it came from another landing of its campaign. A click of a campaign that does
   * not rotate this landing is left untouched and treated like an unknown id (a click id alone must not move
   * a click's attribution to another campaign's landing). Else a new click of the landing's campaign:
   * `campaignSlug` (a ?campaign= parameter) when that campaign rotates the landing, else the routable
   * campaign with the lowest id among those that do.
   */
  async landingVisit(landingId: number, v: Visitor, campaignSlug: string | null): Promise<LandingVisit> {
    const ready = this.ready()
    if (ready) await ready
    for (const raw of [v.query.clickId, v.cookieClickId]) {
      const id = normalizeClickId(raw)
      if (!id) continue
      let c = this.clicks.find(id)
      if (c instanceof Promise) c = await c
      const route = c && this.routes.campaign(c.campaignId)
      if (!c || !route || !onLanding(c, route, landingId)) continue
      if (c.landingId !== landingId) {
        try {
          await this.clicks.amend({ row: c.row, createdAt: c.createdAt, landingId })
        } catch {
          return UNAVAILABLE
        }
        c = { ...c, landingId }
      }
      return { kind: 'click', click: c, route, created: false }
    }
    const campaigns = this.routes.campaignsOf(landingId)
    const route = campaigns.find((r) => r.slug === campaignSlug) ?? campaigns[0]
    if (!route) return { kind: 'none' }
    const windows = this.quality.whenReady?.()
    if (windows) await windows
    // The landing's own rotation (the campaign's, or the path's that rotates it) supplies the offer.
    const { pathId, offers } = rotationOfLanding(route, landingId)
    const click = this.newClick(route, v)
    Object.assign(click, { pathId, offerId: this.landingOffer(offers, route, click), landingId })
    try {
      await this.clicks.append(click)
    } catch {
      return UNAVAILABLE
    }
    return { kind: 'click', click, route, created: true }
  }

  /**
   * Records what a browser reported about its click from landing `landingId` (pixel.js views, client.js
   * events, cloak.js bot signals). Resolves with the click and its campaign route, or null (nothing
   * written) for an unknown click, a campaign that no longer routes, or a landing outside its rotation.
   */
  async noteClick(clickId: string, landingId: number, change: Omit<ClickAmend, 'row'>): Promise<{ click: ContinuableClick; route: CampaignRoute } | null> {
    const ready = this.ready()
    if (ready) await ready
    let c = this.clicks.find(clickId)
    if (c instanceof Promise) c = await c
    if (!c) return null
    const route = this.routes.campaign(c.campaignId)
    if (!route || !onLanding(c, route, landingId)) return null
    // Nothing to change (a custom event only needs the click's attribution): no write.
    if (Object.keys(change).length > 0) await this.clicks.amend({ ...change, row: c.row, createdAt: c.createdAt })
    return { click: c, route }
  }

  /**
   * The offer of a click that starts on a hosted landing: the capped pick when it names an offer (counted), else
   * the plain pick (the visitor is already on the landing; a cap's URL fallback or "every offer capped" cannot
   * apply there: documented in docs/optimisation.md).
   */
  private landingOffer(offers: Rotation, route: CampaignRoute, click: Click): number {
    if (!offers.capped || !this.caps) return pick(offers).id
    const d = this.caps.pick(offers, route.offerById, click.createdAt, true)
    if (d.kind !== 'entry' && d.kind !== 'offer') return pick(offers).id
    const target = d.kind === 'entry' ? d.entry : d.offer
    if (click.botReason === null && d.rules.length) click.capKeys = this.caps.take(d.rules, click.createdAt)
    return target.id
  }

  /** The routable campaigns that rotate this landing, lowest id first (after ready(), like every lookup). */
  campaignsOf(landingId: number): readonly CampaignRoute[] {
    return this.routes.campaignsOf(landingId)
  }

  /** Where a flagged click of `route` goes (its bot_url with the click's macros), or null when the campaign has none. */
  botLocation(route: CampaignRoute, c: ContinuableClick | Click): string | null {
    if (!route.botTarget) return null
    return render(route.botTarget, macroValues(c.clickId, route, c.sourceId, c.offerId ?? 0, c.landingId, storedSubs(c)))
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

  /**
   * New click (`step` c: landing then offer; r: straight to the offer); the first targeting path whose
   * conditions hold decides where it goes, else the campaign's rotation. Answered once it is committed.
   */
  private create(route: CampaignRoute, v: Visitor, step: 'c' | 'r'): Promise<Outcome> {
    const windows = this.quality.whenReady?.()
    if (windows) return windows.then(() => this.create(route, v, step))
    const click = this.newClick(route, v)
    const template = decide(route, click, v, step, this.caps)
    // A capped rotation whose counts are on their way (Postgres: a lease or a first count): ask again once here.
    if (template === WAIT) return capWait!.then(() => this.create(route, v, step), unavailable)
    let outcome: Outcome
    if (template === null) {
      // A not_found path (or a bot_url path without a bot URL): the click counts, the visitor gets no target.
      const location = route.fallbackUrl ?? this.routes.fallback(route.slug)
      outcome = location === null ? NOT_FOUND : { kind: 'redirect', location, clickId: null }
    } else {
      const values = macroValues(click.clickId, route, route.sourceId, click.offerId, click.landingId, v.query.subs)
      outcome = { kind: 'redirect', location: render(template, values), clickId: click.clickId }
    }
    // A click the store refused (writer stopped, too many waiting, failed commit) is a 503.
    return this.clicks.append(click).then(() => outcome, unavailable)
  }

  /**
   * Where this visitor would go now, and why (POST /admin/api/campaigns/:id/simulate): the click he would
   * get (never stored), each path's conditions and outcome, and the target ({click_id} renders empty).
   * Counts nothing: no unique-visitor window, no per-IP rate; `at` says the time and whether he is unique.
   */
  simulate(route: CampaignRoute, v: Visitor, at: { now: number; unique: boolean }): { click: Click; trace: PathTrace; location: string | null } {
    const click = this.newClick(route, v, at)
    const trace = tracePaths(route.pathSpecs, clickContext(click, v.query))
    const template = decide(route, click, v, 'c', this.caps, true) as Template | null
    const location = template === null
      ? route.fallbackUrl ?? this.routes.fallback(route.slug)
      : render(template, macroValues(null, route, route.sourceId, click.offerId, click.landingId, v.query.subs))
    return { click, trace, location }
  }

  /**
   * Classifies a new click (after quality.whenReady()), without its target (decide() sets it); the caller
   * stores it. `dry` (the simulator): its time and uniqueness given, nothing counted.
   */
  private newClick(route: CampaignRoute, v: Visitor, dry?: { now: number; unique: boolean }): Click {
    const now = dry ? dry.now : Date.now()
    const clickId = this.clicks.newClickId?.(now) ?? crypto.randomUUID()
    const s = v.query.subs
    const place = this.enrich.place(v)
    const verdict = this.quality.classify(v, now, place.connection, dry !== undefined)
    // Bots are neither unique nor paid for; the operator's own clicks are left out of reports anyway.
    const human = verdict.bot === null && !verdict.excluded
    const unique = human && (dry ? dry.unique : this.quality.isUnique(route.id, v.ip, v.userAgent, now))
    const cost = verdict.bot !== null ? 0 : route.costModel === 'cpc' ? route.cpc : route.costModel === 'param' ? parseCost(v.query.params?.cost) : 0
    const ua = parseUserAgent(v.userAgent)
    const click: Click = {
      clickId, campaignId: route.id, sourceId: route.sourceId, offerId: null, landingId: null,
      ip: v.ip, userAgent: v.userAgent, referrer: v.referrer,
      sub1: s[0]!, sub2: s[1]!, sub3: s[2]!, sub4: s[3]!, sub5: s[4]!, sub6: s[5]!, sub7: s[6]!, sub8: s[7]!, sub9: s[8]!, sub10: s[9]!,
      params: v.query.params ? JSON.stringify(v.query.params) : null,
      botReason: verdict.bot, excluded: verdict.excluded, isUnique: unique, cost,
      deviceType: ua.device_type, os: ua.os, browser: ua.browser, referrerDomain: referrerDomain(v.referrer),
      landingViewedAt: null, landingClickedAt: null, createdAt: now,
      country: this.enrich.country(v, place), asn: place.asn, asOrg: place.as_org, connection: place.connection,
      language: languageOf(v.headers.get('accept-language')), osVersion: ua.os_version, browserVersion: ua.browser_version,
      region: place.region, city: place.city, pathId: null,
    }
    return click
  }

  /**
   * Existing click; goes to `landing` when given, else to the offer. A null `landing` keeps the stored
   * landing id (the /r step, or a campaign that no longer has landings). `through`: the /r step from a
   * landing, counted once per click.
   */
  private resume(route: CampaignRoute, c: ContinuableClick, offer: Target, landing: Target | null, through = false): Outcome | Promise<Outcome> {
    const landingId = landing ? landing.id : c.landingId
    const values = macroValues(c.clickId, route, c.sourceId, offer.id, landingId, storedSubs(c))
    const outcome: Outcome = { kind: 'redirect', location: render((landing ?? offer).template, values), clickId: c.clickId }
    const moved = offer.id !== c.offerId || landingId !== c.landingId
    if (!moved && !through) return outcome
    // The stored offer/landing left the rotation: record where the visitor really goes, so a later
    // conversion is attributed to it. Committed before the 302, like a new click.
    const amend: ClickAmend = { row: c.row, createdAt: c.createdAt }
    if (moved) Object.assign(amend, { offerId: offer.id, landingId })
    if (through) amend.clickedAt = Date.now()
    return this.clicks.amend(amend).then(() => outcome, unavailable)
  }
}

/** decide()'s answer while a capped rotation's counts are loading; `capWait` is what to wait for. */
const WAIT: Template = []
let capWait: Promise<void> | null = null

/**
 * Where a new click goes: the first targeting path whose conditions hold (issue 28), else the campaign's
 * rotation. Sets the click's path, offer and landing; returns the template to send the visitor to, or null
 * for "not found". A campaign without paths builds no rule context: its clicks cost what they did before.
 * Caps (issue 29) act on the offer pick of a rotation that has any; `dry` (the simulator) counts nothing.
 */
function decide(route: CampaignRoute, click: Click, v: Visitor, step: 'c' | 'r', caps: CapBook | null, dry = false): Template | null {
  let rotations: { offers: Rotation; landings: Rotation | null } = route
  if (route.paths.length > 0) {
    const path = firstMatch(route.paths, clickContext(click, v.query))
    if (path) {
      click.pathId = path.id
      const action = path.action
      // A path's explicit target is honoured for flagged visitors too (a path may be there to route them).
      if (action.type === 'url') return action.template
      if (action.type === 'bot_url') return route.botTarget
      if (action.type === 'not_found') return null
      rotations = action
    }
  }
  // A flagged visitor keeps a click_id (attribution still works) but may be sent elsewhere.
  const toBot = click.botReason !== null && route.botTarget !== null
  let offer: Target
  if (rotations.offers.capped && caps) {
    const now = click.createdAt
    const d = caps.pick(rotations.offers, route.offerById, now, dry)
    if (d.kind === 'wait') {
      capWait = d.until
      return WAIT
    }
    if (d.kind === 'none') {
      // Every offer is capped: the campaign's fallback, like a not_found path (the click counts, no offer).
      click.offerId = null
      click.landingId = null
      return toBot ? route.botTarget : null
    }
    if (d.kind === 'url') {
      click.offerId = null
      click.landingId = null
      return toBot ? route.botTarget : d.template
    }
    offer = d.kind === 'entry' ? d.entry : d.offer
    // A bot sent to the bot URL never reaches the offer: it does not use up the cap.
    if (!dry && !toBot && d.rules.length) click.capKeys = caps.take(d.rules, now)
  } else {
    offer = pick(rotations.offers)
  }
  const landing = step === 'c' && rotations.landings ? pick(rotations.landings) : null
  click.offerId = offer.id
  click.landingId = landing ? landing.id : null
  return toBot ? route.botTarget : (landing ?? offer).template
}
