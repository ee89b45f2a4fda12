// Every settings key, its default, whether it is a secret, and how a written value is validated.
import { createPublicKey } from 'node:crypto'
import { invalid } from '../lib/errors'
import { optionalPlainUrl } from '../lib/fields'
import { CidrError, parseCidr } from '../lib/cidr'
import { normalizeEmail } from '../lib/email-address'
import { CURRENCY_HINT, currencyCode } from '../lib/currency'

export interface SettingDef<T> {
  secret: boolean
  default: T
  /** Returns the normalised value or throws invalid naming the key. */
  parse(value: unknown, key: string): T
}

/** The shortest webhook secret (settings and payment accounts) accepted when it is written. */
export const WEBHOOK_SECRET_MIN = 16
/** The settings that hold a webhook secret (or the legacy key), checked against WEBHOOK_SECRET_MIN. */
export const WEBHOOK_SECRET_KEYS = ['ecom_a_webhook_key', 'pay_a_ecom_webhook_secret', 'ecom_a_webhook_secret', 'ecom_b_webhook_secret'] as const

const secretString = (minLength = 1): SettingDef<string | null> => ({
  secret: true,
  default: null,
  parse(v, key) {
    if (v === null || v === '') return null
    if (typeof v !== 'string') throw invalid(`${key}: must be a string or null`)
    if (v.length > 1024) throw invalid(`${key}: is longer than 1024 characters`)
    if (v.trim() === '') throw invalid(`${key}: must not be only whitespace`)
    if (v.length < minLength) throw invalid(`${key}: must be at least ${minLength} characters (a short secret can be guessed)`)
    return v
  },
})

const currency = (def: string): SettingDef<string> => ({
  secret: false,
  default: def,
  parse(v, key) {
    const code = currencyCode(v)
    if (code === null) throw invalid(`${key}: ${CURRENCY_HINT}`)
    return code
  },
})

const bool = (def: boolean): SettingDef<boolean> => ({
  secret: false,
  default: def,
  parse(v, key) {
    if (typeof v !== 'boolean') throw invalid(`${key}: must be true or false`)
    return v
  },
})

const origins: SettingDef<string[]> = {
  secret: false,
  default: [],
  parse(v, key) {
    if (!Array.isArray(v) || v.length > 200) throw invalid(`${key}: must be an array of origins`)
    return v.map((o) => {
      if (typeof o !== 'string') throw invalid(`${key}: must contain strings`)
      if (o === '*') return o
      const bad = () => invalid(`${key}: "${o.slice(0, 100)}" is not an origin like https://shop.example`)
      let u: URL
      try { u = new URL(o) } catch { throw bad() }
      if (!/^https?:$/.test(u.protocol) || u.origin !== o.replace(/\/$/, '')) throw bad()
      return u.origin
    })
  },
}

const positiveInt = (def: number, max: number): SettingDef<number> => ({
  secret: false,
  default: def,
  parse(v, key) {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) throw invalid(`${key}: must be a whole number from 0 to ${max}`)
    return v
  },
})

const intRange = (def: number, min: number, max: number): SettingDef<number> => ({
  secret: false,
  default: def,
  parse(v, key) {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw invalid(`${key}: must be a whole number from ${min} to ${max}`)
    return v
  },
})

/** Addresses and CIDR ranges ("203.0.113.0/24", "2001:db8::/32", "198.51.100.7"), stored trimmed. */
const ipRanges = (max: number): SettingDef<string[]> => ({
  secret: false,
  default: [],
  parse(v, key) {
    if (!Array.isArray(v)) throw invalid(`${key}: must be an array of IP addresses or CIDR ranges`)
    if (v.length > max) throw invalid(`${key}: has more than ${max} entries`)
    return v.map((e, i) => {
      if (typeof e !== 'string') throw invalid(`${key}: entry ${i + 1} must be a string`)
      try {
        parseCidr(e)
      } catch (err) {
        if (!(err instanceof CidrError)) throw err
        throw invalid(`${key}: entry ${i + 1} "${e.slice(0, 100)}" ${err.message}`)
      }
      return e.trim()
    })
  },
})

/** An absolute http(s) URL without macros, or null. */
const plainUrl: SettingDef<string | null> = {
  secret: false,
  default: null,
  parse: (v, key) => optionalPlainUrl(v, key),
}

/** A public key as base64 DER (SPKI), as SendGrid shows it; checked by parsing it. */
const ecdsaPublicKey: SettingDef<string | null> = {
  secret: false,
  default: null,
  parse(v, key) {
    if (v === null || v === '') return null
    const bad = () => invalid(`${key}: must be the base64 public key SendGrid shows for the signed event webhook`)
    if (typeof v !== 'string' || v.length > 1000) throw bad()
    try {
      createPublicKey({ key: Buffer.from(v.trim(), 'base64'), format: 'der', type: 'spki' })
    } catch {
      throw bad()
    }
    return v.trim()
  },
}

/**
 * A mailbox for the From header, normalised (`Name <address>` or `address`), or null when it is not one: an
 * address, optionally with a display name (no quotes, brackets or line breaks). The email_from setting and
 * SVC_EMAIL_FROM (config.ts) are both checked with it.
 */
