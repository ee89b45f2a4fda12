// JSON from senders whose ids are 64-bit integers (store platforms send order ids as bare numbers).
// JSON.parse rounds an integer past 2^53 to the nearest double: two orders could then share an id, and the
// second be taken for a redelivery of the first and never counted.

/** Only a run of 16 or more digits can be an unsafe integer; the reviver (a call per value) runs only then. */
const LONG_DIGITS = /\d{16}/
const INTEGER = /^-?\d+$/

/** What JSON.parse passes a reviver as its third argument (JSON.parse source text access). */
interface ReviverContext { source?: string }

function exactInteger(_key: string, value: unknown, context?: ReviverContext): unknown {
  if (typeof value === 'number' && !Number.isSafeInteger(value) && context?.source !== undefined && INTEGER.test(context.source)) {
    return context.source
  }
  return value
}

/** JSON.parse, except that an integer beyond Number.MAX_SAFE_INTEGER keeps its exact digits, as a string. Throws like JSON.parse. */
export function parseJsonExact(text: string): unknown {
  if (!LONG_DIGITS.test(text)) return JSON.parse(text)
  return JSON.parse(text, exactInteger as (key: string, value: unknown) => unknown)
}
