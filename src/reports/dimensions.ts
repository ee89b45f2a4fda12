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
export const DIMENSIONS = [...ID_DIMENSIONS, ...TIME_DIMENSIONS, CURRENCY_DIMENSION, ...CLICK_DIMENSIONS] as const

export type IdDimension = (typeof ID_DIMENSIONS)[number]
export type Dimension = (typeof DIMENSIONS)[number]

export const isDimension = (s: string): s is Dimension => (DIMENSIONS as readonly string[]).includes(s)
export const isIdDimension = (d: Dimension): d is IdDimension => (ID_DIMENSIONS as readonly string[]).includes(d)
export const isTimeDimension = (d: Dimension) => d === 'day' || d === 'hour'
/** Groupings the rollup tables can answer; any other one means a scan of raw clicks. */
export const fromRollups = (dims: readonly Dimension[]) => dims.every((d) => isIdDimension(d) || isTimeDimension(d) || d === 'currency')

/** The id column of an id dimension (same name in rollups, clicks and conversions). */
export const idColumn = (d: IdDimension) => `${d}_id`

/** The clicks column of a click dimension. */
export function clickColumn(d: Dimension): string {
  if (d === 'device') return 'device_type'
  if (d === 'referrer') return 'referrer_domain'
  return d
}

/** Catalog table holding the label (name) of an id dimension. */
export const labelTable: Record<IdDimension, string> = { campaign: 'campaigns', source: 'sources', offer: 'offers', landing: 'landings' }

export type Key = number | string | null

/**
 * SQL value of a grouping → the row key of the API: ids (0 = none → null), dates as local strings, currency
 * '' (none) → `costCurrency`.
 */
export function toKey(d: Dimension, v: unknown, costCurrency = 'USD'): Key {
  if (d === 'currency') return v === null || v === undefined || v === '' ? costCurrency : String(v)
  if (v === null || v === undefined) return null
  if (isIdDimension(d)) return v === 0 ? null : Number(v)
  if (d === 'day') return dayKey(Number(v))
  if (d === 'hour') return hourKey(Number(v))
  if (d === 'asn') return Number(v)
  return String(v)
}
