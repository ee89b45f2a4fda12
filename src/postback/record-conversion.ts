// Records one conversion for a matched click: the row, its forward job and the conversion hooks commit
// together or not at all; the job loop is woken only after the commit.
import type { RawDb } from '../db/client'
import type { JobQueue } from '../jobs/types'
import type { ConversionType } from './conversion-types'
import { buildForwardUrl, FORWARD_JOB, type ForwardPayload } from './forward'
import type { ClickForConversion, PostbackQueries } from './queries'

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

export interface RecordedConversion {
  id: number
  clickId: string
  clickRowId: number
  campaignId: number
  sourceId: number | null
  offerId: number | null
  landingId: number | null
  type: ConversionType
  revenue: number
  email: string | null
  /** Conversion time, epoch ms. */
  date: number
  /** The click came from one of the operator's own IPs: reports leave the conversion out. */
  excluded: boolean
}

/**
 * Runs inside the conversion's transaction, after the insert (spec §4 rule 6: email conversion triggers
 * plug in here). Throwing rolls the conversion back, so hooks must only fail for real database errors.
 * A hook that enqueues jobs also calls `jobs.kick()`: the loop claims on a later tick, after the commit.
 */
export type ConversionHook = (conversion: RecordedConversion) => void

export type RecordResult = { recorded: true; conversion: RecordedConversion; forwardJobId: number | null } | { recorded: false; reason: 'duplicate' }

export class ConversionRecorder {
  private readonly hooks: ConversionHook[] = []

  constructor(private readonly raw: RawDb, private readonly q: PostbackQueries, private readonly jobs: JobQueue) {}

  onRecorded(hook: ConversionHook): void {
    this.hooks.push(hook)
  }

  record(input: ConversionInput): RecordResult {
    const result = this.raw.transaction((): RecordResult => {
      const { click } = input
      if (input.dedupByTransactionId && input.transactionId && this.q.duplicateExists.get({ clickRowId: click.id, transactionId: input.transactionId })) {
        return { recorded: false, reason: 'duplicate' }
      }
      const now = Date.now()
      const id = this.q.insertConversionRow({
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
        now,
      })
      let forwardJobId: number | null = null
      if (input.type.send_postback && click.source_postback_url) {
        const payload: ForwardPayload = {
          conversion_id: id,
          url: buildForwardUrl(click.source_postback_url, {
            clickId: click.click_id,
            payout: input.revenue,
            externalId: click.campaign_external_id,
            status: input.type.slug,
          }),
        }
        forwardJobId = this.jobs.enqueue(FORWARD_JOB, payload)
      }
      const conversion: RecordedConversion = {
        id, clickId: click.click_id, clickRowId: click.id, campaignId: click.campaign_id, sourceId: click.source_id,
        offerId: click.offer_id, landingId: click.landing_id, type: input.type, revenue: input.revenue, email: input.email,
        date: input.date, excluded: click.excluded === 1,
      }
      for (const hook of this.hooks) hook(conversion)
      return { recorded: true, conversion, forwardJobId }
    })()
    // Wake the loop only for work enqueued here; a hook that enqueues jobs of its own (email enrolment)
    // kicks the queue itself. Kicking on every conversion would cost a claim query per postback.
    if (result.recorded && result.forwardJobId !== null) this.jobs.kick()
    return result
  }
}
