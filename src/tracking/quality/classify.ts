// Traffic quality of one click, as named steps in order: the first step that names a reason decides.
// Bot clicks still redirect; the reason is recorded so reports can leave them out.
//
//   excluded          operator's own IPs (setting excluded_ips): a flag of its own, checked for every click
//   head              HEAD request (link checkers, previews)
//   prefetch          browser prefetch / prerender / preview (Purpose, Sec-Purpose, X-Moz, X-Purpose headers)
//   empty_user_agent  no User-Agent, or only blanks
//   bot_user_agent    User-Agent on the shipped bot list (bot-user-agents.txt)
//   blocked_ip        IP in the operator's bot ranges (setting bot_ip_ranges)
//   datacenter        opt-in (setting bot_datacenter): the IP's network is a hosting/data-centre one
//                     (connection 'hosting', src/lib/geoip/hosting.ts)
//   ip_rate           more than bot_clicks_per_minute clicks from one IP in a sliding minute (0 disables)
//
// ip_rate runs last and counts only the clicks that no earlier step flagged: a crawler's own requests
// must not use up the allowance of the people behind the same address (offices, mobile carriers' NAT).
// Excluded IPs are still classified and counted (the two are independent).
import { RateLimiter } from '../../lib/rate-limit'
import type { SettingsStore } from '../../context'
import { CidrSet } from '../../lib/cidr'
import { clientKey } from '../../lib/ip'
import { parseUserAgent } from './user-agent'
import { log } from '../../lib/log'

export type BotReason = 'head' | 'prefetch' | 'empty_user_agent' | 'bot_user_agent' | 'blocked_ip' | 'datacenter' | 'ip_rate'

export const BOT_REASONS: readonly BotReason[] = ['head', 'prefetch', 'empty_user_agent', 'bot_user_agent', 'blocked_ip', 'datacenter', 'ip_rate']

export interface TrafficRequest {
  method: string
  headers: Headers
  /** The client address as clientIp() gives it ("unknown" when there is none). */
  ip: string
  userAgent: string | null
  /** The connection type of the IP's network: hosting | residential | unknown (src/lib/geoip). */
  connection: string
  /** Epoch ms. */
  now: number
}

export interface TrafficConfig {
  botIpRanges: readonly string[]
  excludedIps: readonly string[]
  /** 0 disables the ip_rate step. */
  botClicksPerMinute: number
  /** The datacenter step (setting bot_datacenter, off by default). */
  botDatacenter: boolean
}

export interface TrafficVerdict {
  readonly bot: BotReason | null
  readonly excluded: boolean
}

interface State {
  blocked: CidrSet
  excluded: CidrSet
  limiter: RateLimiter | null
  datacenter: boolean
}

type Step = (r: TrafficRequest, s: State) => BotReason | null

const PREFETCH_HEADERS = ['purpose', 'sec-purpose', 'x-purpose', 'x-moz'] as const
const PREFETCH_VALUES = new Set(['prefetch', 'prerender', 'preview'])

/** First token of a header value ("prefetch;prerender" → "prefetch"), lower-case. */
function firstToken(v: string): string {
  let end = v.length
  const semi = v.indexOf(';')
  if (semi !== -1) end = semi
  const comma = v.indexOf(',')
  if (comma !== -1 && comma < end) end = comma
  return v.slice(0, end).trim().toLowerCase()
}

const head: Step = (r) => (r.method === 'HEAD' ? 'head' : null)

const prefetch: Step = (r) => {
  for (const name of PREFETCH_HEADERS) {
    const v = r.headers.get(name)
    if (v !== null && PREFETCH_VALUES.has(firstToken(v))) return 'prefetch'
  }
  return null
}

const emptyUserAgent: Step = (r) => (r.userAgent === null || r.userAgent.trim() === '' ? 'empty_user_agent' : null)

// Shares parseUserAgent's memo, so the list is matched once per distinct UA, and the 'bot' device type
// and this reason always agree.
const botUserAgent: Step = (r) => (parseUserAgent(r.userAgent).device_type === 'bot' ? 'bot_user_agent' : null)

const blockedIp: Step = (r, s) => (s.blocked.has(r.ip) ? 'blocked_ip' : null)

// Data-centre networks carry crawlers, scrapers, proxies and VPNs, and rarely a person: what buyers filter
// first. Opt-in, because VPN users and some corporate proxies are people (docs/tracking.md).
const datacenter: Step = (r, s) => (s.datacenter && r.connection === 'hosting' ? 'datacenter' : null)

const ipRate: Step = (r, s) => {
  if (!s.limiter) return null
  const key = rateKey(r.ip)
  if (key === null) return null
  return s.limiter.hit(key, r.now).allowed ? null : 'ip_rate'
}

/** The policy, in order. */
export const PIPELINE: readonly Step[] = [head, prefetch, emptyUserAgent, botUserAgent, blockedIp, datacenter, ipRate]

/** Rate-limit key of an address (IPv6 by its /64); null for non-addresses, which are not counted. */
export const rateKey = clientKey

// Verdicts are shared frozen constants, indexed [excluded ? 1 : 0]: classify() allocates nothing.
const freeze = (bot: BotReason | null, excluded: boolean): TrafficVerdict => Object.freeze({ bot, excluded })
const CLEAN = [freeze(null, false), freeze(null, true)] as const
const FLAGGED = {} as Record<BotReason, readonly [TrafficVerdict, TrafficVerdict]>
for (const b of BOT_REASONS) FLAGGED[b] = [freeze(b, false), freeze(b, true)]

export class TrafficClassifier {
  private state!: State
  private perMinute = -1

  constructor(cfg: TrafficConfig) {
    this.reconfigure(cfg)
  }

  /**
   * Rebuilds the IP sets (call on the 'settings' signal). The rate counters survive unless the limit
   * itself changed.
   */
  reconfigure(cfg: TrafficConfig): void {
    const blocked = new CidrSet(cfg.botIpRanges)
    const excluded = new CidrSet(cfg.excludedIps)
    for (const bad of [...blocked.invalid, ...excluded.invalid]) {
      log.warn('quality: ignoring an invalid IP range', { range: String(bad).slice(0, 100) })
    }
    let limiter = this.state?.limiter ?? null
    if (cfg.botClicksPerMinute !== this.perMinute) {
      limiter = cfg.botClicksPerMinute > 0 ? new RateLimiter(cfg.botClicksPerMinute, 60_000) : null
      this.perMinute = cfg.botClicksPerMinute
    }
    this.state = { blocked, excluded, limiter, datacenter: cfg.botDatacenter }
  }

  /** `dryRun` (the simulator): the ip_rate step, which counts the visit, is left out. */
  classify(r: TrafficRequest, dryRun = false): TrafficVerdict {
    const s = this.state
    const excluded = s.excluded.has(r.ip)
    const steps = dryRun ? PIPELINE.length - 1 : PIPELINE.length
    for (let i = 0; i < steps; i++) {
      const reason = PIPELINE[i]!(r, s)
      if (reason !== null) return FLAGGED[reason][excluded ? 1 : 0]
    }
    return CLEAN[excluded ? 1 : 0]
  }
}

/** The classifier's config from the settings store. */
export function trafficConfig(settings: Pick<SettingsStore, 'get'>): TrafficConfig {
  return {
    botIpRanges: settings.get('bot_ip_ranges'),
    excludedIps: settings.get('excluded_ips'),
    botClicksPerMinute: settings.get('bot_clicks_per_minute'),
    botDatacenter: settings.get('bot_datacenter'),
  }
}
