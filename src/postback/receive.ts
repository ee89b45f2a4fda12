// GET /postback: query string in, outcome out. Expected outcomes are data, not exceptions.
import { hmacSha256Hex, safeEqual } from '../lib/crypto'
import type { SettingsStore } from '../settings/store'
import type { Aliases } from './aliases'
import type { ConversionTypes } from './conversion-types'
import { conversionDate, isUnreplacedMacro, parsePayout, pickParams, type PostbackParams } from './parse'
import { normalizeClickId } from '../lib/click-id'
import type { Unit } from '../lib/event-bus'
import type { PostbackStore } from './store'
import type { ConversionRecorder } from './record'
import { PostbackIpAllowlist } from './ip-allowlist'

/** Why a postback recorded nothing; each one is a postback_errors row the operator can list. */
export const ERROR_REASONS = ['missing_click_id', 'unreplaced_macro', 'unknown_click', 'invalid_payout', 'invalid_tid', 'duplicate', 'ip_not_allowed'] as const
export type PostbackErrorReason = (typeof ERROR_REASONS)[number]

export type PostbackOutcome =
  | { kind: 'unauthorized' }
  | { kind: 'recorded'; conversionId: number }
  | { kind: 'ignored'; reason: PostbackErrorReason }

const MAX_QUERY_STORED = 4096
const MAX_CLICK_ID_STORED = 255
/** Stored field limits, shared with the conversions.record verb. */
export const MAX_TID = 255
export const MAX_STATUS = 64
export const MAX_EMAIL = 254

/** Spec §5: HMAC-SHA256 over `subid|status|payout|tid`, the raw received values, absent ones as "". */
export function postbackSignature(secret: string, p: PostbackParams): string {
  return hmacSha256Hex(secret, `${p.subid ?? ''}|${p.status ?? ''}|${p.payout ?? ''}|${p.tid ?? ''}`)
}

export class PostbackReceiver {
  private readonly allowlist: PostbackIpAllowlist

  constructor(
    private readonly settings: SettingsStore,
    private readonly aliases: Aliases,
    private readonly types: ConversionTypes,
    private readonly q: PostbackStore,
    private readonly recorder: ConversionRecorder,
  ) {
    this.allowlist = new PostbackIpAllowlist(settings)
  }

  /** `rawQuery` is the query string as received, without "?"; `unit` is the batch's, committed after the batch. */
  receive(rawQuery: string, ip: string, unit: Unit): PostbackOutcome {
    const receivedAt = Date.now()
    // postback_ip_allowlist: a postback from elsewhere records nothing but stays visible as an error row.
    // The answer is still 200 OK (spec §4 rule 2: only a signature failure changes it).
    if (!this.allowlist.allows(ip)) {
      this.q.recordError('ip_not_allowed', null, rawQuery.slice(0, MAX_QUERY_STORED), ip, receivedAt)
      return { kind: 'ignored', reason: 'ip_not_allowed' }
    }
    const p = pickParams(new URLSearchParams(rawQuery), this.aliases.current())

    // SettingValue<> types secret keys as string[] (registry typing quirk); the stored value is string | null.
    const secret = this.settings.get('postback_secret') as unknown as string | null
    if (secret && !(p.sig !== undefined && safeEqual(p.sig.toLowerCase(), postbackSignature(secret, p)))) {
      return { kind: 'unauthorized' }
    }

    const ignore = (reason: PostbackErrorReason, clickId: string | null): PostbackOutcome => {
      this.q.recordError(reason, clickId?.slice(0, MAX_CLICK_ID_STORED) ?? null, rawQuery.slice(0, MAX_QUERY_STORED), ip, receivedAt)
      return { kind: 'ignored', reason }
    }

    if (p.subid === undefined) return ignore('missing_click_id', null)
    if (isUnreplacedMacro(p.subid)) return ignore('unreplaced_macro', p.subid)
    const clickId = normalizeClickId(p.subid.trim())
    const click = clickId ? this.q.findClick(clickId) : null
    if (!click) return ignore('unknown_click', p.subid)

    let revenue = click.offer_payout ?? 0
    if (p.payout !== undefined) {
      const parsed = parsePayout(p.payout)
      // Never store a wrong amount: a payout we cannot read records nothing and is listed for the operator.
      if (parsed === null) return ignore('invalid_payout', click.click_id)
      revenue = parsed
    }
    if (p.tid !== undefined && p.tid.length > MAX_TID) return ignore('invalid_tid', click.click_id)

    const email = p.email?.trim().slice(0, MAX_EMAIL) || null
    const result = this.recorder.record({
      click,
      type: this.types.resolve(p.status),
      status: p.status === undefined ? null : p.status.slice(0, MAX_STATUS),
      revenue,
      currency: click.offer_currency,
      transactionId: p.tid ?? null,
      email,
      date: conversionDate(p.date, receivedAt),
      dedupByTransactionId: this.settings.get('postback_dedup'),
    }, unit)
    if (!result.recorded) return ignore(result.reason, click.click_id)
    return { kind: 'recorded', conversionId: result.conversion.id }
  }
}
