// Reads the CSV files of @ip-location-db/geo-whois-asn-country and @ip-location-db/asn (the build, and an
// operator's directory of newer copies) into a TableBuilder. Rows are `start,end,CC` and
// `start,end,asn,org` (org quoted when it holds a comma), without a header line; start and end are
// addresses in the *-ipv4.csv / *-ipv6.csv files and decimal numbers in the *-num.csv ones.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { parseIpv4 } from '../cidr'
import { IPV6, parseAddress, v6Words } from './address'
import { GeoIpError, TableBuilder, type GeoTables } from './tables'

/** The files a directory must hold, by source and family: either spelling of each. */
export const CSV_FILES = {
  country4: ['geo-whois-asn-country-ipv4.csv', 'geo-whois-asn-country-ipv4-num.csv'],
  country6: ['geo-whois-asn-country-ipv6.csv', 'geo-whois-asn-country-ipv6-num.csv'],
  asn4: ['asn-ipv4.csv', 'asn-ipv4-num.csv'],
  asn6: ['asn-ipv6.csv', 'asn-ipv6-num.csv'],
} as const

type Kind = keyof typeof CSV_FILES

/** The path of one of the kind's files in dir; GeoIpError naming the files when none is there. */
export function findCsv(dir: string, kind: Kind): string {
  for (const name of CSV_FILES[kind]) {
    const p = join(dir, name)
    if (existsSync(p)) return p
  }
  throw new GeoIpError(dir, `has neither ${CSV_FILES[kind].join(' nor ')}`)
}

const MAX_V4 = 0xffffffff

function decimal4(s: string, a: number, b: number): number {
  if (b - a < 1 || b - a > 10) return -1
  let v = 0
  for (let i = a; i < b; i++) {
    const c = s.charCodeAt(i) - 48
    if (c < 0 || c > 9) return -1
    v = v * 10 + c
  }
  return v > MAX_V4 ? -1 : v
}

function address4(s: string, a: number, b: number): number {
  return s.indexOf('.', a) !== -1 && s.indexOf('.', a) < b ? parseIpv4(s, a, b) : decimal4(s, a, b)
}

const MAX_V6 = (1n << 128n) - 1n

function address6(s: string, a: number, b: number): bigint | null {
  const f = s.slice(a, b)
  if (f.indexOf(':') === -1) {
    if (!/^\d{1,39}$/.test(f)) return null
    const v = BigInt(f)
    return v > MAX_V6 ? null : v
  }
  const r = parseAddress(f)
  if (r === IPV6) return (BigInt(v6Words[0]!) << 96n) | (BigInt(v6Words[1]!) << 64n) | (BigInt(v6Words[2]!) << 32n) | BigInt(v6Words[3]!)
  // An IPv4-mapped range in an IPv6 file: kept in IPv6 terms (lookups of those addresses use the IPv4 table).
  return r >= 0 ? (0xffffn << 32n) | BigInt(r) : null
}

/** Calls row(line, fieldEnds…) for each non-empty line; fields are split at the first three commas. */
function eachLine(text: string, file: string, row: (a: number, b: number, c: number, end: number, line: number) => void) {
  let pos = 0
  let line = 0
  const n = text.length
  if (text.charCodeAt(0) === 0xfeff) pos = 1
  while (pos < n) {
    let end = text.indexOf('\n', pos)
    if (end === -1) end = n
    line++
    let stop = end
    if (stop > pos && text.charCodeAt(stop - 1) === 13) stop--
    if (stop > pos) {
      const c1 = text.indexOf(',', pos)
      const c2 = c1 === -1 || c1 >= stop ? -1 : text.indexOf(',', c1 + 1)
      if (c2 === -1 || c2 >= stop) throw new GeoIpError(file, `line ${line}: expected start,end,value`)
      row(c1, c2, pos, stop, line)
    }
    pos = end + 1
  }
}

function unquote(s: string): string {
  if (s.length >= 2 && s.charCodeAt(0) === 34 && s.charCodeAt(s.length - 1) === 34) return s.slice(1, -1).replace(/""/g, '"')
  return s
}

function readCsv(file: string, family: 4 | 6, kind: 'country' | 'asn', b: TableBuilder, text: string): void {
  const bad = (line: number, what: string) => new GeoIpError(file, `line ${line}: ${what}`)
  eachLine(text, file, (c1, c2, start, stop, line) => {
    let value: number
    if (kind === 'country') {
      if (stop - c2 !== 3) throw bad(line, 'expected a two-letter country code')
      const code = text.slice(c2 + 1, stop).toUpperCase()
      if (!/^[A-Z]{2}$/.test(code)) throw bad(line, `"${code}" is not a two-letter country code`)
      value = b.country(code)
    } else {
      let c3 = text.indexOf(',', c2 + 1)
      if (c3 === -1 || c3 > stop) c3 = stop
      const asn = decimal4(text, c2 + 1, c3)
      if (asn < 0) throw bad(line, 'the AS number is not a whole number')
      // Each ASN has one name: read it only the first time (a third of the load time otherwise).
      value = b.knownAsn(asn) ?? b.asn(asn, c3 < stop ? unquote(text.slice(c3 + 1, stop)) : '')
    }
    if (family === 4) {
      const s = address4(text, start, c1)
      const e = address4(text, c1 + 1, c2)
      if (s < 0 || e < 0 || e < s) throw bad(line, 'the range is not two IPv4 addresses, first ≤ last')
      if (kind === 'country') b.addCountry4(s, e, value)
      else b.addAsn4(s, e, value)
    } else {
      const s = address6(text, start, c1)
      const e = address6(text, c1 + 1, c2)
      if (s === null || e === null || e < s) throw bad(line, 'the range is not two IPv6 addresses, first ≤ last')
      if (kind === 'country') b.addCountry6(s, e, value)
      else b.addAsn6(s, e, value)
    }
  })
}

async function readText(file: string): Promise<string> {
  try {
    return await Bun.file(file).text()
  } catch (err) {
    throw new GeoIpError(file, `cannot be read (${(err as Error).message})`)
  }
}

/**
 * Tables from the four CSV files of two directories (the same one for an operator's refresh); the
 * sources' descriptions go into the tables as given.
 */
export async function tablesFromCsv(countryDir: string, asnDir: string, sources: GeoTables['sources']): Promise<GeoTables> {
  const b = new TableBuilder()
  const files = {
    country4: findCsv(countryDir, 'country4'), country6: findCsv(countryDir, 'country6'),
    asn4: findCsv(asnDir, 'asn4'), asn6: findCsv(asnDir, 'asn6'),
  }
  readCsv(files.country4, 4, 'country', b, await readText(files.country4))
  readCsv(files.country6, 6, 'country', b, await readText(files.country6))
  readCsv(files.asn4, 4, 'asn', b, await readText(files.asn4))
  readCsv(files.asn6, 6, 'asn', b, await readText(files.asn6))
  return b.build(sources)
}
