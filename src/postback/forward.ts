// Forwarding a conversion to its traffic source (spec §4 rule 5): the conversion's macros are filled at enqueue
// time, the click's ({sub1}…, its stored parameters) when the job runs (a read the /postback path does not pay
// for); the request is a durable job (kind source_postback) so a slow or dead source never touches the response.
// It subscribes to `conversion.recorded` (and `conversion.updated`, for a change of type) before the commit: the
// jobs of a transaction's conversions (a postback batch's) are enqueued in it at once, and the job loop is woken
// after the commit, only when a job was enqueued (a claim query per postback otherwise).
import type { EventBus } from '../lib/event-bus'
import { expectSuccess, OutboundError, outboundFetch } from '../lib/outbound'
import type { JobHandler, JobQueue } from '../context'
import { JobError } from '../jobs'
import { VERSION } from '../version'
import type { RecordedConversion } from './record'
import type { Tx } from '../db/engine'
// The click's side of the URL is filled by tracking (its timeline shows the same URL the job sends).
import { encodeMacroValue, fillClickMacros, type ContinuableClick } from '../tracking'
import {
  authorityEnd, CONVERSION_MACROS, fillMacros, forwardWarning, SUB_MACROS, unreplacedPlaceholders,
} from '../catalog'

export const FORWARD_JOB = 'source_postback'

export interface ForwardPayload {
  conversion_id: number
  /** The template with the conversion's macros filled in; the click's ({sub1}…, its parameters) are filled when the job runs. */
  url: string
}

/** What the forward job reads when its URL still has `{…}` after the conversion's macros: the click's subs and parameters. */
export type ForwardClick = Pick<ContinuableClick, 'params' | (typeof SUB_MACROS)[number]>

/** The forward job's reads and its one write, wired by the feature (both engines). */
export interface ForwardLookup {
  /** The stored click of a conversion; null when the conversion or the click is gone (raw click retention). */
  clickOf(conversionId: number): Promise<ForwardClick | null>
  /** Records on the conversion that its forward was sent with placeholders as written. */
  warn(conversionId: number, warning: string): Promise<void>
}

/** The conversion's side of the forward URL: what is known when it is recorded. */
export interface ForwardValues {
  clickId: string
  payout: number
  externalId: string | null
  /** The resolved conversion type slug ({status} and {type}). */
  status: string
  transactionId?: string | null
  currency?: string | null
  campaignId?: number | null
  offerId?: number | null
  sourceId?: number | null
  landingId?: number | null
}

/**
 * Substitutes the conversion's macros (CONVERSION_MACROS), each value URL-encoded and empty when unknown:
 * {click_id}, {payout} (the recorded revenue), {status} and {type} (the resolved type slug), {tid}, {currency},
 * {external_id} (the campaign's id on the source side), {campaign_id}, {offer_id}, {source_id}, {landing_id}.
 * Only in the path, query and fragment: a macro in the scheme or host (refused when the source is saved) stays
 * as written, so no value ever decides where the request goes. Other text, {sub1}… included, is left as written.
 */
export function buildForwardUrl(template: string, v: ForwardValues): string {
  const map: Record<(typeof CONVERSION_MACROS)[number], string | number | null | undefined> = {
    click_id: v.clickId, payout: v.payout, status: v.status, type: v.status, tid: v.transactionId, currency: v.currency,
    external_id: v.externalId, campaign_id: v.campaignId, offer_id: v.offerId, source_id: v.sourceId, landing_id: v.landingId,
  }
  return fillMacros(template, (name) => (Object.hasOwn(map, name) ? encodeMacroValue(map[name as keyof typeof map]) : undefined))
}

/** A `{name}` after the host: the click must be read to fill it (or to know it stays). */
const needsClick = (url: string) => /\{[A-Za-z0-9_]+\}/.test(url.slice(authorityEnd(url)))

function isPayload(p: unknown): p is ForwardPayload {
  const o = p as ForwardPayload | null
  return !!o && typeof o === 'object' && typeof o.url === 'string' && typeof o.conversion_id === 'number'
}

/**
 * One GET to the source; success is any 2xx (see expectSuccess for how failures are classified). A URL that
 * still holds `{…}` gets the click's macros first (read here, off the /postback path); what is still left
 * is sent as written (the network ignores a parameter it does not use, and the conversion counts on the
 * source's side more often than not) and recorded on the conversion as its forward_warning.
 */
