// The range tables a lookup searches, and how they are built from the sources' ranges.
//
// One table per address family. The country ranges and the ASN ranges are laid over each other into
// one sorted list of starts that covers the whole address space (gaps are entries with no data), so a
// lookup is one binary search, and an entry's end is the next entry's start − 1. An entry's value is a
// pair index: the pair's country index into `countries` and ASN index into `asns` (0 = none in all
// three). 128k distinct pairs in the 2026-06-17 data, so the lookup can keep one result object per pair.

export interface GeoTables {
  /** IPv4: entry starts (ascending, the first is 0) and their pair index. */
  v4Start: Uint32Array
  v4Pair: Uint32Array
  /** IPv6: four words per entry (most significant first), ascending, the first is ::. */
  v6Start: Uint32Array
  v6Pair: Uint32Array
  /**
   * For each top-16-bit prefix p (0..65536), the entry holding the prefix's first address: a lookup
   * searches only between v4Index[p] and v4Index[p + 1]. Built with the tables (computing it at load
   * took 40–170 ms).
   */
  v4Index: Uint32Array
  v6Index: Uint32Array
  /** Pair index → country index and ASN index; pair 0 is (0, 0). */
  pairCountry: Uint8Array | Uint16Array
  pairAsn: Uint32Array
  /** Country index → ISO 3166-1 alpha-2 code; [0] is '' (none). */
  countries: string[]
  /** ASN index → AS number and org-name index; [0] is none. */
  asns: Uint32Array
  asnOrg: Uint32Array
  /** ASN index → index into CONNECTIONS (hosting.ts), decided when the tables are built. */
  asnConnection: Uint8Array
  /** Org names, deduplicated, UTF-8: name k is orgBytes[orgOffsets[k] .. orgOffsets[k + 1]); [0] is ''. */
  orgOffsets: Uint32Array
  orgBytes: Uint8Array
  /**
   * Where the data came from ("@ip-location-db/asn 2.3.2026061719", or the files of a directory) and its
   * date (YYYY-MM-DD: the packages' version, or the older file's modification day).
   */
  sources: { country: string; asn: string; date: string }
}

export class GeoIpError extends Error {
  /** The file the problem is in (or the directory that lacks it). */
  constructor(readonly file: string, message: string) {
    super(`${file}: ${message}`)
  }
}

import { parseCidr } from '../cidr'
import { NON_PUBLIC_RANGES } from '../ip'
import { CONNECTIONS, connectionOf } from './hosting'

type Num = number | bigint

/** Ranges of one source (country or ASN) for one family; later, more specific ranges win overlaps. */
class Layer<T extends Num> {
  private readonly rows: Array<{ s: T; e: T; v: number; n: number }> = []
  constructor(private readonly one: T) {}

  add(s: T, e: T, v: number): void {
    this.rows.push({ s, e, v, n: this.rows.length })
  }

  /**
   * Non-overlapping segments, ascending. The sources nest a more specific range inside a wider one
   * (568 times in the IPv4 country file of 2026-06-17, e.g. one BE address inside a DE /23): the inner
   * range wins for its span and the outer one goes on after it.
   */
  segments(): { s: T[]; e: T[]; v: number[] } {
    // The files come sorted; sorting 400k rows anyway cost seconds.
    let sorted = true
    for (let k = 1; k < this.rows.length && sorted; k++) sorted = this.rows[k - 1]!.s <= this.rows[k]!.s
    if (!sorted) this.rows.sort((a, b) => (a.s < b.s ? -1 : a.s > b.s ? 1 : a.n - b.n))
    const S: T[] = []
    const E: T[] = []
    const V: number[] = []
    const one = this.one as any
    for (const { s, e, v } of this.rows) {
      const tail: Array<[T, T, number]> = []
      while (S.length > 0 && E[E.length - 1]! >= s) {
        const ps = S.pop()!
        const pe = E.pop()!
        const pv = V.pop()!
        if (pe > e) tail.unshift([ps > e ? ps : ((e as any) + one), pe, pv])
        if (ps < s) {
          S.push(ps); E.push(((s as any) - one) as T); V.push(pv)
          break
        }
      }
      S.push(s); E.push(e); V.push(v)
      for (const [ts, te, tv] of tail) { S.push(ts); E.push(te); V.push(tv) }
    }
    return { s: S, e: E, v: V }
  }
}

/**
 * The segments less the holes (sorted, non-overlapping): the sources place 192.168.0.0/16 and
 * 172.16.0.0/12 in AU (2026-06-17), and no private or reserved address has a country or a network.
 */
