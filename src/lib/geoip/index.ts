// IP → country, network (ASN and its name), connection type, and with a city database region and city.
// The data: @ip-location-db/geo-whois-asn-country and @ip-location-db/asn, built into range tables by
// scripts/build-geoip.ts and embedded in the binary; docs/geoip.md has the sources, licences, format
// and figures. An operator can load newer CSV files of the same packages from a directory instead, and
// add a city database in mmdb format.
import { readFileSync, statSync } from 'node:fs'
import { CityDb } from './city'
import { findCsv, tablesFromCsv } from './csv'
import { decodeTables } from './format'
import { GeoIp } from './lookup'
import { GeoIpError, type GeoTables } from './tables'

export { GeoIp, type GeoResult } from './lookup'
export { GeoIpError, type GeoTables } from './tables'
export { connectionOf, HOSTING_ASNS, type Connection } from './hosting'
export { parseAddress } from './address'
export { GEOIP_ATTRIBUTION, GEOIP_PACKAGES, versionDate } from './attribution'

export interface GeoIpOptions {
  /**
   * A directory with newer CSV files of both packages (geo-whois-asn-country-ipv4.csv, …-ipv6.csv,
   * asn-ipv4.csv, asn-ipv6.csv, or their -num.csv forms) to use instead of the embedded tables.
   */
  dir?: string
  /** City database file(s) in mmdb format (adds region and city). */
  city?: string | string[]
}

/**
 * The embedded tables, read once per process: they never change while it runs, and a process that composes
 * several servers (the test suite starts hundreds) would otherwise read and hold 16 MB for each. The views
 * are read-only to GeoIp, so every GeoIp shares them. A failed read is not kept.
 */
let embedded: Promise<GeoTables> | null = null
function embeddedTables(): Promise<GeoTables> {
  embedded ??= readEmbeddedTables().catch((err) => {
    embedded = null
    throw err
  })
  return embedded
}
/**
 * The lookup over the embedded tables alone, shared the same way: its per-pair and per-org caches (two
 * arrays of 128k and 81k slots, 5–30 ms to allocate on the 2-core machine) are the same for every server.
 */
let embeddedGeo: Promise<GeoIp> | null = null

/** The embedded tables (read from the executable), as built by scripts/build-geoip.ts. */
async function readEmbeddedTables(): Promise<GeoTables> {
  let path: string
  try {
    path = (await import('./embedded')).default
  } catch {
    throw new GeoIpError('build/geoip/geoip.bin', 'is missing: run `bun scripts/build-geoip.ts` (npm install runs it)')
  }
  let buf: ArrayBuffer
  try {
    // readFileSync: 100–120 ms against 180–200 ms for Bun.file().arrayBuffer() from inside the executable
    // (16 MB, 2-core machine under load). A file this size gets a Buffer of its own, offset 0.
    const b = readFileSync(path)
    buf = b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b.buffer as ArrayBuffer : new Uint8Array(b).buffer
  } catch (err) {
    throw new GeoIpError(path, `cannot be read (${(err as Error).message})`)
  }
  return decodeTables(buf, path)
}

/** The day the older of a directory's files was last changed: the data's date for `svc version`. */
function filesDate(files: string[]): string {
  const oldest = Math.min(...files.map((f) => statSync(f).mtimeMs))
  return new Date(oldest).toISOString().slice(0, 10)
}

async function dirTables(dir: string) {
  const c4 = findCsv(dir, 'country4')
  const a4 = findCsv(dir, 'asn4')
  const files = [c4, findCsv(dir, 'country6'), a4, findCsv(dir, 'asn6')]
  return tablesFromCsv(dir, dir, { country: `${c4} (+ IPv6)`, asn: `${a4} (+ IPv6)`, date: filesDate(files) })
}

/**
 * The lookup, from the embedded tables or from `dir`, with the city database when given. Throws
 * GeoIpError naming the file that is missing or unreadable; the caller decides whether that stops start-up.
 */
export async function loadGeoIp(opts: GeoIpOptions = {}): Promise<GeoIp> {
  const cityFiles = opts.city === undefined ? [] : Array.isArray(opts.city) ? opts.city : [opts.city]
  if (!opts.dir && cityFiles.length === 0) {
    embeddedGeo ??= embeddedTables().then((t) => new GeoIp(t), (err) => {
      embeddedGeo = null
      throw err
    })
    return embeddedGeo
  }
  const tables = opts.dir ? await dirTables(opts.dir) : await embeddedTables()
  const city = cityFiles.length > 0 ? await CityDb.open(cityFiles) : null
  return new GeoIp(tables, city)
}