export function parseMailbox(v: string): string | null {
  if (v.length > 320) return null
  const m = /^\s*(?:([^"<>\r\n\u0000-\u001f]*?)\s*<([^<>]+)>|([^<>\s]+))\s*$/.exec(v)
  const address = m && normalizeEmail(m[2] ?? m[3] ?? '')
  if (!m || !address) return null
  const name = m[1]?.trim()
  return name ? `${name} <${address}>` : address
}

const mailbox: SettingDef<string | null> = {
  secret: false,
  default: null,
  parse(v, key) {
    if (v === null || v === '') return null
    const parsed = typeof v === 'string' ? parseMailbox(v) : null
    if (!parsed) throw invalid(`${key}: must be an email address, optionally "Name <address>"`)
    return parsed
  },
}

/**
 * An IANA time zone name, stored as Intl's canonical spelling ("europe/berlin" → "Europe/Berlin"); empty or
 * null resets to UTC. Checked with Intl directly, as reports/tz.ts Zone.parse does (the settings registry sits
 * below every feature, so it does not import the reports feature).
 */
const timeZone: SettingDef<string> = {
  secret: false,
  default: 'UTC',
  parse(v, key) {
    if (v === null || v === '') return 'UTC'
    const bad = () => invalid(`${key}: must be an IANA time zone name like Europe/Berlin or UTC`)
    // A name, not an offset: Intl would also take "+01:00", which is no zone (no DST, no name to show).
    if (typeof v !== 'string' || v.length > 64 || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(v.trim())) throw bad()
    try {
      return new Intl.DateTimeFormat('en-US', { timeZone: v.trim() }).resolvedOptions().timeZone
    } catch {
      throw bad()
    }
  },
}

export const SETTINGS = {
  /** Signs postbacks (spec §5). At least 16 characters: it is the only thing between a stranger and a booked sale. */
  postback_secret: secretString(16),
  // The webhook secrets: 16 characters or more when written (ones stored before that rule are warned about:
  // warnings.ts). The legacy key is refused by the receiver once ecom_a_webhook_secret is set.
  ecom_a_webhook_key: secretString(WEBHOOK_SECRET_MIN),
  pay_a_ecom_webhook_secret: secretString(WEBHOOK_SECRET_MIN),
  ecom_a_webhook_secret: secretString(WEBHOOK_SECRET_MIN),
  ecom_b_webhook_secret: secretString(WEBHOOK_SECRET_MIN),
  /** Days stored webhook deliveries are kept (their orders, refunds and conversions stay); 0 = forever. */
  webhook_event_retention_days: positiveInt(90, 3650),
  /** Days agent API audit rows are kept; 0 = forever. */
  audit_retention_days: positiveInt(90, 3650),
  /** At an account's first checkout, register svc's webhook endpoint at processor A (/webhook/pay-a/native-pending). */
  pay_a_register_webhook: bool(true),
  /** Addresses/ranges /postback accepts conversions from; empty = any. Others: 200 OK, nothing recorded, an ip_not_allowed error row. */
  postback_ip_allowlist: ipRanges(1000),
  cors_allowlist: origins,
  /** Opt-in: a second postback with the same click and the same tid records no second conversion. */
  postback_dedup: bool(false),
  /**
   * Opt-in: a postback for a click and tid that already has a conversion moves that conversion to the new
   * status and type (lead → sale, sale → rejected) instead of recording a second one (postback/receive.ts).
   */
  postback_status_updates: bool(false),
  /** The currency of costs (cpc, cost parameters): reports subtract cost only from revenue in this currency. */
  cost_currency: currency('USD'),
  /** The instance's time zone: days of reports without a tz, the dashboard's Today/Yesterday presets. */
  time_zone: timeZone,
  /** Days a visitor's `_svc_click` cookie lives. */
  click_cookie_days: positiveInt(30, 3650),
  /** Clicks from these addresses/ranges are bot clicks (reason blocked_ip). */
  bot_ip_ranges: ipRanges(10000),
  /** The operator's own addresses: their clicks redirect but are left out of reports. */
  excluded_ips: ipRanges(10000),
  /** Clicks per sliding minute from one IP (IPv6: one /64) before further clicks are bot clicks (reason ip_rate); 0 disables. */
  bot_clicks_per_minute: positiveInt(120, 100000),
  /** Opt-in: clicks from hosting/data-centre networks (connection 'hosting') are bot clicks (reason datacenter). */
  bot_datacenter: bool(false),
  /** Hours during which repeat clicks of one visitor count as one unique click. */
  unique_window_hours: intRange(24, 1, 8760),
  /** Days raw click rows are kept; 0 keeps them forever. */
  raw_click_retention_days: positiveInt(0, 36500),
  /** Where /c and /r send visitors of an unknown or paused campaign that has no fallback_url of its own; null = 404. */
  fallback_url: plainUrl,
  /**
   * The From of every message svc sends: `news@shop.example` or `Shop News <news@shop.example>`. Null: SVC_EMAIL_FROM,
   * else noreply@<host of SVC_PUBLIC_URL> (config.ts); with none of them mail waits in the outbox as unsent.
   */
  email_from: mailbox,
  /** Bounce webhooks: the token in the URL of the generic and the Amazon SES (SNS) endpoints. */
  mail_webhook_token: secretString(16),
  /** Postmark bounce webhook: "user:password" of the HTTP Basic credentials in its webhook URL. */
  postmark_webhook_credentials: secretString(8),
  /** Mailgun: the HTTP webhook signing key (signs every webhook). */
  mailgun_webhook_signing_key: secretString(),
  /** SendGrid signed event webhook: the verification key (base64 of the DER public key SendGrid shows). */
  sendgrid_webhook_public_key: ecdsaPublicKey,
} as const

export type SettingKey = keyof typeof SETTINGS
export type SettingValue<K extends SettingKey> = (typeof SETTINGS)[K] extends SettingDef<infer T> ? T : never

export const isSettingKey = (k: string): k is SettingKey => Object.prototype.hasOwnProperty.call(SETTINGS, k)
