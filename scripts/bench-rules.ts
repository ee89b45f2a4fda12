// bun scripts/bench-rules.ts: the cost of choosing a path (src/rules) for a campaign of 20 paths × 5
// conditions, N evaluations (BENCH_RULES_N, default 1M) of firstMatch over visitors that vary, in three
// cases: the usual one (most paths fail on their first condition), the worst (every path holds up to its
// last condition and none matches: 100 conditions per click), and one 5-condition path that holds.
import { checkConditions, compilePath, firstMatch, type Condition, type RuleContext, type RuleQuery } from '../src/rules'

const N = Number(process.env.BENCH_RULES_N ?? 1_000_000)

const COUNTRIES = ['US', 'CA', 'GB', 'DE', 'FR', 'ES', 'IT', 'BR', 'MX', 'IN', 'ID', 'PH', 'VN', 'TH', 'PL', 'NL', 'SE', 'NO', 'JP', 'KR']

function conditions(i: number, lastFails: boolean): Condition[] {
  return checkConditions([
    { type: 'country', values: [COUNTRIES[i]!, COUNTRIES[(i + 1) % 20]!, COUNTRIES[(i + 2) % 20]!] },
    { type: 'device', values: ['mobile', 'tablet'] },
    { type: 'os', values: ['Android', 'iOS'], version: { op: 'gte', value: 10 } },
    { type: 'param', name: 'sub2', op: 'prefix', values: ['fb_', 'ig_'] },
    lastFails
      ? { type: 'time', tz: 'America/New_York', days: ['sun'] } // the bench runs on a Wednesday
      : { type: 'connection', values: ['hosting'], negate: true },
  ])
}

const query = (sub2: string): RuleQuery => ({ subs: [null, sub2, null, null, null, null, null, null, null, null], params: { utm_source: 'facebook' }, clickId: null })

function visitors(countryOf: (k: number) => string): RuleContext[] {
  return Array.from({ length: 64 }, (_, k) => ({
    country: countryOf(k), region: null, city: null, asn: 3320 + k, as_org: 'Some Telecom', connection: 'residential',
    device: 'mobile', os: k % 2 ? 'Android' : 'iOS', os_version: String(12 + (k % 5)), browser: 'Facebook', browser_version: '470',
    language: 'en', referrer_domain: 'm.facebook.com', ip: `81.2.${k}.7`, query: query(k % 2 ? 'fb_1' : 'ig_2'),
    now: Date.UTC(2025, 5, 11, 12, 0) + k * 1000, unique: k % 3 !== 0, bot: false,
  }))
}

function run(label: string, paths: ReturnType<typeof compilePath<number>>[], ctxs: RuleContext[]): void {
  let matched = 0
  for (let i = 0; i < 200_000; i++) if (firstMatch(paths, ctxs[i & 63]!)) matched++ // warm up
  matched = 0
  const t0 = Bun.nanoseconds()
  const cpu0 = process.cpuUsage()
  for (let i = 0; i < N; i++) if (firstMatch(paths, ctxs[i & 63]!)) matched++
  const cpu = process.cpuUsage(cpu0)
  const ns = (Bun.nanoseconds() - t0) / N
  // CPU time beside wall time: on a shared machine the wall clock also counts the time other processes ran.
  const cpuNs = ((cpu.user + cpu.system) * 1000) / N
  console.log(`${label.padEnd(58)} ${ns.toFixed(0).padStart(5)} ns/click wall, ${cpuNs.toFixed(0).padStart(5)} ns CPU  (a path took ${Math.round((matched / N) * 100)}%)`)
}

const usual = COUNTRIES.map((_, i) => compilePath(i, conditions(i, false), i))
const worst = COUNTRIES.map((_, i) => compilePath(i, conditions(0, true), i))
const single = [compilePath(0, conditions(0, false), 0)]

console.log(`${N.toLocaleString('en-US')} evaluations per case, Bun ${Bun.version}`)
run('20 paths x 5, visitor from a country no path names', usual, visitors(() => 'ZA'))
run('20 paths x 5, visitors spread over the 20 paths\' countries', usual, visitors((k) => COUNTRIES[k % 20]!))
run('20 paths x 5, worst: every path fails on its 5th condition', worst, visitors(() => 'US'))
run('1 path x 5 conditions, all hold', single, visitors(() => 'US'))
