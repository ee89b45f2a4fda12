import { describe, expect, test } from 'bun:test'
import { parseUserAgent, referrerDomain, userAgentMemoSize } from '../../../src/tracking/quality/user-agent'
import { BOT_UAS, HUMAN_UAS } from './user-agents'

describe('parseUserAgent', () => {
  test('reads device type, OS and browser of real desktop, phone, tablet and in-app UAs', () => {
    expect(HUMAN_UAS.length).toBeGreaterThanOrEqual(30)
    for (const [ua, device_type, os, browser] of HUMAN_UAS) {
      expect({ ua, ...parseUserAgent(ua) }).toEqual({ ua, device_type, os, browser })
    }
  })

  test('a bot UA is device "bot" with os and browser null, even when it imitates a phone', () => {
    for (const ua of Object.values(BOT_UAS).flat()) {
      expect({ ua, ...parseUserAgent(ua) }).toEqual({ ua, device_type: 'bot', os: null, browser: null })
    }
  })

  test('a missing, empty or meaningless UA is unknown', () => {
    for (const ua of [null, undefined, '', 'Mozilla/5.0', '-', '\u0000\uffff', 'x'.repeat(5000)]) {
      expect(parseUserAgent(ua)).toEqual({ device_type: 'unknown', os: null, browser: null })
    }
  })

  test('repeated UAs come from the memo (same frozen object), and the memo stays bounded', () => {
    const ua = HUMAN_UAS[0]![0]
    const a = parseUserAgent(ua)
    expect(parseUserAgent(ua)).toBe(a)
    expect(Object.isFrozen(a)).toBe(true)
    for (let i = 0; i < 6000; i++) parseUserAgent(`${ua} build/${i}`)
    expect(userAgentMemoSize()).toBe(5000)
    expect(parseUserAgent(ua)).toEqual(a)
  })
})

describe('referrerDomain', () => {
  test('is the lower-case host without www.', () => {
    const cases: Array<[string | null | undefined, string | null]> = [
      ['https://www.Example.COM/path?q=1#x', 'example.com'],
      ['http://news.example.co.uk:8080/', 'news.example.co.uk'],
      ['https://www2.example.com/', 'www2.example.com'],
      ['https://example.com./', 'example.com'],
      ['https://user:pw@www.example.org', 'example.org'],
      ['android-app://com.google.android.gm/', 'com.google.android.gm'],
      ['https://[2001:db8::1]/', '[2001:db8::1]'],
      ['https://xn--mnchen-3ya.de/', 'xn--mnchen-3ya.de'],
      ['https://münchen.de/', 'xn--mnchen-3ya.de'],
    ]
    for (const [ref, host] of cases) expect({ ref, host: referrerDomain(ref) }).toEqual({ ref, host })
  })

  test('is null for anything that is not a URL with a host', () => {
    for (const ref of [null, undefined, '', 'example.com', '/relative/path', 'javascript:alert(1)', 'file:///etc/passwd', 'about:blank', 'https://www./', 'http://', '%%%']) {
      expect({ ref, host: referrerDomain(ref) }).toEqual({ ref, host: null })
    }
  })
})
