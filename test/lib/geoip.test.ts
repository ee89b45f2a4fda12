// src/lib/geoip on the real generated tables (build/geoip/geoip.bin, from the pinned @ip-location-db
// packages), an operator's CSV directory, and a city database in mmdb format written here.
import { describe, expect, test, beforeAll, afterAll } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { GEOIP_PACKAGES, GeoIpError, loadGeoIp, versionDate, type GeoIp, type GeoResult } from '../../src/lib/geoip'
import { INVALID, IPV6, parseAddress, v6Words } from '../../src/lib/geoip/address'
import { writeMmdb } from '../helpers/mmdb'

const PKG = join(import.meta.dir, '../../node_modules/@ip-location-db')
const NOTHING: GeoResult = { country: null, asn: null, as_org: null, connection: 'unknown', region: null, city: null }

let geo: GeoIp
beforeAll(async () => {
  geo = await loadGeoIp()
})

describe('embedded tables', () => {
  test('known addresses', () => {
    expect(geo.lookup('8.8.8.8')).toEqual({ country: 'US', asn: 15169, as_org: 'Google LLC', connection: 'hosting', region: null, city: null })
    expect(geo.lookup('77.88.8.8')).toEqual({ country: 'RU', asn: 13238, as_org: 'YANDEX LLC', connection: 'hosting', region: null, city: null })
    expect(geo.lookup('1.1.1.1')).toMatchObject({ asn: 13335, as_org: 'Cloudflare, Inc.', connection: 'residential' })
    expect(geo.lookup('2001:4860:4860::8888')).toEqual({ country: 'US', asn: 15169, as_org: 'Google LLC', connection: 'hosting', region: null, city: null })
    expect(geo.lookup('5.9.1.1')).toMatchObject({ country: 'DE', asn: 24940, connection: 'hosting' }) // Hetzner
    expect(geo.lookup('81.2.69.142')).toMatchObject({ country: 'GB', connection: 'residential' })
  })

  test('an IPv4-mapped IPv6 address is its IPv4 address (the same shared result)', () => {
    const v4 = geo.lookup('8.8.8.8')
    expect(geo.lookup('::ffff:8.8.8.8')).toBe(v4!)
    expect(geo.lookup('::FFFF:808:808')).toBe(v4!)
    expect(geo.lookup('0:0:0:0:0:ffff:8.8.8.8')).toBe(v4!)
    expect(Object.isFrozen(v4)).toBe(true)
  })

  test('private and reserved addresses have no country or network', () => {
    // The sources place 192.168.0.0/16 and 172.16.0.0/12 in AU: the build punches out every range of lib/ip.ts NON_PUBLIC_RANGES.
    for (const ip of ['10.0.0.1', '127.0.0.1', '192.168.1.1', '172.16.0.1', '172.31.255.255', '100.64.0.1', '169.254.169.254', '0.0.0.0',
      '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', '2001:db8::1', '::ffff:192.168.1.1']) {
      expect([ip, geo.lookup(ip)]).toEqual([ip, NOTHING])
    }
  })

  test('malformed strings are null, never a throw', () => {
    for (const s of ['1.2.3', '256.1.1.1', '1.2.3.4.5', '::g', '', '01.2.3.4', ' 8.8.8.8', '8.8.8.8 ', '1..2.3', 'unknown',
      'fe80::1%eth0', '1::2::3', '1:2:3:4:5:6:7:8:9', '12345::', ':1::', '1:', '::ffff:1.2.3', '1:2:3:4:5:6:7:1.2.3.4', 'x'.repeat(100)]) {
      expect([s, geo.lookup(s)]).toEqual([s, null])
    }
  })

  test('range boundaries: the first and last address of a range, and the one after', () => {
    // Rows of the packages' own CSV files whose range no other row overlaps: the tables must give their
    // value from the first to the last address. The address after belongs to the next row or to none.
    const rows = (file: string) => readFileSync(join(PKG, file), 'utf8').trimEnd().split('\n').map((l) => l.split(','))
    const dotted = (n: number) => `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`
    const checks = [
      { file: 'geo-whois-asn-country/geo-whois-asn-country-ipv4-num.csv', field: 'country' as const, value: (r: string[]) => r[2] },
      { file: 'asn/asn-ipv4-num.csv', field: 'asn' as const, value: (r: string[]) => Number(r[2]) },
    ]
    let checked = 0
    for (const { file, field, value } of checks) {
      const all = rows(file)
      for (const at of [0, 1000, 77_777, 200_000, all.length - 2]) {
        const [prev, row, next] = [all[at - 1], all[at]!, all[at + 1]!]
        const [s, e] = [Number(row[0]), Number(row[1])]
        if ((prev && Number(prev[1]) >= s) || Number(next[0]) <= e) continue // nested or overlapping: see the refresh test
        expect([dotted(s), geo.lookup(dotted(s))![field]]).toEqual([dotted(s), value(row)])
        expect([dotted(e), geo.lookup(dotted(e))![field]]).toEqual([dotted(e), value(row)])
        const after = Number(next[0]) === e + 1 ? value(next) : null
        expect([dotted(e + 1), geo.lookup(dotted(e + 1))![field]]).toEqual([dotted(e + 1), after])
        checked++
      }
    }
    expect(checked).toBeGreaterThanOrEqual(8)
    // The same, pinned, in the 2026-06-17 data: 1.0.0.0–1.0.0.255 is AU / AS13335, 1.0.1.0 is CN without an ASN.
    expect(geo.lookup('0.255.255.255')).toEqual(NOTHING)
    expect(geo.lookup('1.0.0.0')).toMatchObject({ country: 'AU', asn: 13335 })
    expect(geo.lookup('1.0.0.255')).toMatchObject({ country: 'AU', asn: 13335 })
    expect(geo.lookup('1.0.1.0')).toMatchObject({ country: 'CN', asn: null, connection: 'unknown' })
  })

  test('IPv6 range boundaries (2026-06-17 data: AS2500 WIDE Project until 2001:200:1b9:ffff:…, then AS24047)', () => {
    expect(geo.lookup('2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff')).toEqual(NOTHING) // 2001::/23 is reserved
    expect(geo.lookup('2001:200::')).toMatchObject({ asn: 2500, as_org: 'WIDE Project' })
    expect(geo.lookup('2001:200:1b9:ffff:ffff:ffff:ffff:ffff')).toMatchObject({ asn: 2500 })
    expect(geo.lookup('2001:200:1ba::')).toMatchObject({ asn: 24047, as_org: 'Internet Systems Consortium, Inc.' })
    expect(geo.lookup('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff')).toEqual(NOTHING)
  })

  test('info names the packages and the data date', () => {
    expect(geo.info).toMatchObject({
      country: '@ip-location-db/geo-whois-asn-country 2.3.2026061719', asn: '@ip-location-db/asn 2.3.2026061719', date: '2026-06-17', city: null,
    })
    // `svc version` can name the date without loading the tables: from the pinned versions.
    const pkg = JSON.parse(readFileSync(join(import.meta.dir, '../../package.json'), 'utf8'))
    expect(GEOIP_PACKAGES.map((p) => versionDate(pkg.devDependencies[p]))).toEqual(['2026-06-17', '2026-06-17'])
  })
})

