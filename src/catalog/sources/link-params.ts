// A source's link parameters (issue 29): the query string its tracking link carries, in the source's own macro
// syntax (`ext={clickid}&zone={zoneid}&cost={cost}`). /c stores each parameter with the click under its name
// (sub1…sub10 as subs), and a postback URL reads it back as {name}; so a name svc fills itself, or the click id
// parameter of /c, would never reach the forward and is refused.
import { invalid } from '../../lib/errors'
import { CONVERSION_MACROS } from './postback-macros'

export const MAX_LINK_PARAMS = 2048
const NAME = /^[A-Za-z0-9_.-]{1,64}$/
const RESERVED: ReadonlySet<string> = new Set(CONVERSION_MACROS)

/** `name=value` pairs in order; throws `invalid` naming the field and the pair. */
export function parseLinkParams(value: string, field: string): Array<[string, string]> {
  const s = value.trim().replace(/^[?&]+/, '')
  if (s.length > MAX_LINK_PARAMS) throw invalid(`${field}: must be at most ${MAX_LINK_PARAMS} characters`)
  if (/[\s#\0]/.test(s)) throw invalid(`${field}: must be a query string without spaces or "#" (name=value&name=value)`)
  const out: Array<[string, string]> = []
  const seen = new Set<string>()
  for (const pair of s.split('&')) {
    if (pair === '') continue
    const eq = pair.indexOf('=')
    const name = eq === -1 ? pair : pair.slice(0, eq)
    const val = eq === -1 ? '' : pair.slice(eq + 1)
    if (!NAME.test(name)) throw invalid(`${field}: "${name.slice(0, 80)}" is not a parameter name (1-64 letters, digits, "_", "-", ".")`)
    if (val === '') throw invalid(`${field}: ${name} needs a value (the source's macro, e.g. ${name}={${name}})`)
    if (RESERVED.has(name)) {
      throw invalid(`${field}: ${name} is a name svc fills itself ({${name}}); give the source's value another name, e.g. src_${name}`)
    }
    if (seen.has(name)) throw invalid(`${field}: ${name} is given twice`)
    seen.add(name)
    out.push([name, val])
  }
  if (out.length === 0) throw invalid(`${field}: must hold at least one name=value pair, or be null`)
  if (out.length > 50) throw invalid(`${field}: at most 50 parameters (the click keeps 50)`)
  return out
}

/** The checked query string (normalised: no leading ?/&, empty pairs dropped), or null for null/''. */
export function linkParams(value: string | null | undefined, field = 'link_params'): string | null {
  if (value === null || value === undefined || value.trim() === '') return null
  return parseLinkParams(value, field).map(([n, v]) => `${n}=${v}`).join('&')
}

/** The names of a query string's parameters (a postback URL may read each one back as {name}). */
export const linkParamNames = (value: string | null): string[] => (value ? parseLinkParams(value, 'link_params').map(([n]) => n) : [])
