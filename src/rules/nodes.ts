// Each condition type compiled into a node: its test (before `negate`) and the sentence the trace shows.
// Sets, CIDR tables, regexes and zone clocks are built here, once per compile.
import { CidrSet } from '../lib/cidr'
import { minutesOf } from './check'
import { ZoneClock } from './clock'
import type { Predicate, RuleContext } from './context'
import { DAYS, type ConditionOf, type LeafCondition } from './model'

export interface Node {
  /** The test before `negate`. */
  readonly test: Predicate
  readonly describe: (ctx: RuleContext) => string
}

export const NEVER: Predicate = () => false

const show = (v: string | number | null): string => (v === null ? 'unknown' : typeof v === 'number' ? String(v) : JSON.stringify(v))
function listText(values: readonly (string | number)[]): string {
  const head = values.slice(0, 10).join(', ')
  return values.length > 10 ? `[${head}, … +${values.length - 10} more]` : `[${head}]`
}
const isIn = (hit: boolean) => (hit ? 'is in' : 'is not in')

/**
 * Distinct values a case-insensitive matcher remembers its answer for. The values it sees on the click path
 * are long-lived shared strings (the UA memo's names, the IP data's regions and networks, the language
 * memo's tags), so remembering them lowers no string per click and holds no request's string.
 */
const FOLD_MEMO_MAX = 512

type Matcher<T> = (v: T | null) => boolean

function exact<T extends string | number>(values: readonly T[]): Matcher<T> {
  const set = new Set<T>(values)
  return (v) => v !== null && set.has(v)
}

/** Case-insensitive membership, without lowering the same string on every click. */
function folded(values: readonly string[]): Matcher<string> {
  const set = new Set(values.map((v) => v.toLowerCase()))
  const memo = new Map<string, boolean>()
  return (v) => {
    if (v === null) return false
    let hit = memo.get(v)
    if (hit === undefined) {
      hit = set.has(v.toLowerCase())
      if (memo.size < FOLD_MEMO_MAX) memo.set(v, hit)
    }
    return hit
  }
}

/**
 * A list condition. `test` reads its field directly (x.country, not a getter passed in) so that each type's
 * test is its own small function and the click path makes no megamorphic getter call; `get` is for the trace.
 */
function member<T extends string | number>(label: string, values: readonly T[], get: (ctx: RuleContext) => T | null, test: Predicate): Node {
  return { test, describe: (c) => `${label} ${show(get(c))} ${isIn(test(c))} ${listText(values)}` }
}

/**
 * A version's place in order: its number ('17', '8.1'), Windows XP and Vista by their NT numbers (5.1, 6.0)
 * so they sort before Windows 7; NaN for anything else (never satisfies a comparison).
 */
export function versionRank(v: string | number | null): number {
  if (v === null) return NaN
  if (typeof v === 'number') return v
  const c = v.charCodeAt(0)
  if (c >= 48 && c <= 57) return Number(v) // '17', '8.1' (a number with anything after it: NaN)
  const name = v.toUpperCase()
  return name === 'XP' ? 5.1 : name === 'VISTA' ? 6 : NaN
}

function version(c: ConditionOf<'os'> | ConditionOf<'browser'>, get: (ctx: RuleContext) => string | null): Predicate | null {
  if (!c.version) return null
  const want = versionRank(c.version.value)
  switch (c.version.op) {
    case 'eq': return (x) => versionRank(get(x)) === want
    case 'gte': return (x) => versionRank(get(x)) >= want
    case 'lte': return (x) => versionRank(get(x)) <= want
  }
}

function software(c: ConditionOf<'os'> | ConditionOf<'browser'>, named: Node, major: (ctx: RuleContext) => string | null): Node {
  const ver = version(c, major)
  if (!ver) return named
  const test: Predicate = (x) => named.test(x) && ver(x)
  const { op, value } = c.version!
  return {
    test,
    describe: (x) => `${named.describe(x)}; version ${show(major(x))} ${ver(x) ? 'is' : 'is not'} ${op} ${JSON.stringify(value)}`,
  }
}

