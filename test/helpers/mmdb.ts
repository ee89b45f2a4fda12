// A city database in mmdb format written by the tests themselves (test/lib/geoip.test.ts, the click path's
// SVC_GEOIP_CITY test): no such file is a dependency.
import { IPV6, parseAddress, v6Words } from '../../src/lib/geoip/address'

// A minimal MaxMind DB writer (format 2.0, https://maxmind.github.io/MaxMind-DB/): 24-bit records, an
// IPv6 tree with IPv4 at ::/96, maps, arrays, strings and small unsigned integers. mmdb-lib only reads.
function mmdbValue(v: unknown): Buffer {
  const ctrl = (type: number, size: number) => {
    if (size >= 29) throw new Error('test writer: keep values short')
    return type <= 7 ? Buffer.from([(type << 5) | size]) : Buffer.from([size, type - 7])
  }
  if (typeof v === 'string') { const b = Buffer.from(v); return Buffer.concat([ctrl(2, b.length), b]) }
  if (typeof v === 'number') { // uint32
    const b = Buffer.alloc(4); b.writeUInt32BE(v)
    const trimmed = b.subarray(b.findIndex((x) => x !== 0) === -1 ? 4 : b.findIndex((x) => x !== 0))
    return Buffer.concat([ctrl(6, trimmed.length), trimmed])
  }
  if (Array.isArray(v)) return Buffer.concat([ctrl(11, v.length), ...v.map(mmdbValue)])
  const entries = Object.entries(v as object)
  return Buffer.concat([ctrl(7, entries.length), ...entries.flatMap(([k, x]) => [mmdbValue(k), mmdbValue(x)])])
}

export function writeMmdb(networks: Array<{ net: string; record: object }>): Buffer {
  const bits = (net: string): number[] => {
    const [addr, len] = net.split('/') as [string, string]
    const r = parseAddress(addr)
    const w = r === IPV6 ? Array.from(v6Words) : [0, 0, 0, r] // IPv4 lives at ::a.b.c.d
    const all = w.flatMap((x) => Array.from({ length: 32 }, (_, i) => (x >>> (31 - i)) & 1))
    return all.slice(0, r === IPV6 ? Number(len) : 96 + Number(len))
  }
  const data: Buffer[] = []
  const offsets: number[] = []
  let size = 0
  for (const n of networks) { offsets.push(size); const b = mmdbValue(n.record); data.push(b); size += b.length }
  // Nodes hold child node numbers, or a data marker -1 - k for networks[k], or null for "no data".
  const nodes: Array<[number | null, number | null]> = [[null, null]]
  networks.forEach((n, k) => {
    const path = bits(n.net)
    let node = 0
    path.forEach((bit, depth) => {
      if (depth === path.length - 1) { nodes[node]![bit] = -1 - k; return }
      let child = nodes[node]![bit]
      if (child === null || child! < 0) { child = nodes.length; nodes.push([null, null]); nodes[node]![bit] = child }
      node = child!
    })
  })
  const count = nodes.length
  const tree = Buffer.alloc(count * 6)
  const record = (x: number | null) => (x === null ? count : x < 0 ? count + 16 + offsets[-1 - x]! : x)
  nodes.forEach(([l, r], i) => { tree.writeUIntBE(record(l), i * 6, 3); tree.writeUIntBE(record(r), i * 6 + 3, 3) })
  const meta = mmdbValue({
    node_count: count, record_size: 24, ip_version: 6, database_type: 'svc-test-City', languages: ['en'],
    binary_format_major_version: 2, binary_format_minor_version: 0, build_epoch: 1750000000, description: { en: 'test' },
  })
  return Buffer.concat([tree, Buffer.alloc(16), ...data, Buffer.from('abcdef4d61784d696e642e636f6d', 'hex'), meta])
}
