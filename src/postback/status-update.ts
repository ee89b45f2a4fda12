// The opt-in `postback_status_updates` mode (issue 26): a postback for a click and tid that already has a
// conversion moves that conversion instead of recording a second one (pending → approved, lead → sale,
// sale → reject). Reports subtract negative types, so a move to one (sale → chargeback) is never made in place
// (the sale gone AND a chargeback subtracted would count the money away twice): the reversal is recorded as
// a negative conversion of its own, linked in the original's history. Rules once for both engines (lib/steps.ts);
// receive.ts calls it only when the setting is on and the postback has a tid, so the normal path pays nothing.
import type { Unit } from '../lib/event-bus'
import type { ConversionType, ConversionTypes } from './conversion-types'
import { recordSteps, revshareCost, type RecordedConversion } from './record'
import type { Steps } from '../lib/steps'
import type { ClickForConversion, ConversionRecord, RecordingQueries } from './store'

export interface StatusUpdateInput {
  click: ClickForConversion
  transactionId: string
  /** The usual resolution of the postback's status. */
  type: ConversionType
  status: string | null
  /** The amount the postback sent, when it sent a readable one; null keeps the conversion's revenue. */
  payout: number | null
  email: string | null
  /** The postback's conversion date: the date of a reversal (an update keeps the conversion's own date). */
  date: number
  /** The postback's raw query (capped): the moved conversion's or the reversal's; the history row keeps the one before. */
  query: string | null
}

/**
 * null: no conversion of this click and tid to update (none, or only negative ones): record as usual.
 * updated: the conversion moved in place; reversed: `conversionId` is the new negative conversion.
 */
export type StatusUpdateResult =
  | { kind: 'updated' | 'reversed'; conversionId: number }
  | { kind: 'duplicate' }
  | null

export function* statusUpdateSteps(q: RecordingQueries, unit: Unit, types: ConversionTypes, input: StatusUpdateInput): Steps<StatusUpdateResult> {
  const { click } = input
  const rows: ConversionRecord[] = yield q.byTransaction(click.id, input.transactionId)
  const negative = (slug: string) => types.has(slug) && types.get(slug).negative
  const matched = rows.find((r) => !negative(r.type))
  if (!matched) return null
  // A chargeback is final: after a reversal, neither a second one nor a positive status changes anything.
  if (rows.some((r) => r.id > matched.id && negative(r.type))) return { kind: 'duplicate' }

  const now = Date.now()
  const revenue = input.payout ?? matched.revenue
  const before: RecordedConversion = recorded(matched, typeOf(types, matched.type), click)

  if (input.type.negative) {
    // Its own conversion, in the original's currency (never two currencies in one net), not deduplicated
    // by tid (the original has that tid): recordSteps emits conversion.recorded as for any conversion.
    const reversal = yield* recordSteps(q, unit, {
      click, type: input.type, status: input.status, revenue, currency: matched.currency, transactionId: input.transactionId,
      email: input.email, date: input.date, dedupByTransactionId: false, postbackQuery: input.query,
    })
    if (!reversal.recorded) return { kind: 'duplicate' } // unreachable without dedup; typed for completeness
    yield q.insertHistory({
      conversionId: matched.id, type: matched.type, status: matched.status, revenue: matched.revenue, reversalId: reversal.conversion.id,
      query: matched.postback_query ?? null, now,
    })
    return { kind: 'reversed', conversionId: reversal.conversion.id }
  }

  if (input.type.slug === matched.type && input.status === matched.status && revenue === matched.revenue) return { kind: 'duplicate' }
  // The cost follows the revenue at the campaign's revshare percent now (the moved conversion is recorded anew).
  const cost = revshareCost(click, revenue)
  yield q.updateStatus(matched.id, input.type.slug, input.status, revenue, cost, input.query)
  yield q.insertHistory({
    conversionId: matched.id, type: matched.type, status: matched.status, revenue: matched.revenue, reversalId: null, query: matched.postback_query ?? null, now,
  })
  const after: RecordedConversion = { ...before, type: input.type, status: input.status, revenue, cost }
  // In the row's transaction: the rollups move `before` out and `after` in; forwarding and triggers decide on the type change.
  yield unit.emit('conversion.updated', { before, after })
  return { kind: 'updated', conversionId: matched.id }
}

/** A stored conversion as its subscribers saw it when it was recorded (attribution as the row copied it). */
function recorded(r: ConversionRecord, type: ConversionType, click: ClickForConversion): RecordedConversion {
  return {
    id: r.id, clickRowId: r.click_row_id, clickId: r.click_id, campaignId: r.campaign_id, sourceId: r.source_id, offerId: r.offer_id,
    landingId: r.landing_id, country: r.country, pathId: r.path_id, status: r.status, revenue: r.revenue, currency: r.currency, transactionId: r.transaction_id, email: r.email,
    date: r.date, type, cost: r.cost, excluded: click.excluded === 1, sourcePostbackUrl: click.source_postback_url, campaignExternalId: click.campaign_external_id,
  }
}

/** The type of a stored row; one deleted since is only its slug to the rollups, and never forwards. */
function typeOf(types: ConversionTypes, slug: string): ConversionType {
  if (types.has(slug)) return types.get(slug)
  return { ...types.resolve(undefined), slug, name: slug, send_postback: false, builtin: false }
}
