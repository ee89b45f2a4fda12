// Records one conversion for a matched click. The row and everything subscribed in-transaction to
// `conversion.recorded` (the reports rollup, the forward job) commit together or not at all; after-commit
// subscribers (waking the job loop) hear of it once it is durable.
import type { EventBus, Unit } from '../lib/event-bus'
import type { ConversionType } from './conversion-types'
import type { ClickForConversion, PostbackStore } from './store'

export interface ConversionInput {
  click: ClickForConversion
  type: ConversionType
  /** The status as received (already cropped), null when none was sent. */
  status: string | null
  revenue: number
  currency: string | null
  transactionId: string | null
  email: string | null
  date: number
  /** When set, a conversion with the same click and transaction id already recorded makes this a no-op. */
  dedupByTransactionId: boolean
}

/** The payload of `conversion.recorded`: the row as written, plus what its subscribers need of the click. */
export interface RecordedConversion {
  id: number
  clickId: string
  clickRowId: number
  campaignId: number
  sourceId: number | null
  offerId: number | null
  landingId: number | null
  type: ConversionType
  status: string | null
  revenue: number
  currency: string | null
  transactionId: string | null
  email: string | null
  /** Conversion time, epoch ms. */
  date: number
  /** The click came from one of the operator's own IPs: reports leave the conversion out. */
  excluded: boolean
  /** The source's postback URL template (forwarding), null when the source has none. */
  sourcePostbackUrl: string | null
  /** The campaign's id on the source side ({external_id} of the forward URL). */
  campaignExternalId: string | null
}

export type RecordResult = { recorded: true; conversion: RecordedConversion } | { recorded: false; reason: 'duplicate' }

export class ConversionRecorder {
  constructor(private readonly store: PostbackStore, private readonly events: EventBus) {}

  /**
   * `unit`: the caller's, when the caller holds an outer transaction (the postback batch) and commits
   * the unit after its own commit. Without one, the recorder's transaction is the outermost and the
   * recorder commits its own unit.
   */
  record(input: ConversionInput, unit?: Unit): RecordResult {
    const own = unit ?? this.events.unit()
    const result = this.store.transaction((): RecordResult => {
      const { click } = input
      if (input.dedupByTransactionId && input.transactionId && this.store.duplicateExists(click.id, input.transactionId)) {
        return { recorded: false, reason: 'duplicate' }
      }
      const id = this.store.insert({
        clickRowId: click.id,
        clickId: click.click_id,
        campaignId: click.campaign_id,
        sourceId: click.source_id,
        offerId: click.offer_id,
        landingId: click.landing_id,
        type: input.type.slug,
        status: input.status,
        revenue: input.revenue,
        currency: input.currency,
        transactionId: input.transactionId,
        email: input.email,
        date: input.date,
        now: Date.now(),
      })
      const conversion: RecordedConversion = {
        id, clickId: click.click_id, clickRowId: click.id, campaignId: click.campaign_id, sourceId: click.source_id,
        offerId: click.offer_id, landingId: click.landing_id, type: input.type, status: input.status, revenue: input.revenue,
        currency: input.currency, transactionId: input.transactionId, email: input.email, date: input.date,
        excluded: click.excluded === 1, sourcePostbackUrl: click.source_postback_url, campaignExternalId: click.campaign_external_id,
      }
      own.emit('conversion.recorded', conversion)
      return { recorded: true, conversion }
    })
    if (unit === undefined) own.commit()
    return result
  }
}
