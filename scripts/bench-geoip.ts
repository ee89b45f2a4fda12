// npm run bench:geoip: the cost of src/lib/geoip's lookup per call against mmdb-lib on the same 1M random
// addresses in the same run, load times, memory, and the agreement of the two on country. The mmdb is
// the country package's own mmdb twin (@ip-location-db/geo-whois-asn-country-mmdb, same version),
// fetched with `npm pack` into .bench/ on first use: it is not a dependency.
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Reader } from 'mmdb-lib'
import { loadGeoIp } from '../src/lib/geoip'
import { isNonPublicAddress } from '../src/lib/ip'
import { tablesFromCsv } from '../src/lib/geoip/csv'
import { GeoIp } from '../src/lib/geoip/lookup'

const root = join(import.meta.dir, '..')
const N = Number(process.env.BENCH_GEOIP_N ?? 1_000_000)
const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`

function countryMmdb(): string {
  const name = '@ip-location-db/geo-whois-asn-country'
  const version = JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version
  const dir = join(root, '.bench', `geoip-mmdb-${version}`)
  const file = join(dir, 'package', 'geo-whois-asn-country.mmdb')
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true })
    const pack = Bun.spawnSync(['npm', 'pack', `${name}-mmdb@${version}`, '--silent'], { cwd: dir, stderr: 'inherit' })
    const tgz = pack.stdout.toString().trim().split('\n').pop()!
    if (pack.exitCode !== 0 || !tgz) throw new Error('npm pack of the mmdb package failed')
    Bun.spawnSync(['tar', 'xzf', tgz], { cwd: dir, stderr: 'inherit' })
  }
  return file
}

/** Deterministic addresses (xorshift32) so runs compare. */
function addresses(n: number, v6: boolean): string[] {
  let x = 2463534242
  const next = () => { x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0; return x }
  const out: string[] = new Array(n)
  for (let i = 0; i < n; i++) {
    if (!v6) { const a = next(); out[i] = `${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}`; continue }
    // Inside 2000::/4, where the allocations are; the low 64 bits random too.
    const g = [0x2000 | (next() & 0x0fff), next() & 0xffff, next() & 0xffff, next() & 0xffff, next() & 0xffff, next() & 0xffff, next() & 0xffff, next() & 0xffff]
    out[i] = g.map((h) => h.toString(16)).join(':')
  }
  return out
}

function time(label: string, ips: string[], f: (ip: string) => unknown): number {
  let best = Infinity
  let sink = 0
  for (let round = 0; round < 3; round++) {
    const t0 = performance.now()
    for (let i = 0; i < ips.length; i++) if (f(ips[i]!) !== null) sink++
    best = Math.min(best, performance.now() - t0)
  }
  const us = (best * 1000) / ips.length
  console.log(`  ${label.padEnd(28)} ${us.toFixed(3)} µs/lookup (best of 3, ${sink} non-null)`)
  return us
}

Bun.gc(true)
const before = process.memoryUsage()
let t0 = performance.now()
const geo = await loadGeoIp()
const loadMs = performance.now() - t0
Bun.gc(true)
const after = process.memoryUsage()
console.log(`embedded tables: load ${loadMs.toFixed(0)} ms, ${mb(geo.info.bytes)} of tables (${geo.info.ranges4} IPv4 + ${geo.info.ranges6} IPv6 ranges, ${geo.info.asns} networks)`)
console.log(`  memory: rss +${mb(after.rss - before.rss)}, JS heap +${mb(after.heapUsed - before.heapUsed)}, array buffers +${mb(after.arrayBuffers - before.arrayBuffers)}`)

t0 = performance.now()
const fromCsv = new GeoIp(await tablesFromCsv(join(root, 'node_modules/@ip-location-db/geo-whois-asn-country'), join(root, 'node_modules/@ip-location-db/asn'), { country: '', asn: '', date: '' }))
console.log(`from the packages' CSV files (the SVC_GEOIP_DIR path): load ${(performance.now() - t0).toFixed(0)} ms`)

const mmdbFile = countryMmdb()
t0 = performance.now()
const reader = new Reader<any>(readFileSync(mmdbFile))
console.log(`mmdb-lib ${mmdbFile.split('/').pop()}: load ${(performance.now() - t0).toFixed(0)} ms`)

for (const v6 of [false, true]) {
  const ips = addresses(N, v6)
  console.log(`${N} random ${v6 ? 'IPv6 (2000::/4)' : 'IPv4'} addresses:`)
  const ours = time('src/lib/geoip lookup()', ips, (ip) => geo.lookup(ip)!.country)
  const theirs = time('mmdb-lib Reader.get()', ips, (ip) => reader.get(ip)?.country_code ?? null)
  console.log(`  ratio mmdb-lib / ours: ${(theirs / ours).toFixed(1)}x`)
  // Private and reserved addresses are left out: the sources (and so the mmdb) put 192.168.0.0/16 and
  // 172.16.0.0/12 in AU, and the tables have no data there on purpose (src/lib/geoip/tables.ts punch()).
  let agree = 0
  let disagree = 0
  let reserved = 0
  const samples: string[] = []
  for (const ip of ips) {
    const a = geo.lookup(ip)!
    if (fromCsv.lookup(ip) !== null && fromCsv.lookup(ip)!.country !== a.country) throw new Error(`embedded and CSV-built tables differ at ${ip}`)
    if (isNonPublicAddress(ip)) { reserved++; continue }
    const b = reader.get(ip)?.country_code ?? null
    if (a.country === b) agree++
    else { disagree++; if (samples.length < 5) samples.push(`${ip}: ours ${a.country}, mmdb ${b}`) }
  }
  console.log(`  country agreement with the mmdb: ${agree}/${agree + disagree} (${((100 * agree) / (agree + disagree)).toFixed(3)}%), ${reserved} reserved addresses left out` +
    `${samples.length ? '; e.g. ' + samples.join('; ') : ''}`)
}
