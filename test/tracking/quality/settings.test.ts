import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { trafficConfig } from '../../../src/tracking/quality/classify'
import { startServer, type TestServer } from '../../helpers/server'
import { SERVER_TIMEOUT_MS } from '../seed'

let s: TestServer
beforeAll(async () => {
  s = await startServer()
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

const KEYS = ['bot_ip_ranges', 'excluded_ips', 'bot_clicks_per_minute', 'bot_datacenter', 'unique_window_hours', 'raw_click_retention_days']
const pick = (body: Record<string, unknown>) => Object.fromEntries(KEYS.map((k) => [k, body[k]]))

describe('traffic quality settings', () => {
  test('read their defaults before anything is written', async () => {
    const res = await s.api('GET', '/admin/api/settings')
    expect(res.status).toBe(200)
    expect(pick(res.body)).toEqual({
      bot_ip_ranges: [], excluded_ips: [], bot_clicks_per_minute: 120, bot_datacenter: false, unique_window_hours: 24, raw_click_retention_days: 0,
    })
    expect(trafficConfig(s.ctx.settings)).toEqual({ botIpRanges: [], excludedIps: [], botClicksPerMinute: 120, botDatacenter: false })
  })

  test('reject bad values with 400 and a message naming the key, writing nothing', async () => {
    const before = (await s.api('GET', '/admin/api/settings')).body
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ bot_ip_ranges: '203.0.113.0/24' }, 'bot_ip_ranges: must be an array of IP addresses or CIDR ranges'],
      [{ bot_ip_ranges: ['203.0.113.0/24', '10.0.0.0/33'] }, 'bot_ip_ranges: entry 2 "10.0.0.0/33" has a bad prefix "/33": must be a whole number from 0 to 32 for an IPv4 address'],
      [{ bot_ip_ranges: ['bots.example'] }, 'bot_ip_ranges: entry 1 "bots.example" is not an IPv4 or IPv6 address'],
      [{ bot_ip_ranges: ['10.0.0.1/8'] }, 'bot_ip_ranges: entry 1 "10.0.0.1/8" has address bits set beyond the /8 prefix (did you mean 10.0.0.0/8?)'],
      [{ bot_ip_ranges: [42] }, 'bot_ip_ranges: entry 1 must be a string'],
      [{ bot_ip_ranges: Array.from({ length: 10001 }, () => '10.0.0.1') }, 'bot_ip_ranges: has more than 10000 entries'],
      [{ excluded_ips: ['2001:db8::/129'] }, 'excluded_ips: entry 1 "2001:db8::/129" has a bad prefix "/129": must be a whole number from 0 to 128 for an IPv6 address'],
      [{ excluded_ips: [''] }, 'excluded_ips: entry 1 "" is empty'],
      [{ excluded_ips: null }, 'excluded_ips: must be an array of IP addresses or CIDR ranges'],
      [{ bot_clicks_per_minute: -1 }, 'bot_clicks_per_minute: must be a whole number from 0 to 100000'],
      [{ bot_clicks_per_minute: 100001 }, 'bot_clicks_per_minute: must be a whole number from 0 to 100000'],
      [{ bot_clicks_per_minute: 1.5 }, 'bot_clicks_per_minute: must be a whole number from 0 to 100000'],
      [{ bot_clicks_per_minute: '120' }, 'bot_clicks_per_minute: must be a whole number from 0 to 100000'],
      [{ unique_window_hours: 0 }, 'unique_window_hours: must be a whole number from 1 to 8760'],
      [{ unique_window_hours: 8761 }, 'unique_window_hours: must be a whole number from 1 to 8760'],
      [{ raw_click_retention_days: -1 }, 'raw_click_retention_days: must be a whole number from 0 to 36500'],
      [{ raw_click_retention_days: 36501 }, 'raw_click_retention_days: must be a whole number from 0 to 36500'],
      // A valid key next to an invalid one: all or nothing.
      [{ unique_window_hours: 48, raw_click_retention_days: 'forever' }, 'raw_click_retention_days: must be a whole number from 0 to 36500'],
    ]
    for (const [body, error] of cases) {
      const res = await s.api('PUT', '/admin/api/settings', body)
      expect({ key: Object.keys(body).pop(), status: res.status, error: res.body?.error }).toEqual({ key: Object.keys(body).pop(), status: 400, error })
    }
    expect((await s.api('GET', '/admin/api/settings')).body).toEqual(before)
  })

  test('store valid values (entries trimmed) and the classifier config follows them', async () => {
    const res = await s.api('PUT', '/admin/api/settings', {
      bot_ip_ranges: [' 203.0.113.0/24', '2001:db8::/32', '198.51.100.7', '::ffff:192.0.2.0/120'],
      excluded_ips: ['192.0.2.44'],
      bot_clicks_per_minute: 0,
      bot_datacenter: true,
      unique_window_hours: 8760,
      raw_click_retention_days: 36500,
    })
    expect(res.status).toBe(200)
    expect(pick(res.body)).toEqual({
      bot_ip_ranges: ['203.0.113.0/24', '2001:db8::/32', '198.51.100.7', '::ffff:192.0.2.0/120'],
      excluded_ips: ['192.0.2.44'],
      bot_clicks_per_minute: 0,
      bot_datacenter: true,
      unique_window_hours: 8760,
      raw_click_retention_days: 36500,
    })
    expect(trafficConfig(s.ctx.settings)).toEqual({
      botIpRanges: ['203.0.113.0/24', '2001:db8::/32', '198.51.100.7', '::ffff:192.0.2.0/120'],
      excludedIps: ['192.0.2.44'],
      botClicksPerMinute: 0,
      botDatacenter: true,
    })
  })
})
