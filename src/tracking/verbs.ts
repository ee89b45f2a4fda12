// The tracking feature's verbs: reading one click (GET /admin/api/clicks/:click_id) with the trace of its
// targeting paths, its timeline and the clicks list (issue 30, timeline.ts), and the targeting simulator
// (POST /admin/api/campaigns/:id/simulate).
import { Type } from '@sinclair/typebox'
import { conflict, invalid, notFound } from '../lib/errors'
import { tracePaths } from '../rules'
import { clickContext, clickQuery } from './paths'
import type { CampaignRoute } from './routing'
import { renderTrace, simulate, SimulateInput, type TraceRecord } from './simulate'
import { clickExportVerb } from './export'
import type { Tracker } from './track'
import { iso } from '../lib/time'
import { defineVerb } from '../lib/verb'
import type { ClickStore } from './store/click-store'
import { normalizeClickId } from './visitor'
import type { CapStatus } from './caps'
import type { StoredClick } from './store/click'
import type { TimelineReads } from './store/timeline-reads'
import { clickList, clickTimeline, parseClickList } from './timeline'

export interface ClickView {
  click_id: string
  campaign_id: number
  source_id: number | null
  offer_id: number | null
  landing_id: number | null
  ip: string | null
  user_agent: string | null
  referrer: string | null
  sub1: string | null; sub2: string | null; sub3: string | null; sub4: string | null; sub5: string | null
  sub6: string | null; sub7: string | null; sub8: string | null; sub9: string | null; sub10: string | null
  params: Record<string, string>
  bot_reason: string | null
  excluded: boolean
  is_unique: boolean
  cost: number
  device_type: string | null
  os: string | null
  browser: string | null
  referrer_domain: string | null
  /** ISO 3166-1 alpha-2; asn, as_org and connection from the IP data (docs/geoip.md). */
  country: string | null
  asn: number | null
  as_org: string | null
  connection: string | null
  language: string | null
  os_version: string | null
  browser_version: string | null
  /** With a city database (SVC_GEOIP_CITY) only. */
  region: string | null
  city: string | null
  /** The targeting path that took the click; null = the default rotation. */
  path_id: number | null
  /**
   * The campaign's current paths evaluated for this click (what it would match now: the paths may have
   * changed since); null when the campaign has no paths or no longer routes.
   */
  path_trace: { matched_now: number | null; paths: typeof TraceRecord.static } | null
  created_at: string
}

/** What the click lookup and the simulator read of the routing table (RoutingCache, after the tracker is ready). */
export interface TrackingVerbDeps {
  clicks: Pick<ClickStore, 'record' | 'clicksAfter'>
  tracker: Tracker
  /** The routable campaign with this id (RoutingCache.campaign). */
  route(id: number): CampaignRoute | undefined
  /** Whether a campaign with this id exists at all (routable or not). */
  campaignExists(id: number): Promise<boolean>
  /** Every cap of the routing table with its count now (null: caps are not counted here). */
  caps(): CapStatus[]
  /** The timeline's and the clicks list's reads (names, conversions, history, forward jobs). */
  timeline: TimelineReads
  /** The cost_currency setting: a click's cost is in it. */
  costCurrency(): string
  /** The time_zone setting: the clicks list's days without `tz`. */
  timeZone(): string
}

const text = () => Type.Optional(Type.String())
/** The clicks list's query: the reports' range and filters, the ten subs, paging. */
export const ClickListQuery = Type.Object({
  from: text(), to: text(), tz: text(), campaign_id: text(), source_id: text(), offer_id: text(), landing_id: text(),
  country: text(), device: text(), limit: text(), cursor: text(),
  sub1: text(), sub2: text(), sub3: text(), sub4: text(), sub5: text(), sub6: text(), sub7: text(), sub8: text(), sub9: text(), sub10: text(),
})

export const CapsQuery = Type.Object({
  offer_id: Type.Optional(Type.Integer({ minimum: 1, description: 'only the caps of this offer (its own and its rotation entries)' })),
  campaign_id: Type.Optional(Type.Integer({ minimum: 1, description: 'only the rotation-entry caps of this campaign' })),
  state: Type.Optional(Type.Union([Type.Literal('ok'), Type.Literal('warning'), Type.Literal('reached')])),
})

function parseParams(text: string | null): Record<string, string> {
  if (!text) return {}
  try {
    const v = JSON.parse(text)
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {}
  } catch {
    return {}
  }
}

/** The stored click of a click id (any case); 400 for a malformed id, 404 for an unknown one. */
async function storedClick(clicks: TrackingVerbDeps['clicks'], rawId: string): Promise<StoredClick> {
  const id = normalizeClickId(rawId)
  if (!id) throw invalid('click_id: must be a UUID')
  const c = await clicks.record(id)
  if (!c) throw notFound('click not found')
  return c
}

