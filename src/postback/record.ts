// Records one conversion for a matched click. The row and everything subscribed in-transaction or
// before-commit to `conversion.recorded` (the forward job, the reports rollup) commit together or not at
// all; after-commit subscribers (waking the job loop) hear of it once it is durable.
import type { EventBus, Unit } from '../lib/event-bus'
import { kept, settle, type Settled } from './batch'
import type { ConversionType } from './conversion-types'
import type { Attribution, ClickForConversion, ConversionFacts, PostbackStore, RecordingQueries } from './store'
import type { Tx } from '../db/engine'
import type { MaybeAsync, Steps } from '../lib/steps'

export interface ConversionInput extends ConversionFacts {
  click: ClickForConversion
  type: ConversionType
  /** When set, a conversion with the same click and transaction id already recorded makes this a no-op. */
  dedupByTransactionId: boolean
  /** /postback only: its raw query string, capped (kept on the row for the click timeline). */
  postbackQuery?: string | null
}

import type { RecordedConversion } from '../events'
export type { RecordedConversion } from '../events'

/**
 * A conversion's revshare cost: the campaign's revshare_percent of its revenue (0 for other cost models), in its
 * currency, as revenue is. Rounded to 1e-6 (the reports' precision) so float noise is not stored.
 */
export function revshareCost(click: Pick<ClickForConversion, 'campaign_revshare'>, revenue: number): number {
  const p = click.campaign_revshare ?? 0
  if (!(p > 0)) return 0
  const cost = Math.round(revenue * p * 1e4) / 1e6
  return cost === 0 ? 0 : cost
}

export type RecordResult = { recorded: true; conversion: RecordedConversion } | { recorded: false; reason: 'duplicate' }

/**
 * The rules of recording, once for both engines (see lib/steps.ts): the duplicate check, the row, the event.
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
    offerId: click.offer_id, landingId: click.landing_id, country: click.country, pathId: click.path_id,
  }
  const facts: ConversionFacts = {
    status: input.status, revenue: input.revenue, currency: input.currency, transactionId: input.transactionId,
    email: input.email, date: input.date,
  }
  const cost = revshareCost(click, input.revenue)
  const id: number = yield q.insert({
    ...attribution, ...facts, type: input.type.slug, cost, postbackQuery: input.postbackQuery ?? null, clickCreatedAt: click.created_at, now: Date.now(),
  })
  const conversion: RecordedConversion = {
    id, ...attribution, ...facts, type: input.type, excluded: click.excluded === 1, cost,
    sourcePostbackUrl: click.source_postback_url, campaignExternalId: click.campaign_external_id,
  }
  // A Promise only when an in-transaction subscriber is async (Postgres): awaited before the commit.
  yield unit.emit('conversion.recorded', conversion)
  return { recorded: true, conversion }
}

/** What within() runs: the caller's steps, with the means to record conversions in the same transaction. */
export type WithinBody<R> = (record: (input: ConversionInput) => Steps<RecordResult>, q: RecordingQueries, tx: Tx, unit: Unit) => Steps<R>

/** A body waiting for its turn's shared transaction (withinBatched), and what it settled to. */
interface Queued {
  body: WithinBody<unknown>
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

/** Records one conversion in a transaction of its own (the conversions.record verb); the postback batch uses recordSteps. */
export class ConversionRecorder {
  private queued: Queued[] = []

  /**
   * `groupCommit`: withinBatched() shares one transaction among the bodies of an event-loop turn (SQLite,
   * where a transaction is synchronous on the one shared connection); false on Postgres.
   */
  constructor(private readonly store: PostbackStore, private readonly events: EventBus, private readonly groupCommit = false) {}

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
  within<R>(body: WithinBody<R>): MaybeAsync<R> {
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

  /**
   * within() for a hot path (incoming webhooks): on SQLite every body submitted in one event-loop turn runs
   * in one transaction, each in its own savepoint, like postbacks (batch.ts). One that throws rolls back
   * alone and rejects alone; the others commit together, their before-commit subscribers run once for the
   * batch, and each promise settles after the COMMIT (after-commit subscribers first). With a transaction
   * each, BEGIN and COMMIT were about a third of a webhook's time (profiled). On Postgres, within().
   */
  withinBatched<R>(body: WithinBody<R>): Promise<R> {
    if (!this.groupCommit) return Promise.resolve(this.within(body))
    return new Promise<R>((resolve, reject) => {
      if (this.queued.length === 0) setImmediate(this.flush)
      this.queued.push({ body: body as WithinBody<unknown>, resolve: resolve as (v: unknown) => void, reject })
    })
  }

  private readonly flush = (): void => {
    const batch = this.queued
    this.queued = []
    const { store, events } = this
    const settled: Settled<unknown>[] = []
    try {
      store.atomically(function* () {
        for (const item of batch) {
          let unit: Unit | undefined
          try {
            // Nested: a savepoint on the batch's transaction.
            const value = store.atomically(function* (q, tx) {
              const u = (unit = events.unit(tx))
              return yield* item.body((input) => recordSteps(q, u, input), q, tx, u)
            })
            settled.push({ ok: true, outcome: value, unit: unit! })
          } catch (error) {
            settled.push({ ok: false, error })
          }
        }
        yield events.beforeCommit(kept(settled), null)
      })
    } catch (error) {
      // The batch itself did not commit: nothing of it is stored.
      for (const item of batch) item.reject(error)
      return
    }
    settle(batch, settled)
  }
}
