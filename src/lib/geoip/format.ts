// The generated table file (build/geoip/geoip.bin, embedded in the binary): the typed arrays of GeoTables
// back to back, so loading is one read and a view per array, no parsing.
//
//   "SVCGEOIP" | u32 header length | header JSON | padding to 8 | sections, each aligned to 8
//
// The header names each section's offset, element type and length, the country codes and the sources.
// Little-endian, as every machine Bun runs on.
import { CONNECTIONS } from './hosting'
import { GeoIpError, type GeoTables } from './tables'

const MAGIC = 'SVCGEOIP'
/** Bump when the layout or the builder's output changes: scripts/build-geoip.ts rebuilds on a mismatch. */
export const FORMAT = 1

const SECTIONS = ['v4Start', 'v4Pair', 'v4Index', 'v6Start', 'v6Pair', 'v6Index', 'pairCountry', 'pairAsn', 'asns', 'asnConnection', 'asnOrg', 'orgOffsets', 'orgBytes'] as const
type Section = (typeof SECTIONS)[number]
const TYPES = { Uint8Array, Uint16Array, Uint32Array } as const
type TypeName = keyof typeof TYPES

export interface Header {
  format: number
  sources: GeoTables['sources']
  countries: string[]
  /** Anything the writer wants to keep with the data (scripts/build-geoip.ts: the inputs' fingerprint). */
  stamp?: string
  sections: Record<Section, { offset: number; type: TypeName; length: number }>
}

const align8 = (n: number) => (n + 7) & ~7

export function encodeTables(t: GeoTables, stamp?: string): Uint8Array {
  const sections = {} as Header['sections']
  let offset = 0
  for (const name of SECTIONS) {
    const a = t[name]
    sections[name] = { offset, type: a.constructor.name as TypeName, length: a.length }
    offset = align8(offset + a.byteLength)
  }
  const header: Header = { format: FORMAT, sources: t.sources, countries: t.countries, stamp, sections }
  const json = new TextEncoder().encode(JSON.stringify(header))
  const base = align8(MAGIC.length + 4 + json.length)
  const out = new Uint8Array(base + offset)
  out.set(new TextEncoder().encode(MAGIC), 0)
  new DataView(out.buffer).setUint32(MAGIC.length, json.length, true)
  out.set(json, MAGIC.length + 4)
  for (const name of SECTIONS) {
    const a = t[name]
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), base + sections[name].offset)
  }
  return out
}

/** The header alone (the build script's up-to-date check), or null when the bytes are not a table file. */
export function readHeader(buf: ArrayBuffer): { header: Header; base: number } | null {
  if (buf.byteLength < 12) return null
  const bytes = new Uint8Array(buf)
  if (new TextDecoder().decode(bytes.subarray(0, MAGIC.length)) !== MAGIC) return null
  const len = new DataView(buf).getUint32(MAGIC.length, true)
  if (MAGIC.length + 4 + len > buf.byteLength) return null
  try {
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(MAGIC.length + 4, MAGIC.length + 4 + len))) as Header
    return { header, base: align8(MAGIC.length + 4 + len) }
  } catch {
    return null
  }
}

/** Views over buf (no copy); GeoIpError naming file when it is not a table file of this FORMAT. */
export function decodeTables(buf: ArrayBuffer, file: string): GeoTables {
  const h = readHeader(buf)
  if (!h) throw new GeoIpError(file, 'is not an svc geoip table file')
  const { header, base } = h
  if (header.format !== FORMAT) throw new GeoIpError(file, `has table format ${header.format}, this svc reads ${FORMAT} (rebuild it: bun scripts/build-geoip.ts)`)
  const views = {} as Record<Section, Uint8Array | Uint16Array | Uint32Array>
  for (const name of SECTIONS) {
    const s = header.sections?.[name]
    const T = s && TYPES[s.type]
    if (!T || base + s.offset + s.length * T.BYTES_PER_ELEMENT > buf.byteLength) throw new GeoIpError(file, `is truncated or corrupt (section ${name})`)
    views[name] = new T(buf, base + s.offset, s.length)
  }
  const t = { ...views, countries: header.countries, sources: header.sources } as GeoTables
  const n4 = t.v4Start.length
  const n6 = t.v6Pair.length
  if (n4 === 0 || t.v4Pair.length !== n4 || t.v4Index.length !== 65537 || t.v6Index.length !== 65537 || t.v6Start.length !== 4 * n6 || n6 === 0 || t.pairAsn.length !== t.pairCountry.length ||
    t.asnOrg.length !== t.asns.length || t.asnConnection.length !== t.asns.length || t.orgOffsets[t.orgOffsets.length - 1] !== t.orgBytes.length) {
    throw new GeoIpError(file, 'is corrupt (section lengths disagree)')
  }
  return t
}

/**
 * Starts ascending from 0 and every index inside its target. The build checks what it writes (a pass
 * over 1M entries is 20–90 ms, too much for every start-up of a file the build already checked).
 */
export function wellFormed(t: GeoTables): boolean {
  const max = (a: Uint8Array | Uint16Array | Uint32Array) => { let m = 0; for (let i = 0; i < a.length; i++) if (a[i]! > m) m = a[i]!; return m }
  const s4 = t.v4Start
  const n4 = s4.length
  const n6 = t.v6Pair.length
  if (s4[0] !== 0) return false
  for (let k = 1; k < s4.length; k++) if (s4[k]! <= s4[k - 1]!) return false
  const s6 = t.v6Start
  if (s6[0] !== 0 || s6[1] !== 0 || s6[2] !== 0 || s6[3] !== 0) return false
  for (let o = 4; o < s6.length; o += 4) {
    let d = 0
    for (let w = 0; w < 4 && d === 0; w++) d = s6[o + w]! - s6[o - 4 + w]!
    if (d <= 0) return false
  }
  return max(t.v4Index) < n4 && max(t.v6Index) < n6 && max(t.v4Pair) < t.pairAsn.length && max(t.v6Pair) < t.pairAsn.length && max(t.pairCountry) < t.countries.length &&
    max(t.pairAsn) < t.asns.length && max(t.asnOrg) < t.orgOffsets.length - 1 && max(t.asnConnection) < CONNECTIONS.length
}
