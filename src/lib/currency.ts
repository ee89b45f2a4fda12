// The one currency rule: an ISO 4217 code the runtime knows (current and historic), upper-case. Offers,
// products, payouts, webhooks and the cost currency all check codes here, so `ABC` is refused everywhere.

const CURRENCY_CODES = new Set(Intl.supportedValuesOf('currency'))

/** `eur` → `EUR`; null when the value is not an ISO 4217 code. */
export function currencyCode(value: unknown): string | null {
  if (typeof value !== 'string' || !/^[A-Za-z]{3}$/.test(value)) return null
  const code = value.toUpperCase()
  return CURRENCY_CODES.has(code) ? code : null
}

export const CURRENCY_HINT = 'must be an ISO 4217 currency code such as USD'
