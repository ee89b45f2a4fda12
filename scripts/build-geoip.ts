// build/geoip/geoip.bin: the IP range tables (country, ASN and network name) built from the CSV files of
// the pinned @ip-location-db packages, which src/lib/geoip embeds (docs/geoip.md). npm install runs this
// (postinstall) and so does npm run build (prebuild); it does nothing when the file is already built from
// the same package versions by the same code. `--force` rebuilds anyway.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { GEOIP_PACKAGES, versionDate } from '../src/lib/geoip/attribution'
import { tablesFromCsv } from '../src/lib/geoip/csv'
import { encodeTables, FORMAT, readHeader, wellFormed } from '../src/lib/geoip/format'

const root = join(import.meta.dir, '..')
export const OUT = join(root, 'build/geoip/geoip.bin')
const PACKAGES = { country: GEOIP_PACKAGES[0], asn: GEOIP_PACKAGES[1] } as const
/** The code whose output is in the file: a change to any of these rebuilds it. */
const CODE = ['src/lib/geoip/address.ts', 'src/lib/geoip/csv.ts', 'src/lib/geoip/format.ts', 'src/lib/geoip/tables.ts', 'src/lib/geoip/hosting.ts', 'src/lib/geoip/attribution.ts', 'src/lib/cidr.ts', 'src/lib/ip.ts', 'scripts/build-geoip.ts']

function packageDir(name: string): { dir: string; version: string } | null {
  const dir = join(root, 'node_modules', name)
  if (!existsSync(join(dir, 'package.json'))) return null
  return { dir, version: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version as string }
}

async function main() {
  const force = process.argv.includes('--force')
  const country = packageDir(PACKAGES.country)
  const asn = packageDir(PACKAGES.asn)
  if (!country || !asn) {
    const msg = `build-geoip: ${!country ? PACKAGES.country : PACKAGES.asn} is not installed (a devDependency: run npm install without --omit=dev)`
    // npm install --omit=dev must still succeed; loadGeoIp() then names the missing file.
    if (process.env.npm_lifecycle_event === 'postinstall') { console.warn(`${msg}; skipped`); return }
    console.error(msg)
    process.exit(1)
  }
  const hash = createHash('sha256')
  for (const f of CODE) hash.update(readFileSync(join(root, f)))
  const stamp = `format ${FORMAT}; ${PACKAGES.country} ${country.version}; ${PACKAGES.asn} ${asn.version}; code ${hash.digest('hex').slice(0, 16)}`
  if (!force && existsSync(OUT)) {
    const h = readHeader(new Uint8Array(readFileSync(OUT)).buffer)
    if (h?.header.stamp === stamp) { console.log(`build-geoip: ${OUT} is up to date`); return }
  }
  const t0 = performance.now()
  const tables = await tablesFromCsv(country.dir, asn.dir, {
    country: `${PACKAGES.country} ${country.version}`,
    asn: `${PACKAGES.asn} ${asn.version}`,
    date: [versionDate(country.version), versionDate(asn.version)].sort()[0]!,
  })
  if (!wellFormed(tables)) throw new Error('build-geoip: the built tables are not well formed (a bug in src/lib/geoip/tables.ts)')
  const bytes = encodeTables(tables, stamp)
  mkdirSync(dirname(OUT), { recursive: true })
  writeFileSync(`${OUT}.tmp`, bytes)
  renameSync(`${OUT}.tmp`, OUT)
  const ms = Math.round(performance.now() - t0)
  console.log(`build-geoip: ${OUT}: ${tables.v4Start.length} IPv4 and ${tables.v6Pair.length} IPv6 ranges, ` +
    `${tables.asns.length - 1} networks, ${(bytes.length / 1e6).toFixed(1)} MB, ${ms} ms`)
}

if (import.meta.main) await main()
