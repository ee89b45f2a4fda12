import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { BOT_USER_AGENT, compileBotMatcher, isBotUserAgent } from '../../../src/tracking/quality/bots'
import { BOT_UAS, HUMAN_UAS } from './user-agents'

describe('shipped bot list', () => {
  for (const [category, uas] of Object.entries(BOT_UAS)) {
    test(`flags ${category}`, () => {
      for (const ua of uas) expect({ ua, bot: isBotUserAgent(ua) }).toEqual({ ua, bot: true })
    })
  }

  test('flags no ordinary browser or in-app browser UA (Cubot phones, a Redmi code-named "ruby", TVs included)', () => {
    const extra = [
      // Constructed: words that contain "bot" without being a bot token.
      'Mozilla/5.0 (Linux; Android 12; SM-G991B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36 BottleRocket/3.1',
      'Mozilla/5.0 (Linux; Android 12; BOTH-L29) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36',
      // Real: more Cubot models and Chinese phone browsers.
      'Mozilla/5.0 (Linux; Android 11; CUBOT_P50) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/118.0.0.0 Mobile Safari/537.36',
      'Mozilla/5.0 (Linux; U; Android 10; zh-cn; V2001A Build/QP1A.190711.020) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/87.0.4280.141 Mobile Safari/537.36 SogouMobileBrowser/5.37.5',
      'Mozilla/5.0 (Linux; Android 12; NOH-NX9 Build/HUAWEINOH-N29; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/114.0.5735.196 Mobile Safari/537.36 HuaweiBrowser/14.0.3.301',
      'Mozilla/5.0 (Linux; Android 13; 2201117TY) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/112.0.5615.136 Mobile Safari/537.36 XiaoMi/MiuiBrowser/14.7.10-gn',
    ]
    const human = [...HUMAN_UAS.map((c) => c[0]), ...extra]
    expect(human.length).toBeGreaterThanOrEqual(15)
    for (const ua of human) expect({ ua, bot: isBotUserAgent(ua) }).toEqual({ ua, bot: false })
  })

  test('is one case-insensitive RegExp built from bot-user-agents.txt', () => {
    expect(BOT_USER_AGENT.flags).toContain('i')
    expect(isBotUserAgent('MOZILLA/5.0 (COMPATIBLE; GOOGLEBOT/2.1)')).toBe(true)
    const text = readFileSync(join(import.meta.dir, '../../../src/tracking/quality/bot-user-agents.txt'), 'utf8')
    const patterns = text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))
    expect(patterns.length).toBeGreaterThan(100)
    expect(BOT_USER_AGENT.source).toBe(compileBotMatcher(text).source)
  })
})

describe('compileBotMatcher', () => {
  test('reads plain lines as literal substrings, /…/ lines as RegExp fragments, and skips comments and blanks', () => {
    const m = compileBotMatcher('# comment with crawler\n\n  a.b(c)  \n/^exact$/\n+http\n')
    expect(m.test('xx A.B(C) yy')).toBe(true)
    expect(m.test('axb(c)')).toBe(false)
    expect(m.test('EXACT')).toBe(true)
    expect(m.test('not exact')).toBe(false)
    expect(m.test('X/1.0 (+https://x.example)')).toBe(true)
    expect(m.test('comment with crawler')).toBe(false)
  })

  test('an empty list matches nothing', () => {
    const m = compileBotMatcher('# nothing here\n\n')
    for (const ua of ['', 'bot', 'curl/8']) expect(m.test(ua)).toBe(false)
  })
})
