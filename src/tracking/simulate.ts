// The targeting simulator (POST /admin/api/campaigns/:id/simulate, issue 28) and the path trace of a
// stored click (GET /admin/api/clicks/:click_id): which path, offer and landing, and each condition's
// outcome. Both go through the tracker's own decision, so they cannot disagree with a real redirect.
import { isIP } from 'node:net'
import { Type } from '@sinclair/typebox'
import { invalid } from '../lib/errors'
import { Int } from '../lib/fields'
import { normalizeIp } from '../lib/ip'
import type { PathTrace } from '../rules'
import type { CampaignRoute } from './routing'
import type { Click } from './store/click'
import type { Tracker, Visitor } from './track'
import { crop, parseVisitQuery, REFERRER_MAX, UA_MAX } from './visitor'

export const SimulateInput = Type.Object({
  id: Int({ minimum: 1, description: 'campaign id' }),
  ip: Type.String({ maxLength: 64, description: "the visitor's IPv4 or IPv6 address" }),
  user_agent: Type.Optional(Type.Union([Type.String({ maxLength: 4096 }), Type.Null()], { description: 'User-Agent (overrides headers)' })),
  headers: Type.Optional(Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 4096 }), {
    maxProperties: 50, description: 'request headers: accept-language, referer, cf-ipcountry (read behind SVC_TRUST_PROXY only)…',
  })),
  query: Type.Optional(Type.Record(Type.String({ maxLength: 256 }), Type.String({ maxLength: 1024 }), {
    maxProperties: 50, description: 'the tracking link\'s query parameters: sub1…sub10 and any other',
  })),
  unique: Type.Optional(Type.Boolean({ description: 'whether the visitor counts as unique (default true; the simulator records no visit)' })),
  time: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 time of the visit (default now), for time-of-day conditions' })),
})
export type SimulateInput = typeof SimulateInput.static

const Explanation = Type.Recursive((self) => Type.Object({
  index: Int(), type: Type.String(), negate: Type.Boolean(), outcome: Type.Boolean(), detail: Type.String(),
  conditions: Type.Optional(Type.Array(self)),
}))
export const TraceRecord = Type.Array(Type.Object({
  path_id: Int(), name: Type.String(), matched: Type.Boolean(),
  conditions: Type.Array(Explanation, { description: "the rule set's conditions first, then the path's own" }),
}), { description: 'each path tried in order, up to the one that took the visitor' })

export const SimulateRecord = Type.Object({
  campaign_id: Int(),
  path: Type.Union([Type.Object({ id: Int(), name: Type.String(), action: Type.String() }), Type.Null()], { description: 'null: the default rotation' }),
  offer_id: Type.Union([Int(), Type.Null()]),
  landing_id: Type.Union([Int(), Type.Null()]),
  location: Type.Union([Type.String(), Type.Null()], { description: 'where the visitor would be sent ({click_id} empty); null: the 404 page' }),
  bot_reason: Type.Union([Type.String(), Type.Null()]),
  visitor: Type.Record(Type.String(), Type.Unknown(), { description: 'what the rules read: country, asn, as_org, connection, device_type, os, …' }),
  trace: TraceRecord,
})

/** A simulated request as the tracker reads a real one (bounded strings, the same query parser). */
export function simulatedVisitor(input: SimulateInput): Visitor {
  const ip = normalizeIp(input.ip.trim())
  if (!isIP(ip)) throw invalid('ip: must be an IPv4 or IPv6 address')
  let headers: Headers
  try {
    headers = new Headers(input.headers ?? {})
  } catch {
    throw invalid('headers: must map header names to values')
  }
  if (input.user_agent !== undefined) {
    if (input.user_agent === null) headers.delete('user-agent')
    else headers.set('user-agent', input.user_agent)
  }
  const qs = new URLSearchParams(input.query ?? {}).toString()
  const ua = headers.get('user-agent')
  const ref = headers.get('referer')
  return {
    method: 'GET', headers, ip, query: parseVisitQuery(`/c/x${qs ? `?${qs}` : ''}`),
    userAgent: ua === null ? null : crop(ua, UA_MAX), referrer: ref === null ? null : crop(ref, REFERRER_MAX), cookieClickId: null,
  }
}

export function simulatedTime(raw: string | undefined): number {
  if (raw === undefined) return Date.now()
  const t = Date.parse(raw)
  if (!/^\d{4}-\d\d-\d\dT/.test(raw) || !Number.isFinite(t)) throw invalid('time: must be an ISO 8601 time (2026-11-26T18:30:00Z)')
  return t
}

/** The path trace as the API shows it, with each path's name. */
export function renderTrace(route: CampaignRoute, trace: PathTrace): typeof TraceRecord.static {
  const names = new Map(route.pathSpecs.map((p) => [p.id, p.action.name]))
  return trace.paths.map((p) => ({ path_id: p.id, name: names.get(p.id) ?? '', matched: p.outcome, conditions: p.conditions }))
}

/** What the rules read of a click (the simulator shows it, so a surprise can be traced to its input). */
export function visitorFields(c: Click): Record<string, unknown> {
  return {
    ip: c.ip, country: c.country, region: c.region, city: c.city, asn: c.asn, as_org: c.asOrg, connection: c.connection,
    device_type: c.deviceType, os: c.os, os_version: c.osVersion, browser: c.browser, browser_version: c.browserVersion,
    language: c.language, referrer_domain: c.referrerDomain, unique: c.isUnique, bot: c.botReason !== null,
  }
}

/** POST /admin/api/campaigns/:id/simulate, once the campaign's route is known. */
export function simulate(tracker: Tracker, route: CampaignRoute, input: SimulateInput): typeof SimulateRecord.static {
  const v = simulatedVisitor(input)
  const { click, trace, location } = tracker.simulate(route, v, { now: simulatedTime(input.time), unique: input.unique !== false })
  const path = click.pathId === null ? null : route.pathSpecs.find((p) => p.id === click.pathId)!
  return {
    campaign_id: route.id,
    path: path ? { id: path.id, name: path.action.name, action: path.action.type } : null,
    offer_id: click.offerId,
    landing_id: click.landingId,
    location,
    bot_reason: click.botReason,
    visitor: visitorFields(click),
    trace: renderTrace(route, trace),
  }
}
