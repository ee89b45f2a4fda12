// Amounts as the payment processors send them: integer minor units, whose exponent depends on the
// currency (2 for most; 0 for JPY, KRW…; 3 for BHD, KWD…). One table for reading and for writing them.
const ZERO_DECIMAL = new Set(['BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF'])
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND'])

const exponentOf = (currency: string | null) => (currency && ZERO_DECIMAL.has(currency) ? 0 : currency && THREE_DECIMAL.has(currency) ? 3 : 2)

/** Minor units → the currency's decimal amount (anything but a safe integer reads as 0). */
export function fromMinorUnits(amount: unknown, currency: string | null): number {
  const n = typeof amount === 'number' && Number.isSafeInteger(amount) ? amount : 0
  return n / 10 ** exponentOf(currency)
}

/**
 * Minor units as a processor must send them (a JSON integer, 0 or more, at most 2^53 − 1) → the currency's
 * decimal amount; null for anything else (`1.5`, `"1000"`, 2^53 + 2, negative): the caller refuses to count it.
 */
export function readMinorUnits(amount: unknown, currency: string | null): number | null {
  return typeof amount === 'number' && Number.isSafeInteger(amount) && amount >= 0 ? amount / 10 ** exponentOf(currency) : null
}

/** A decimal amount → the processor's integer minor units. */
export function toMinorUnits(amount: number, currency: string): number {
  return Math.round(amount * 10 ** exponentOf(currency))
}
