import { describe, expect, test } from 'bun:test'
import { TrafficClassifier, rateKey, type TrafficConfig, type TrafficRequest } from '../../../src/tracking/quality/classify'

const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36'
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0)

const config = (over: Partial<TrafficConfig> = {}): TrafficConfig => ({
  botIpRanges: ['203.0.113.0/24', '2001:db8:bad::/48'],
  excludedIps: ['198.51.100.7', '2001:db8:ace::/48'],
  botClicksPerMinute: 120,
  botDatacenter: false,
  ...over,
})

const req = (over: Partial<Omit<TrafficRequest, 'headers'>> & { headers?: Record<string, string> } = {}): TrafficRequest => ({
  method: 'GET',
  ip: '192.0.2.10',
  userAgent: BROWSER,
  connection: 'residential',
  now: T0,
  ...over,
  headers: new Headers(over.headers ?? {}),
})

describe('bot reasons, one step each', () => {
  test('an ordinary browser click is not a bot click and not excluded', () => {
    expect(new TrafficClassifier(config()).classify(req())).toEqual({ bot: null, excluded: false })
  })

  test('a HEAD request is a bot click with reason head', () => {
    expect(new TrafficClassifier(config()).classify(req({ method: 'HEAD' }))).toEqual({ bot: 'head', excluded: false })
  })

  test('a prefetch or preview request is a bot click with reason prefetch', () => {
    const c = new TrafficClassifier(config())
    const headers: Array<Record<string, string>> = [
      { purpose: 'prefetch' },
      { Purpose: 'Prefetch' },
      { 'sec-purpose': 'prefetch' },
      { 'sec-purpose': 'prefetch;prerender' },
      { 'sec-purpose': 'prefetch;anonymous-client-ip' },
      { 'x-moz': 'prefetch' },
      { 'x-purpose': 'preview' },
    ]
    for (const h of headers) expect({ h, v: c.classify(req({ headers: h })) }).toEqual({ h, v: { bot: 'prefetch', excluded: false } })
  })

  test('other Purpose values are not prefetches', () => {
    const c = new TrafficClassifier(config())
    const others: Array<Record<string, string>> = [{ purpose: 'navigate' }, { 'sec-purpose': 'something-else' }, { 'x-moz': '' }, { 'x-purpose': 'previewer' }]
    for (const h of others) {
      expect({ h, v: c.classify(req({ headers: h })) }).toEqual({ h, v: { bot: null, excluded: false } })
    }
  })

  test('a request without a User-Agent, or with only blanks, is a bot click with reason empty_user_agent', () => {
    const c = new TrafficClassifier(config())
    for (const userAgent of [null, '', '   ', '\t']) {
      expect({ userAgent, v: c.classify(req({ userAgent })) }).toEqual({ userAgent, v: { bot: 'empty_user_agent', excluded: false } })
    }
  })

  test('a User-Agent on the bot list is a bot click with reason bot_user_agent', () => {
    const c = new TrafficClassifier(config())
    for (const userAgent of ['curl/8.4.0', 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'facebookexternalhit/1.1']) {
      expect({ userAgent, v: c.classify(req({ userAgent })) }).toEqual({ userAgent, v: { bot: 'bot_user_agent', excluded: false } })
    }
  })

  test('a click from the operator\'s bot IP ranges is a bot click with reason blocked_ip', () => {
    const c = new TrafficClassifier(config())
    for (const ip of ['203.0.113.1', '::ffff:203.0.113.200', '2001:db8:bad:1::9']) {
      expect({ ip, v: c.classify(req({ ip })) }).toEqual({ ip, v: { bot: 'blocked_ip', excluded: false } })
    }
    expect(c.classify(req({ ip: '203.0.114.1' })).bot).toBeNull()
  })

  test('more than bot_clicks_per_minute clicks from one IP are bot clicks with reason ip_rate', () => {
    const c = new TrafficClassifier(config({ botClicksPerMinute: 3 }))
    const seen = [0, 1, 2, 3, 4].map((i) => c.classify(req({ now: T0 + i * 1000 })).bot)
    expect(seen).toEqual([null, null, null, 'ip_rate', 'ip_rate'])
    // Another address has its own allowance; two minutes later the first one is clean again.
    expect(c.classify(req({ ip: '192.0.2.11', now: T0 + 5000 })).bot).toBeNull()
    expect(c.classify(req({ now: T0 + 120_000 })).bot).toBeNull()
  })

  test('with bot_datacenter on, a click from a hosting network is a bot click with reason datacenter; off by default', () => {
    expect(new TrafficClassifier(config()).classify(req({ connection: 'hosting' }))).toEqual({ bot: null, excluded: false })
    const c = new TrafficClassifier(config({ botDatacenter: true }))
    expect(c.classify(req({ connection: 'hosting' }))).toEqual({ bot: 'datacenter', excluded: false })
    expect(c.classify(req({ connection: 'hosting', ip: '198.51.100.7' }))).toEqual({ bot: 'datacenter', excluded: true })
    for (const connection of ['residential', 'unknown']) expect(c.classify(req({ connection })).bot).toBeNull()
  })
})

