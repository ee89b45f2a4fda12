// What a User-Agent says about the visitor's device, OS and browser and their major versions, read from
// ordered rule tables (first match wins), memoised because real traffic repeats a few thousand UAs over
// and over: the version patterns run once per distinct UA, never per click.
//
// Limits worth knowing: iPadOS 13+ Safari and Android Chrome's "desktop site" mode send desktop UAs, so
// they read as desktop macOS / Linux; TVs and consoles read as device "unknown". A bot's claims about
// itself are not reported: a bot UA yields device "bot" with os and browser null. Versions are what the
// UA says: Chrome's reduced UA says "Android 10; K" on every Android since 10 and "Mac OS X 10_15_7" on
// every Mac, and Windows 11 says "Windows NT 10.0", so those read as Android 10, macOS 10 and Windows 10.
import { isBotUserAgent } from './bots'

export type DeviceType = 'desktop' | 'mobile' | 'tablet' | 'bot' | 'unknown'

export interface UserAgentInfo {
  readonly device_type: DeviceType
  readonly os: string | null
  /** The OS's major version ('17', '14'; Windows by name: 'XP', 'Vista', '7', '8', '8.1', '10'); null when the UA does not say. */
  readonly os_version: string | null
  readonly browser: string | null
  /** The browser's (an in-app browser's: the app's) major version; null when the UA does not say. */
  readonly browser_version: string | null
}

/** How a matched rule finds its version: the first capturing group that took part in the match. */
type Version = RegExp | ((ua: string) => string | null)
type Rule<T> = readonly [pattern: RegExp, value: T, version?: Version]

/** Windows NT kernel versions as people name them (Windows 11 still says 10.0). */
const WINDOWS: Record<string, string> = { '5.1': 'XP', '5.2': 'XP', '6.0': 'Vista', '6.1': '7', '6.2': '8', '6.3': '8.1', '10.0': '10' }
const windowsVersion = (ua: string): string | null => {
  const m = /Windows NT (\d+\.\d+)/.exec(ua)
  return m ? WINDOWS[m[1]!] ?? null : null
}
/** iOS and iPadOS: "CPU iPhone OS 17_4 like Mac OS X", "CPU OS 17_4", or an app's "iOS 17_4". */
const APPLE_MOBILE = /\b(?:OS|iOS) (\d+)[_.]\d/

// Order matters: iPads and iPhones say "like Mac OS X", Windows Phone says "Android", Android says "Linux".
const OS_RULES: ReadonlyArray<Rule<string>> = [
  [/windows phone|windows mobile/i, 'Windows Phone', /Windows Phone(?: OS)? (\d+)/i],
  [/\bipad\b/i, 'iPadOS', APPLE_MOBILE],
  [/\b(?:iphone|ipod)\b/i, 'iOS', APPLE_MOBILE],
  [/harmonyos/i, 'HarmonyOS', /HarmonyOS[ /](\d+)/i],
  [/android/i, 'Android', /Android[ /]?(\d+)/i],
  [/\bcros\b/i, 'ChromeOS'],
  [/kaios/i, 'KaiOS', /KaiOS\/(\d+)/i],
  [/tizen/i, 'Tizen', /Tizen[ /](\d+)/i],
  [/web0s|webos/i, 'webOS'],
  [/windows/i, 'Windows', windowsVersion],
  [/mac os x|macintosh/i, 'macOS', /Mac OS X (\d+)/],
  [/blackberry|\bbb10\b/i, 'BlackBerry'],
  [/freebsd|openbsd|netbsd/i, 'BSD'],
  [/linux|x11/i, 'Linux'],
]

const CHROME_VERSION = /(?:Chrome|CriOS|CrMo)\/(\d+)/
const SAFARI_VERSION = /Version\/(\d+)/
const FB_VERSION = /FBAV\/(\d+)/

