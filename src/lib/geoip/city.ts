// The optional city database: an mmdb file (DB-IP City Lite, MaxMind GeoLite2 City, or an
// @ip-location-db/*-city-mmdb file) read with mmdb-lib, which adds `region` and `city`. About 4 µs a
// lookup (../shared/TARGETING.md), so it is only asked when the operator configured one.
import { GeoIpError } from './tables'

export interface Place {
  region: string | null
  city: string | null
}

interface Names { names?: { en?: string } }
/** The GeoIP2 layout (GeoLite2, DB-IP) and the flat one of @ip-location-db (city, state1). */
interface CityRecord {
  city?: (Names & object) | string
  subdivisions?: Array<Names & { iso_code?: string }>
  state1?: string
}

interface Reader {
  metadata: { ipVersion: number; databaseType: string }
  get(ip: string): CityRecord | null
}

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null)

/**
 * The region is the subdivision's English name, else its ISO code: DB-IP City Lite has names only, so a
 * rule written with names works with either vendor's file.
 */
function placeOf(r: CityRecord): Place {
  const city = typeof r.city === 'string' ? text(r.city) : text(r.city?.names?.en)
  const sub = r.subdivisions?.[0]
  const region = sub ? text(sub.names?.en) ?? text(sub.iso_code) : text(r.state1)
  return { region, city }
}

export class CityDb {
  private constructor(private readonly readers: Reader[], readonly files: string[]) {}

  /** One or more files (an IPv4 and an IPv6 one, or one for both); GeoIpError naming a bad file. */
  static async open(files: string[]): Promise<CityDb> {
    const { Reader } = await import('mmdb-lib')
    const readers: Reader[] = []
    for (const file of files) {
      let bytes: Buffer
      try {
        bytes = Buffer.from(await Bun.file(file).arrayBuffer())
      } catch (err) {
        throw new GeoIpError(file, `cannot be read (${(err as Error).message})`)
      }
      try {
        readers.push(new Reader(bytes) as unknown as Reader)
      } catch (err) {
        throw new GeoIpError(file, `is not a valid mmdb database (${(err as Error).message})`)
      }
    }
    return new CityDb(readers, files)
  }

  /** The first file that knows the address; null when none does. ip is a valid address (checked by the caller). */
  lookup(ip: string, v6: boolean): Place | null {
    for (const r of this.readers) {
      if (v6 && r.metadata.ipVersion === 4) continue
      let rec: CityRecord | null
      try {
        rec = r.get(ip)
      } catch {
        continue
      }
      if (rec) return placeOf(rec)
    }
    return null
  }
}
