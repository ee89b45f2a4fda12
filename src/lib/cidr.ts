// IP address sets from operator lists ("203.0.113.0/24", "2001:db8::/32", "198.51.100.7"): parsed once,
// merged into sorted ranges, looked up by binary search on every click.
//
// An IPv4 address and its IPv4-mapped IPv6 form (::ffff:1.2.3.4) are the same address, in entries and
// in lookups alike: an IPv6 entry that covers part of ::ffff:0:0/96 (e.g. ::/0) also covers those IPv4
// addresses.

export class CidrError extends Error {}

export interface CidrRange {
  version: 4 | 6
  /** First and last address of the range (IPv4 as numbers, IPv6 as 128-bit integers). */
  first: number | bigint
  last: number | bigint
}

const MAPPED_BASE = 0xffffn << 32n
const MAPPED_LAST = MAPPED_BASE | 0xffffffffn

/** The address as an unsigned 32-bit number, or -1 when it is not a strict dotted quad. */
export function parseIpv4(s: string, start = 0, end = s.length): number {
  let value = 0
  let octet = 0
  let digits = 0
  let dots = 0
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i)
    if (c >= 48 && c <= 57) {
      // "01" is rejected: some parsers read a leading zero as octal.
      if (digits === 1 && octet === 0) return -1
      octet = octet * 10 + (c - 48)
      if (++digits > 3 || octet > 255) return -1
    } else if (c === 46) {
      if (digits === 0 || ++dots > 3) return -1
      value = value * 256 + octet
      octet = 0
      digits = 0
    } else {
      return -1
    }
  }
  if (dots !== 3 || digits === 0) return -1
  return value * 256 + octet
}

function hexGroup(s: string, start: number, end: number): number {
  const len = end - start
  if (len < 1 || len > 4) return -1
  let v = 0
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i)
    let d: number
    if (c >= 48 && c <= 57) d = c - 48
    else if (c >= 97 && c <= 102) d = c - 87
    else if (c >= 65 && c <= 70) d = c - 55
    else return -1
    v = v * 16 + d
  }
  return v
}

/**
 * The address as eight 16-bit groups, or null. Accepts "::" compression and a dotted IPv4 tail
 * (::ffff:1.2.3.4); a zone ("%eth0") is not part of an address and is rejected.
 */
export function parseIpv6(s: string): number[] | null {
  const groups: number[] = []
  let gap = -1 // index in `groups` where "::" stands
  let i = 0
  const n = s.length
  if (n < 2) return null
  if (s.charCodeAt(0) === 58) {
    if (s.charCodeAt(1) !== 58) return null
    gap = 0
    i = 2
    if (i === n) return [0, 0, 0, 0, 0, 0, 0, 0]
  }
  while (i < n) {
    let j = i
    while (j < n && s.charCodeAt(j) !== 58) j++
    if (j === n && s.indexOf('.', i) !== -1) {
      const v4 = parseIpv4(s, i, n)
      if (v4 < 0) return null
      groups.push(Math.floor(v4 / 65536), v4 % 65536)
      break
    }
    const g = hexGroup(s, i, j)
    if (g < 0) return null
    groups.push(g)
    if (j === n) break
    // j is at ':'
    if (j + 1 === n) return null // trailing single ':'
    if (s.charCodeAt(j + 1) === 58) {
      if (gap !== -1) return null // a second "::"
      gap = groups.length
      i = j + 2
      if (i === n) break
    } else {
      i = j + 1
    }
  }
  if (gap === -1) return groups.length === 8 ? groups : null
  if (groups.length > 7) return null
  const out = groups.slice(0, gap)
  for (let k = groups.length; k < 8; k++) out.push(0)
  for (let k = gap; k < groups.length; k++) out.push(groups[k]!)
  return out
}

function groupsToBig(g: number[]): bigint {
  let v = 0n
  for (let k = 0; k < 8; k++) v = (v << 16n) | BigInt(g[k]!)
  return v
}

function formatIpv4(n: number): string {
  return `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`
}

/** RFC 5952 text: lower-case, longest run of zero groups (two or more) compressed. */
function formatIpv6(v: bigint): string {
  const g: number[] = []
  for (let k = 7; k >= 0; k--) g.push(Number((v >> BigInt(k * 16)) & 0xffffn))
  let bestAt = -1
  let bestLen = 1
  for (let k = 0; k < 8;) {
    if (g[k] !== 0) { k++; continue }
    let e = k
    while (e < 8 && g[e] === 0) e++
    if (e - k > bestLen) { bestAt = k; bestLen = e - k }
    k = e
  }
  const hex = (a: number[]) => a.map((x) => x.toString(16)).join(':')
  if (bestAt === -1) return hex(g)
  return `${hex(g.slice(0, bestAt))}::${hex(g.slice(bestAt + bestLen))}`
}

/**
 * One list entry: an address or a CIDR range. Throws CidrError with a message fit for an operator
 * (the settings validator prefixes the key and entry).
 */
