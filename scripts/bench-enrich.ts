// bun scripts/bench-enrich.ts: what click enrichment (issue 28) adds to a click, per click, in one process.
// 1M visitors drawn from a few thousand distinct addresses, User-Agents and Accept-Language values (real
// traffic repeats a few thousand of each), each part timed alone, then the tracker's whole click decision
// (routing, quality, the Click object; the store a stub) with and without the IP data, same run.
// Best of three rounds each. BENCH_ENRICH_N sets the number of visitors.
import { loadGeoIp } from '../src/lib/geoip'
import { ClickEnricher, languageOf } from '../src/tracking/enrich'
import { parseUserAgent } from '../src/tracking/quality/user-agent'
import { Tracker, type ClickQuality, type Routes, type Visitor } from '../src/tracking/track'
import { TrafficClassifier } from '../src/tracking/quality/classify'
import { parseVisitQuery } from '../src/tracking/visitor'
import { compileUrlTemplate } from '../src/tracking/template'
import type { CampaignRoute } from '../src/tracking/routing'
import { HUMAN_UAS } from '../test/tracking/quality/user-agents'

const N = Number(process.env.BENCH_ENRICH_N ?? 1_000_000)
const DISTINCT_IPS = 4000
const DISTINCT_UAS = 3000
const DISTINCT_LANGS = 300

let x = 2463534242
const next = () => { x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0; return x }

// 90% IPv4, 10% IPv6 (within 2000::/4, where the allocations are).
const ips = Array.from({ length: DISTINCT_IPS }, (_, i) => {
  const a = next()
  if (i % 10 !== 0) return `${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}`
  return [0x2000 | (a & 0x0fff), next() & 0xffff, next() & 0xffff, next() & 0xffff, 0, 0, 0, next() & 0xffff].map((h) => h.toString(16)).join(':')
})
// The test suite's real UAs, each in many builds (as traffic has them).
const uas = Array.from({ length: DISTINCT_UAS }, (_, i) => `${HUMAN_UAS[i % HUMAN_UAS.length]![0]} b/${Math.floor(i / HUMAN_UAS.length)}`)
const TAGS = ['en-US', 'de-DE', 'fr-FR', 'es-ES', 'pt-BR', 'ru-RU', 'it-IT', 'pl-PL', 'tr-TR', 'ja-JP']
const langs = Array.from({ length: DISTINCT_LANGS }, (_, i) => `${TAGS[i % 10]},${TAGS[(i * 7) % 10]!.slice(0, 2)};q=0.9,en;q=0.${(i % 8) + 1}`)
const COUNTRIES = ['US', 'DE', 'FR', 'XX', 'BR', 'T1']
// One Headers per distinct visitor shape: the visitor objects share them, like the requests of one browser.
const headers = Array.from({ length: 5000 }, (_, i) => new Headers({
  'user-agent': uas[i % DISTINCT_UAS]!, 'accept-language': langs[i % DISTINCT_LANGS]!, 'cf-ipcountry': COUNTRIES[i % COUNTRIES.length]!,
}))
const visitors: Visitor[] = Array.from({ length: N }, () => {
  const h = headers[next() % headers.length]!
  return { method: 'GET', headers: h, query: parseVisitQuery('/c/x'), ip: ips[next() % DISTINCT_IPS]!, userAgent: h.get('user-agent'), referrer: null, cookieClickId: null }
})

function time(label: string, f: (v: Visitor) => unknown): number {
  let best = Infinity
  let sink = 0
  for (let round = 0; round < 3; round++) {
    const t0 = performance.now()
    for (let i = 0; i < N; i++) if (f(visitors[i]!) != null) sink++
    best = Math.min(best, performance.now() - t0)
  }
  const us = (best * 1000) / N
  console.log(`  ${label.padEnd(52)} ${us.toFixed(3)} µs/click (${sink} non-null)`)
  return us
}

const geo = await loadGeoIp()
const enrich = new ClickEnricher(geo, true)
console.log(`${N} visitors: ${DISTINCT_IPS} addresses, ${DISTINCT_UAS} User-Agents, ${DISTINCT_LANGS} Accept-Language values`)
console.log('parts:')
const place = time('IP data: place() (lookup of the visitor address)', (v) => enrich.place(v))
const country = time('country() with CF-IPCountry (trusted proxy)', (v) => enrich.country(v, enrich.place(v)))
const lang = time('languageOf(Accept-Language) (memo)', (v) => languageOf(v.headers.get('accept-language')))
const ua = time('parseUserAgent (memo; versions included)', (v) => parseUserAgent(v.userAgent).browser_version)
console.log(`  enrichment (country incl. place, language): ${(country + lang).toFixed(3)} µs/click; place alone ${place.toFixed(3)}; UA parse (before too) ${ua.toFixed(3)}`)

// The tracker's whole decision for a new click, with the store a stub that resolves at once.
const offer = { id: 1, weight: 1, template: compileUrlTemplate('https://o.example/?c={click_id}')! }
const route = {
  id: 1, slug: 'x', sourceId: null, externalId: null, costModel: 'none', cpc: 0, botTarget: null, landings: null,
  offers: { items: [offer], cumulative: [1], total: 1, byId: new Map([[1, offer]]) },
} as unknown as CampaignRoute
const routes: Routes = { get: () => route, fallback: () => null, campaign: () => route, campaignsOf: () => [] }
const classifier = new TrafficClassifier({ botIpRanges: [], excludedIps: [], botClicksPerMinute: 0, botDatacenter: true })
const quality: ClickQuality = {
  classify: (v, now, connection) => classifier.classify({ method: v.method, headers: v.headers, ip: v.ip, userAgent: v.userAgent, connection, now }),
  isUnique: () => true,
}
const done = Promise.resolve()
const store = { append: () => done, amend: () => done, find: () => undefined }
console.log('the click decision (Tracker.click, store stubbed), rounds alternated, best of five each:')
const bare = new Tracker(routes, store, quality, new ClickEnricher(null, false))
const tracker = new Tracker(routes, store, quality, enrich)
const best = [Infinity, Infinity]
for (let round = 0; round < 10; round++) {
  const t = round % 2 === 0 ? bare : tracker
  const t0 = performance.now()
  for (let i = 0; i < N; i++) t.click('x', visitors[i]!)
  best[round % 2] = Math.min(best[round % 2]!, ((performance.now() - t0) * 1000) / N)
}
console.log(`  without IP data (country, network null)             ${best[0]!.toFixed(3)} µs/click`)
console.log(`  with IP data and CF-IPCountry                       ${best[1]!.toFixed(3)} µs/click`)
console.log(`  difference: ${(best[1]! - best[0]!).toFixed(3)} µs/click`)
