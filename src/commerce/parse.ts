// Reading what the senders send, once for all of them (senders/*.ts): their JSON bodies, text fields, decimal
// and minor-unit amounts, and currencies. Pure functions; nothing here throws on a malformed value, which
// reads as "no value" (null) or, for a decimal amount, 0.
import { currencyCode } from '../lib/currency'
import { parseJsonExact } from '../lib/json'
import { normalizeEmail } from '../lib/email-address'

export type Obj = Record<string, unknown>

/** A value when it is a JSON object (not an array), else null. */
export const obj = (v: unknown): Obj | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null)

/** The body as a JSON object (decoded leniently; 64-bit integer ids kept digit for digit: lib/json.ts), else null. */
export function jsonObject(body: Uint8Array): Obj | null {
  try {
    return obj(parseJsonExact(new TextDecoder('utf-8', { fatal: false }).decode(body)))
  } catch {
    return null
  }
}

/** The first non-empty value among header names (ours first, then the platform's own: either is accepted). */
export function header(h: Headers, names: readonly string[]): string | null {
  for (const n of names) {
    const v = h.get(n)
    if (v !== null && v !== '') return v
  }
  return null
}

/** A trimmed non-empty string, or a number's text (any number: an id); else null. */
export const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' ? String(v) : null)

/** text(), cut to `max` characters, and a number only when finite (processor B's reading: `1e999` is no value). */
export const shortText = (v: unknown, max = 200): string | null =>
  typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, max) : typeof v === 'number' && Number.isFinite(v) ? String(v) : null

export const crop = (s: string | null, n: number) => (s === null ? null : s.slice(0, n))

/** An address as svc stores them everywhere (lib/email-address.ts), so a customer's account finds its orders; else none. */
export const emailOf = (v: string | null | undefined): string | null => (v ? normalizeEmail(v) : null)

/** A positive safe integer, as a JSON number or digits; else null (ids, epoch seconds). */
export function positiveInt(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : NaN
  return Number.isSafeInteger(n) && n > 0 ? n : null
}

/** A string as sent (untrimmed, possibly empty) or a number's text; else null (where a click id may hide). */
export const asSent = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null)

/** The value of the first `{<nameKey>: name, <valueKey>: …}` entry named `name` in an array, as sent. */
export function entryValue(list: unknown, nameKey: string, valueKey: string, name: string): string | null {
  if (!Array.isArray(list)) return null
  for (const e of list) {
    if (e && typeof e === 'object' && (e as Obj)[nameKey] === name) return asSent((e as Obj)[valueKey])
  }
  return null
}

/** A UUID in any case, for finding click ids in free text (lib/click-id.ts then checks and lower-cases it). */
export const UUID_PATTERN = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}'

// ---------------------------------------------------------------------------------------------------------
// Money

/**
 * A decimal amount as a sender writes it (a decimal string or a JSON number): a finite number, else 0. Each
 * sender's form is part of its reading (senders/*.ts): how many integer digits, and whether `.5` is a number.
 */
export function decimalReader(intDigits: number, bareFraction: boolean): (v: unknown) => number {
  const digits = `\\d{1,${intDigits}}(\\.\\d{1,8})?`
  const form = new RegExp(bareFraction ? `^-?(${digits}|\\.\\d{1,8})$` : `^-?${digits}$`)
  return (v) => {
    const n = typeof v === 'number' ? v : typeof v === 'string' && form.test(v.trim()) ? Number(v.trim()) : NaN
    return Number.isFinite(n) ? n : 0
  }
}

/**
 * A sender's currency, upper-case: an ISO 4217 code (lib/currency.ts), or null when the value is not three
 * letters. Three letters that are not an ISO code (`XYZ`) are kept as sent, upper-cased, as they always were:
 * the order and its conversion stay in that currency (svc converts nothing, and reports never add it to
 * another). Read as null instead, the sale would count in the offer's currency (the same figure in another
 * unit); refused, the sale would not count at all. Either loses money that was paid.
 */
export function currencyOf(v: unknown): string | null {
  const c = text(v)
  if (c === null) return null
  return currencyCode(c) ?? (/^[A-Za-z]{3}$/.test(c) ? c.toUpperCase() : null)
}

// Amounts as the payment processors send them: integer minor units, whose exponent depends on the currency
// (2 for most; 0 for JPY, KRW…; 3 for BHD, KWD…). One table for reading (pay-a) and writing them (checkout).
const ZERO_DECIMAL = new Set(['BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF'])
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND'])

const exponentOf = (currency: string | null) => (currency && ZERO_DECIMAL.has(currency) ? 0 : currency && THREE_DECIMAL.has(currency) ? 3 : 2)

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