// In-app browsers first (they embed a Chrome or Safari UA and append their own token), then browsers
// that build on Chrome (each adds its token after "Chrome/"), then Chrome, then Safari.
const BROWSER_RULES: ReadonlyArray<Rule<string>> = [
  [/\bInstagram\b/, 'Instagram', /Instagram (\d+)/],
  [/FBAN\/Messenger|FB_IAB\/(?:Orca|MESSENGER)/i, 'Messenger', FB_VERSION],
  [/\bFBAN\/|\bFBAV\/|\bFB_IAB\//, 'Facebook', FB_VERSION],
  [/musical_ly|BytedanceWebview|\bTikTok\b|\btrill_/i, 'TikTok', /musical_ly_(\d+)|app_version\/(\d+)/],
  [/Snapchat/i, 'Snapchat', /Snapchat\/(\d+)/],
  [/\bPinterest\//i, 'Pinterest', /Pinterest\/(\d+)/i],
  [/LinkedInApp/i, 'LinkedIn', /LinkedInApp\]?\/(\d+)/i],
  [/TwitterAndroid|Twitter for iP/i, 'Twitter', /Twitter for iP(?:hone|ad)\/(\d+)/],
  [/\bLine\/\d/, 'LINE', /\bLine\/(\d+)/],
  [/MicroMessenger/i, 'WeChat', /MicroMessenger\/(\d+)/i],
  [/\bGSA\/\d/, 'Google App', /\bGSA\/(\d+)/],
  [/\bEdg(?:e|A|iOS)?\//, 'Edge', /\bEdg(?:e|A|iOS)?\/(\d+)/],
  [/\bOPR\/|\bOPT\/|\bOPiOS\/|\bOpera\b/, 'Opera', /\b(?:OPR|OPT|OPiOS)\/(\d+)|\bOpera[ /](\d+)/],
  [/SamsungBrowser\//, 'Samsung Internet', /SamsungBrowser\/(\d+)/],
  [/YaBrowser\/|YaSearchBrowser|YaApp_/, 'Yandex', /(?:YaBrowser|YaSearchBrowser|YaApp_\w+)\/(\d+)/],
  [/UCBrowser|UCWEB/i, 'UC Browser', /UCBrowser\/(\d+)/i],
  [/Vivaldi\//, 'Vivaldi', /Vivaldi\/(\d+)/],
  [/\bBrave\//, 'Brave', /\bBrave\/(\d+)/],
  [/DuckDuckGo\/\d|\bDdg\/\d/, 'DuckDuckGo', /(?:DuckDuckGo|\bDdg)\/(\d+)/],
  [/MiuiBrowser\//, 'MIUI Browser', /MiuiBrowser\/(\d+)/],
  [/HuaweiBrowser\//, 'Huawei Browser', /HuaweiBrowser\/(\d+)/],
  [/\bSilk\//, 'Silk', /\bSilk\/(\d+)/],
  [/Firefox\/|FxiOS\//, 'Firefox', /(?:Firefox|FxiOS)\/(\d+)/],
  [/MSIE |Trident\//, 'Internet Explorer', /MSIE (\d+)|\brv:(\d+)/],
  // A WebView's "Version/4.0" is a constant: its version is the Chrome it runs.
  [/; wv\)/, 'Android WebView', CHROME_VERSION],
  [/Chromium\//, 'Chromium', /Chromium\/(\d+)/],
  [/Chrome\/|CriOS\/|CrMo\//, 'Chrome', CHROME_VERSION],
  [/Android.*Version\/[\d.]+.*Safari\//, 'Android Browser', SAFARI_VERSION],
  // Safari's own version is in "Version/", not "Safari/" (the WebKit build).
  [/Safari\//, 'Safari', SAFARI_VERSION],
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

function firstRule<T>(rules: ReadonlyArray<Rule<T>>, ua: string): Rule<T> | null {
  for (let i = 0; i < rules.length; i++) if (rules[i]![0].test(ua)) return rules[i]!
  return null
}

function versionOf(rule: Rule<unknown> | null, ua: string): string | null {
  const v = rule?.[2]
  if (v === undefined) return null
  if (typeof v === 'function') return v(ua)
  const m = v.exec(ua)
  if (!m) return null
  for (let i = 1; i < m.length; i++) if (m[i] !== undefined) return String(Number(m[i])) // "05" → "5"
  return null
}

const UNKNOWN: UserAgentInfo = Object.freeze({ device_type: 'unknown', os: null, os_version: null, browser: null, browser_version: null })
const BOT: UserAgentInfo = Object.freeze({ device_type: 'bot', os: null, os_version: null, browser: null, browser_version: null })

function parse(ua: string): UserAgentInfo {
  if (isBotUserAgent(ua)) return BOT
  const os = firstRule(OS_RULES, ua)
  const browser = firstRule(BROWSER_RULES, ua)
  const device_type = firstRule(DEVICE_RULES, ua)?.[1] ?? 'unknown'
  if (os === null && browser === null && device_type === 'unknown') return UNKNOWN
  return Object.freeze({
    device_type,
    os: os && os[1], os_version: versionOf(os, ua),
    browser: browser && browser[1], browser_version: versionOf(browser, ua),
  })
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