/** One click as the admin API shows it. */
async function clickView({ tracker, route: routeOf }: TrackingVerbDeps, c: StoredClick): Promise<ClickView> {
  await tracker.ready()
  const route = routeOf(c.campaignId)
  let pathTrace: ClickView['path_trace'] = null
  if (route && route.pathSpecs.length > 0) {
    const trace = tracePaths(route.pathSpecs, clickContext(c, clickQuery(c)))
    pathTrace = { matched_now: trace.matched, paths: renderTrace(route, trace) }
  }
  return {
    click_id: c.clickId,
    campaign_id: c.campaignId,
    source_id: c.sourceId,
    offer_id: c.offerId,
    landing_id: c.landingId,
    ip: c.ip,
    user_agent: c.userAgent,
    referrer: c.referrer,
    sub1: c.sub1, sub2: c.sub2, sub3: c.sub3, sub4: c.sub4, sub5: c.sub5,
    sub6: c.sub6, sub7: c.sub7, sub8: c.sub8, sub9: c.sub9, sub10: c.sub10,
    params: parseParams(c.params),
    bot_reason: c.botReason,
    excluded: c.excluded,
    is_unique: c.isUnique,
    cost: c.cost,
    device_type: c.deviceType,
    os: c.os,
    browser: c.browser,
    referrer_domain: c.referrerDomain,
    country: c.country,
    asn: c.asn,
    as_org: c.asOrg,
    connection: c.connection,
    language: c.language,
    os_version: c.osVersion,
    browser_version: c.browserVersion,
    region: c.region,
    city: c.city,
    path_id: c.pathId,
    path_trace: pathTrace,
    created_at: iso(c.createdAt),
  }
}

export function trackingVerbs(deps: TrackingVerbDeps) {
  return {
    get: defineVerb({
      name: 'clicks.get',
      summary: "One click by its click_id (any case), with every stored field and the trace of its campaign's targeting paths.",
      permission: 'conversions:read',
      input: Type.Object({ click_id: Type.String() }),
      run: async (_actor, input) => clickView(deps, await storedClick(deps.clicks, input.click_id)),
    }),
    timeline: defineVerb({
      name: 'clicks.timeline',
      summary: "One click's story in time order: the click (every stored field, names of its campaign, source, offer, landing and path), " +
        'its landing view, click-through, each postback with its raw query, each status change, each forward to the source with its HTTP result and latency.',
      permission: 'conversions:read',
      input: Type.Object({ click_id: Type.String() }),
      async run(_actor, input) {
        const c = await storedClick(deps.clicks, input.click_id)
        return clickTimeline(deps.timeline, c, await clickView(deps, c), deps.costCurrency())
      },
    }),
    list: defineVerb({
      name: 'clicks.list',
      summary: 'Clicks, newest first, in a range (from, to, tz as reports take them; default the last 30 days), filtered by campaign_id, source_id, ' +
        'offer_id, landing_id, sub1..sub10, country, device; limit 1..200, cursor: the next_cursor of the previous page.',
      permission: 'conversions:read',
      input: ClickListQuery,
      run: async (_actor, input) => clickList(deps.timeline, parseClickList(input, deps.timeZone()), deps.costCurrency()),
    }),
    export: clickExportVerb(deps.clicks),
    caps: defineVerb({
      name: 'caps.list',
      summary: 'Every cap (offers and rotation entries of routable campaigns) with its count in the current period, the share used and its state (ok, warning at warn_percent, reached).',
      permission: 'campaigns:read',
      input: CapsQuery,
      run: async (_actor, input) => {
        await deps.tracker.ready()
        const caps = deps.caps().filter((c) => (input.offer_id === undefined || c.offer_id === input.offer_id)
          && (input.campaign_id === undefined || c.campaign_id === input.campaign_id) && (input.state === undefined || c.state === input.state))
        return { caps }
      },
    }),
    simulate: defineVerb({
      name: 'campaigns.simulate',
      summary: 'Which targeting path, offer and landing a visitor (ip, user_agent, headers, query) would get from a campaign, and why; records nothing.',
      permission: 'campaigns:read',
      input: SimulateInput,
      async run(_actor, input) {
        await deps.tracker.ready()
        const route = deps.route(input.id)
        if (route) return simulate(deps.tracker, route, input)
        if (!(await deps.campaignExists(input.id))) throw notFound('campaign not found')
        throw conflict('campaign is paused or has no usable offer: its visitors go to its fallback URL (or the 404 page)')
      },
    }),
  }
}
