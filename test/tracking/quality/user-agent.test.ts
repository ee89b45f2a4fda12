import { describe, expect, test } from 'bun:test'
import { parseUserAgent, referrerDomain, userAgentMemoSize } from '../../../src/tracking/quality/user-agent'
import { BOT_UAS, HUMAN_UAS } from './user-agents'

describe('parseUserAgent', () => {
  test('reads device type, OS, browser and their major versions of real desktop, phone, tablet and in-app UAs', () => {
    expect(HUMAN_UAS.length).toBeGreaterThanOrEqual(50)
    for (const [ua, device_type, os, browser, os_version, browser_version] of HUMAN_UAS) {
      expect({ ua, ...parseUserAgent(ua) }).toEqual({ ua, device_type, os, os_version, browser, browser_version })
    }
  })

  test('a bot UA is device "bot" with os and browser null, even when it imitates a phone', () => {
    for (const ua of Object.values(BOT_UAS).flat()) {
      expect({ ua, ...parseUserAgent(ua) }).toEqual({ ua, device_type: 'bot', os: null, os_version: null, browser: null, browser_version: null })
    }
  })

  test('a missing, empty or meaningless UA is unknown', () => {
    for (const ua of [null, undefined, '', 'Mozilla/5.0', '-', '\u0000\uffff', 'x'.repeat(5000)]) {
      expect(parseUserAgent(ua)).toEqual({ device_type: 'unknown', os: null, os_version: null, browser: null, browser_version: null })
    }
  })

  test('a version the UA does not give is null, never a guess', () => {
    const ua = (s: string) => parseUserAgent(s)
    // No Version/ token (a WebKit view without Safari's own version), an OS without a version.
    expect(ua('Mozilla/5.0 (iPhone; CPU iPhone OS like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Safari/604.1'))
      .toEqual({ device_type: 'mobile', os: 'iOS', os_version: null, browser: 'Safari', browser_version: null })
    expect(ua('Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0'))
      .toEqual({ device_type: 'desktop', os: 'Linux', os_version: null, browser: 'Firefox', browser_version: '127' })
    // An NT version Windows never had.
    expect(ua('Mozilla/5.0 (Windows NT 7.5; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36'))
      .toEqual({ device_type: 'desktop', os: 'Windows', os_version: null, browser: 'Chrome', browser_version: '126' })
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
