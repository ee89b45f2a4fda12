// Real-world User-Agent strings with what parseUserAgent must read from them.
import type { DeviceType } from '../../../src/tracking/quality/user-agent'

export type UaCase = [ua: string, device: DeviceType, os: string | null, browser: string | null, osVersion: string | null, browserVersion: string | null]

const CHROME_WIN = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36'
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko)'
const ANDROID_WV = (model: string) =>
  `Mozilla/5.0 (Linux; Android 13; ${model}; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/116.0.0.0 Mobile Safari/537.36`

/** Ordinary people's browsers and in-app browsers: none of them is a bot. */
export const HUMAN_UAS: UaCase[] = [
  // desktop
  [CHROME_WIN, 'desktop', 'Windows', 'Chrome', '10', '120'],
  [`${CHROME_WIN} Edg/120.0.2210.91`, 'desktop', 'Windows', 'Edge', '10', '120'],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0', 'desktop', 'Windows', 'Firefox', '10', '121'],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Safari/537.36 OPR/105.0.0.0', 'desktop', 'Windows', 'Opera', '10', '105'],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/118.0.0.0 YaBrowser/23.11.0.0 Safari/537.36', 'desktop', 'Windows', 'Yandex', '10', '23'],
  ['Mozilla/5.0 (Windows NT 10.0; WOW64; Trident/7.0; rv:11.0) like Gecko', 'desktop', 'Windows', 'Internet Explorer', '10', '11'],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15', 'desktop', 'macOS', 'Safari', '10', '17'],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36', 'desktop', 'macOS', 'Chrome', '10', '120'],
  ['Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0', 'desktop', 'Linux', 'Firefox', null, '121'],
  ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Vivaldi/6.5.3206.48', 'desktop', 'Linux', 'Vivaldi', null, '6'],
  ['Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36', 'desktop', 'ChromeOS', 'Chrome', null, '120'],
  // phones
  [`${IPHONE} Version/17.2 Mobile/15E148 Safari/604.1`, 'mobile', 'iOS', 'Safari', '17', '17'],
  [`${IPHONE} CriOS/120.0.6099.119 Mobile/15E148 Safari/604.1`, 'mobile', 'iOS', 'Chrome', '17', '120'],
  [`${IPHONE} FxiOS/121.0 Mobile/15E148 Safari/605.1.15`, 'mobile', 'iOS', 'Firefox', '17', '121'],
  [`${IPHONE} Version/17.0 EdgiOS/120.0.2210.150 Mobile/15E148 Safari/604.1`, 'mobile', 'iOS', 'Edge', '17', '120'],
  ['Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36', 'mobile', 'Android', 'Chrome', '10', '120'],
  ['Mozilla/5.0 (Linux; Android 13; SAMSUNG SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36', 'mobile', 'Android', 'Samsung Internet', '13', '23'],
  ['Mozilla/5.0 (Android 14; Mobile; rv:121.0) Gecko/121.0 Firefox/121.0', 'mobile', 'Android', 'Firefox', '14', '121'],
  ['Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Mobile Safari/537.36 OPR/79.0.4143.72', 'mobile', 'Android', 'Opera', '10', '79'],
  ['Mozilla/5.0 (Linux; Android 12; M2101K6G) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/118.0.5993.117 YaBrowser/23.11.3.117.00 SA/3 Mobile Safari/537.36', 'mobile', 'Android', 'Yandex', '12', '23'],
  ['Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36 EdgA/120.0.2210.115', 'mobile', 'Android', 'Edge', '10', '120'],
  ['Mozilla/5.0 (Linux; U; Android 11; en-US; RMX2193 Build/RP1A.200720.011) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/100.0.4896.58 UCBrowser/13.4.0.1306 Mobile Safari/537.36', 'mobile', 'Android', 'UC Browser', '11', '13'],
  [ANDROID_WV('SM-A515F Build/SP1A.210812.016'), 'mobile', 'Android', 'Android WebView', '13', '116'],
  // Cubot phones carry "bot" in their model name.
  ['Mozilla/5.0 (Linux; Android 9; CUBOT_X19) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Mobile Safari/537.36', 'mobile', 'Android', 'Chrome', '9', '119'],
  ['Mozilla/5.0 (Linux; Android 11; CUBOT KING KONG 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36', 'mobile', 'Android', 'Chrome', '11', '120'],
  ['Mozilla/5.0 (Linux; Android 12; CUBOT NOTE 30 Build/SP1A.210812.016) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/118.0.0.0 Mobile Safari/537.36', 'mobile', 'Android', 'Chrome', '12', '118'],
  // tablets
  ['Mozilla/5.0 (iPad; CPU OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1', 'tablet', 'iPadOS', 'Safari', '17', '17'],
  ['Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120.0.6099.119 Mobile/15E148 Safari/604.1', 'tablet', 'iPadOS', 'Chrome', '16', '120'],
  ['Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36', 'tablet', 'Android', 'Chrome', '13', '120'],
  ['Mozilla/5.0 (Linux; Android 9; KFTRWI) AppleWebKit/537.36 (KHTML, like Gecko) Silk/120.3.1 like Chrome/120.0.6099.116 Safari/537.36', 'tablet', 'Android', 'Silk', '9', '120'],
  ['Mozilla/5.0 (Android 13; Tablet; rv:121.0) Gecko/121.0 Firefox/121.0', 'tablet', 'Android', 'Firefox', '13', '121'],
  // in-app browsers
  [`${IPHONE} Mobile/15E148 [FBAN/FBIOS;FBDV/iPhone14,2;FBMD/iPhone;FBSN/iOS;FBSV/17.2;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5;FBRV/0]`, 'mobile', 'iOS', 'Facebook', '17', null],
  [`${ANDROID_WV('Pixel 7 Build/TQ3A.230805.001')} [FB_IAB/FB4A;FBAV/431.0.0.26.108;]`, 'mobile', 'Android', 'Facebook', '13', '431'],
  [`${IPHONE} Mobile/15E148 [FBAN/MessengerForiOS;FBAV/440.0.0.38.109;FBBV/552222220;FBDV/iPhone13,2;FBMD/iPhone;FBSN/iOS;FBSV/17.2;FBSS/3;FBCR/;FBID/phone;FBLC/en_US;FBOP/5]`, 'mobile', 'iOS', 'Messenger', '17', '440'],
  [`${IPHONE} Mobile/15E148 Instagram 305.0.1.24.104 (iPhone15,3; iOS 17_2; en_US; en; scale=3.00; 1290x2796; 529172838)`, 'mobile', 'iOS', 'Instagram', '17', '305'],
  // "ruby" is this Redmi's code name, and also what Ruby's HTTP client sends.
  [`${ANDROID_WV('22101316G Build/TP1A.220624.014')} Instagram 299.0.0.34.111 Android (33/13; 440dpi; 1080x2400; Xiaomi/Redmi; 22101316G; ruby; mt6877; en_US; 511561222)`, 'mobile', 'Android', 'Instagram', '13', '299'],
  [`${IPHONE} Mobile/15E148 musical_ly_32.5.0 JsSdk/2.0 NetType/WIFI Channel/App Store ByteLocale/en Region/US ByteFullLocale/en`, 'mobile', 'iOS', 'TikTok', '17', '32'],
  [`${ANDROID_WV('SM-G991B Build/TP1A.220624.014')} trill_320503 JsSdk/1.0 NetType/WIFI Channel/googleplay AppName/musical_ly app_version/32.5.3 ByteLocale/en Region/US BytedanceWebview/d8a21c6`, 'mobile', 'Android', 'TikTok', '13', '32'],
  [`${IPHONE} Mobile/15E148 Snapchat/12.60.0.44 (like Safari/8617.1.17.10.9, panda)`, 'mobile', 'iOS', 'Snapchat', '17', '12'],
  [`${IPHONE} Mobile/15E148 [LinkedInApp]/9.29.1`, 'mobile', 'iOS', 'LinkedIn', '17', '9'],
  [`${IPHONE} Mobile/15E148 MicroMessenger/8.0.42(0x18002a2f) NetType/WIFI Language/zh_CN`, 'mobile', 'iOS', 'WeChat', '17', '8'],
  [`${IPHONE} GSA/293.0.585226568 Mobile/15E148 Safari/604.1`, 'mobile', 'iOS', 'Google App', '17', '293'],
  [`${IPHONE} Mobile/15E148 Twitter for iPhone/10.20`, 'mobile', 'iOS', 'Twitter', '17', '10'],
  // versions: a full (unreduced) Android UA, Safari's own version in Version/, Windows by name, IE by MSIE or rv:
  ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.122 Mobile Safari/537.36', 'mobile', 'Android', 'Chrome', '14', '126'],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1', 'mobile', 'iOS', 'Safari', '17', '17'],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15', 'desktop', 'macOS', 'Safari', '14', '17'],
  ['Mozilla/5.0 (Windows NT 6.1; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0.0.0 Safari/537.36', 'desktop', 'Windows', 'Chrome', '7', '109'],
  ['Mozilla/5.0 (Windows NT 6.3; Win64; x64; rv:115.0) Gecko/20100101 Firefox/115.0', 'desktop', 'Windows', 'Firefox', '8.1', '115'],
  ['Mozilla/5.0 (Windows NT 5.1; rv:52.0) Gecko/20100101 Firefox/52.0', 'desktop', 'Windows', 'Firefox', 'XP', '52'],
  ['Mozilla/5.0 (compatible; MSIE 10.0; Windows NT 6.2; Trident/6.0)', 'desktop', 'Windows', 'Internet Explorer', '8', '10'],
  ['Mozilla/5.0 (Linux; Android 4.4.2; GT-I9505 Build/KOT49H) AppleWebKit/534.30 (KHTML, like Gecko) Version/4.0 Mobile Safari/534.30', 'mobile', 'Android', 'Android Browser', '4', '4'],
  // TVs and consoles are not in the device enum.
  ['Mozilla/5.0 (SMART-TV; LINUX; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) 76.0.3809.146/6.0 TV Safari/537.36', 'unknown', 'Tizen', 'Safari', '6', null],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; Xbox; Xbox One) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.91', 'unknown', 'Windows', 'Edge', '10', '120'],
]

