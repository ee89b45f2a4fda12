// Array parameters of the hot paths' set-based statements (`unnest($1::int8[], …)`), encoded by svc as ONE
// Postgres array literal each instead of being handed to the driver as JS arrays. Bun SQL's generic
// per-element encoder (arrayLiteral/quoteElement) was a quarter of svc's CPU in the click store bench and
// 5-7 % of it under /postback on Postgres (profiles: docs/performance.md, sessions 17 and 22); one pass per
// array here costs a fraction of that.
//
// Only for statements that cast every array parameter explicitly (`$n::type[]`): the literal goes as text
// and the cast parses it, so the element type comes from the SQL, not from the JS values.

/**
 * One element as the array literal's input syntax reads it: NULL, a number or bigint as JS prints it, a
 * boolean as 1/0 (which int and boolean elements both accept), any string double-quoted with `\` and `"`
 * escaped (so 'NULL' or '' stay strings). Undefined for a value the literal cannot carry (an object).
 */
function element(v: unknown): string | undefined {
  if (v === null || v === undefined) return 'NULL'
  switch (typeof v) {
    case 'string':
      return '"' + (ESCAPE.test(v) ? v.replace(ESCAPE_ALL, '\\$&') : v) + '"'
    case 'number':
    case 'bigint':
      return String(v)
    case 'boolean':
      return v ? '1' : '0'
    default:
      return undefined
  }
}
const ESCAPE = /["\\]/
const ESCAPE_ALL = /["\\]/g

/**
 * `items` (each through `pick`, when given) as one array literal; null when an element cannot be written
 * as one (the caller then leaves that array to the driver). (Visitor values arrive without NULs: lib/nul.ts.)
 */
export function arrayLiteral<T>(items: readonly T[], pick?: (item: T) => unknown): string | null {
  // Joined once rather than appended element by element: 25 % less CPU for a click batch's columns (scratch
  // loop, 64 clicks), as the driver then reads one flat string instead of a chain of pieces.
  const parts = new Array<string>(items.length)
  for (let i = 0; i < items.length; i++) {
    const e = element(pick ? pick(items[i]!) : items[i])
    if (e === undefined) return null
    parts[i] = e
  }
  return '{' + parts.join(',') + '}'
}

/** The parameters with each array as its literal (one it cannot encode stays an array, for the driver). */
export function withArrayLiterals(params: readonly unknown[]): unknown[] {
  return params.map((p) => (Array.isArray(p) ? arrayLiteral(p) ?? p : p))
}
