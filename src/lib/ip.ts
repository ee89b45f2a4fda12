import { isIP } from 'node:net'

/** Strips the IPv4-mapped IPv6 prefix Bun reports for IPv4 peers (::ffff:127.0.0.1). */
export function normalizeIp(ip: string): string {
  const s = ip.trim()
  return s.toLowerCase().startsWith('::ffff:') && isIP(s.slice(7)) === 4 ? s.slice(7) : s
}

/**
 * The client address. With trustProxy the right-most X-Forwarded-For entry wins: it is the one the
 * trusted reverse proxy appended, while entries to its left are whatever the client sent.
 */
export function clientIp(headers: Headers, socketIp: string | null | undefined, trustProxy: boolean): string {
  if (trustProxy) {
    const xff = headers.get('x-forwarded-for')
    if (xff) {
      const parts = xff.split(',').map((p) => p.trim()).filter(Boolean)
      const last = parts[parts.length - 1]
      if (last && isIP(normalizeIp(last))) return normalizeIp(last)
    }
  }
  return socketIp ? normalizeIp(socketIp) : 'unknown'
}

function ipv4ToInt(ip: string): number {
  return ip.split('.').reduce((acc, o) => (acc << 8) + Number(o), 0) >>> 0
}

const V4_BLOCKED: Array<[string, number]> = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
]

/** True for loopback, private, link-local (cloud metadata lives there), CGNAT, multicast and reserved addresses. */
export function isNonPublicAddress(ipRaw: string): boolean {
  const ip = normalizeIp(ipRaw)
  const v = isIP(ip)
  if (v === 4) {
    const n = ipv4ToInt(ip)
    return V4_BLOCKED.some(([base, bits]) => (n >>> (32 - bits)) === (ipv4ToInt(base) >>> (32 - bits)))
  }
  if (v === 6) {
    const s = ip.toLowerCase()
    if (s === '::' || s === '::1') return true
    if (s.startsWith('::ffff:')) return isNonPublicAddress(s.slice(7))
    const first = parseInt(s.split(':')[0] || '0', 16)
    if ((first & 0xfe00) === 0xfc00) return true // fc00::/7 unique local
    if ((first & 0xffc0) === 0xfe80) return true // fe80::/10 link-local
    if ((first & 0xff00) === 0xff00) return true // multicast
    return false
  }
  return true
}
