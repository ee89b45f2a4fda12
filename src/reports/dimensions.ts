// What a report can group by, and where each grouping's value comes from.
import { dayKey, hourKey } from './tz'

export const ID_DIMENSIONS = ['campaign', 'source', 'offer', 'landing'] as const
export const TIME_DIMENSIONS = ['day', 'hour'] as const
/**
 * The currency of the money: a conversion's own currency; a click's is its offer's (clicks without an offer,
 * or whose offer is gone, and conversions without a currency: the cost currency). Rollups carry it.
 */
export const CURRENCY_DIMENSION = 'currency'
/**
 * Only raw clicks carry these (parsed from the user agent and referrer, the click URL's sub1..sub10, or looked
 * up from the visitor's IP and Accept-Language when the click was tracked: tracking/enrich.ts).
 */
export const CLICK_DIMENSIONS = [
  'device', 'os', 'browser', 'referrer', 'sub1', 'sub2', 'sub3', 'sub4', 'sub5', 'sub6', 'sub7', 'sub8', 'sub9', 'sub10',
  'country', 'region', 'city', 'asn', 'connection', 'language', 'os_version', 'browser_version',
] as const
/** The campaign path that took the click (clicks.path_id; none = the default rotation). */
export const PATH_DIMENSION = 'path'
export const DIMENSIONS = [...ID_DIMENSIONS, ...TIME_DIMENSIONS, CURRENCY_DIMENSION, ...CLICK_DIMENSIONS, PATH_DIMENSION] as const

export type IdDimension = (typeof ID_DIMENSIONS)[number]
export type Dimension = (typeof DIMENSIONS)[number]

export const isDimension = (s: string): s is Dimension => (DIMENSIONS as readonly string[]).includes(s)
export const isIdDimension = (d: Dimension): d is IdDimension => (ID_DIMENSIONS as readonly string[]).includes(d)
export const isTimeDimension = (d: Dimension) => d === 'day' || d === 'hour'
/**
 * Which rollups answer a report, or null for a scan of raw clicks (within retention). 'stats': the campaign
 * rollups (campaign/source/offer/landing/time/currency, any id filter). 'country' and 'path': the targeting
 * rollups (that value with campaign and time; a campaign filter only: they carry no source, offer or landing).
 * Country and path together scan raw clicks.
 */
export type RollupFamily = 'stats' | 'country' | 'path'
export function rollupFamily(dims: readonly Dimension[], filters: object): RollupFamily | null {
  if (dims.every((d) => isIdDimension(d) || isTimeDimension(d) || d === 'currency')) return 'stats'
  const onlyCampaign = Object.entries(filters).every(([n, v]) => v === undefined || n === 'campaign_id')
  for (const t of ['country', 'path'] as const) {
    if (onlyCampaign && dims.includes(t) && dims.every((d) => d === t || d === 'campaign' || isTimeDimension(d))) return t
  }
  return null
}

/** Dimensions whose keys are ids with a name: the four catalog ids and the path. */
export type LabelledDimension = IdDimension | 'path'
export const isLabelled = (d: Dimension): d is LabelledDimension => isIdDimension(d) || d === 'path'

/** The id column of an id dimension (same name in rollups, clicks and conversions). */
export const idColumn = (d: IdDimension) => `${d}_id`

/** The clicks column of a click dimension. */
export function clickColumn(d: Dimension): string {
  if (d === 'device') return 'device_type'
  if (d === 'referrer') return 'referrer_domain'
  if (d === 'path') return 'path_id'
  return d
}

/** Table holding the label (name) of an id dimension or a path. */
export const labelTable: Record<LabelledDimension, string> = {
  campaign: 'campaigns', source: 'sources', offer: 'offers', landing: 'landings', path: 'campaign_paths',
}

/** The path label of the default rotation (a click no path took). */
export const DEFAULT_PATH_LABEL = 'default'

/**
 * A row's label: the name of its id; for a path, "default" for none and "#<id>" for a path deleted since
 * (its clicks keep the id). Other ids without a row (deleted): null.
 */
export function labelOf(d: Dimension, key: Key, names: ReadonlyMap<number, string>): string | null {
  if (d === 'path') return key === null ? DEFAULT_PATH_LABEL : typeof key === 'number' ? (names.get(key) ?? `#${key}`) : null
  return typeof key === 'number' ? (names.get(key) ?? null) : null
}

export type Key = number | string | null

/**
 * SQL value of a grouping → the row key of the API: ids (0 = none → null), dates as local strings, currency
 * '' (none) → `costCurrency`.
 */
export function toKey(d: Dimension, v: unknown, costCurrency = 'USD'): Key {
  if (d === 'currency') return v === null || v === undefined || v === '' ? costCurrency : String(v)
  if (v === null || v === undefined) return null
  if (isIdDimension(d) || d === 'path') return v === 0 ? null : Number(v)
  // The targeting rollups key an unknown country as ''.
  if (d === 'country' && v === '') return null
  if (d === 'day') return dayKey(Number(v))
  if (d === 'hour') return hourKey(Number(v))
  if (d === 'asn') return Number(v)
  return String(v)
}