function asOrg(needles: readonly string[]): Node {
  const lower = needles.map((n) => n.toLowerCase())
  const memo = new Map<string, boolean>()
  const contains = (org: string): boolean => {
    const o = org.toLowerCase()
    for (let i = 0; i < lower.length; i++) if (o.includes(lower[i]!)) return true
    return false
  }
  const test: Predicate = (c) => {
    const org = c.as_org
    if (org === null) return false
    let hit = memo.get(org)
    if (hit === undefined) {
      hit = contains(org)
      if (memo.size < FOLD_MEMO_MAX) memo.set(org, hit)
    }
    return hit
  }
  return { test, describe: (c) => `network ${show(c.as_org)} ${test(c) ? 'contains one of' : 'contains none of'} ${listText(needles)}` }
}

function referrer(values: readonly string[]): Node {
  // "*.example.com" matches example.com and its subdomains: a referrer's "www." is dropped before matching.
  const exact = new Set<string>()
  const suffixes: string[] = []
  for (const v of values) {
    if (v.startsWith('*.')) {
      exact.add(v.slice(2))
      suffixes.push(v.slice(1))
    } else exact.add(v)
  }
  const test: Predicate = (c) => {
    const d = c.referrer_domain
    if (d === null) return false
    if (exact.has(d)) return true
    for (let i = 0; i < suffixes.length; i++) if (d.endsWith(suffixes[i]!)) return true
    return false
  }
  return { test, describe: (c) => `referrer domain ${c.referrer_domain === null ? 'none' : show(c.referrer_domain)} ${isIn(test(c))} ${listText(values)}` }
}

function ip(values: readonly string[]): Node {
  const set = new CidrSet(values)
  const test: Predicate = (c) => set.has(c.ip)
  return { test, describe: (c) => `ip ${show(c.ip)} ${isIn(test(c))} ${listText(values)}` }
}

const SUB = /^sub([1-9]|10)$/

function paramValue(name: string): (ctx: RuleContext) => string | null {
  const sub = SUB.exec(name)
  if (sub) {
    const k = Number(sub[1]) - 1
    return (c) => c.query.subs[k] ?? null
  }
  if (name === 'click_id') return (c) => c.query.clickId ?? null
  return (c) => {
    const p = c.query.params
    return p !== null && Object.hasOwn(p, name) ? p[name]! : null
  }
}

function param(c: ConditionOf<'param'>): Node {
  const get = paramValue(c.name)
  const ic = c.ignore_case === true
  const norm = (s: string) => (ic ? s.toLowerCase() : s)
  let test: Predicate
  let what: string
  switch (c.op) {
    case 'equals': {
      const want = norm(c.value!)
      test = (x) => { const v = get(x); return v !== null && norm(v) === want }
      what = `equals ${JSON.stringify(c.value)}`
      break
    }
    case 'in': {
      const set = new Set(c.values!.map(norm))
      test = (x) => { const v = get(x); return v !== null && set.has(norm(v)) }
      what = `is in ${listText(c.values!.map((v) => JSON.stringify(v)))}`
      break
    }
    case 'prefix': {
      const prefixes = c.values!.map(norm)
      test = (x) => {
        const v = get(x)
        if (v === null) return false
        const s = norm(v)
        for (let i = 0; i < prefixes.length; i++) if (s.startsWith(prefixes[i]!)) return true
        return false
      }
      what = `starts with one of ${listText(c.values!.map((v) => JSON.stringify(v)))}`
      break
    }
    case 'regex': {
      let re: RegExp | null = null
      try {
        re = new RegExp(c.value!, ic ? 'i' : '')
      } catch { /* never holds; explained below */ }
      const r = re
      test = r ? (x) => { const v = get(x); return v !== null && r.test(v) } : NEVER
      what = r ? `matches /${c.value}/${ic ? 'i' : ''}` : `matches /${c.value}/ (the pattern does not compile here: never holds)`
      break
    }
    case 'empty':
      test = (x) => { const v = get(x); return v === null || v === '' }
      what = 'is empty or missing'
      break
    case 'missing':
      test = (x) => get(x) === null
      what = 'is missing'
      break
  }
  const t = test
  const desc = (x: RuleContext) => {
    const v = get(x)
    return `parameter ${c.name} is ${v === null ? 'missing' : JSON.stringify(v)}; ${what}: ${t(x) ? 'yes' : 'no'}`
  }
  return { test: t, describe: desc }
}

