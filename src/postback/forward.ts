// Forwarding a conversion to its traffic source (spec §4 rule 5): the URL is fixed at enqueue time, the
// request is a durable job (kind source_postback) so a slow or dead source never touches the response.
// It subscribes to `conversion.recorded`: the job is enqueued in the conversion's transaction, and the
// job loop is woken after the commit, only when a job was enqueued (a claim query per postback otherwise).
import type { EventBus } from '../lib/event-bus'
import { expectSuccess, outboundFetch } from '../lib/outbound'
import { JobError, type JobHandler, type JobQueue } from '../jobs/types'
import { VERSION } from '../version'
import type { RecordedConversion } from './record'

export const FORWARD_JOB = 'source_postback'

export interface ForwardPayload {
  conversion_id: number
  url: string
}

/**
 * Substitutes the source template's macros, each value URL-encoded: {click_id}, {payout} (the recorded
 * revenue), {external_id} (the campaign's id on the source side, empty when unset) and {status} (the
 * resolved conversion type slug). Other text, unknown macros included, is left as written.
 */
export function buildForwardUrl(
  template: string,
  values: { clickId: string; payout: number; externalId: string | null; status: string },
): string {
  const map: Record<string, string> = {
    click_id: values.clickId,
    payout: String(values.payout),
    external_id: values.externalId ?? '',
    status: values.status,
  }
  return template.replace(/\{(click_id|payout|external_id|status)\}/g, (_, name: string) => encodeURIComponent(map[name]!))
}

function isPayload(p: unknown): p is ForwardPayload {
  const o = p as ForwardPayload | null
  return !!o && typeof o === 'object' && typeof o.url === 'string' && typeof o.conversion_id === 'number'
}

/** One GET to the source; success is any 2xx (see expectSuccess for how failures are classified). */
export function forwardHandler(allowPrivate: boolean): JobHandler {
  return async (payload, signal) => {
    if (!isPayload(payload)) throw new JobError('payload must be {conversion_id, url}', false)
    const res = await outboundFetch(
      payload.url,
      { method: 'GET', headers: { 'user-agent': `svc/${VERSION} (postback forwarder)` } },
      { allowPrivate, signal },
    )
    return expectSuccess(res)
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

export function subscribeForwarding(deps: { events: EventBus; jobs: JobQueue; allowPrivate: boolean }): void {
  const { events, jobs } = deps
  jobs.register(FORWARD_JOB, forwardHandler(deps.allowPrivate), { target: forwardTarget, section: 'conversions' })
  // Conversions whose forward job is in their (not yet committed) transaction. A rolled-back one is never
  // committed, so it is never looked up again and simply collected.
  const enqueued = new WeakSet<RecordedConversion>()
  // On Postgres the insert goes through the unit's transaction and is a Promise: returned, the bus awaits it.
  events.on('conversion.recorded', 'in-transaction', 'postback.forward', (c, tx) => {
    // The type's send_postback is never set for negative types (checked when types are written).
    if (!c.type.send_postback || !c.sourcePostbackUrl) return
    const payload: ForwardPayload = {
      conversion_id: c.id,
      url: buildForwardUrl(c.sourcePostbackUrl, { clickId: c.clickId, payout: c.revenue, externalId: c.campaignExternalId, status: c.type.slug }),
    }
    enqueued.add(c)
    const id = jobs.enqueue(FORWARD_JOB, payload, { tx })
    if (id instanceof Promise) return id.then(() => {})
  })
  events.on('conversion.recorded', 'after-commit', 'postback.wake-job-loop', (c) => {
    if (enqueued.delete(c)) jobs.kick()
  })
}