export function parseCidr(text: string): CidrRange {
  const s = text.trim()
  if (s === '') throw new CidrError('is empty')
  const slash = s.indexOf('/')
  const addr = slash === -1 ? s : s.slice(0, slash)
  const isV6 = addr.indexOf(':') !== -1
  const max = isV6 ? 128 : 32
  let prefix = max
  if (slash !== -1) {
    const p = s.slice(slash + 1)
    if (!/^\d{1,3}$/.test(p) || Number(p) > max) {
      throw new CidrError(`has a bad prefix "/${p.slice(0, 20)}": must be a whole number from 0 to ${max} for an ${isV6 ? 'IPv6' : 'IPv4'} address`)
    }
    prefix = Number(p)
  }
  if (!isV6) {
    const v = parseIpv4(addr)
    if (v < 0) throw new CidrError('is not an IPv4 or IPv6 address')
    const size = 2 ** (32 - prefix)
    const first = v - (v % size)
    if (first !== v) throw new CidrError(`has address bits set beyond the /${prefix} prefix (did you mean ${formatIpv4(first)}/${prefix}?)`)
    return { version: 4, first, last: first + size - 1 }
  }
  const g = parseIpv6(addr)
  if (!g) throw new CidrError('is not an IPv4 or IPv6 address')
  const v = groupsToBig(g)
  const hostMask = (1n << BigInt(128 - prefix)) - 1n
  const first = v & ~hostMask
  if (first !== v) throw new CidrError(`has address bits set beyond the /${prefix} prefix (did you mean ${formatIpv6(first)}/${prefix}?)`)
  return { version: 6, first, last: first | hostMask }
}

/** Sorts and merges overlapping or adjacent ranges into parallel first/last arrays. */
function merge<T extends number | bigint>(ranges: Array<[T, T]>, next: (x: T) => T): { firsts: T[]; lasts: T[] } {
  ranges.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  const firsts: T[] = []
  const lasts: T[] = []
  for (const [f, l] of ranges) {
    const k = lasts.length - 1
    if (k >= 0 && f <= next(lasts[k]!)) {
      if (l > lasts[k]!) lasts[k] = l
    } else {
      firsts.push(f)
      lasts.push(l)
    }
  }
  return { firsts, lasts }
}

/** Index of the last range whose first address is <= x, or -1. */
function search<T extends number | bigint>(firsts: ArrayLike<T>, x: T): number {
  let lo = 0
  let hi = firsts.length - 1
  let found = -1
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    if (firsts[mid]! <= x) { found = mid; lo = mid + 1 } else hi = mid - 1
  }
  return found
}

export class CidrSet {
  private readonly v4First: Float64Array
  private readonly v4Last: Float64Array
  private readonly v6First: bigint[]
  private readonly v6Last: bigint[]
  /** Entries that did not parse (skipped; the settings validator keeps them out in the first place). */
  readonly invalid: string[] = []

  constructor(entries: Iterable<string>) {
    const v4: Array<[number, number]> = []
    const v6: Array<[bigint, bigint]> = []
    for (const e of entries) {
      let r: CidrRange
      try {
        r = parseCidr(e)
      } catch {
        this.invalid.push(e)
        continue
      }
      if (r.version === 4) {
        v4.push([r.first as number, r.last as number])
        continue
      }
      const f = r.first as bigint
      const l = r.last as bigint
      v6.push([f, l])
      // The part inside ::ffff:0:0/96 also covers the plain IPv4 addresses (lookups of mapped addresses go to v4).
      const mf = f > MAPPED_BASE ? f : MAPPED_BASE
      const ml = l < MAPPED_LAST ? l : MAPPED_LAST
      if (mf <= ml) v4.push([Number(mf - MAPPED_BASE), Number(ml - MAPPED_BASE)])
    }
    const m4 = merge(v4, (x) => x + 1)
    this.v4First = Float64Array.from(m4.firsts)
    this.v4Last = Float64Array.from(m4.lasts)
    const m6 = merge(v6, (x) => x + 1n)
    this.v6First = m6.firsts
    this.v6Last = m6.lasts
  }

  get size(): number {
    return this.v4First.length + this.v6First.length
  }

  /** False for anything that is not an address (including "unknown"); never throws. */
  has(ip: string): boolean {
    if (this.v4First.length === 0 && this.v6First.length === 0) return false
    if (ip.indexOf(':') === -1) return this.has4(parseIpv4(ip))
    const pct = ip.indexOf('%')
    const g = parseIpv6(pct === -1 ? ip : ip.slice(0, pct))
    if (!g) return false
    if (g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff) {
      return this.has4(g[6]! * 65536 + g[7]!)
    }
    if (this.v6First.length === 0) return false
    const v = groupsToBig(g)
    const k = search(this.v6First, v)
    return k !== -1 && v <= this.v6Last[k]!
  }

  private has4(n: number): boolean {
    if (n < 0) return false
    const k = search(this.v4First, n)
    return k !== -1 && n <= this.v4Last[k]!
  }
}
