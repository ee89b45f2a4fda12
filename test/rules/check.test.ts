// Saving conditions (src/rules/check.ts): what is refused, with the field named, and what is stored.
import { describe, expect, test } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import { AppError } from '../../src/lib/errors'
import { checkConditions, ConditionsInput, ConditionsSchema, DEVICES, MAX_CONDITIONS, MAX_VALUES, type RuleDevice } from '../../src/rules'
import { regexProblem } from '../../src/rules/regex'
import { parseUserAgent, type DeviceType } from '../../src/tracking/quality/user-agent'

/** The `invalid` error message checkConditions throws for these conditions. */
function refusal(conditions: unknown): string {
  try {
    checkConditions(conditions)
  } catch (e) {
    expect(e).toBeInstanceOf(AppError)
    expect((e as AppError).code).toBe('invalid')
    return (e as AppError).message
  }
  throw new Error('accepted')
}

describe('refused, naming the field', () => {
  test('shape: not a list, unknown type, a field of the wrong kind or extra', () => {
    expect(refusal({ type: 'country' })).toBe('conditions: must be an array of conditions')
    expect(refusal([null])).toBe('conditions.0: must be an object with a type')
    expect(refusal([{ type: 'planet', values: ['mars'] }])).toBe(
      'conditions.0.type: must be one of country, region, city, asn, as_org, connection, device, os, browser, language, referrer_domain, ip, param, time, unique, bot, group')
    expect(refusal([{ type: 'unique' }, { type: 'country', values: ['USA'] }])).toBe("conditions.1.values.0: Expected string to match '^[A-Za-z]{2}$'")
    expect(refusal([{ type: 'country', values: [] }])).toBe('conditions.0.values: Expected array length to be greater or equal to 1')
    expect(refusal([{ type: 'country', values: ['US'], negate: 'yes' }])).toBe('conditions.0.negate: Expected boolean')
    expect(refusal([{ type: 'bot', values: ['x'] }])).toBe('conditions.0.values: Unexpected property')
    expect(refusal([{ type: 'asn', values: [15169, '13238'] }])).toBe('conditions.0.values.1: Expected integer')
    expect(refusal([{ type: 'device', values: ['phone'] }])).toBe('conditions.0.values.0: must be one of desktop, mobile, tablet, bot, unknown')
    expect(refusal([{ type: 'os', values: ['Android'], version: { op: 'gt', value: 12 } }])).toBe('conditions.0.version.op: must be one of eq, gte, lte')
    expect(refusal([{ type: 'os', values: ['Windows'], version: { op: 'eq', value: 'eleven' } }])).toBe("conditions.0.version.value: must be a major version: 17, '8.1', 'XP', 'Vista'")
    expect(refusal([{ type: 'city', values: ['  '] }])).toBe('conditions.0.values.0: must not be blank')
    expect(refusal([{ type: 'as_org', values: ['a\0b'] }])).toBe('conditions.0.values.0: must not contain NUL characters')
  })

  test('ip entries, referrer domains, time zones and windows', () => {
    expect(refusal([{ type: 'ip', values: ['10.0.0.0/8', '10.0.0.1/8'] }])).toBe(
      'conditions.0.values.1: "10.0.0.1/8" has address bits set beyond the /8 prefix (did you mean 10.0.0.0/8?)')
    expect(refusal([{ type: 'ip', values: ['2001:db8::/129'] }])).toContain('conditions.0.values.0: "2001:db8::/129" has a bad prefix')
    expect(refusal([{ type: 'ip', values: ['example.com'] }])).toBe('conditions.0.values.0: "example.com" is not an IPv4 or IPv6 address')
    expect(refusal([{ type: 'referrer_domain', values: ['https://example.com/x'] }])).toBe(
      'conditions.0.values.0: must be a domain such as example.com, or *.example.com for it and its subdomains')
    expect(refusal([{ type: 'referrer_domain', values: ['a*.example.com'] }])).toContain('conditions.0.values.0: must be a domain')
    expect(refusal([{ type: 'time', tz: 'Europe/Atlantis', days: ['mon'] }])).toBe('conditions.0.tz: unknown time zone "Europe/Atlantis"')
    expect(refusal([{ type: 'time', tz: 'UTC' }])).toBe('conditions.0: give a window (from and to), days, or both')
    expect(refusal([{ type: 'time', tz: 'UTC', from: '09:00' }])).toBe('conditions.0.to: required with from')
    expect(refusal([{ type: 'time', tz: 'UTC', from: '09:00', to: '09:60' }])).toBe('conditions.0.to: must be a time from 00:00 to 24:00')
    expect(refusal([{ type: 'time', tz: 'UTC', from: '24:00', to: '09:00' }])).toBe('conditions.0.from: must be a time from 00:00 to 23:59')
    expect(refusal([{ type: 'time', tz: 'UTC', from: '00:00', to: '24:00' }])).toBe('conditions.0.to: must differ from from (for whole days, give days only)')
    expect(refusal([{ type: 'time', tz: 'UTC', days: ['monday'] }])).toBe('conditions.0.days.0: must be one of sun, mon, tue, wed, thu, fri, sat')
  })

  test('param: the operands each op takes', () => {
    expect(refusal([{ type: 'param', name: 'sub1', op: 'equals' }])).toBe('conditions.0.value: required for op equals')
    expect(refusal([{ type: 'param', name: 'sub1', op: 'in', value: 'x' }])).toBe('conditions.0.values: required for op in')
    expect(refusal([{ type: 'param', name: 'sub1', op: 'equals', value: 'x', values: ['y'] }])).toBe('conditions.0.values: not used by op equals (give value)')
    expect(refusal([{ type: 'param', name: 'sub1', op: 'missing', value: 'x' }])).toBe('conditions.0.value: not used by op missing')
    expect(refusal([{ type: 'param', name: 'sub1', op: 'empty', ignore_case: true }])).toBe('conditions.0.ignore_case: not used by op empty')
    expect(refusal([{ type: 'param', name: 'sub1', op: 'like', value: 'x' }])).toBe('conditions.0.op: must be one of equals, in, prefix, regex, empty, missing')
    expect(refusal([{ type: 'param', name: ' ', op: 'missing' }])).toBe('conditions.0.name: must not be blank')
  })

  test('a regex that does not compile, is too long, or can backtrack badly', () => {
    const re = (value: string) => refusal([{ type: 'param', name: 'sub1', op: 'regex', value }])
    expect(re('^(fb')).toStartWith('conditions.0.value: the regex is not a valid regular expression (')
    expect(re('a'.repeat(201))).toBe('conditions.0.value: the regex must be at most 200 characters')
    expect(re('')).toBe('conditions.0.value: the regex must not be empty')
    expect(re('^(a)\\1$')).toBe('conditions.0.value: the regex must not use back-references (\\1, \\k<name>)')
    expect(re('^(?<x>a)\\k<x>$')).toBe('conditions.0.value: the regex must not use back-references (\\1, \\k<name>)')
    for (const bad of ['^(a+)+$', '^(a|aa)*$', '^(?:\\w+\\s?)*$', '^((ab)*c)+$', '^(a?){5,}$']) {
      expect([bad, re(bad)]).toEqual([bad, 'conditions.0.value: the regex must not repeat a group that contains a quantifier or | (such as (a+)+ or (a|b)*): it can take exponential time'])
    }
    for (const bad of ['^.*.*.*x$', '.*.*x', '\\w+_\\d+', '^[a-z]+-[a-z]+-\\d+$', '^a{1,100}b{1,100}c{1,100}$']) {
      expect([bad, re(bad)]).toEqual([bad, 'conditions.0.value: the regex has too many open-ended repetitions (*, +, {n,}; an unanchored start counts as one): at most 2, or bound them like {1,20}'])
    }
  })

  test('regexes people write are accepted', () => {
    for (const ok of ['^(fb|ig)_\\d+$', '^\\d+_\\w+$', 'utm_.*', '^[a-z]{1,20}-[a-z]{1,20}-\\d+$', '^(?:us|ca)$', '^(\\d{3})?-x$', '[(+*]', '^\\(a+\\)+', '^a{2}(b{3})+$', 'x{', '^$']) {
      expect([ok, regexProblem(ok)]).toEqual([ok, null])
    }
  })

  test('limits: conditions per path (groups included), items per list, no nested groups', () => {
    const many = (n: number) => Array.from({ length: n }, () => ({ type: 'bot' }))
    expect(checkConditions(many(MAX_CONDITIONS))).toHaveLength(20)
    expect(refusal(many(MAX_CONDITIONS + 1))).toBe('conditions: at most 20 conditions per path (has 21)'.replace('path (', 'path, counting those inside groups ('))
    expect(refusal([...many(15), { type: 'group', negate: true, all: many(6) }])).toBe('conditions: at most 20 conditions per path, counting those inside groups (has 21)')
    expect(refusal([{ type: 'asn', values: Array.from({ length: MAX_VALUES + 1 }, (_, i) => i + 1) }])).toBe('conditions.0.values: Expected array length to be less or equal to 500')
    expect(refusal([{ type: 'group', all: [] }])).toBe('conditions.0.all: Expected array length to be greater or equal to 1')
    expect(refusal([{ type: 'group', negate: true, all: [{ type: 'bot' }, { type: 'group', all: [{ type: 'bot' }] }] }])).toBe('conditions.0.all.1.type: groups do not nest')
    expect(refusal([{ type: 'group', negate: true, all: [{ type: 'bot' }, { type: 'country', values: ['U'] }] }])).toBe("conditions.0.all.1.values.0: Expected string to match '^[A-Za-z]{2}$'")
    expect(refusal([{ type: 'param', name: 'sub1', op: 'equals', value: 'x'.repeat(257) }])).toBe('conditions.0.value: Expected string length less or equal to 256')
  })
})