function punch<T extends Num>(seg: { s: T[]; e: T[]; v: number[] }, holes: Array<[T, T]>, one: T) {
  const out = { s: [] as T[], e: [] as T[], v: [] as number[] }
  const plus = (x: T) => ((x as any) + (one as any)) as T
  const minus = (x: T) => ((x as any) - (one as any)) as T
  let h = 0
  for (let k = 0; k < seg.s.length; k++) {
    let s = seg.s[k]!
    const e = seg.e[k]!
    while (h < holes.length && holes[h]![1] < s) h++
    for (let j = h; j < holes.length && holes[j]![0] <= e && s <= e; j++) {
      const [hs, he] = holes[j]!
      if (hs > s) { out.s.push(s); out.e.push(minus(hs)); out.v.push(seg.v[k]!) }
      if (he >= e) { s = plus(e); break } // the rest is inside the hole (plus(e) > e ends the segment)
      s = he >= s ? plus(he) : s
    }
    if (s <= e) { out.s.push(s); out.e.push(e); out.v.push(seg.v[k]!) }
  }
  return out
}

function holes(): { v4: Array<[number, number]>; v6: Array<[bigint, bigint]> } {
  const v4: Array<[number, number]> = []
  const v6: Array<[bigint, bigint]> = []
  for (const cidr of NON_PUBLIC_RANGES) {
    const r = parseCidr(cidr)
    if (r.version === 4) v4.push([r.first as number, r.last as number])
    else v6.push([r.first as bigint, r.last as bigint])
  }
  // Sorted and merged, as punch() expects.
  const merge = <T extends Num>(list: Array<[T, T]>) => {
    list.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    const out: Array<[T, T]> = []
    for (const [f, l] of list) {
      const last = out[out.length - 1]
      if (last && f <= last[1]) { if (l > last[1]) last[1] = l } else out.push([f, l])
    }
    return out
  }
  return { v4: merge(v4), v6: merge(v6) }
}

/**
 * Lays the country and ASN segments over each other from address 0 to max: one entry wherever the
 * pair (country, asn) changes, gaps included.
 */
function overlay<T extends Num>(zero: T, one: T, max: T, c: { s: T[]; e: T[]; v: number[] }, a: { s: T[]; e: T[]; v: number[] }) {
  const starts: T[] = []
  const cs: number[] = []
  const as: number[] = []
  let ic = 0
  let ia = 0
  let pos = zero
  const add = (x: T, y: T) => ((x as any) + (y as any)) as T
  for (;;) {
    while (ic < c.s.length && c.e[ic]! < pos) ic++
    while (ia < a.s.length && a.e[ia]! < pos) ia++
    const inC = ic < c.s.length && c.s[ic]! <= pos
    const inA = ia < a.s.length && a.s[ia]! <= pos
    const cv = inC ? c.v[ic]! : 0
    const av = inA ? a.v[ia]! : 0
    const k = starts.length - 1
    if (k < 0 || cs[k] !== cv || as[k] !== av) { starts.push(pos); cs.push(cv); as.push(av) }
    // The next address where either value may change; past max means done.
    let nextEnd = max
    let more = false
    const consider = (x: T) => { if (!more || x < nextEnd) { nextEnd = x; more = true } }
    if (inC) { if (c.e[ic]! < max) consider(add(c.e[ic]!, one)) } else if (ic < c.s.length) consider(c.s[ic]!)
    if (inA) { if (a.e[ia]! < max) consider(add(a.e[ia]!, one)) } else if (ia < a.s.length) consider(a.s[ia]!)
    if (!more) break
    pos = nextEnd
  }
  return { starts, cs, as }
}

/** Collects the sources' rows and builds GeoTables. */
export class TableBuilder {
  private readonly c4 = new Layer<number>(1)
  private readonly a4 = new Layer<number>(1)
  private readonly c6 = new Layer<bigint>(1n)
  private readonly a6 = new Layer<bigint>(1n)
  private readonly countryIndex = new Map<string, number>()
  private readonly countries = ['']
  private readonly asnIndex = new Map<number, number>()
  private readonly asns = [0]
  private readonly asnOrg = [0]
  private readonly orgIndex = new Map<string, number>([['', 0]])
  private readonly orgs = ['']

  country(code: string): number {
    let k = this.countryIndex.get(code)
    if (k === undefined) {
      k = this.countries.length
      this.countries.push(code)
      this.countryIndex.set(code, k)
    }
    return k
  }

  knownAsn(asn: number): number | undefined {
    return this.asnIndex.get(asn)
  }

