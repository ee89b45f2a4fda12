// Records one conversion for a matched click. The row and everything subscribed in-transaction or
// before-commit to `conversion.recorded` (the forward job, the reports rollup) commit together or not at
// all; after-commit subscribers (waking the job loop) hear of it once it is durable.
import type { EventBus, Unit } from '../lib/event-bus'
import type { ConversionType } from './conversion-types'
import type { Attribution, ClickForConversion, ConversionFacts, PostbackStore, RecordingQueries } from './store'
import type { Tx } from '../db/engine'
import type { MaybeAsync, Steps } from './steps'

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

/**
 * The rules of recording, once for both engines (see steps.ts): the duplicate check, the row, the event.
 * Runs inside the caller's transaction or savepoint (`q` is bound to it, `unit` opened on it); the caller
 * commits the unit after its own commit.
 */
export function* recordSteps(q: RecordingQueries, unit: Unit, input: ConversionInput): Steps<RecordResult> {
  const { click } = input
  if (input.dedupByTransactionId && input.transactionId) {
    const duplicate: boolean = yield q.duplicateExists(click.id, input.transactionId)
    if (duplicate) return { recorded: false, reason: 'duplicate' }
  }
  const attribution: Attribution = {
    clickRowId: click.id, clickId: click.click_id, campaignId: click.campaign_id, sourceId: click.source_id,
    offerId: click.offer_id, landingId: click.landing_id,
  }
  const facts: ConversionFacts = {
    status: input.status, revenue: input.revenue, currency: input.currency, transactionId: input.transactionId,
    email: input.email, date: input.date,
  }
  const id: number = yield q.insert({ ...attribution, ...facts, type: input.type.slug, now: Date.now() })
  const conversion: RecordedConversion = {
    id, ...attribution, ...facts, type: input.type, excluded: click.excluded === 1,
    sourcePostbackUrl: click.source_postback_url, campaignExternalId: click.campaign_external_id,
  }
  // A Promise only when an in-transaction subscriber is async (Postgres): awaited before the commit.
  yield unit.emit('conversion.recorded', conversion)
  return { recorded: true, conversion }
}

/** Records one conversion in a transaction of its own (the conversions.record verb); the postback batch uses recordSteps. */
export class ConversionRecorder {
  constructor(private readonly store: PostbackStore, private readonly events: EventBus) {}

  /** Synchronous on SQLite, a Promise on Postgres; after-commit subscribers hear of it once committed. */
  record(input: ConversionInput): MaybeAsync<RecordResult> {
    let unit: Unit | undefined
    const events = this.events
    const result = this.store.atomically(function* (q, tx) {
      const r: RecordResult = yield* recordSteps(q, (unit = events.unit(tx)), input)
      yield events.beforeCommit([unit], tx)
      return r
    })
    const committed = (r: RecordResult) => {
      unit!.commit()
      return r
    }
    return result instanceof Promise ? result.then(committed) : committed(result)
  }

  /**
   * Runs `body` in one transaction with the means to record conversions in it: the caller's own writes
   * (through `tx`, or the shared connection on SQLite) and every conversion it records commit together or
   * not at all (incoming webhooks: the event row, the order change and the conversion). `record` is a step
   * body to `yield*`; `q.findClick` finds the click. Synchronous on SQLite, a Promise on Postgres.
   */
  within<R>(body: (record: (input: ConversionInput) => Steps<RecordResult>, q: RecordingQueries, tx: Tx, unit: Unit) => Steps<R>): MaybeAsync<R> {
    let unit: Unit | undefined
    const events = this.events
    const result = this.store.atomically(function* (q, tx) {
      const u = (unit = events.unit(tx))
      const r: R = yield* body((input) => recordSteps(q, u, input), q, tx, u)
      yield events.beforeCommit([u], tx)
      return r
    })
    const committed = (r: R) => {
      unit!.commit()
      return r
    }
    return result instanceof Promise ? result.then(committed) : committed(result)
  }
}