describe('stored as normalised', () => {
  test('codes in their usual case, domains as tracking reads them, the canonical zone, weekdays in order', () => {
    expect(checkConditions([
      { type: 'country', values: ['us', 'De'] },
      { type: 'language', values: ['EN'] },
      { type: 'referrer_domain', values: ['WWW.Example.COM.', '*.Google.com', 'bücher.de'] },
      { type: 'ip', values: [' 10.0.0.0/8 '] },
      { type: 'city', values: [' Berlin '] },
      { type: 'time', tz: 'europe/berlin', days: ['sun', 'mon', 'sun'] },
      { type: 'group', negate: true, all: [{ type: 'bot' }] },
    ])).toEqual([
      { type: 'country', values: ['US', 'DE'] },
      { type: 'language', values: ['en'] },
      { type: 'referrer_domain', values: ['example.com', '*.google.com', 'xn--bcher-kva.de'] },
      { type: 'ip', values: ['10.0.0.0/8'] },
      { type: 'city', values: ['Berlin'] },
      { type: 'time', tz: 'Europe/Berlin', days: ['sun', 'mon'] },
      { type: 'group', negate: true, all: [{ type: 'bot' }] },
    ])
  })

  test('the input is not changed, and what is stored passes the exact schema', () => {
    const input = [{ type: 'country', values: ['us'] }, { type: 'param', name: 'sub1', op: 'in', values: ['a'] }]
    const stored = checkConditions(input)
    expect(input[0]!.values).toEqual(['us'])
    expect(Value.Check(ConditionsSchema, stored)).toBe(true)
    // The verb input shape lets checkConditions name the exact field instead of "Expected union value".
    expect(Value.Check(ConditionsInput, [{ type: 'country', values: ['USA'] }])).toBe(true)
    expect(Value.Check(ConditionsInput, [{ type: 'planet' }])).toBe(false)
  })
})

test('device types are the ones tracking/quality/user-agent.ts reports', () => {
  // Both ways at the type level: a new device type on either side fails to compile here.
  const fromTracking: RuleDevice[] = [] as DeviceType[]
  const toTracking: DeviceType[] = [] as RuleDevice[]
  void fromTracking, void toTracking
  expect(parseUserAgent('Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148').device_type).toBe('mobile')
  expect([...DEVICES].sort()).toEqual(['bot', 'desktop', 'mobile', 'tablet', 'unknown'])
})
