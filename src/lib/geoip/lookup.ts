// The lookup: one binary search in a sorted typed array, narrowed first by the address's top 16 bits,
// then the entry's (country, network) pair. Each pair's result is built once and shared (frozen), so a
// lookup allocates nothing: at most one object per pair stays (128k pairs in the data, a few thousand
// in real traffic), never one per request.
import { INVALID, IPV6, parseAddress, v6Words } from './address'
import type { CityDb } from './city'
import { CONNECTIONS, type Connection } from './hosting'
import type { GeoTables } from './tables'

export interface GeoResult {
  /** ISO 3166-1 alpha-2, upper case. */
  readonly country: string | null
  readonly asn: number | null
  /** The network's name as the ASN data gives it. */
  readonly as_org: string | null
  readonly connection: Connection
  /** From the city database only (null without one). */
  readonly region: string | null
  readonly city: string | null
}

export class GeoIp {
  private readonly v4Start: Uint32Array
  private readonly v4Pair: Uint32Array
  private readonly v6Start: Uint32Array
  private readonly v6Pair: Uint32Array
  private readonly idx4: Uint32Array
  private readonly idx6: Uint32Array
  /** Per pair: its result, built on first use. */
  private readonly results: (GeoResult | undefined)[]
  /** Per org: its name, decoded on first use (most of the 80k are never asked for). */
  private readonly orgNames: (string | null | undefined)[]
  private readonly decoder = new TextDecoder()

  constructor(private readonly t: GeoTables, private readonly cityDb: CityDb | null = null) {
    this.v4Start = t.v4Start
    this.v4Pair = t.v4Pair
    this.v6Start = t.v6Start
    this.v6Pair = t.v6Pair
    this.results = new Array(t.pairAsn.length).fill(undefined)
    this.orgNames = new Array(t.orgOffsets.length - 1).fill(undefined)
    this.idx4 = t.v4Index
    this.idx6 = t.v6Index
  }

  /** Where the data came from and how big it is (for `svc version` and the logs). */
  get info() {
    const t = this.t
    const bytes = [t.v4Start, t.v4Pair, t.v4Index, t.v6Start, t.v6Pair, t.v6Index, t.pairCountry, t.pairAsn, t.asns, t.asnOrg, t.asnConnection, t.orgOffsets, t.orgBytes]
      .reduce((n, a) => n + a.byteLength, 0)
    return {
      ...t.sources,
      ranges4: t.v4Start.length, ranges6: t.v6Pair.length, asns: t.asns.length - 1, bytes,
      city: this.cityDb ? this.cityDb.files : null,
    }
  }

  /**
   * Country, network and connection of an address (IPv4, IPv6, IPv4-mapped IPv6). Null for anything
   * that is not an address (never throws); an address without data (private, reserved, unrouted) gets
   * all nulls and connection `unknown`. The result is shared and frozen.
   */
  lookup(ip: string): GeoResult | null {
    const x = parseAddress(ip)
    if (x === INVALID) return null
    const pair = x !== IPV6 ? this.v4Pair[this.find4(x)]! : this.v6Pair[this.find6(v6Words[0]!, v6Words[1]!, v6Words[2]!, v6Words[3]!)]!
    const r = this.results[pair] ?? this.result(pair)
    if (this.cityDb === null) return r
    const place = this.cityDb.lookup(x !== IPV6 && ip.indexOf(':') !== -1 ? dotted(x) : ip, x === IPV6)
    return place ? { ...r, region: place.region, city: place.city } : r
  }

  private result(pair: number): GeoResult {
    const c = this.t.pairCountry[pair]!
    const a = this.t.pairAsn[pair]!
    const r: GeoResult = Object.freeze({
      country: c === 0 ? null : this.t.countries[c]!,
      asn: a === 0 ? null : this.t.asns[a]!,
      as_org: a === 0 ? null : this.org(a),
      connection: CONNECTIONS[this.t.asnConnection[a]!]!,
      region: null,
      city: null,
    })
    this.results[pair] = r
    return r
  }

  /** The entry whose range holds x: the last start ≤ x. */
  private find4(x: number): number {
    const s = this.v4Start
    const p = x >>> 16
    let lo = this.idx4[p]!
    let hi = this.idx4[p + 1]!
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1
      if (s[mid]! <= x) lo = mid
      else hi = mid - 1
    }
    return lo
  }

  private find6(a: number, b: number, c: number, d: number): number {
    const s = this.v6Start
    const p = a >>> 16
    let lo = this.idx6[p]!
    let hi = this.idx6[p + 1]!
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1
      const o = 4 * mid
      // start[mid] ≤ (a, b, c, d), word by word
      const le = s[o] !== a ? s[o]! < a : s[o + 1] !== b ? s[o + 1]! < b : s[o + 2] !== c ? s[o + 2]! < c : s[o + 3]! <= d
      if (le) lo = mid
      else hi = mid - 1
    }
    return lo
  }

  private org(asn: number): string | null {
    const k = this.t.asnOrg[asn]!
    let name = this.orgNames[k]
    if (name === undefined) {
      const o = this.t.orgOffsets
      name = o[k + 1]! > o[k]! ? this.decoder.decode(this.t.orgBytes.subarray(o[k]!, o[k + 1]!)) : null
      this.orgNames[k] = name
    }
    return name
  }
}

function dotted(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`
}
