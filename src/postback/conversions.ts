// Conversions and postback errors as the admin API shows them, and the list filters of their query strings.
import { invalid } from '../lib/errors'
import { iso } from '../lib/time'
import { momentFilter } from '../lib/time'
import type { ConversionRecord, PostbackErrorRecord } from './store'

export type Query = Record<string, string | undefined>

export function conversionToApi(r: ConversionRecord) {
  return {
    id: r.id,
    click_id: r.click_id,
    revenue: r.revenue,
    currency: r.currency,
    status: r.status,
    type: r.type,
    transaction_id: r.transaction_id,
    email: r.email,
    date: iso(r.date),
    campaign_id: r.campaign_id,
    source_id: r.source_id,
    landing_id: r.landing_id,
    offer_id: r.offer_id,
    created_at: iso(r.created_at),
    // Only on a conversion whose forward to the source went out with placeholders as written.
    ...(r.forward_warning ? { forward_warning: r.forward_warning } : {}),
  }
}

export function errorToApi(r: PostbackErrorRecord) {
  return {
    id: r.id, reason: r.reason, click_id: r.click_id, query: r.query, ip: r.ip, conversion_id: r.conversion_id, created_at: iso(r.created_at),
  }
}

export function idFilter(q: Query, name: string): number | undefined {
  const raw = q[name]
  if (raw === undefined || raw === '') return undefined
  if (!/^\d{1,15}$/.test(raw)) throw invalid(`${name}: must be a whole number`)
  return Number(raw)
}

export const timeFilter = (q: Query, name: string): number | undefined => momentFilter(q[name], name)