const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`

function time(c: ConditionOf<'time'>): Node {
  const clock = ZoneClock.of(c.tz)
  if (!clock) return { test: NEVER, describe: () => `time zone ${JSON.stringify(c.tz)} is unknown here: never holds` }
  const window = c.from !== undefined && c.to !== undefined
  const from = window ? minutesOf(c.from!) : 0
  const to = window ? minutesOf(c.to!) : 0
  const wraps = window && to < from
  let mask = 0
  for (const d of c.days ?? DAYS) mask |= 1 << DAYS.indexOf(d)
  const allDays = mask === 0x7f
  /** The weekday the click counts for, or -1 when outside the window. */
  const dayOf = (now: number): number => {
    const day = clock.weekday(now)
    if (!window) return day
    const m = clock.minuteOfDay(now)
    if (!wraps) return m >= from && m < to ? day : -1
    if (m >= from) return day
    // After midnight in a window that wraps: it began the day before.
    return m < to ? (day + 6) % 7 : -1
  }
  const test: Predicate = (x) => {
    const d = dayOf(x.now)
    return d >= 0 && (allDays || (mask & (1 << d)) !== 0)
  }
  return {
    test,
    describe: (x) => {
      const m = clock.minuteOfDay(x.now)
      const d = dayOf(x.now)
      const local = `${DAYS[clock.weekday(x.now)]} ${hhmm(m)} ${clock.zone}`
      const parts: string[] = []
      if (window) parts.push(`${d >= 0 ? 'in' : 'outside'} ${c.from}–${c.to}`)
      if (!allDays) parts.push(d < 0 ? `days ${(c.days ?? []).join(',')}` : `${DAYS[d]}${wraps && d !== clock.weekday(x.now) ? ' (the window began that day)' : ''} ${(mask & (1 << d)) !== 0 ? 'is in' : 'is not in'} ${(c.days ?? []).join(',')}`)
      return `local time ${local}: ${parts.join('; ')}`
    },
  }
}

export function leaf(c: LeafCondition): Node {
  switch (c.type) {
    // The exact sets are read in place (no matcher closure): one call per condition on the click path.
    case 'country': { const set = new Set<string>(c.values); return member('country', c.values, (x) => x.country, (x) => x.country !== null && set.has(x.country)) }
    case 'region': { const m = folded(c.values); return member('region', c.values, (x) => x.region, (x) => m(x.region)) }
    case 'city': { const m = folded(c.values); return member('city', c.values, (x) => x.city, (x) => m(x.city)) }
    case 'asn': { const set = new Set<number>(c.values); return member('asn', c.values, (x) => x.asn, (x) => x.asn !== null && set.has(x.asn)) }
    case 'as_org': return asOrg(c.values)
    case 'connection': { const set = new Set<string>(c.values); return member('connection', c.values, (x) => x.connection, (x) => set.has(x.connection)) }
    case 'device': { const set = new Set<string>(c.values); return member('device', c.values, (x) => x.device, (x) => set.has(x.device)) }
    case 'os': {
      const m = folded(c.values)
      return software(c, member('os', c.values, (x) => x.os, (x) => m(x.os)), (x) => x.os_version)
    }
    case 'browser': {
      const m = folded(c.values)
      return software(c, member('browser', c.values, (x) => x.browser, (x) => m(x.browser)), (x) => x.browser_version)
    }
    case 'language': { const m = folded(c.values); return member('language', c.values, (x) => x.language, (x) => m(x.language)) }
    case 'referrer_domain': return referrer(c.values)
    case 'ip': return ip(c.values)
    case 'param': return param(c)
    case 'time': return time(c)
    case 'unique': return { test: (x) => x.unique, describe: (x) => (x.unique ? 'a unique visitor' : 'a repeat visitor') }
    case 'bot': return { test: (x) => x.bot, describe: (x) => (x.bot ? 'flagged as a bot' : 'not flagged as a bot') }
  }
}
