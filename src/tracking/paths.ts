// A click as the targeting rules read it (rules/context.ts), and which rotation a click continues on. The
// same context serves the redirect (a new click, before its path is chosen), the simulator and the click
// lookup's trace (a stored click, read back), so all three judge a visitor alike.
import type { RuleContext, RuleDevice, RuleQuery } from '../rules'
import type { Connection } from '../lib/geoip'
import type { Click } from './store/click'
import type { CampaignRoute, Rotation } from './routing'

/** The rule context of a click; `query` as the visit parsed it (or as clickQuery() rebuilds it). */
export function clickContext(c: Click, query: RuleQuery): RuleContext {
  return {
    country: c.country, region: c.region, city: c.city, asn: c.asn, as_org: c.asOrg,
    connection: (c.connection ?? 'unknown') as Connection, device: (c.deviceType ?? 'unknown') as RuleDevice,
    os: c.os, os_version: c.osVersion, browser: c.browser, browser_version: c.browserVersion, language: c.language,
    referrer_domain: c.referrerDomain, ip: c.ip ?? '', query, now: c.createdAt, unique: Boolean(c.isUnique), bot: c.botReason !== null,
  }
}

/** A stored click's query as the rules read it: its sub1..sub10 and its other parameters. */
export function clickQuery(c: Click): RuleQuery {
  let params: Record<string, string> | null = null
  try {
    params = c.params ? (JSON.parse(c.params) as Record<string, string>) : null
  } catch {
    params = null
  }
  return { subs: [c.sub1, c.sub2, c.sub3, c.sub4, c.sub5, c.sub6, c.sub7, c.sub8, c.sub9, c.sub10], params, clickId: c.clickId }
}

/** The rotation a continued click stays on: its path's own while that path still rotates, else the campaign's. */
export function rotationsOf(route: CampaignRoute, pathId: number | null | undefined): { offers: Rotation; landings: Rotation | null } {
  if (pathId != null) {
    for (const p of route.paths) if (p.id === pathId && p.action.type === 'rotation') return p.action
  }
  return route
}

/** The rotation a landing belongs to (the campaign's first, then its paths' in order), with the path's id. */
export function rotationOfLanding(route: CampaignRoute, landingId: number): { pathId: number | null; offers: Rotation } {
  if (route.landings?.byId.has(landingId)) return { pathId: null, offers: route.offers }
  for (const p of route.paths) {
    if (p.action.type === 'rotation' && p.action.landings?.byId.has(landingId)) return { pathId: p.id, offers: p.action.offers }
  }
  return { pathId: null, offers: route.offers }
}