describe('parseAddress', () => {
  const words = () => Array.from(v6Words)
  test('IPv6 forms', () => {
    expect(parseAddress('::')).toBe(IPV6)
    expect(words()).toEqual([0, 0, 0, 0])
    expect(parseAddress('1::')).toBe(IPV6)
    expect(words()).toEqual([0x00010000, 0, 0, 0])
    expect(parseAddress('::1.2.3.4')).toBe(IPV6) // IPv4-compatible (deprecated), not mapped
    expect(words()).toEqual([0, 0, 0, 0x01020304])
    expect(parseAddress('ABCD:EF01:2345:6789:abcd:ef01:2345:6789')).toBe(IPV6)
    expect(words()).toEqual([0xabcdef01, 0x23456789, 0xabcdef01, 0x23456789])
    expect(parseAddress('2001:db8::8:800:200c:417a')).toBe(IPV6)
    expect(words()).toEqual([0x20010db8, 0, 0x00080800, 0x200c417a])
  })
  test('IPv4 and mapped', () => {
    expect(parseAddress('255.255.255.255')).toBe(0xffffffff)
    expect(parseAddress('::ffff:1.2.3.4')).toBe(0x01020304)
    expect(parseAddress('::ffff:102:304')).toBe(0x01020304)
    expect(parseAddress('1.2.3.04')).toBe(INVALID)
  })
})

