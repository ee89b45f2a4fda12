// Redirect-target templates: validated and split into literal/macro parts once, when the routing cache
// is built, so a request only concatenates strings.
import { macroInSchemeOrHost } from '../lib/fields'
import { fillMacros, SUB_MACROS } from '../catalog'
import type { Click } from './store/click'

/** Macro names, in the order of the values vector a request passes to render(). */
export const MACROS = [
  'click_id', 'campaign_id', 'source_id', 'offer_id', 'landing_id', 'external_id',
  'sub1', 'sub2', 'sub3', 'sub4', 'sub5', 'sub6', 'sub7', 'sub8', 'sub9', 'sub10',
] as const

const MACRO_INDEX = new Map<string, number>(MACROS.map((m, i) => [m, i]))

/** Literal strings and macro indexes, alternating in any order. */
export type Template = ReadonlyArray<string | number>

/**
 * Percent-encodes what may not appear raw in a Location header (spaces, controls, non-ASCII), leaving
 * the operator's own %-escapes and URL syntax alone. Null when the text holds a lone surrogate.
 */
function headerSafe(s: string): string | null {
  let out = ''
  for (const ch of s) {
    const c = ch.codePointAt(0)!
    if (c > 0x20 && c < 0x7f) out += ch
    else if (c >= 0xd800 && c <= 0xdfff) return null
    else out += encodeURIComponent(ch)
  }
  return out
}

/**
 * Compiles an absolute http(s) URL template. Null means "unusable": not http(s), no host, a macro in
 * the scheme or host (an open redirect; refused on write, and rows written before that rule are caught
 * here), not parseable even with macros filled in. Such an offer or landing is left out of rotation, so a bad
 * URL typed in the admin can never turn into a 500 on the redirect path.
 */
export function compileUrlTemplate(url: string | null | undefined): Template | null {
  if (typeof url !== 'string') return null
  const trimmed = url.trim()
  if (!/^https?:\/\//i.test(trimmed) || trimmed.length > 8192 || macroInSchemeOrHost(trimmed)) return null
  const parts: Array<string | number> = []
  let sample = ''
  let last = 0
  for (const m of trimmed.matchAll(/\{([a-z0-9_]+)\}/g)) {
    const idx = MACRO_INDEX.get(m[1]!)
    if (idx === undefined) continue // unknown {name}: stays literal
    const lit = headerSafe(trimmed.slice(last, m.index))
    if (lit === null) return null
    if (lit) parts.push(lit)
    parts.push(idx)
    sample += lit + 'x'
    last = m.index! + m[0].length
  }
  const tail = headerSafe(trimmed.slice(last))
  if (tail === null) return null
  if (tail) parts.push(tail)
  sample += tail
  const parsed = URL.parse(sample)
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !parsed.hostname) return null
  return parts
}

/** URL-encodes one macro value; never throws (ill-formed UTF-16 is repaired first). */
export function encodeMacroValue(v: string | number | null | undefined): string {
  if (v === null || v === undefined || v === '') return ''
  if (typeof v === 'number') return String(v)
  try {
    return encodeURIComponent(v)
  } catch {
    return encodeURIComponent(v.toWellFormed())
  }
}

/** `values` are raw (un-encoded) macro values indexed like MACROS; missing ones render empty. */
export function render(t: Template, values: ReadonlyArray<string | number | null | undefined>): string {
  let out = ''
  for (let i = 0; i < t.length; i++) {
    const p = t[i]!
    out += typeof p === 'string' ? p : encodeMacroValue(values[p])
  }
  return out
}

/**
 * The extra query parameters a click stored at /c (its `params` column, a JSON object), or null when it has
 * none or they cannot be read. Values are the visitor's: callers use only the strings.
 */
export function clickParams(params: string | null | undefined): Record<string, unknown> | null {
  if (!params) return null
  try {
    const p = JSON.parse(params) as unknown
    return p && typeof p === 'object' && !Array.isArray(p) ? (p as Record<string, unknown>) : null
  } catch {
    return null
  }
}

/**
 * The click's side of a forward URL (postback/forward.ts fills the conversion's first): {sub1}…{sub10} (empty
 * when the tracking link did not carry it), then any other parameter stored with the click under the macro's
 * name (exact case). What neither knows stays as written. Also what the click timeline shows as a forward's URL.
 */
export function fillClickMacros(url: string, click: Pick<Click, 'params' | (typeof SUB_MACROS)[number]>): string {
  const params = clickParams(click.params)
  return fillMacros(url, (name) => {
    if ((SUB_MACROS as readonly string[]).includes(name)) return encodeMacroValue(click[name as (typeof SUB_MACROS)[number]])
    const p = params && Object.hasOwn(params, name) ? params[name] : undefined
    return typeof p === 'string' ? encodeMacroValue(p) : undefined
  })
}
