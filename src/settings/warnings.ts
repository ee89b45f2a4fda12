// Settings that leave the instance open in a way the operator should hear about: said at every start (a
// log line) and in the read-only "warnings" key of GET /admin/api/settings, for as long as it holds.
import type { SettingsStore } from './store'
import { WEBHOOK_SECRET_KEYS, WEBHOOK_SECRET_MIN } from './registry'

/** The read-only key of the settings answer that lists the warnings (ignored when written back). */
export const WARNINGS_KEY = 'warnings'

/** What the warnings need of the configuration (config.ts). */
export interface WarningConfig { publicUrl: string | null; smtpUrl: string | null; emailFrom: { mailbox: string } | null }

/** What the cost_currency warning reads of the catalog (money-facts.ts). */
export interface MoneyFacts {
  /** Some campaign records cost (a cpc above 0, or the cost parameter). */
  costRecorded: boolean
  /** The currencies offers pay in (upper-case). */
  offerCurrencies: readonly string[]
}

/**
 * Costs carry no currency of their own and count in cost_currency (USD by default): when no offer pays in
 * it, profit and ROI can never be computed (reports never convert), which usually means the setting was missed.
 */
export function costCurrencyWarning(costCurrency: string, money: MoneyFacts): string | null {
  if (!money.costRecorded || money.offerCurrencies.length === 0 || money.offerCurrencies.includes(costCurrency)) return null
  return `costs are counted in ${costCurrency} but no offer pays in ${costCurrency}: set cost_currency ` +
    `(offers pay in ${money.offerCurrencies.join(', ')}; reports show cost and revenue side by side, never converted).`
}

export function settingsWarnings(settings: SettingsStore, config: WarningConfig, money: MoneyFacts | null = null): string[] {
  const out: string[] = []
  if (config.publicUrl === null && config.smtpUrl !== null) {
    // Said once mail can leave (without a relay nothing is sent anyway). The request's Host header is the client's to choose: a link built from it could carry a customer's
    // sign-in token to a stranger's host.
    out.push('SVC_PUBLIC_URL is not set: customer magic links are not mailed (their address would come from the request\'s Host header, which a stranger chooses). Set SVC_PUBLIC_URL to the address customers reach svc at.')
  }
  if (config.smtpUrl !== null && config.emailFrom === null && !settings.get('email_from')) {
    // Said only once mail can leave, like the warning above: without a relay every message waits anyway.
    const host = config.publicUrl === null ? null : URL.parse(config.publicUrl)?.hostname || config.publicUrl
    const none = host === null
      ? 'the email_from setting, SVC_EMAIL_FROM and SVC_PUBLIC_URL are all unset'
      : `the email_from setting and SVC_EMAIL_FROM are unset, and the host of SVC_PUBLIC_URL (${host}) is no mail domain to send from as noreply@`
    out.push(`No From address for outgoing mail: ${none}. Messages wait in the outbox as unsent until the email_from setting is written (or SVC_EMAIL_FROM is set and svc restarted).`)
  }
  if (!settings.get('postback_secret')) {
    const guard = settings.get('postback_ip_allowlist').length > 0
      ? 'postback_ip_allowlist limits where they may come from'
      : 'anyone who opens a tracking link can post back their own click with any payout'
    out.push(
      `postback_secret is not set: postbacks are unsigned and ${guard}. ` +
        'Set postback_secret (16 characters or more) and sign postbacks, and/or set postback_ip_allowlist to your advertisers\' servers.',
    )
  }
  // Stored before secrets had to be 16 characters: still used, but guessable.
  for (const key of WEBHOOK_SECRET_KEYS) {
    const v = settings.get(key)
    if (v !== null && (v.trim() === '' || v.length < WEBHOOK_SECRET_MIN)) {
      out.push(`${key} is shorter than ${WEBHOOK_SECRET_MIN} characters (or only whitespace): anyone can guess it. Set a new one (16 characters or more) here and at the sender.`)
    }
  }
  if (settings.get('ecom_a_webhook_key') !== null && settings.get('ecom_a_webhook_secret') !== null) {
    out.push('ecom_a_webhook_key (the legacy ?key=) is refused while ecom_a_webhook_secret is set: clear it (null).')
  }
  const currency = money && costCurrencyWarning(settings.get('cost_currency'), money)
  if (currency) out.push(currency)
  return out
}
