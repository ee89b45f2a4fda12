import { describe, expect, test } from 'bun:test'
import { CidrError, CidrSet, parseCidr } from '../../src/lib/cidr'

const set = (...entries: string[]) => new CidrSet(entries)
const problem = (text: string): string | null => {
  try {
    parseCidr(text)
    return null
  } catch (e) {
    expect(e).toBeInstanceOf(CidrError)
    return (e as Error).message
  }
}

describe('CidrSet with IPv4', () => {
  test('a /24 holds its first and last address and nothing either side', () => {
    const s = set('203.0.113.0/24')
    expect(['203.0.112.255', '203.0.113.0', '203.0.113.128', '203.0.113.255', '203.0.114.0'].map((ip) => s.has(ip)))
      .toEqual([false, true, true, true, false])
  })

  test('a /32 and a bare address hold exactly one address', () => {
    for (const s of [set('198.51.100.7/32'), set('198.51.100.7')]) {
      expect(['198.51.100.6', '198.51.100.7', '198.51.100.8'].map((ip) => s.has(ip))).toEqual([false, true, false])
    }
    const top = set('255.255.255.255')
    expect([top.has('255.255.255.255'), top.has('255.255.255.254')]).toEqual([true, false])
  })

  test('/0 holds every IPv4 address, mapped ones included, but no other IPv6 address', () => {
    const s = set('0.0.0.0/0')
    expect(['0.0.0.0', '8.8.8.8', '255.255.255.255', '::ffff:8.8.8.8'].every((ip) => s.has(ip))).toBe(true)
    expect(s.has('2001:db8::1')).toBe(false)
  })

  test('overlapping, adjacent and unsorted entries merge into the same set', () => {
    const s = set('10.0.2.0/24', '10.0.0.0/24', '10.0.1.0/24', '10.0.0.128/25', '10.0.0.5', '192.0.2.1')
    expect(s.size).toBe(2)
    expect(['10.0.0.0', '10.0.1.77', '10.0.2.255', '10.0.3.0', '192.0.2.1', '192.0.2.2'].map((ip) => s.has(ip)))
      .toEqual([true, true, true, false, true, false])
  })
})

describe('CidrSet with IPv6', () => {
  test('a /128 holds exactly one address, whatever its spelling', () => {
    const s = set('2001:db8::1/128')
    expect(['2001:db8::1', '2001:0DB8:0000:0000:0000:0000:0000:0001', '2001:db8:0:0::1', '2001:db8::2', '2001:db8::'].map((ip) => s.has(ip)))
      .toEqual([true, true, true, false, false])
  })

  test('a /32 holds its first and last address and nothing either side', () => {
    const s = set('2001:db8::/32')
    expect(['2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', '2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', '2001:db9::'].map((ip) => s.has(ip)))
      .toEqual([false, true, true, false])
  })

  test('::/0 holds every IPv6 address and, since mapped addresses are IPv4, every IPv4 address', () => {
    const s = set('::/0')
    expect(['::', '::1', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '2001:db8::1', '1.2.3.4'].every((ip) => s.has(ip))).toBe(true)
  })

  test('a zone suffix on a looked-up address is ignored', () => {
    expect(set('fe80::/10').has('fe80::1%eth0')).toBe(true)
  })
})

describe('IPv4-mapped IPv6 addresses', () => {
  test('an IPv4 entry holds the mapped form, in dotted or hex spelling and any case', () => {
    const s = set('192.0.2.0/24')
    expect(['::ffff:192.0.2.9', '::FFFF:192.0.2.9', '::ffff:c000:209', '0:0:0:0:0:ffff:192.0.2.9'].every((ip) => s.has(ip))).toBe(true)
    expect(s.has('::ffff:192.0.3.1')).toBe(false)
    // IPv4-compatible (::a.b.c.d, deprecated) is not the same address.
    expect(s.has('::192.0.2.9')).toBe(false)
  })

  test('a mapped entry holds the plain IPv4 addresses', () => {
    const s = set('::ffff:10.0.0.0/104')
    expect([s.has('10.255.0.1'), s.has('::ffff:10.1.2.3'), s.has('11.0.0.0')]).toEqual([true, true, false])
  })
})

describe('lookups never throw', () => {
  test('anything that is not an address is not in the set', () => {
    const s = set('0.0.0.0/0', '::/0')
    for (const ip of ['', 'unknown', '1.2.3', '1.2.3.4.5', '01.2.3.4', '256.1.1.1', '1.2.3.-4', ' 1.2.3.4', ':::', '1::2::3', '1:2:3:4:5:6:7:8:9', 'g::1', '::ffff:1.2.3', '12345::', '1.2.3.4::']) {
      expect({ ip, has: s.has(ip) }).toEqual({ ip, has: false })
    }
  })

  test('an empty set holds nothing', () => {
    const s = set()
    expect([s.size, s.has('1.2.3.4'), s.has('::1')]).toEqual([0, false, false])
  })

  test('invalid entries are skipped and listed, the valid ones still apply', () => {
    const s = set('10.0.0.0/8', 'nonsense', '10.0.0.1/8')
    expect(s.invalid).toEqual(['nonsense', '10.0.0.1/8'])
    expect(s.has('10.9.9.9')).toBe(true)
  })
})

describe('parseCidr', () => {
  test('accepts addresses and ranges, trimming blanks', () => {
    expect(parseCidr(' 10.0.0.0/8 ')).toEqual({ version: 4, first: 0x0a000000, last: 0x0affffff })
    expect(parseCidr('1.2.3.4')).toEqual({ version: 4, first: 0x01020304, last: 0x01020304 })
    expect(parseCidr('::/0')).toEqual({ version: 6, first: 0n, last: (1n << 128n) - 1n })
    expect(parseCidr('2001:db8::/32').first).toBe(0x20010db8n << 96n)
  })

  test('names a bad prefix', () => {
    expect(problem('10.0.0.0/33')).toBe('has a bad prefix "/33": must be a whole number from 0 to 32 for an IPv4 address')
    expect(problem('2001:db8::/129')).toBe('has a bad prefix "/129": must be a whole number from 0 to 128 for an IPv6 address')
    for (const bad of ['10.0.0.0/', '10.0.0.0/-1', '10.0.0.0/abc', '10.0.0.0/8/8', '10.0.0.0/ 8']) expect(problem(bad)).toStartWith('has a bad prefix')
  })

  test('names a bad address', () => {
    for (const bad of ['example.com', '10.0.0', '10.0.0.256', '010.0.0.1', '2001:db8:::1', 'fe80::1%eth0', '::ffff:1.2.3.4.5', 'g::/16']) {
      expect({ bad, problem: problem(bad) }).toEqual({ bad, problem: 'is not an IPv4 or IPv6 address' })
    }
    expect(problem('   ')).toBe('is empty')
  })

  test('rejects address bits beyond the prefix and suggests the range meant', () => {
    expect(problem('10.0.0.1/8')).toBe('has address bits set beyond the /8 prefix (did you mean 10.0.0.0/8?)')
    expect(problem('2001:db8::1/32')).toBe('has address bits set beyond the /32 prefix (did you mean 2001:db8::/32?)')
    expect(problem('2001:db8:0:1:0:0:0:1/64')).toBe('has address bits set beyond the /64 prefix (did you mean 2001:db8:0:1::/64?)')
  })
})
