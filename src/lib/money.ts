// Money an operator types (the admin API, a CSV upload): one plain decimal amount, read exactly to the cent as
// a whole number of cents, never through a float (`0.1 + 0.2`). Senders' formats (`12,50`, `$5`) are read by
// postback/payout.ts; an operator's own amounts are machine-written and must be unambiguous.
import { invalid } from './errors'

/** 10^12 in the currency: far above any spend, well inside exact integer cents (2^53). */
export const MAX_AMOUNT_CENTS = 100_000_000_000_000
const DECIMAL = /^(\d{1,15})(?:\.(\d{1,2}))?$/

/**
 * A non-negative amount with at most 2 decimals (a JSON number or a decimal string: `10`, `10.5`, `"1234.56"`)
 * → whole cents; anything else is a 400 naming `field`.
 */
export function parseCents(value: unknown, field: string): number {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : typeof value === 'string' ? value.trim() : null
  if (text === null) throw invalid(`${field}: must be a decimal amount such as 12.50`)
  if (/^-\d/.test(text) && text !== '-0') throw invalid(`${field}: must be 0 or more`)
  const m = DECIMAL.exec(text)
  if (!m) {
    if (/^\d+\.\d{3,}$/.test(text)) throw invalid(`${field}: at most 2 decimals (whole cents)`)
    throw invalid(`${field}: must be a decimal amount such as 12.50`)
  }
  const cents = Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'))
  if (cents > MAX_AMOUNT_CENTS) throw invalid(`${field}: at most ${MAX_AMOUNT_CENTS / 100}`)
  return cents
}

/** Whole cents → the amount (JSON number). */
export const fromCents = (cents: number): number => cents / 100
