// Pure parsing of postback values: alias resolution, click ids and free-format dates (payouts: payout.ts).
import { withoutNul } from '../lib/nul'
import { CANONICAL, type AliasMap, type Canonical } from './aliases'
import { parseMoment } from '../lib/time'

/** Raw received (URL-decoded) value of each parameter's winning alias; absent parameters are missing. */
export type PostbackParams = Partial<Record<Canonical, string>>

/**
 * The first alias in priority order present with a non-empty value wins. With a repeated name the first
 * occurrence counts (URLSearchParams.get), also when it is empty.
 */
export function pickParams(search: URLSearchParams, aliases: AliasMap): PostbackParams {
  const out: PostbackParams = {}
  for (const name of CANONICAL) {
    for (const alias of aliases[name]) {
      const v = search.get(alias)
      if (v !== null && v !== '') {
        out[name] = withoutNul(v)
        break
      }
    }
  }
  return out
}


/**
 * A click-id placeholder the advertiser forgot to substitute: {clickid}, {{x}}, [subid], %subid%, ${x},
 * #x#, <x>, $x$. None of these characters can occur in a UUID, so the check cannot hide a real click.
 */
const MACRO = [
  /\{\{?\s*[^{}\s]*\s*\}?\}/, // {x} {{x}} ${x}
  /\[\s*[^[\]\s]*\s*\]/, // [x]
  /%[A-Za-z_][\w.-]*%/, // %x%
  /#[A-Za-z_][\w.-]*#/, // #x#
  /<[^<>]*>/, // <x>
  /\$[A-Za-z_][\w.-]*\$/, // $x$
]

export function isUnreplacedMacro(value: string): boolean {
  return MACRO.some((re) => re.test(value))
}


const YEAR_2000 = Date.UTC(2000, 0, 1)
const FUTURE_SLACK_MS = 2 * 24 * 3600 * 1000

/**
 * The conversion time of a postback: its date when parseable and plausible (2000-01-01 … now + 2 days),
 * otherwise the received time. A bad date never costs the conversion: the date is metadata, money is not.
 */
export function conversionDate(raw: string | undefined, receivedAt: number): number {
  if (raw === undefined) return receivedAt
  const t = parseMoment(raw)
  if (t === null || t < YEAR_2000 || t > receivedAt + FUTURE_SLACK_MS) return receivedAt
  return t
}
