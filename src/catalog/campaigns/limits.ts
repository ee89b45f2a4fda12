// A rotation as the API takes it, shared by a campaign's own rotation and its paths' rotations: the limits,
// the weight check and the list of `{offer_id|landing_id, weight}` entries.
import { invalid } from '../../lib/errors'
import { positiveId } from '../../lib/fields'
import type { LinkRef } from '../store/types'
import { parseCap } from '../caps/model'

export const MAX_LINKS = 100
export const DEFAULT_WEIGHT = 100
export const MAX_WEIGHT = 10000

export function weightOf(v: unknown, field: string): number {
  if (v === undefined || v === null) return DEFAULT_WEIGHT
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_WEIGHT) throw invalid(`${field}: must be a whole number from 1 to ${MAX_WEIGHT}`)
  return v
}

/** `[{offer_id, weight}, …]` at `field` checked into link refs (each named for "does not exist" errors); no id twice. */
export function rotationLinks(raw: unknown, key: 'offer_id' | 'landing_id', field: string): LinkRef[] {
  if (!Array.isArray(raw)) throw invalid(`${field}: must be an array`)
  if (raw.length > MAX_LINKS) throw invalid(`${field}: at most ${MAX_LINKS} entries`)
  const out = raw.map((e, i): LinkRef => {
    if (e === null || typeof e !== 'object') throw invalid(`${field}.${i}: must be an object {"${key}":…,"weight":…}`)
    const entry = e as Record<string, unknown>
    const ref: LinkRef = { id: positiveId(entry[key], `${field}.${i}.${key}`), weight: weightOf(entry.weight, `${field}.${i}.weight`), field: `${field}.${i}.${key}` }
    // Offer entries may carry their own cap (issue 29); landings are not capped.
    if (key === 'offer_id') ref.cap = parseCap(entry.cap, `${field}.${i}.cap`) ?? null
    else if (entry.cap !== undefined && entry.cap !== null) throw invalid(`${field}.${i}.cap: landings have no cap (cap the offer)`)
    return ref
  })
  const seen = new Set<number>()
  for (const l of out) {
    if (seen.has(l.id)) throw invalid(`${l.field}: ${key.replace('_id', '')} ${l.id} is listed twice`)
    seen.add(l.id)
  }
  return out
}
