// What a visitor's request tells us, parsed defensively: any query string, header or cookie a stranger
// can send must come out as bounded strings, never as an exception.
import { cookieValue } from '../lib/cookies'
import { withoutNul } from '../lib/nul'

export const CLICK_COOKIE = '_svc_click'
export const UA_MAX = 512
export const REFERRER_MAX = 1024
export const SUB_MAX = 256
export const PARAM_MAX = 256
export const PARAMS_MAX_KEYS = 50

export { normalizeClickId } from '../lib/click-id'

/** Crops to `max` UTF-16 units without leaving half a surrogate pair at the end. */
export function crop(s: string, max: number): string {
  if (s.length <= max) return s
  const c = s.charCodeAt(max - 1)
  return s.slice(0, c >= 0xd800 && c <= 0xdbff ? max - 1 : max)
}

/** Form-style decoding ('+' is a space). Malformed %-escapes are kept verbatim rather than rejected. */
function decode(s: string): string {
  if (s.indexOf('+') !== -1) s = s.replace(/\+/g, ' ')
  if (s.indexOf('%') === -1) return s
  try {
    return withoutNul(decodeURIComponent(s))
  } catch {
    return s
  }
}

export interface VisitQuery {
  /** sub1..sub10, cropped; null when absent. */
  subs: Array<string | null>
  /** Every other parameter (utm_* …): at most 50 keys, keys and values cropped to 256. */
  params: Record<string, string> | null
  /** The raw click_id parameter (validated by the caller). */
  clickId: string | null
}

const SUB_INDEX: Record<string, number> = {
  sub1: 0, sub2: 1, sub3: 2, sub4: 3, sub5: 4, sub6: 5, sub7: 6, sub8: 7, sub9: 8, sub10: 9,
}

/**
 * Parses the query of a request URL. For a repeated parameter the FIRST occurrence wins (a tracking
 * link's own parameters come first; whatever a later hop appends must not override them).
 */
export function parseVisitQuery(url: string): VisitQuery {
  const subs: Array<string | null> = [null, null, null, null, null, null, null, null, null, null]
  const out: VisitQuery = { subs, params: null, clickId: null }
  const q = url.indexOf('?')
  if (q === -1 || q === url.length - 1) return out
  let end = url.indexOf('#', q)
  if (end === -1) end = url.length
  let params: Record<string, string> | null = null
  let nParams = 0
  let i = q + 1
  while (i < end) {
    let amp = url.indexOf('&', i)
    if (amp === -1 || amp > end) amp = end
    if (amp > i) {
      const eq = url.indexOf('=', i)
      const hasEq = eq !== -1 && eq < amp
      const key = decode(url.slice(i, hasEq ? eq : amp))
      if (key !== '') {
        const sub = SUB_INDEX[key]
        if (sub !== undefined && Object.hasOwn(SUB_INDEX, key)) {
          if (subs[sub] === null) subs[sub] = crop(hasEq ? decode(url.slice(eq + 1, amp)) : '', SUB_MAX)
        } else if (key === 'click_id') {
          if (out.clickId === null) out.clickId = hasEq ? decode(url.slice(eq + 1, amp)) : ''
        } else if (nParams < PARAMS_MAX_KEYS) {
          const k = crop(key, PARAM_MAX)
          params ??= Object.create(null) as Record<string, string>
          if (!(k in params)) {
            params[k] = crop(hasEq ? decode(url.slice(eq + 1, amp)) : '', PARAM_MAX)
            nParams++
          }
        }
      }
    }
    i = amp + 1
  }
  out.params = params
  return out
}

/** The `_svc_click` value from a Cookie header, or null. */
export const clickCookie = (header: string | null): string | null => cookieValue(header, CLICK_COOKIE)