/** Real crawler, preview, tool and library UAs by category: every one must be a bot. */
export const BOT_UAS: Record<string, string[]> = {
  'search engines': [
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.129 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'AdsBot-Google (+http://www.google.com/adsbot.html)',
    'Mediapartners-Google',
    'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
    'Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)',
    'Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)',
    'DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)',
    'Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)',
    'Mozilla/5.0 (compatible; SeznamBot/4.0; +https://o-seznam.cz/napoveda/vyhledavani/en/seznambot-crawler/)',
  ],
  'social previews': [
    'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
    'Twitterbot/1.0',
    'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
    'TelegramBot (like TwitterBot)',
    'WhatsApp/2.23.20.0 A',
    'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
    'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)',
    'Pinterestbot/1.0 (+http://www.pinterest.com/bot.html)',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0',
  ],
  'SEO crawlers': [
    'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
    'Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)',
    'Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)',
    'Mozilla/5.0 (compatible; DotBot/1.2; +https://opensiteexplorer.org/dotbot; help@moz.com)',
    'Mozilla/5.0 (compatible; BLEXBot/1.0; +http://webmeup-crawler.com/)',
    'Screaming Frog SEO Spider/19.4',
  ],
  'headless and automation': [
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.6099.28 Safari/537.36',
    'Mozilla/5.0 (Unknown; Linux x86_64) AppleWebKit/538.1 (KHTML, like Gecko) PhantomJS/2.1.1 Safari/538.1',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Puppeteer',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Playwright/1.40.0',
    'Mozilla/5.0 (X11; Linux x86_64) Selenium/4.16 (java linux)',
    'Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0.0.0 Mobile Safari/537.36 Chrome-Lighthouse',
  ],
  'HTTP libraries': [
    'curl/8.4.0',
    'Wget/1.21.4',
    'python-requests/2.31.0',
    'Python-urllib/3.11',
    'Python/3.11 aiohttp/3.9.1',
    'python-httpx/0.25.2',
    'Go-http-client/1.1',
    'Go-http-client/2.0',
    'okhttp/4.12.0',
    'axios/1.6.2',
    'node-fetch/1.0 (+https://github.com/bitinn/node-fetch)',
    'node',
    'Java/17.0.9',
    'Apache-HttpClient/4.5.14 (Java/17.0.9)',
    'libwww-perl/6.72',
    'Scrapy/2.11.0 (+https://scrapy.org)',
    'Ruby',
    'PostmanRuntime/7.36.0',
  ],
  monitoring: [
    'Pingdom.com_bot_version_1.4_(http://www.pingdom.com/)',
    'Mozilla/5.0+(compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)',
    'Mozilla/5.0 (compatible; StatusCake)',
    'Site24x7',
  ],
  'AI and ad crawlers': [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.0; +https://openai.com/gptbot',
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ChatGPT-User/1.0; +https://openai.com/bot',
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
    'CCBot/2.0 (https://commoncrawl.org/faq/)',
    'Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)',
    'Mozilla/5.0 (Linux; Android 7.0;) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; PetalBot;+https://webmaster.petalsearch.com/site/petalbot)',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Safari/537.36 (Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot)',
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
  ],
}
