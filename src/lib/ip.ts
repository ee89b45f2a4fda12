import { isIP } from 'node:net'
import { CidrSet, parseIpv4, parseIpv6 } from './cidr'

/** Strips the IPv4-mapped IPv6 prefix Bun reports for IPv4 peers (::ffff:127.0.0.1). */
export function normalizeIp(ip: string): string {
  const s = ip.trim()
  return s.toLowerCase().startsWith('::ffff:') && isIP(s.slice(7)) === 4 ? s.slice(7) : s
}

/**
 * The peer's address, or a function that asks for it: Bun's server.requestIP() costs a few µs (5 % of a
 * /postback's CPU in a profile), and behind a trusted proxy that names the client it is never needed.
 */
export type SocketIp = string | null | undefined | (() => string | null | undefined)

/**
 * The client address. With trustProxy the right-most X-Forwarded-For entry wins: it is the one the
 * trusted reverse proxy appended, while entries to its left are whatever the client sent.
 */
export function clientIp(headers: Headers, socketIp: SocketIp, trustProxy: boolean): string {
  if (trustProxy) {
    const xff = headers.get('x-forwarded-for')
    if (xff) {
      const parts = xff.split(',').map((p) => p.trim()).filter(Boolean)
      const last = parts[parts.length - 1]
      if (last && isIP(normalizeIp(last))) return normalizeIp(last)
    }
  }
  const peer = typeof socketIp === 'function' ? socketIp() : socketIp
  return peer ? normalizeIp(peer) : 'unknown'
}

/**
 * Where server-side requests must never go: every special-purpose range of the IANA registries that is
 * not globally reachable, plus the IPv6 forms that embed an IPv4 address (a public-looking IPv6 address
 * could otherwise reach 127.0.0.1 through a translator). IPv4-mapped addresses (::ffff:a.b.c.d, also in
 * hex form ::ffff:7f00:1) are judged by their IPv4 address.
 */
export const NON_PUBLIC_RANGES: readonly string[] = [
  // IPv4
  '0.0.0.0/8', // "this network"
  '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', // private
  '100.64.0.0/10', // carrier-grade NAT
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local (cloud metadata endpoints live here)
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24', // documentation
  '198.18.0.0/15', // benchmarking
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, and the broadcast address
  // IPv6
  '::/96', // unspecified, loopback and the deprecated IPv4-compatible form (::127.0.0.1)
  '::ffff:0:0:0/96', // IPv4-translated (SIIT)
  '64:ff9b::/96', '64:ff9b:1::/48', // NAT64
  '100::/64', // discard
  '2001::/23', // IETF protocol assignments, Teredo (embeds an IPv4 address) among them
  '2001:db8::/32', // documentation
  '2002::/16', // 6to4 (embeds an IPv4 address)
  'fc00::/7', // unique local
  'fe80::/10', // link-local
  'fec0::/10', // site-local (deprecated)
  'ff00::/8', // multicast
]

const NON_PUBLIC = new CidrSet(NON_PUBLIC_RANGES)

/** True for anything a server-side request must not reach (see NON_PUBLIC_RANGES), and for non-addresses. */
export function isNonPublicAddress(ipRaw: string): boolean {
  const ip = ipRaw.trim()
  if (!isIP(ip)) return true
  return NON_PUBLIC.has(ip)
}

/**
 * The key a per-client limit counts under: IPv4 as is, IPv6 by its /64 (one subscriber's network; a
 * client can pick any address inside it), IPv4-mapped IPv6 as its IPv4 address. Null for "unknown" and
 * other non-addresses.
 */
export function clientKey(ip: string): string | null {
  if (ip.indexOf(':') === -1) return parseIpv4(ip) < 0 ? null : ip
  const g = parseIpv6(ip)
  if (!g) return null
  if (g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff) {
    return `${g[6]! >>> 8}.${g[6]! & 255}.${g[7]! >>> 8}.${g[7]! & 255}`
  }
  return `${g[0]!.toString(16)}:${g[1]!.toString(16)}:${g[2]!.toString(16)}:${g[3]!.toString(16)}::/64`
}