describe('a directory of newer CSV files (SVC_GEOIP_DIR)', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-geoip-'))
    // A wider DE range with one BE address nested inside, as the real files have it.
    writeFileSync(join(dir, 'geo-whois-asn-country-ipv4.csv'), '11.0.0.0,11.0.0.255,DE\n11.0.0.7,11.0.0.7,BE\n11.0.0.8,11.0.0.255,DE\n')
    writeFileSync(join(dir, 'geo-whois-asn-country-ipv6.csv'), '2a0f::,2a0f:0:ffff:ffff:ffff:ffff:ffff:ffff,NL\n')
    // The -num spelling: 134744072 is 8.8.8.8, 184549376 is 11.0.0.0.
    writeFileSync(join(dir, 'asn-ipv4-num.csv'), '134744072,134744072,64500,"Example, Hosting ""Ltd"""\r\n184549376,184549631,64501,Home ISP\r\n')
    writeFileSync(join(dir, 'asn-ipv6.csv'), '2a0f::,2a0f::ffff,64502,Another Network\n')
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  test('its data replaces the embedded data', async () => {
    const g = await loadGeoIp({ dir })
    expect(g.lookup('8.8.8.8')).toEqual({ country: null, asn: 64500, as_org: 'Example, Hosting "Ltd"', connection: 'hosting', region: null, city: null })
    expect(g.lookup('8.8.4.4')).toEqual(NOTHING)
    expect(g.lookup('10.255.255.255')).toEqual(NOTHING)
    expect(g.lookup('11.0.0.0')).toEqual({ country: 'DE', asn: 64501, as_org: 'Home ISP', connection: 'residential', region: null, city: null })
    expect(g.lookup('11.0.0.6')).toMatchObject({ country: 'DE', asn: 64501 })
    expect(g.lookup('11.0.0.7')).toMatchObject({ country: 'BE', asn: 64501 })
    expect(g.lookup('11.0.0.8')).toMatchObject({ country: 'DE', asn: 64501 })
    expect(g.lookup('11.0.0.255')).toMatchObject({ country: 'DE', asn: 64501 })
    expect(g.lookup('11.0.1.0')).toEqual(NOTHING)
    expect(g.lookup('2a0e:ffff:ffff:ffff:ffff:ffff:ffff:ffff')).toEqual(NOTHING)
    expect(g.lookup('2a0f::')).toMatchObject({ country: 'NL', asn: 64502, as_org: 'Another Network' })
    expect(g.lookup('2a0f::ffff')).toMatchObject({ country: 'NL', asn: 64502 })
    expect(g.lookup('2a0f::1:0')).toMatchObject({ country: 'NL', asn: null, connection: 'unknown' })
    expect(g.lookup('2a0f:0:ffff:ffff:ffff:ffff:ffff:ffff')).toMatchObject({ country: 'NL' })
    expect(g.lookup('2a0f:1::')).toEqual(NOTHING)
    expect(g.info).toMatchObject({ country: `${join(dir, 'geo-whois-asn-country-ipv4.csv')} (+ IPv6)`, ranges4: 7, ranges6: 4, asns: 3 })
    expect(g.info.date).toMatch(/^\d{4}-\d{2}-\d{2}$/)
  })

  test('a missing file is an error naming the directory and the file', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'svc-geoip-empty-'))
    try {
      const err = await loadGeoIp({ dir: empty }).catch((e) => e)
      expect(err).toBeInstanceOf(GeoIpError)
      expect(err.message).toBe(`${empty}: has neither geo-whois-asn-country-ipv4.csv nor geo-whois-asn-country-ipv4-num.csv`)
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }
  })

  test('a malformed row is an error naming the file and the line', async () => {
    const bad = mkdtempSync(join(tmpdir(), 'svc-geoip-bad-'))
    try {
      for (const f of ['geo-whois-asn-country-ipv4.csv', 'geo-whois-asn-country-ipv6.csv', 'asn-ipv4.csv', 'asn-ipv6.csv']) writeFileSync(join(bad, f), '')
      writeFileSync(join(bad, 'geo-whois-asn-country-ipv6.csv'), '2001:db8::,2001:db8::ff,NL\n2001:db8::g,2001:db8::ffff,NL\n')
      const err = await loadGeoIp({ dir: bad }).catch((e) => e)
      expect(err).toBeInstanceOf(GeoIpError)
      expect(err.message).toBe(`${join(bad, 'geo-whois-asn-country-ipv6.csv')}: line 2: the range is not two IPv6 addresses, first ≤ last`)
      writeFileSync(join(bad, 'geo-whois-asn-country-ipv6.csv'), '')
      writeFileSync(join(bad, 'asn-ipv4.csv'), '1.0.0.0,1.0.0.255,AS13335,Cloudflare\n')
      const err2 = await loadGeoIp({ dir: bad }).catch((e) => e)
      expect(err2.message).toBe(`${join(bad, 'asn-ipv4.csv')}: line 1: the AS number is not a whole number`)
    } finally {
      rmSync(bad, { recursive: true, force: true })
    }
  })
})

