// Reading the payout of a postback as advertisers really write it: `12.50`, `12,50`, `$5`, `5 USD`,
// `1.234,56`, ` 5 `. Money is never guessed: a form that could mean two amounts (`1,234`: 1234 or 1.234?)
// is not read, and the receiver then records the offer's payout with a visible warning row instead.
import { currencyCode } from '../lib/currency'

export const MAX_ABS_PAYOUT = 1e12
const MAX_PAYOUT_CHARS = 64

export interface Payout {
  amount: number
  /** ISO 4217 code the value named (`USD`, `€` → `EUR`); null when it named none or an ambiguous symbol (`$`). */
  currency: string | null
}


/** Symbols that name one currency; any other currency symbol (`$`, `¥`, `kr`…) is accepted as unnamed. */
const SYMBOL_CODES: Record<string, string> = {
  '€': 'EUR', '£': 'GBP', '₽': 'RUB', '₹': 'INR', '₴': 'UAH', '₺': 'TRY', '₩': 'KRW', '₪': 'ILS', '₫': 'VND',
  '₱': 'PHP', '₦': 'NGN', '฿': 'THB', '₸': 'KZT', '₼': 'AZN', '₾': 'GEL', 'US$': 'USD', 'R$': 'BRL',
}

// A currency marker: a symbol (`$`, `€`), a prefixed dollar (`US$`, `R$`, `CA$`) or three letters (`USD`, `eur`).
// The value is taken apart step by step with anchored patterns: one regex for the whole grammar had
// adjacent optional spaces that backtracked for seconds on a crafted 64-character value.
const LEADING_MARKER = /^(?:\p{Sc}|[A-Za-z]{1,3}\$|[A-Za-z]{3})/u
const TRAILING_MARKER = /(?:\p{Sc}|[A-Za-z]{1,3}\$|[A-Za-z]{3})$/u
// Digits with the decimal point or comma and the group separators people use: `,` `.` space, no-break
// spaces (U+00A0, U+202F, thin U+2009) and the Swiss apostrophe.
const NUMBER_CHARS = /^[\d.,'\s\u00a0\u2009\u202f]+$/u
const PLAIN = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/
const PLAIN_WITH_EXPONENT = /^(\d+\.?\d*|\.\d+)[eE][+-]?\d+$/
const DIGITS = /^\d*$/
const GROUPED = /^\d{1,3}(?:([.,'\s\u00a0\u2009\u202f])\d{3})(?:\1\d{3})*$/u

/**
 * The amount of a payout value, or null when it cannot be read unambiguously.
 *
 * - One sign and one currency marker: sign and marker in either order before the number (`-$5`, `$-5`),
 *   or the marker after it (`5 USD`, `-5 €`).
 * - With both `.` and `,` the last one is the decimal separator (`1,234.56`, `1.234,56`).
 * - A separator that repeats groups thousands (`1,234,567`, `1.234.567`); so do spaces and `'`.
 * - A single `.` is decimal (`1.234` is 1.234, as machines write it). A single `,` is decimal (`12,50`)
 *   unless exactly three digits follow a non-zero integer part: `1,234` is ambiguous and unread,
 *   while `0,125` is 0.125.
 * - Groups must be 1-3 digits then groups of 3 with one separator (`1,23.4` is unread).
 * - NaN, Infinity, hex, anything beyond ±1e12 and values over 64 characters are unread.
 */
export function readPayout(value: string): Payout | null {
  const v = value.trim()
  // No amount needs more, and a bound keeps the work on hostile input small.
  if (v.length > MAX_PAYOUT_CHARS) return null
  if (PLAIN.test(v)) return finite(Number(v), null) // the usual `12.50`: no need for the full grammar
  // One sign and one marker, in either order before the number (`-$5`, `$-5`), or a marker after it.
  let rest = v
  let sign = rest[0] === '-' || rest[0] === '+' ? rest[0] : ''
  if (sign) rest = rest.slice(1).trimStart()
  const pre = LEADING_MARKER.exec(rest)
  if (pre) rest = rest.slice(pre[0].length).trimStart()
  if (rest[0] === '-' || rest[0] === '+') {
    if (sign) return null // `--5`
    sign = rest[0]
    rest = rest.slice(1).trimStart()
  }
  const post = TRAILING_MARKER.exec(rest)
  if (post) {
    if (pre) return null // `$5 USD`: one marker only
    rest = rest.slice(0, -post[0].length).trimEnd()
  }
  const magnitude = readNumber(rest)
  if (magnitude === null) return null
  const marker = pre?.[0] ?? post?.[0]
  let currency: string | null = null
  if (marker !== undefined) {
    if (/^[A-Za-z]{3}$/.test(marker)) {
      currency = marker.toUpperCase()
      if (currencyCode(currency) === null) return null // `5 abc` is not money
    } else {
      currency = SYMBOL_CODES[marker.toUpperCase()] ?? SYMBOL_CODES[marker] ?? null
    }
  }
  return finite(sign === '-' ? -magnitude : magnitude, currency)
}

function finite(amount: number, currency: string | null): Payout | null {
  if (!Number.isFinite(amount) || Math.abs(amount) > MAX_ABS_PAYOUT) return null
  return { amount: amount === 0 ? 0 : amount, currency } // no negative zero in the ledger
}

/** The unsigned magnitude of the number part, or null. */
function readNumber(num: string): number | null {
  if (/[eE]/.test(num)) return PLAIN_WITH_EXPONENT.test(num) ? Number(num) : null
  if (!NUMBER_CHARS.test(num)) return null
  const lastDot = num.lastIndexOf('.')
  const lastComma = num.lastIndexOf(',')
  let decimalAt = -1
  if (lastDot >= 0 && lastComma >= 0) {
    decimalAt = Math.max(lastDot, lastComma)
  } else if (lastDot >= 0) {
    if (num.indexOf('.') === lastDot) decimalAt = lastDot
  } else if (lastComma >= 0 && num.indexOf(',') === lastComma) {
    const after = num.length - lastComma - 1
    if (after === 3 && !/^0*$/.test(num.slice(0, lastComma))) return null // `1,234`: thousands or decimal?
    decimalAt = lastComma
  }
  const int = decimalAt < 0 ? num : num.slice(0, decimalAt)
  const frac = decimalAt < 0 ? '' : num.slice(decimalAt + 1)
  if (!DIGITS.test(frac)) return null
  if (int === '' && frac === '') return null
  let digits = int
  if (!DIGITS.test(int)) {
    const g = GROUPED.exec(int)
    // The group separator may not be the decimal one (`1,234,56` is not a number).
    if (!g || (decimalAt >= 0 && g[1] === num[decimalAt])) return null
    digits = int.replace(/\D/g, '')
  }
  return Number(`${digits || '0'}.${frac || '0'}`)
}
