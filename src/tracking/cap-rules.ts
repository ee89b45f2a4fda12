// A rotation entry's caps as the click path checks them: the entry's own, then its offer's (both may apply).
import { readCap, type Cap } from '../catalog'
import { log } from '../lib/log'
import { ZoneClock } from '../rules'
import type { CapRule } from './caps'
import { compileUrlTemplate } from './template'

/**
 * The rules of an entry (`entryCap`: campaign_offers/path_offers.cap, keyed per campaign, path and offer) and of
 * its offer (`offerCap`: offers.cap, one counter over every campaign). Null when neither is set.
 */
export function compileCaps(entryCap: string | null, offerCap: string | null, campaignId: number, pathId: number, offerId: number): CapRule[] | null {
  const out: CapRule[] = []
  const entry = readCap(entryCap)
  if (entry) push(out, entry, `c${campaignId}p${pathId}o${offerId}`, offerId, campaignId, pathId || null)
  const offer = readCap(offerCap)
  if (offer) push(out, offer, `o${offerId}`, offerId, null, null)
  return out.length ? out : null
}

function push(out: CapRule[], cap: Cap, key: string, offerId: number, campaignId: number | null, pathId: number | null): void {
  const clock = cap.period === 'day' ? ZoneClock.of(cap.time_zone) : null
  if (cap.period === 'day' && !clock) {
    // Checked at save; a zone this runtime no longer knows counts in UTC rather than failing the redirect.
    log.warn('caps: unknown time zone, counting in UTC', { cap: key, time_zone: cap.time_zone })
  }
  const fallbackUrl = cap.on_reached === 'url' ? compileUrlTemplate(cap.fallback_url) : null
  out.push({
    key, id: `${key}|${cap.metric}`, metric: cap.metric, limit: cap.limit, period: cap.period, zone: clock ? clock.zone : 'UTC',
    clock: cap.period === 'day' ? clock ?? ZoneClock.of('UTC') : null,
    // A fallback that no longer compiles (or names no offer) leaves the rotation instead.
    onReached: cap.on_reached === 'url' && !fallbackUrl ? 'rotate' : cap.on_reached === 'offer' && !cap.fallback_offer_id ? 'rotate' : cap.on_reached,
    fallbackOfferId: cap.fallback_offer_id, fallbackUrl, warnPercent: cap.warn_percent, offerId, campaignId, pathId,
  })
}