describe('city database (mmdb)', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-geoip-city-'))
    writeFileSync(join(dir, 'city.mmdb'), writeMmdb([
      // The GeoIP2 layout (GeoLite2 City, DB-IP City Lite).
      { net: '8.8.8.0/24', record: { city: { names: { en: 'Mountain View', de: 'Mountain View' } }, subdivisions: [{ iso_code: 'CA', names: { en: 'California' } }] } },
      { net: '77.88.8.0/24', record: { city: { names: { en: 'Moscow' } }, subdivisions: [{ iso_code: 'MOW' }] } },
      // The flat layout of @ip-location-db/*-city-mmdb.
      { net: '2001:4860::/32', record: { city: 'Tokyo', state1: 'Tokyo' } },
    ]))
    writeFileSync(join(dir, 'broken.mmdb'), 'this is not a database, just text long enough to be read')
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  test('adds region and city, for IPv4, mapped and IPv6 addresses', async () => {
    const g = await loadGeoIp({ city: join(dir, 'city.mmdb') })
    expect(g.lookup('8.8.8.8')).toEqual({ country: 'US', asn: 15169, as_org: 'Google LLC', connection: 'hosting', region: 'California', city: 'Mountain View' })
    expect(g.lookup('::ffff:8.8.8.8')).toEqual(g.lookup('8.8.8.8')!)
    expect(g.lookup('77.88.8.8')).toMatchObject({ country: 'RU', region: 'MOW', city: 'Moscow' }) // no name: the ISO code
    expect(g.lookup('2001:4860:4860::8888')).toMatchObject({ country: 'US', asn: 15169, region: 'Tokyo', city: 'Tokyo' })
    // Not in the city file: the plain result.
    expect(g.lookup('5.9.1.1')).toEqual(geo.lookup('5.9.1.1')!)
    expect(g.lookup('10.0.0.1')).toEqual(NOTHING)
    expect(g.lookup('nope')).toBeNull()
    expect(g.info.city).toEqual([join(dir, 'city.mmdb')])
  })

  test('a missing or broken file is an error naming it', async () => {
    const missing = join(dir, 'missing.mmdb')
    const e1 = await loadGeoIp({ city: missing }).catch((e) => e)
    expect(e1).toBeInstanceOf(GeoIpError)
    expect(e1.message).toStartWith(`${missing}: cannot be read (`)
    const broken = join(dir, 'broken.mmdb')
    const e2 = await loadGeoIp({ city: broken }).catch((e) => e)
    expect(e2).toBeInstanceOf(GeoIpError)
    expect(e2.message).toStartWith(`${broken}: is not a valid mmdb database (`)
  })
})
