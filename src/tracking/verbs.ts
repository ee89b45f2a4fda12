// The tracking feature's verbs: reading one click (GET /admin/api/clicks/:click_id today).
import { Type } from '@sinclair/typebox'
import { invalid, notFound } from '../lib/errors'
import { iso } from '../lib/time'
import { defineVerb } from '../lib/verb'
import type { ClickStore } from './store/click-store'
import { normalizeClickId } from './visitor'

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
  created_at: string
}

function parseParams(text: string | null): Record<string, string> {
  if (!text) return {}
  try {
    const v = JSON.parse(text)
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {}
  } catch {
    return {}
  }
}

/** One click as the admin API shows it. */
async function clickView(clicks: Pick<ClickStore, 'record'>, rawId: string): Promise<ClickView> {
  const id = normalizeClickId(rawId)
  if (!id) throw invalid('click_id: must be a UUID')
  const c = await clicks.record(id)
  if (!c) throw notFound('click not found')
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
    created_at: iso(c.createdAt),
  }
}

export function trackingVerbs(clicks: Pick<ClickStore, 'record'>) {
  return {
    get: defineVerb({
      name: 'clicks.get',
      summary: 'One click by its click_id (any case), with every stored field.',
      permission: 'conversions:read',
      input: Type.Object({ click_id: Type.String() }),
      run: async (_actor, input) => clickView(clicks, input.click_id),
    }),
  }
}
