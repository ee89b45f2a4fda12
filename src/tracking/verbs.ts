// GET /admin/api/clicks/:click_id: one click as the admin API shows it.
import { invalid, notFound } from '../lib/errors'
import type { ClickQueries } from './queries'
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

export function getClickOrThrow(clicks: ClickQueries, rawId: string): ClickView {
  const id = normalizeClickId(rawId)
  if (!id) throw invalid('click_id: must be a UUID')
  const c = clicks.record(id)
  if (!c) throw notFound('click not found')
  return {
    click_id: c.click_id,
    campaign_id: c.campaign_id,
    source_id: c.source_id,
    offer_id: c.offer_id,
    landing_id: c.landing_id,
    ip: c.ip,
    user_agent: c.user_agent,
    referrer: c.referrer,
    sub1: c.sub1, sub2: c.sub2, sub3: c.sub3, sub4: c.sub4, sub5: c.sub5,
    sub6: c.sub6, sub7: c.sub7, sub8: c.sub8, sub9: c.sub9, sub10: c.sub10,
    params: parseParams(c.params),
    bot_reason: c.bot_reason,
    excluded: c.excluded === 1,
    is_unique: c.is_unique === 1,
    cost: c.cost,
    device_type: c.device_type,
    os: c.os,
    browser: c.browser,
    referrer_domain: c.referrer_domain,
    created_at: new Date(c.created_at).toISOString(),
  }
}
