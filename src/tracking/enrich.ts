// What a click knows beyond what the visitor sent (issue 28): the country, network and connection of the
// visitor's IP (lib/geoip: a shared frozen result per network, nothing allocated per lookup), the language
// of Accept-Language (memoised per header value, like the User-Agent), and behind a trusted proxy the
// country Cloudflare already resolved. Decided once when the tracker is built, so the click path only reads.
import type { GeoIp, GeoResult } from '../lib/geoip'
import type { Visitor } from './track'

/** What the click path asks of the IP data (GeoIp). */
export type GeoLookup = Pick<GeoIp, 'lookup'>

/** An address without data, or no address at all ("unknown" when the request had none). */
export const NO_PLACE: GeoResult = Object.freeze({ country: null, asn: null, as_org: null, connection: 'unknown', region: null, city: null })

export class ClickEnricher {
  /**
   * The click's country: the IP data's, or with `trustProxy` a valid CF-IPCountry header's (Cloudflare
   * resolves the visitor's address itself, and only a proxy the operator trusts may say it).
   */
  readonly country: (v: Visitor, place: GeoResult) => string | null

  constructor(private readonly geo: GeoLookup | null, trustProxy: boolean) {
    this.country = trustProxy ? (v, place) => proxyCountry(v.headers.get('cf-ipcountry')) ?? place.country : (_v, place) => place.country
  }

  /** Country, network and connection of the visitor's address (shared and frozen; never null). */
  place(v: Visitor): GeoResult {
    return (this.geo && this.geo.lookup(v.ip)) || NO_PLACE
  }
}

/** A CF-IPCountry value that names a country: two letters, not XX (unknown); T1 (Tor) has a digit. */
export function proxyCountry(h: string | null): string | null {
  if (h === null || h.length !== 2) return null
  const a = h.charCodeAt(0) | 0x20
  const b = h.charCodeAt(1) | 0x20
  if (a < 97 || a > 122 || b < 97 || b > 122 || (a === 120 && b === 120)) return null
  return COUNTRY_CODES[(a - 97) * 26 + (b - 97)]!
}

/** The 676 two-letter codes, upper case, made once: a valid header costs no new string. */
const COUNTRY_CODES: readonly string[] = Array.from({ length: 676 }, (_, i) =>
  String.fromCharCode(65 + Math.floor(i / 26), 65 + (i % 26)))

/** Only this much of Accept-Language is read: a long header costs no more than a usual one. */
const LANGUAGE_SCAN = 200
/** Distinct headers remembered; the oldest is forgotten first. */
const LANGUAGE_MEMO_MAX = 2000
/** Longer headers are read (their first LANGUAGE_SCAN characters) but not remembered. */
const LANGUAGE_MEMO_VALUE_MAX = 256
const languageMemo = new Map<string, string | null>()

/**
 * The primary tag (lower case, 'de') of the Accept-Language entry with the highest q (the first of
 * equals); null when the header is absent or names no language (only '*', q=0, or garbage).
 */
export function languageOf(header: string | null): string | null {
  if (header === null || header === '') return null
  const hit = languageMemo.get(header)
  if (hit !== undefined) return hit
  const lang = parseAcceptLanguage(header)
  if (header.length <= LANGUAGE_MEMO_VALUE_MAX) {
    if (languageMemo.size >= LANGUAGE_MEMO_MAX) languageMemo.delete(languageMemo.keys().next().value!)
    languageMemo.set(header, lang)
  }
  return lang
}

/** Entries currently memoised (bounded by LANGUAGE_MEMO_MAX). */
export const languageMemoSize = (): number => languageMemo.size

const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
const isBlank = (c: number) => c === 32 || c === 9

function parseAcceptLanguage(h: string): string | null {
  const end = Math.min(h.length, LANGUAGE_SCAN)
  let best: string | null = null
  let bestQ = 0
  for (let i = 0; i < end;) {
    let comma = h.indexOf(',', i)
    if (comma === -1 || comma > end) {
      // The entry the cut runs through is not read: its tag or its q may be missing a part.
      if (end < h.length) break
      comma = end
    }
    let semi = h.indexOf(';', i)
    if (semi === -1 || semi > comma) semi = comma
    // The primary subtag: 2-3 letters, then the end of the tag or a subtag separator.
    let a = i
    while (a < semi && isBlank(h.charCodeAt(a))) a++
    let b = a
    while (b < semi && isLetter(h.charCodeAt(b))) b++
    const next = b < semi ? h.charCodeAt(b) : -1
    if (b - a >= 2 && b - a <= 3 && (next === -1 || next === 45 || next === 95 || isBlank(next))) {
      const q = semi < comma ? weight(h, semi + 1, comma) : 1
      if (q > bestQ) {
        best = h.slice(a, b).toLowerCase()
        bestQ = q
      }
    }
    i = comma + 1
  }
  return best
}

/** The q of an entry's parameters (`q=0.8`), 1 without one, 0 for a malformed one (the entry is skipped). */
function weight(h: string, from: number, to: number): number {
  const m = /(?:^|;)\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*(?:;|$)/i.exec(h.slice(from, to))
  if (m) {
    const q = Number(m[1])
    return q <= 1 ? q : 0
  }
  return /(?:^|;)\s*q\s*=/i.test(h.slice(from, to)) ? 0 : 1
}
