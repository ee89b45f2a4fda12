// Caps (issue 29): a limit on the clicks or conversions an offer (or one offer of a rotation) gets per local
// day or in total, and what happens once it is reached. Stored as JSON beside what it caps (offers.cap,
// campaign_offers.cap, path_offers.cap); tracking/caps.ts counts and applies them.
import { Type as t } from '@sinclair/typebox'
import { invalid } from '../../lib/errors'
import { Int, positiveId, urlTemplate } from '../../lib/fields'

export const CAP_METRICS = ['clicks', 'conversions'] as const
export const CAP_PERIODS = ['day', 'total'] as const
export const CAP_ACTIONS = ['rotate', 'offer', 'url'] as const
export const DEFAULT_WARN_PERCENT = 80

/**
 * As the input schemas take it: an object checked field by field by parseCap() (its errors name the exact
 * field, e.g. `offers.0.cap.limit`, where a schema union would only say "should be object or null").
 */
export const CapField = t.Optional(t.Union([t.Object({}, {
  additionalProperties: true,
  description: 'a cap: {metric: clicks|conversions, limit ≥ 0 (0 pauses), period: day|total (default day), time_zone (IANA, default UTC), ' +
    'on_reached: rotate|offer|url (default rotate), fallback_offer_id (on_reached offer), fallback_url (on_reached url), warn_percent 1..100 (default 80)}; null removes it',
}), t.Null()]))

export type CapMetric = (typeof CAP_METRICS)[number]
export type CapPeriod = (typeof CAP_PERIODS)[number]
export type CapAction = (typeof CAP_ACTIONS)[number]

/** A cap as stored (JSON) and as the API shows it (snake_case, every field present). */
export interface Cap {
  metric: CapMetric
  limit: number
  period: CapPeriod
  time_zone: string
  on_reached: CapAction
  fallback_offer_id: number | null
  fallback_url: string | null
  warn_percent: number
}

export const CapRecord = t.Union([t.Object({
  metric: t.String(), limit: Int(), period: t.String(), time_zone: t.String(), on_reached: t.String(),
  fallback_offer_id: t.Union([Int(), t.Null()]), fallback_url: t.Union([t.String(), t.Null()]), warn_percent: Int(),
}), t.Null()])

/** Whether `name` is a time zone this runtime knows; the canonical spelling, or null. */
export function timeZoneName(name: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone
  } catch {
    return null
  }
}

/**
 * The API's cap at `field` checked and normalised to its stored JSON (null: no cap; undefined: not given).
 * The fallback offer's existence is the store's check (it is a reference like the rotation's offers).
 */
export function parseCap(raw: unknown, field: string): string | null | undefined {
  if (raw === undefined) return undefined
  if (raw === null) return null
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalid(`${field}: must be an object {"metric":…,"limit":…} or null`)
  const c = raw as Record<string, unknown>
  if (!CAP_METRICS.includes(c.metric as CapMetric)) throw invalid(`${field}.metric: must be one of ${CAP_METRICS.join(', ')}`)
  if (typeof c.limit !== 'number' || !Number.isInteger(c.limit) || c.limit < 0 || c.limit > 1_000_000_000) {
    throw invalid(`${field}.limit: must be a whole number from 0 to 1000000000`)
  }
  const period = c.period ?? 'day'
  if (!CAP_PERIODS.includes(period as CapPeriod)) throw invalid(`${field}.period: must be one of ${CAP_PERIODS.join(', ')}`)
  let zone = 'UTC'
  if (c.time_zone !== undefined && c.time_zone !== null) {
    const known = typeof c.time_zone === 'string' ? timeZoneName(c.time_zone) : null
    if (!known) throw invalid(`${field}.time_zone: must be an IANA time zone such as Europe/Berlin`)
    zone = known
  }
  const action = c.on_reached ?? 'rotate'
  if (!CAP_ACTIONS.includes(action as CapAction)) throw invalid(`${field}.on_reached: must be one of ${CAP_ACTIONS.join(', ')}`)
  let fallbackOffer: number | null = null
  let fallbackUrl: string | null = null
  if (action === 'offer') fallbackOffer = positiveId(c.fallback_offer_id, `${field}.fallback_offer_id`)
  else if (c.fallback_offer_id !== undefined && c.fallback_offer_id !== null) throw invalid(`${field}.fallback_offer_id: only with on_reached "offer"`)
  if (action === 'url') fallbackUrl = urlTemplate(c.fallback_url, `${field}.fallback_url`)
  else if (c.fallback_url !== undefined && c.fallback_url !== null) throw invalid(`${field}.fallback_url: only with on_reached "url"`)
  const warn = c.warn_percent ?? DEFAULT_WARN_PERCENT
  if (typeof warn !== 'number' || !Number.isInteger(warn) || warn < 1 || warn > 100) throw invalid(`${field}.warn_percent: must be a whole number from 1 to 100`)
  const cap: Cap = {
    metric: c.metric as CapMetric, limit: c.limit, period: period as CapPeriod, time_zone: zone, on_reached: action as CapAction,
    fallback_offer_id: fallbackOffer, fallback_url: fallbackUrl, warn_percent: warn,
  }
  return JSON.stringify(cap)
}

/** The stored JSON as the API shows it; null for none (or a value that no longer reads: never a 500). */
export function readCap(json: string | null | undefined): Cap | null {
  if (!json) return null
  try {
    const c = JSON.parse(json) as Cap
    return c && typeof c === 'object' && typeof c.limit === 'number' ? c : null
  } catch {
    return null
  }
}

/** The fallback offer a stored cap names (the store checks it exists), or null. */
export const fallbackOfferOf = (json: string | null | undefined): number | null => readCap(json)?.fallback_offer_id ?? null
