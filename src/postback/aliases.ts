// Query-string names accepted for each postback parameter (spec §4 table), with operator overrides.
import { invalid } from '../lib/errors'
import type { SettingsStore } from '../context'

export const CANONICAL = ['subid', 'status', 'payout', 'tid', 'date', 'sig', 'email'] as const
export type Canonical = (typeof CANONICAL)[number]
export type AliasMap = Record<Canonical, readonly string[]>

/** Spec §4, priority order, case-sensitive. */
export const DEFAULT_ALIASES: AliasMap = Object.freeze({
  subid: ['subid', 'sub_id', 'click_id', 'clickid', 'trackID', 'subaccount', 'aff_sub', 'aff_click_id', 'SubID', 'trackingCodes', 'sub1', 'sub2'],
  status: ['status', 'type'],
  payout: ['payout', 'revenue', 'profit', 'summ_approved', 'payment', 'amount', 'payout_amount', 'order_sum', 'order_amount', 'affiliateCommission', 'value'],
  tid: ['tid', 'transaction_id', 'txid', 'trans_id', 'receipt'],
  date: ['date', 'conversion_time', 'action_time', 'postback_date', 'time'],
  sig: ['sig'],
  email: ['email'],
})

/** The nominal URL form of the spec names the click id `cid`; it is always accepted, last. */
const LAST_RESORT_SUBID = 'cid'

export const SETTINGS_KEY = 'postback_aliases'
const MAX_ALIASES = 50
const MAX_ALIAS_LENGTH = 64

type Overrides = Partial<Record<Canonical, string[]>>

const isCanonical = (k: string): k is Canonical => (CANONICAL as readonly string[]).includes(k)

function effective(overrides: Overrides | undefined): AliasMap {
  const out = {} as Record<Canonical, readonly string[]>
  for (const name of CANONICAL) {
    const list = overrides?.[name] ?? DEFAULT_ALIASES[name]
    out[name] = Object.freeze(name === 'subid' && !list.includes(LAST_RESORT_SUBID) ? [...list, LAST_RESORT_SUBID] : [...list])
  }
  return Object.freeze(out)
}

/** Reads overrides through the settings cache and recomputes only when the stored object changed. */
export class Aliases {
  private source: Overrides | undefined | null = null
  private cached: AliasMap = effective(undefined)

  constructor(private readonly settings: SettingsStore) {}

  current(): AliasMap {
    const stored = this.settings.getJson<Overrides>(SETTINGS_KEY)
    if (stored !== this.source) {
      this.source = stored
      this.cached = effective(stored)
    }
    return this.cached
  }

  /**
   * PUT body: `{ canonical: [names…] }` replaces that parameter's list; `null` restores its default.
   * Parameters not named keep their current list. Returns the effective map.
   */
  async replace(body: unknown): Promise<AliasMap> {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw invalid('body: must be an object like {"subid":["subid","click_id"]}')
    }
    const next: Overrides = { ...(this.settings.getJson<Overrides>(SETTINGS_KEY) ?? {}) }
    for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
      if (!isCanonical(key)) throw invalid(`${key}: unknown postback parameter (known: ${CANONICAL.join(', ')})`)
      if (value === null) {
        delete next[key]
        continue
      }
      if (!Array.isArray(value) || value.length === 0) throw invalid(`${key}: must be a non-empty array of parameter names`)
      if (value.length > MAX_ALIASES) throw invalid(`${key}: at most ${MAX_ALIASES} names`)
      const names: string[] = []
      for (const v of value) {
        if (typeof v !== 'string') throw invalid(`${key}: every name must be a string`)
        if (v === '' || v.length > MAX_ALIAS_LENGTH || v.trim() !== v) {
          throw invalid(`${key}: "${String(v).slice(0, 80)}" is not a valid parameter name (1-${MAX_ALIAS_LENGTH} characters, no surrounding spaces)`)
        }
        if (!names.includes(v)) names.push(v)
      }
      next[key] = names
    }
    await this.settings.setJson(SETTINGS_KEY, Object.keys(next).length ? next : null)
    return this.current()
  }
}