  /** The ASN's index; its org name is the first one seen (each ASN has one name in the sources). */
  asn(asn: number, org: string): number {
    let k = this.asnIndex.get(asn)
    if (k === undefined) {
      let o = this.orgIndex.get(org)
      if (o === undefined) {
        o = this.orgs.length
        this.orgs.push(org)
        this.orgIndex.set(org, o)
      }
      k = this.asns.length
      this.asns.push(asn)
      this.asnOrg.push(o)
      this.asnIndex.set(asn, k)
    }
    return k
  }

  addCountry4(s: number, e: number, country: number) { this.c4.add(s, e, country) }
  addAsn4(s: number, e: number, asn: number) { this.a4.add(s, e, asn) }
  addCountry6(s: bigint, e: bigint, country: number) { this.c6.add(s, e, country) }
  addAsn6(s: bigint, e: bigint, asn: number) { this.a6.add(s, e, asn) }

  build(sources: GeoTables['sources']): GeoTables {
    if (this.countries.length > 65535) throw new Error('more than 65535 country codes')
    const h = holes()
    const t4 = overlay(0, 1, 0xffffffff, punch(this.c4.segments(), h.v4, 1), punch(this.a4.segments(), h.v4, 1))
    const t6 = overlay(0n, 1n, (1n << 128n) - 1n, punch(this.c6.segments(), h.v6, 1n), punch(this.a6.segments(), h.v6, 1n))
    const v6Start = new Uint32Array(t6.starts.length * 4)
    t6.starts.forEach((b, k) => {
      v6Start[4 * k] = Number(b >> 96n)
      v6Start[4 * k + 1] = Number((b >> 64n) & 0xffffffffn)
      v6Start[4 * k + 2] = Number((b >> 32n) & 0xffffffffn)
      v6Start[4 * k + 3] = Number(b & 0xffffffffn)
    })
    // One byte per pair while there are at most 255 codes (252 in the 2026-06-17 data).
    const Country = this.countries.length <= 256 ? Uint8Array : Uint16Array
    const pairIndex = new Map<number, number>([[0, 0]])
    const pairC = [0]
    const pairA = [0]
    const pairsOf = (cs: number[], as: number[]) => cs.map((c, k) => {
      const key = c * 4294967296 + as[k]!
      let p = pairIndex.get(key)
      if (p === undefined) {
        p = pairC.length
        pairC.push(c)
        pairA.push(as[k]!)
        pairIndex.set(key, p)
      }
      return p
    })
    const v4Pair = Uint32Array.from(pairsOf(t4.cs, t4.as))
    const v6Pair = Uint32Array.from(pairsOf(t6.cs, t6.as))
    const enc = new TextEncoder()
    const encoded = this.orgs.map((o) => enc.encode(o))
    const orgOffsets = new Uint32Array(encoded.length + 1)
    for (let k = 0; k < encoded.length; k++) orgOffsets[k + 1] = orgOffsets[k]! + encoded[k]!.length
    const orgBytes = new Uint8Array(orgOffsets[encoded.length]!)
    encoded.forEach((b, k) => orgBytes.set(b, orgOffsets[k]!))
    return {
      v4Start: Uint32Array.from(t4.starts), v4Pair, v6Start, v6Pair,
      v4Index: prefixIndex(Uint32Array.from(t4.starts), 1), v6Index: prefixIndex(v6Start, 4),
      pairCountry: Country.from(pairC), pairAsn: Uint32Array.from(pairA),
      countries: this.countries.slice(),
      asns: Uint32Array.from(this.asns), asnOrg: Uint32Array.from(this.asnOrg),
      asnConnection: Uint8Array.from(this.asns, (asn, k) => CONNECTIONS.indexOf(connectionOf(asn, this.orgs[this.asnOrg[k]!]!))),
      orgOffsets, orgBytes, sources,
    }
  }
}

/** The last entry whose start ≤ p·2^16 (IPv4, words = 1) or p·2^112 (IPv6, words = 4), for each p. */
function prefixIndex(starts: Uint32Array, words: 1 | 4): Uint32Array {
  const idx = new Uint32Array(65537)
  const count = starts.length / words
  let k = 0
  for (let p = 0; p <= 65536; p++) {
    const key = p * 65536
    for (;;) {
      if (k + 1 >= count) break
      const o = (k + 1) * words
      const w = starts[o]!
      if (w < key || (w === key && (words === 1 || (starts[o + 1] === 0 && starts[o + 2] === 0 && starts[o + 3] === 0)))) k++
      else break
    }
    idx[p] = k
  }
  return idx
}
