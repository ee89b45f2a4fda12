// Pure parsing of postback values: alias resolution, click ids and free-format dates (payouts: payout.ts).
import { withoutNul } from '../lib/nul'
import { CANONICAL, type AliasMap, type Canonical } from './aliases'

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

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i
const EPOCH = /^\d+(?:\.\d+)?$/

/** Any moment: ISO 8601 (no zone = UTC) or epoch seconds (≤ 11 integer digits) / milliseconds (12–13). */
export function parseMoment(raw: string): number | null {
  let v = raw.trim()
  if (EPOCH.test(v)) {
    const digits = v.split('.')[0]!.length
    if (digits > 13) return null
    const n = Number(v)
    return Math.round(digits <= 11 ? n * 1000 : n)
  }
  // An unencoded "+" in a query string arrives as a space: "10:00:00 03:00" means "10:00:00+03:00".
  v = v.replace(/(\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?) (\d{2}(?::?\d{2})?)$/, '$1+$2')
  const m = ISO.exec(v)
  if (!m) return null
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m
  const ms = Number((frac + '000').slice(0, 3))
  const local = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms)
  const check = new Date(local)
  // Date.UTC rolls over (Feb 30 → Mar 2); a calendar-invalid date is not a date.
  if (
    check.getUTCFullYear() !== Number(y) || check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d) ||
    Number(h) > 23 || Number(mi) > 59 || Number(s) > 59
  ) return null
  let offsetMin = 0
  if (zone && zone.toUpperCase() !== 'Z') {
    const zm = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!
    const zh = Number(zm[2])
    const zmin = Number(zm[3] ?? '0')
    if (zh > 14 || zmin > 59) return null
    offsetMin = (zm[1] === '-' ? -1 : 1) * (zh * 60 + zmin)
  }
  return local - offsetMin * 60_000
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
