// Forwarding a conversion to its traffic source (spec §4 rule 5): the URL is fixed at enqueue time, the
// request is a durable job (kind source_postback) so a slow or dead source never touches the response.
import { expectSuccess, outboundFetch } from '../lib/outbound'
import { JobError, type JobHandler } from '../jobs/types'
import { VERSION } from '../version'

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