describe('order and independence of the steps', () => {
  test('the first matching step decides: head, prefetch, empty UA, bot UA, blocked IP, datacenter, IP rate', () => {
    const c = new TrafficClassifier(config({ botClicksPerMinute: 1, botDatacenter: true }))
    const all = { method: 'HEAD', headers: { purpose: 'prefetch' }, userAgent: null as string | null, ip: '203.0.113.9', connection: 'hosting' }
    expect(c.classify(req(all)).bot).toBe('head')
    expect(c.classify(req({ ...all, method: 'GET' })).bot).toBe('prefetch')
    expect(c.classify(req({ ...all, method: 'GET', headers: {} })).bot).toBe('empty_user_agent')
    expect(c.classify(req({ ...all, method: 'GET', headers: {}, userAgent: 'curl/8' })).bot).toBe('bot_user_agent')
    expect(c.classify(req({ ...all, method: 'GET', headers: {}, userAgent: BROWSER })).bot).toBe('blocked_ip')
    expect(c.classify(req({ ...all, method: 'GET', headers: {}, userAgent: BROWSER, ip: '192.0.2.50' })).bot).toBe('datacenter')
    const rated = { ...all, method: 'GET', headers: {}, userAgent: BROWSER, ip: '192.0.2.50', connection: 'residential' }
    expect([c.classify(req(rated)).bot, c.classify(req(rated)).bot]).toEqual([null, 'ip_rate'])
  })

  test('clicks already flagged by an earlier step do not use up the IP\'s rate allowance', () => {
    const c = new TrafficClassifier(config({ botClicksPerMinute: 2 }))
    for (let i = 0; i < 10; i++) expect(c.classify(req({ userAgent: 'curl/8' })).bot).toBe('bot_user_agent')
    for (let i = 0; i < 10; i++) expect(c.classify(req({ method: 'HEAD' })).bot).toBe('head')
    c.reconfigure(config({ botClicksPerMinute: 2, botDatacenter: true }))
    for (let i = 0; i < 10; i++) expect(c.classify(req({ connection: 'hosting' })).bot).toBe('datacenter')
    expect([c.classify(req()).bot, c.classify(req()).bot, c.classify(req()).bot]).toEqual([null, null, 'ip_rate'])
  })

  test('IPv6 clients are rate-counted by their /64', () => {
    const c = new TrafficClassifier(config({ botClicksPerMinute: 2 }))
    const v = ['2001:db8:1:2::1', '2001:db8:1:2:ffff::9', '2001:db8:1:2::abcd', '2001:db8:1:3::1'].map((ip) => c.classify(req({ ip })).bot)
    expect(v).toEqual([null, null, 'ip_rate', null])
    expect(rateKey('2001:DB8:1:2::1')).toBe('2001:db8:1:2::/64')
    expect(rateKey('::ffff:192.0.2.1')).toBe('192.0.2.1')
  })

  test('bot_clicks_per_minute 0 turns the ip_rate step off', () => {
    const c = new TrafficClassifier(config({ botClicksPerMinute: 0 }))
    for (let i = 0; i < 500; i++) expect(c.classify(req()).bot).toBeNull()
  })

  test('clicks without a known IP are neither blocked nor rate-counted', () => {
    const c = new TrafficClassifier(config({ botIpRanges: ['0.0.0.0/0', '::/0'], botClicksPerMinute: 1 }))
    for (let i = 0; i < 5; i++) expect(c.classify(req({ ip: 'unknown' }))).toEqual({ bot: null, excluded: false })
  })

  test('an excluded IP is flagged excluded whatever the bot verdict', () => {
    const c = new TrafficClassifier(config())
    expect(c.classify(req({ ip: '198.51.100.7' }))).toEqual({ bot: null, excluded: true })
    expect(c.classify(req({ ip: '::ffff:198.51.100.7', method: 'HEAD' }))).toEqual({ bot: 'head', excluded: true })
    expect(c.classify(req({ ip: '2001:db8:ace:9::1', userAgent: 'curl/8' }))).toEqual({ bot: 'bot_user_agent', excluded: true })
    expect(c.classify(req({ ip: '198.51.100.8' }))).toEqual({ bot: null, excluded: false })
  })
})

describe('reconfigure', () => {
  test('swaps the IP lists at once', () => {
    const c = new TrafficClassifier(config())
    c.reconfigure(config({ botIpRanges: ['192.0.2.0/24'], excludedIps: [] }))
    expect(c.classify(req({ ip: '192.0.2.10' })).bot).toBe('blocked_ip')
    expect(c.classify(req({ ip: '203.0.113.1' })).bot).toBeNull()
    expect(c.classify(req({ ip: '198.51.100.7' })).excluded).toBe(false)
  })

  test('keeps the rate counters when the limit is unchanged and starts afresh when it changes', () => {
    const c = new TrafficClassifier(config({ botClicksPerMinute: 2 }))
    c.classify(req())
    c.classify(req())
    c.reconfigure(config({ botClicksPerMinute: 2, botIpRanges: [] }))
    expect(c.classify(req()).bot).toBe('ip_rate')
    c.reconfigure(config({ botClicksPerMinute: 3 }))
    expect([c.classify(req()).bot, c.classify(req()).bot, c.classify(req()).bot, c.classify(req()).bot]).toEqual([null, null, null, 'ip_rate'])
  })

  test('skips invalid stored entries instead of failing', () => {
    const c = new TrafficClassifier(config({ botIpRanges: ['not-an-ip', '192.0.2.0/24'] }))
    expect(c.classify(req()).bot).toBe('blocked_ip')
  })
})