export function forwardHandler(allowPrivate: boolean, lookup?: ForwardLookup): JobHandler {
  return async (payload, signal) => {
    if (!isPayload(payload)) throw new JobError('payload must be {conversion_id, url}', false)
    let url = payload.url
    let clickGone = false
    if (lookup && needsClick(url)) {
      const click = await lookup.clickOf(payload.conversion_id)
      if (click) url = fillClickMacros(url, click)
      else clickGone = true
    }
    const warning = lookup && forwardWarning(url)
    if (warning) await lookup!.warn(payload.conversion_id, clickGone ? `${warning} (the click is no longer stored)` : warning)
    // A template saved before macros were refused there: no request (not even a DNS lookup of "{sub1}").
    if (unreplacedPlaceholders(url, 'host').length) {
      throw new JobError("the source's postback_url has a macro in its scheme or host: save it again with the macro in the path or query", false)
    }
    // The latency is the source's answer time (connect to status line), what a buyer compares between sources:
    // measured around the request only, so the click read and the checks above do not count.
    const started = performance.now()
    const res = await outboundFetch(
      url,
      { method: 'GET', headers: { 'user-agent': `svc/${VERSION} (postback forwarder)` } },
      { allowPrivate, signal },
    )
    const ms = Math.round(performance.now() - started)
    try {
      return `${await expectSuccess(res)} in ${ms} ms`
    } catch (err) {
      // The source answered with a failure: its text as before, with the time it took. The click timeline reads
      // both forms back (tracking/timeline.ts forwardOutcome).
      if (err instanceof OutboundError) throw new OutboundError(`${err.message} (after ${ms} ms)`, err.retryable)
      throw err
    }
  }
}

/** The source's host, for log lines: the URL's query carries the click id and often a source token. */
export const forwardTarget = (p: unknown): string | null => {
  if (!isPayload(p)) return null
  try {
    return new URL(p.url).host
  } catch {
    return null
  }
}

/** `lookup`: the click and the warning of a forward (left out, {sub1}… and parameters stay as written, unwarned). */
export function subscribeForwarding(deps: { events: EventBus; jobs: JobQueue; allowPrivate: boolean; lookup?: ForwardLookup }): void {
  const { events, jobs } = deps
  jobs.register(FORWARD_JOB, forwardHandler(deps.allowPrivate, deps.lookup), { target: forwardTarget, section: 'conversions' })
  // Conversions whose forward job is in their (not yet committed) transaction. A rolled-back one is never
  // committed, so it is never looked up again and simply collected.
  const enqueued = new WeakSet<object>()
  /**
   * Enqueues the forwards of a transaction's conversions (`key` marks each for the wake-up) in one go: on
   * Postgres one INSERT for a whole postback batch (it was a round trip per postback, one after another),
   * sent before the rollups, which lock the hot rows only for the COMMIT after them. Undefined when none.
   */
  const enqueueAll = (items: ReadonlyArray<readonly [object, RecordedConversion]>, tx: Tx) => {
    const payloads: ForwardPayload[] = []
    for (const [key, c] of items) {
      // The type's send_postback is never set for negative types (checked when types are written).
      if (!c.type.send_postback || !c.sourcePostbackUrl) continue
      payloads.push({
        conversion_id: c.id,
        url: buildForwardUrl(c.sourcePostbackUrl, {
          clickId: c.clickId, payout: c.revenue, externalId: c.campaignExternalId, status: c.type.slug, transactionId: c.transactionId,
          currency: c.currency, campaignId: c.campaignId, offerId: c.offerId, sourceId: c.sourceId, landingId: c.landingId,
        }),
      })
      enqueued.add(key)
    }
    if (payloads.length === 0) return
    const ids = jobs.enqueueMany(FORWARD_JOB, payloads, { tx })
    if (ids instanceof Promise) return ids.then(() => {})
  }
  // Before commit, with every conversion of the transaction (a postback batch's): the job commits with its
  // conversion or not at all. Registered before the reports' rollups (the postback feature is wired first;
  // test/postback/forward-batch.test.ts pins the order). On Postgres a Promise: the bus awaits it.
  events.on('conversion.recorded', 'before-commit', 'postback.forward', (cs, tx) => enqueueAll(cs.map((c) => [c, c] as const), tx))
  // A status update (postback_status_updates) forwards only a change of type: lead → sale sends the sale, a
  // pending sale that becomes an approved sale sends no second sale. The URL carries the new type and revenue.
  events.on('conversion.updated', 'before-commit', 'postback.forward-update', (us, tx) =>
    enqueueAll(us.filter((u) => u.after.type.slug !== u.before.type.slug).map((u) => [u, u.after] as const), tx))
  events.on('conversion.updated', 'after-commit', 'postback.wake-job-loop-update', (u) => {
    if (enqueued.delete(u)) jobs.kick()
  })
  events.on('conversion.recorded', 'after-commit', 'postback.wake-job-loop', (c) => {
    if (enqueued.delete(c)) jobs.kick()
  })
}
