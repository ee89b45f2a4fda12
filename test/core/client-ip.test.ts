// clientIp: the trusted proxy's X-Forwarded-For entry, else the peer; the peer is asked for only when needed.
import { describe, expect, test } from 'bun:test'
import { clientIp } from '../../src/lib/ip'

const headers = (xff?: string) => new Headers(xff === undefined ? {} : { 'x-forwarded-for': xff })

describe('clientIp', () => {
  test('behind a trusted proxy the right-most X-Forwarded-For entry wins and the peer is never asked for', () => {
    let asked = 0
    const peer = () => (asked++, '10.0.0.1')
    expect(clientIp(headers('6.6.6.6, 203.0.113.7'), peer, true)).toBe('203.0.113.7')
    expect(asked).toBe(0)
  })

  test('the peer answers when the header is missing, unusable or not trusted', () => {
    let asked = 0
    const peer = () => (asked++, '::ffff:198.51.100.4')
    expect(clientIp(headers(), peer, true)).toBe('198.51.100.4')
    expect(clientIp(headers('not-an-ip'), peer, true)).toBe('198.51.100.4')
    expect(clientIp(headers('203.0.113.7'), peer, false)).toBe('198.51.100.4')
    expect(asked).toBe(3)
  })

  test('a plain address works as before; no address at all is "unknown"', () => {
    expect(clientIp(headers(), '192.0.2.1', false)).toBe('192.0.2.1')
    expect(clientIp(headers(), () => undefined, false)).toBe('unknown')
    expect(clientIp(headers(), null, true)).toBe('unknown')
  })
})
