// Conversions and postback errors as the admin API shows them, and the list filters of their query strings.
import { invalid } from '../lib/errors'
import { iso } from '../lib/time'
import { momentFilter } from '../lib/time'
import type { ConversionRecord, PostbackErrorRecord, StatusHistoryRecord } from './store'

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
    // The raw query of the /postback that recorded it (or last moved its status); null for the API, webhooks, commerce.
    postback_query: r.postback_query ?? null,
  }
}

/**
 * A conversion's statuses, oldest first, ending with its current state (postback_status_updates): each entry
 * is a state and `at` when it began (the first: when the conversion was recorded). A history row holds the
 * state before a change; the entry after a reversal row carries its `reversal_id` (the state itself stayed:
 * the negative conversion was recorded on its own). A conversion never updated has one entry.
 */
export function statusHistoryToApi(r: ConversionRecord, rows: readonly StatusHistoryRecord[]) {
  const states = [...rows.map((h) => ({ type: h.type, status: h.status, revenue: h.revenue })), { type: r.type, status: r.status, revenue: r.revenue }]
  return states.map((s, i) => ({
    ...s,
    at: iso(i === 0 ? r.created_at : rows[i - 1]!.changed_at),
    reversal_id: i === 0 ? null : rows[i - 1]!.reversal_id,
  }))
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
