// Records one conversion for a matched click. The row and everything subscribed in-transaction to
// `conversion.recorded` (the reports rollup, the forward job) commit together or not at all; after-commit
// subscribers (waking the job loop) hear of it once it is durable.
import type { EventBus, Unit } from '../lib/event-bus'
import type { ConversionType } from './conversion-types'
import type { Attribution, ClickForConversion, ConversionFacts, PostbackStore } from './store'

export interface ConversionInput extends ConversionFacts {
  click: ClickForConversion
  type: ConversionType
  /** When set, a conversion with the same click and transaction id already recorded makes this a no-op. */
  dedupByTransactionId: boolean
}

/** The payload of `conversion.recorded`: the row as written, plus what its subscribers need of the click. */
export interface RecordedConversion extends Attribution, ConversionFacts {
  id: number
  type: ConversionType
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
      const attribution: Attribution = {
        clickRowId: click.id, clickId: click.click_id, campaignId: click.campaign_id, sourceId: click.source_id,
        offerId: click.offer_id, landingId: click.landing_id,
      }
      const facts: ConversionFacts = {
        status: input.status, revenue: input.revenue, currency: input.currency, transactionId: input.transactionId,
        email: input.email, date: input.date,
      }
      const id = this.store.insert({ ...attribution, ...facts, type: input.type.slug, now: Date.now() })
      const conversion: RecordedConversion = {
        id, ...attribution, ...facts, type: input.type, excluded: click.excluded === 1,
        sourcePostbackUrl: click.source_postback_url, campaignExternalId: click.campaign_external_id,
      }
      own.emit('conversion.recorded', conversion)
      return { recorded: true, conversion }
    })
    if (unit === undefined) own.commit()
    return result
  }
}
