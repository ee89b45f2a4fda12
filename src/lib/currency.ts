// The one currency rule: an ISO 4217 code the runtime knows (current and historic), upper-case. Offers,
// products, payouts, webhooks and the cost currency all check codes here, so `ABC` is refused everywhere.

import { invalid } from './errors'

const CURRENCY_CODES = new Set(Intl.supportedValuesOf('currency'))

/** `eur` → `EUR`; null when the value is not an ISO 4217 code. */
export function currencyCode(value: unknown): string | null {
  if (typeof value !== 'string' || !/^[A-Za-z]{3}$/.test(value)) return null
  const code = value.toUpperCase()
  return CURRENCY_CODES.has(code) ? code : null
}

export const CURRENCY_HINT = 'must be an ISO 4217 currency code such as USD'

/** The upper-case code, or `invalid` naming the field. */
export function requiredCurrency(value: unknown, field = 'currency'): string {
  const code = currencyCode(value)
  if (code === null) throw invalid(`${field}: ${CURRENCY_HINT}`)
  return code
}
