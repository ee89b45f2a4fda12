// postback_ip_allowlist: the addresses an advertiser's server posts back from (as Voluum and RedTrack
// offer). Empty means any address. The set is rebuilt only when the setting changes: the settings cache
// hands out the same array until a write replaces it, so a postback costs one identity check and, with a
// list, one binary search.
import { CidrSet } from '../lib/cidr'
import type { SettingsStore } from '../context'

export class PostbackIpAllowlist {
  private source: readonly string[] | null = null
  private set: CidrSet | null = null

  constructor(private readonly settings: SettingsStore) {}

  /** True when the list is empty or holds `ip` (IPv4-mapped IPv6 counts as its IPv4 address). */
  allows(ip: string): boolean {
    const list = this.settings.get('postback_ip_allowlist')
    if (list.length === 0) return true
    if (list !== this.source) {
      this.set = new CidrSet(list)
      this.source = list
    }
    return this.set!.has(ip)
  }
}
