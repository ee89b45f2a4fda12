// What a User-Agent says about the visitor's device, OS and browser, read from ordered rule tables
// (first match wins), memoised because real traffic repeats a few thousand UAs over and over.
//
// Limits worth knowing: iPadOS 13+ Safari and Android Chrome's "desktop site" mode send desktop UAs, so
// they read as desktop macOS / Linux; TVs and consoles read as device "unknown". A bot's claims about
// itself are not reported: a bot UA yields device "bot" with os and browser null.
import { isBotUserAgent } from './bots'

export type DeviceType = 'desktop' | 'mobile' | 'tablet' | 'bot' | 'unknown'

export interface UserAgentInfo {
  readonly device_type: DeviceType
  readonly os: string | null
  readonly browser: string | null
}

type Rule<T> = readonly [pattern: RegExp, value: T]

// Order matters: iPads and iPhones say "like Mac OS X", Windows Phone says "Android", Android says "Linux".
const OS_RULES: ReadonlyArray<Rule<string>> = [
  [/windows phone|windows mobile/i, 'Windows Phone'],
  [/\bipad\b/i, 'iPadOS'],
  [/\b(?:iphone|ipod)\b/i, 'iOS'],
  [/harmonyos/i, 'HarmonyOS'],
  [/android/i, 'Android'],
  [/\bcros\b/i, 'ChromeOS'],
  [/kaios/i, 'KaiOS'],
  [/tizen/i, 'Tizen'],
  [/web0s|webos/i, 'webOS'],
  [/windows/i, 'Windows'],
  [/mac os x|macintosh/i, 'macOS'],
  [/blackberry|\bbb10\b/i, 'BlackBerry'],
  [/freebsd|openbsd|netbsd/i, 'BSD'],
  [/linux|x11/i, 'Linux'],
]

// In-app browsers first (they embed a Chrome or Safari UA and append their own token), then browsers
// that build on Chrome (each adds its token after "Chrome/"), then Chrome, then Safari.
const BROWSER_RULES: ReadonlyArray<Rule<string>> = [
  [/\bInstagram\b/, 'Instagram'],
  [/FBAN\/Messenger|FB_IAB\/(?:Orca|MESSENGER)/i, 'Messenger'],
  [/\bFBAN\/|\bFBAV\/|\bFB_IAB\//, 'Facebook'],
  [/musical_ly|BytedanceWebview|\bTikTok\b|\btrill_/i, 'TikTok'],
  [/Snapchat/i, 'Snapchat'],
  [/\bPinterest\//i, 'Pinterest'],
  [/LinkedInApp/i, 'LinkedIn'],
  [/TwitterAndroid|Twitter for iP/i, 'Twitter'],
  [/\bLine\/\d/, 'LINE'],
  [/MicroMessenger/i, 'WeChat'],
  [/\bGSA\/\d/, 'Google App'],
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOPT\/|\bOPiOS\/|\bOpera\b/, 'Opera'],
  [/SamsungBrowser\//, 'Samsung Internet'],
  [/YaBrowser\/|YaSearchBrowser|YaApp_/, 'Yandex'],
  [/UCBrowser|UCWEB/i, 'UC Browser'],
  [/Vivaldi\//, 'Vivaldi'],
  [/\bBrave\//, 'Brave'],
  [/DuckDuckGo\/\d|\bDdg\/\d/, 'DuckDuckGo'],
  [/MiuiBrowser\//, 'MIUI Browser'],
  [/HuaweiBrowser\//, 'Huawei Browser'],
  [/\bSilk\//, 'Silk'],
  [/Firefox\/|FxiOS\//, 'Firefox'],
  [/MSIE |Trident\//, 'Internet Explorer'],
  [/; wv\)/, 'Android WebView'],
  [/Chromium\//, 'Chromium'],
  [/Chrome\/|CriOS\/|CrMo\//, 'Chrome'],
  [/Android.*Version\/[\d.]+.*Safari\//, 'Android Browser'],
  [/Safari\//, 'Safari'],
]

const DEVICE_RULES: ReadonlyArray<Rule<DeviceType>> = [
  [/smart-?tv|googletv|\bhbbtv\b|appletv|\bcrkey\b|web0s|netcast|playstation|xbox|nintendo|\broku\b|bravia/i, 'unknown'],
  [/\bipad\b/i, 'tablet'],
  [/\b(?:iphone|ipod)\b|windows phone|mobi|blackberry|\bbb10\b|opera mini|kaios/i, 'mobile'],
  // Android phones say "Mobile"; Android tablets do not.
  [/android/i, 'tablet'],
  [/tablet|kindle|\bsilk\/|playbook/i, 'tablet'],
  [/windows|macintosh|mac os x|\bcros\b|x11|linux|freebsd|openbsd|netbsd/i, 'desktop'],
]

function first<T>(rules: ReadonlyArray<Rule<T>>, ua: string): T | null {
  for (let i = 0; i < rules.length; i++) if (rules[i]![0].test(ua)) return rules[i]![1]
  return null
}

const UNKNOWN: UserAgentInfo = Object.freeze({ device_type: 'unknown', os: null, browser: null })
const BOT: UserAgentInfo = Object.freeze({ device_type: 'bot', os: null, browser: null })

function parse(ua: string): UserAgentInfo {
  if (isBotUserAgent(ua)) return BOT
  const os = first(OS_RULES, ua)
  const browser = first(BROWSER_RULES, ua)
  const device_type = first(DEVICE_RULES, ua) ?? 'unknown'
  if (os === null && browser === null && device_type === 'unknown') return UNKNOWN
  return Object.freeze({ device_type, os, browser })
}

/** Distinct UAs remembered; the oldest is forgotten first. */
const MEMO_MAX = 5000
/** Longer UAs are parsed but not remembered, so strangers cannot fill memory with huge headers. */
const MEMO_UA_MAX = 1024
const memo = new Map<string, UserAgentInfo>()

/** Never throws. Results are frozen and shared: do not mutate. */
export function parseUserAgent(ua: string | null | undefined): UserAgentInfo {
  if (!ua) return UNKNOWN
  const hit = memo.get(ua)
  if (hit) return hit
  const info = parse(ua)
  if (ua.length <= MEMO_UA_MAX) {
    if (memo.size >= MEMO_MAX) memo.delete(memo.keys().next().value!)
    memo.set(ua, info)
  }
  return info
}

/** Entries currently memoised (bounded by MEMO_MAX). */
export const userAgentMemoSize = (): number => memo.size

/** Host of a Referer, lower-case and without "www." ("https://www.Example.com/x" → "example.com"); null when not a URL with a host. */
export function referrerDomain(ref: string | null | undefined): string | null {
  if (!ref) return null
  const u = URL.parse(ref)
  if (!u) return null
  let h = u.hostname.toLowerCase()
  if (h.startsWith('www.')) h = h.slice(4)
  if (h.endsWith('.')) h = h.slice(0, -1)
  return h === '' ? null : h
}
