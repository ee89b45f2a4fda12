// GET /postback: query string in, outcome out. Expected outcomes are data, not exceptions.
import { hmacSha256Hex, safeEqual } from '../lib/crypto'
import type { SettingsStore } from '../context'
import type { Aliases } from './aliases'
import type { ConversionTypes } from './conversion-types'
import { conversionDate, isUnreplacedMacro, pickParams, type PostbackParams } from './parse'
import { readPayout } from './payout'
import { normalizeClickId } from '../lib/click-id'
import type { Unit } from '../lib/event-bus'
import type { ClickForConversion, RecordingQueries } from './store'
import { recordSteps, type RecordResult } from './record'
import { runSync, type Steps } from '../lib/steps'
import { PostbackIpAllowlist } from './ip-allowlist'
import { statusUpdateSteps, type StatusUpdateResult } from './status-update'

/** Why a postback recorded nothing; each one is a postback_errors row without a conversion_id. */
export const IGNORED_REASONS = ['missing_click_id', 'unreplaced_macro', 'unknown_click', 'duplicate', 'ip_not_allowed'] as const
export type PostbackErrorReason = (typeof IGNORED_REASONS)[number]
/**
 * What svc had to decide while recording a conversion; each one is a postback_errors row that carries the
 * recorded conversion's id, so the operator can check and correct the amount or the tid.
 */
export const WARNING_REASONS = ['payout_unreadable', 'payout_currency_mismatch', 'tid_truncated'] as const
export type PostbackWarningReason = (typeof WARNING_REASONS)[number]
/** Reasons of rows written before 2026-12 (those postbacks recorded nothing); still listed and filterable. */
const LEGACY_REASONS = ['invalid_payout', 'invalid_tid'] as const
/** Every reason the postback-errors list filters on. */
export const ERROR_REASONS: readonly string[] = [...IGNORED_REASONS, ...WARNING_REASONS, ...LEGACY_REASONS]

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
    /** The SQLite store, for the synchronous receive(); on Postgres the batch passes its savepoint's queries to steps(). */
    private readonly q: RecordingQueries | null,
  ) {
    this.allowlist = new PostbackIpAllowlist(settings)
  }

  /**
   * SQLite: `rawQuery` is the query string as received, without "?"; `unit` is the batch's, committed after
   * the batch. Runs inside the batch's savepoint, synchronously.
   */
  receive(rawQuery: string, ip: string, unit: Unit): PostbackOutcome {
    return runSync(this.steps(rawQuery, ip, unit, this.q!))
  }

  /** The rules of a postback, for both engines (see lib/steps.ts); `q` and `unit` belong to the caller's savepoint. */
  *steps(rawQuery: string, ip: string, unit: Unit, q: RecordingQueries): Steps<PostbackOutcome> {
    const receivedAt = Date.now()
    // postback_ip_allowlist: a postback from elsewhere records nothing but stays visible as an error row.
    // The answer is still 200 OK (spec §4 rule 2: only a signature failure changes it).
    if (!this.allowlist.allows(ip)) {
      yield q.recordError('ip_not_allowed', null, rawQuery.slice(0, MAX_QUERY_STORED), ip, receivedAt)
      return { kind: 'ignored', reason: 'ip_not_allowed' }
    }
    const p = pickParams(new URLSearchParams(rawQuery), this.aliases.current())

    // SettingValue<> types secret keys as string[] (registry typing quirk); the stored value is string | null.
    const secret = this.settings.get('postback_secret') as unknown as string | null
    if (secret && !(p.sig !== undefined && safeEqual(p.sig.toLowerCase(), postbackSignature(secret, p)))) {
      return { kind: 'unauthorized' }
    }

    // The error row of an ignored postback: a store call, so yield what it returns.
    const ignore = (reason: PostbackErrorReason, clickId: string | null) =>
      q.recordError(reason, clickId?.slice(0, MAX_CLICK_ID_STORED) ?? null, rawQuery.slice(0, MAX_QUERY_STORED), ip, receivedAt)

    if (p.subid === undefined) {
      yield ignore('missing_click_id', null)
      return { kind: 'ignored', reason: 'missing_click_id' }
    }
    if (isUnreplacedMacro(p.subid)) {
      yield ignore('unreplaced_macro', p.subid)
      return { kind: 'ignored', reason: 'unreplaced_macro' }
    }
    const clickId = normalizeClickId(p.subid.trim())
    const click: ClickForConversion | null = clickId ? yield q.findClick(clickId) : null
    if (!click) {
      yield ignore('unknown_click', p.subid)
      return { kind: 'ignored', reason: 'unknown_click' }
    }

    // Money is never dropped on a format: what cannot be read unambiguously records the offer's payout and
    // a warning row, and a tid too long to store is cut, also with a warning row.
    // Allocated only when there is something to say: most postbacks have nothing.
    let warnings: PostbackWarningReason[] | null = null
    // The amount the postback sent, when readable: a status update keeps the conversion's revenue without one.
    let sent: number | null = null
    const rawPayout = p.payout?.trim()
    if (rawPayout) { // a blank payout is an absent one, like an empty one
      const payout = readPayout(rawPayout)
      if (payout === null) (warnings ??= []).push('payout_unreadable')
      else {
        sent = payout.amount
        // No conversion (spec rule 8): the offer's currency is stored, the operator is told they differ.
        if (payout.currency !== null && click.offer_currency !== null && payout.currency !== click.offer_currency.toUpperCase()) {
          ;(warnings ??= []).push('payout_currency_mismatch')
        }
      }
    }
    let tid = p.tid ?? null
    if (tid !== null && tid.length > MAX_TID) {
      ;(warnings ??= []).push('tid_truncated')
      tid = tid.slice(0, MAX_TID)
    }

    const email = p.email?.trim().slice(0, MAX_EMAIL) || null
    const type = this.types.resolve(p.status)
    const status = p.status === undefined ? null : p.status.slice(0, MAX_STATUS)
    const date = conversionDate(p.date, receivedAt)
    // Kept on the conversion for the click timeline, capped as the error rows' copy: one more bound value, no extra query.
    const query = rawQuery.length > MAX_QUERY_STORED ? rawQuery.slice(0, MAX_QUERY_STORED) : rawQuery
    let conversionId: number
    // Opt-in (postback_status_updates): a conversion of this click and tid moves instead of a second one.
    const update: StatusUpdateResult = tid && this.settings.get('postback_status_updates')
      ? yield* statusUpdateSteps(q, unit, this.types, { click, transactionId: tid, type, status, payout: sent, email, date, query })
      : null
    if (update?.kind === 'duplicate') {
      yield ignore('duplicate', click.click_id)
      return { kind: 'ignored', reason: 'duplicate' }
    }
    if (update) conversionId = update.conversionId
    else {
      const result: RecordResult = yield* recordSteps(q, unit, {
        click, type, status, revenue: sent ?? click.offer_payout ?? 0, currency: click.offer_currency, transactionId: tid, email, date,
        dedupByTransactionId: this.settings.get('postback_dedup'), postbackQuery: query,
      })
      if (!result.recorded) {
        yield ignore(result.reason, click.click_id)
        return { kind: 'ignored', reason: result.reason }
      }
      conversionId = result.conversion.id
    }
    if (warnings) for (const reason of warnings) {
      yield q.recordError(reason, click.click_id, rawQuery.slice(0, MAX_QUERY_STORED), ip, receivedAt, conversionId)
    }
    return { kind: 'recorded', conversionId }
  }
}
