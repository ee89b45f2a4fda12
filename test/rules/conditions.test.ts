// Every condition type (src/rules): both outcomes, IS NOT, OR inside a list, AND across conditions, groups,
// and the explanation the simulator and the click lookup will show.
import { describe, expect, test } from 'bun:test'
import { checkConditions, explain } from '../../src/rules'
import { both, ctx, holds, query } from './ctx'

const IS: [boolean, boolean] = [true, false]
const IS_NOT: [boolean, boolean] = [false, true]

describe('each condition type: IS and IS NOT', () => {
  test('country (OR over the list; an unknown country is in no list)', () => {
    expect(both({ type: 'country', values: ['US', 'DE'] }, ctx())).toEqual(IS)
    expect(both({ type: 'country', values: ['us', 'ca'] }, ctx({ country: 'US' }))).toEqual(IS) // saved upper case
    expect(both({ type: 'country', values: ['US', 'CA'] }, ctx())).toEqual(IS_NOT)
    expect(both({ type: 'country', values: ['US'] }, ctx({ country: null }))).toEqual(IS_NOT)
  })

  test('region and city, without regard to case', () => {
    expect(both({ type: 'region', values: ['bavaria', 'BERLIN'] }, ctx())).toEqual(IS)
    expect(both({ type: 'region', values: ['Bavaria'] }, ctx())).toEqual(IS_NOT)
    expect(both({ type: 'city', values: ['münchen', 'berlin'] }, ctx())).toEqual(IS)
    expect(both({ type: 'city', values: ['Hamburg'] }, ctx())).toEqual(IS_NOT)
    expect(both({ type: 'city', values: ['Berlin'] }, ctx({ city: null }))).toEqual(IS_NOT)
  })

  test('asn and network name (substrings, without regard to case)', () => {
    expect(both({ type: 'asn', values: [15169, 3320] }, ctx())).toEqual(IS)
    expect(both({ type: 'asn', values: [15169] }, ctx())).toEqual(IS_NOT)
    expect(both({ type: 'asn', values: [15169] }, ctx({ asn: null }))).toEqual(IS_NOT)
    expect(both({ type: 'as_org', values: ['amazon', 'TELEKOM'] }, ctx())).toEqual(IS)
    expect(both({ type: 'as_org', values: ['amazon', 'google'] }, ctx())).toEqual(IS_NOT)
    expect(both({ type: 'as_org', values: ['telekom'] }, ctx({ as_org: null }))).toEqual(IS_NOT)
  })

  test('connection and device type', () => {
    expect(both({ type: 'connection', values: ['hosting'] }, ctx({ connection: 'hosting' }))).toEqual(IS)
    expect(both({ type: 'connection', values: ['hosting', 'unknown'] }, ctx())).toEqual(IS_NOT)
    expect(both({ type: 'device', values: ['mobile', 'tablet'] }, ctx({ device: 'tablet' }))).toEqual(IS)
    expect(both({ type: 'device', values: ['mobile', 'tablet'] }, ctx())).toEqual(IS_NOT)
  })

  test('os and browser, with an optional major version comparison', () => {
    const android = ctx({ os: 'Android', os_version: '14', browser: 'Facebook', browser_version: '470' })
    expect(both({ type: 'os', values: ['ios', 'android'] }, android)).toEqual(IS)
    expect(both({ type: 'os', values: ['iOS'] }, android)).toEqual(IS_NOT)
    expect(both({ type: 'os', values: ['Android'], version: { op: 'gte', value: 12 } }, android)).toEqual(IS)
    expect(both({ type: 'os', values: ['Android'], version: { op: 'gte', value: '15' } }, android)).toEqual(IS_NOT)
    expect(both({ type: 'os', values: ['Android'], version: { op: 'lte', value: 14 } }, android)).toEqual(IS)
    expect(both({ type: 'os', values: ['Android'], version: { op: 'eq', value: 13 } }, android)).toEqual(IS_NOT)
    // An unknown version satisfies no comparison; the name alone still matches.
    expect(both({ type: 'os', values: ['Android'], version: { op: 'lte', value: 99 } }, ctx({ os: 'Android', os_version: null }))).toEqual(IS_NOT)
    expect(both({ type: 'os', values: ['Android'] }, ctx({ os: 'Android', os_version: null }))).toEqual(IS)
    expect(both({ type: 'os', values: ['Android'] }, ctx({ os: null }))).toEqual(IS_NOT)
    expect(both({ type: 'browser', values: ['facebook', 'instagram'], version: { op: 'gte', value: 400 } }, android)).toEqual(IS)
    expect(both({ type: 'browser', values: ['Chrome'] }, android)).toEqual(IS_NOT)
  })

  test('Windows versions by name sort as Windows does: XP < Vista < 7 < 8 < 8.1 < 10', () => {
    const win = (v: string) => ctx({ os: 'Windows', os_version: v })
    const older = { type: 'os', values: ['Windows'], version: { op: 'lte', value: '8.1' } }
    expect(['XP', 'Vista', '7', '8', '8.1', '10'].map((v) => holds([older], win(v)))).toEqual([true, true, true, true, true, false])
    expect(holds([{ type: 'os', values: ['Windows'], version: { op: 'eq', value: 'xp' } }], win('XP'))).toBe(true)
    expect(holds([{ type: 'os', values: ['Windows'], version: { op: 'gte', value: 'Vista' } }], win('XP'))).toBe(false)
    expect(holds([{ type: 'os', values: ['Windows'], version: { op: 'gte', value: 7 } }], win('Vista'))).toBe(false)
  })

  test('language (primary tags)', () => {
    expect(both({ type: 'language', values: ['EN', 'de'] }, ctx())).toEqual(IS)
    expect(both({ type: 'language', values: ['en'] }, ctx())).toEqual(IS_NOT)
    expect(both({ type: 'language', values: ['en'] }, ctx({ language: null }))).toEqual(IS_NOT)
  })

  test('referrer domain: exact, and *.domain for the domain and its subdomains', () => {
    expect(both({ type: 'referrer_domain', values: ['news.example.com'] }, ctx())).toEqual(IS)
    expect(both({ type: 'referrer_domain', values: ['example.com'] }, ctx())).toEqual(IS_NOT)
    expect(both({ type: 'referrer_domain', values: ['*.example.com'] }, ctx())).toEqual(IS)
    // "www." is dropped from a referrer, so www.example.com arrives as example.com: the wildcard covers it.
    expect(both({ type: 'referrer_domain', values: ['*.example.com'] }, ctx({ referrer_domain: 'example.com' }))).toEqual(IS)
    expect(both({ type: 'referrer_domain', values: ['www.Example.com'] }, ctx({ referrer_domain: 'example.com' }))).toEqual(IS)
    expect(both({ type: 'referrer_domain', values: ['*.example.com'] }, ctx({ referrer_domain: 'badexample.com' }))).toEqual(IS_NOT)
    expect(both({ type: 'referrer_domain', values: ['*.example.com'] }, ctx({ referrer_domain: null }))).toEqual(IS_NOT)
    expect(both({ type: 'referrer_domain', values: ['bücher.de'] }, ctx({ referrer_domain: 'xn--bcher-kva.de' }))).toEqual(IS)
  })

  test('ip: addresses and CIDR ranges, IPv4 and IPv6', () => {
    const list = { type: 'ip', values: ['10.0.0.0/8', '93.184.216.34', '2001:db8::/32'] }
    expect(both(list, ctx())).toEqual(IS)
    expect(both(list, ctx({ ip: '10.200.3.4' }))).toEqual(IS)
    expect(both(list, ctx({ ip: '11.0.0.1' }))).toEqual(IS_NOT)
    expect(both(list, ctx({ ip: '2001:db8:ffff::1' }))).toEqual(IS)
    expect(both(list, ctx({ ip: '2001:db9::1' }))).toEqual(IS_NOT)
    expect(both(list, ctx({ ip: '::ffff:10.1.2.3' }))).toEqual(IS) // an IPv4-mapped address is its IPv4 address
    expect(both(list, ctx({ ip: 'unknown' }))).toEqual(IS_NOT)
    expect(both({ type: 'ip', values: ['2a00:1450:4001::/48'] }, ctx({ ip: '2a00:1450:4001:82a::200e' }))).toEqual(IS)
    expect(both({ type: 'ip', values: ['2a00:1450:4001::/48'] }, ctx({ ip: '2a00:1450:4002::1' }))).toEqual(IS_NOT)
  })

  test('unique visitor and bot verdict', () => {
    expect(both({ type: 'unique' }, ctx())).toEqual(IS)
    expect(both({ type: 'unique' }, ctx({ unique: false }))).toEqual(IS_NOT)
    expect(both({ type: 'bot' }, ctx({ bot: true }))).toEqual(IS)
    expect(both({ type: 'bot' }, ctx())).toEqual(IS_NOT)
  })
})

describe('param', () => {
  const q = ctx({ query: query({ sub1: 'fb_123', sub3: '', utm_source: 'Facebook', click_id: 'abc' }) })
  const p = (name: string, op: string, extra: Record<string, unknown> = {}) => both({ type: 'param', name, op, ...extra }, q)

  test('equals, in and prefix: case-sensitive unless ignore_case', () => {
    expect(p('sub1', 'equals', { value: 'fb_123' })).toEqual(IS)
    expect(p('sub1', 'equals', { value: 'FB_123' })).toEqual(IS_NOT)
    expect(p('sub1', 'equals', { value: 'FB_123', ignore_case: true })).toEqual(IS)
    expect(p('utm_source', 'in', { values: ['google', 'Facebook'] })).toEqual(IS)
    expect(p('utm_source', 'in', { values: ['google', 'facebook'] })).toEqual(IS_NOT)
    expect(p('utm_source', 'in', { values: ['google', 'facebook'], ignore_case: true })).toEqual(IS)
    expect(p('sub1', 'prefix', { values: ['ig_', 'fb_'] })).toEqual(IS)
    expect(p('sub1', 'prefix', { values: ['ig_'] })).toEqual(IS_NOT)
    expect(p('click_id', 'equals', { value: 'abc' })).toEqual(IS)
  })

  test('regex', () => {
    expect(p('sub1', 'regex', { value: '^(fb|ig)_\\d+$' })).toEqual(IS)
    expect(p('sub1', 'regex', { value: '^ig_' })).toEqual(IS_NOT)
    expect(p('utm_source', 'regex', { value: '^facebook$', ignore_case: true })).toEqual(IS)
    expect(p('sub3', 'regex', { value: '^$' })).toEqual(IS) // present and empty
    expect(p('sub2', 'regex', { value: '^$' })).toEqual(IS_NOT) // missing: nothing to match
  })

  test('empty (missing or ""), missing (absent from the URL)', () => {
    expect(p('sub3', 'empty')).toEqual(IS)
    expect(p('sub2', 'empty')).toEqual(IS)
    expect(p('sub1', 'empty')).toEqual(IS_NOT)
    expect(p('sub2', 'missing')).toEqual(IS)
    expect(p('sub3', 'missing')).toEqual(IS_NOT)
    expect(p('gclid', 'missing')).toEqual(IS)
    expect(p('utm_source', 'missing')).toEqual(IS_NOT)
  })

  test('a parameter name is never read from the prototype of a plain object', () => {
    const plain = ctx({ query: { subs: [], params: { a: '1' } } })
    expect(holds([{ type: 'param', name: 'constructor', op: 'missing' }], plain)).toBe(true)
    expect(holds([{ type: 'param', name: 'toString', op: 'empty' }], plain)).toBe(true)
    expect(holds([{ type: 'param', name: 'sub4', op: 'missing' }], plain)).toBe(true)
  })
})

describe('combining conditions', () => {
  const us = { type: 'country', values: ['US'] }
  const mobile = { type: 'device', values: ['mobile'] }
  const usMobile = ctx({ country: 'US', device: 'mobile' })

  test('a path holds when all its conditions hold (AND); no conditions = every visitor', () => {
    expect(holds([us, mobile], usMobile)).toBe(true)
    expect(holds([us, mobile], ctx({ country: 'US' }))).toBe(false)
    expect(holds([us, mobile], ctx({ device: 'mobile' }))).toBe(false)
    expect(holds([us, { ...mobile, negate: true }], ctx({ country: 'US' }))).toBe(true)
    expect(holds([], ctx())).toBe(true)
  })

  test('a negated group: NOT (US AND mobile)', () => {
    const notUsMobile = [{ type: 'group', negate: true, all: [us, mobile] }]
    expect(holds(notUsMobile, usMobile)).toBe(false)
    expect(holds(notUsMobile, ctx({ country: 'US' }))).toBe(true)
    expect(holds(notUsMobile, ctx({ device: 'mobile' }))).toBe(true)
    expect(holds(notUsMobile, ctx())).toBe(true)
    // Without negate a group is an AND like the path itself.
    expect(holds([{ type: 'group', all: [us, mobile] }], usMobile)).toBe(true)
    expect(holds([{ type: 'group', all: [us, mobile] }], ctx())).toBe(false)
  })

  test('OR across types: a negated group of negated conditions (US OR mobile)', () => {
    const usOrMobile = [{ type: 'group', negate: true, all: [{ ...us, negate: true }, { ...mobile, negate: true }] }]
    expect(holds(usOrMobile, ctx({ country: 'US' }))).toBe(true)
    expect(holds(usOrMobile, ctx({ device: 'mobile' }))).toBe(true)
    expect(holds(usOrMobile, usMobile)).toBe(true)
    expect(holds(usOrMobile, ctx())).toBe(false)
  })
})

describe('explain', () => {
  test('every condition is evaluated and explained, IS NOT applied to the outcome, groups with their own conditions', () => {
    const conditions = checkConditions([
      { type: 'country', values: ['US', 'CA'] },
      { type: 'device', values: ['mobile'], negate: true },
      { type: 'param', name: 'sub1', op: 'prefix', values: ['fb_'] },
      { type: 'group', negate: true, all: [{ type: 'bot' }, { type: 'ip', values: ['10.0.0.0/8'] }] },
      { type: 'os', values: ['Windows'], version: { op: 'gte', value: 11 } },
    ])
    expect(explain(conditions, ctx({ query: query({ sub1: 'fb_1' }) }))).toEqual([
      { index: 0, type: 'country', negate: false, outcome: false, detail: 'country "DE" is not in [US, CA]' },
      { index: 1, type: 'device', negate: true, outcome: true, detail: 'device "desktop" is not in [mobile]' },
      { index: 2, type: 'param', negate: false, outcome: true, detail: 'parameter sub1 is "fb_1"; starts with one of ["fb_"]: yes' },
      {
        index: 3, type: 'group', negate: true, outcome: true, detail: 'not all hold',
        conditions: [
          { index: 0, type: 'bot', negate: false, outcome: false, detail: 'not flagged as a bot' },
          { index: 1, type: 'ip', negate: false, outcome: false, detail: 'ip "93.184.216.34" is not in [10.0.0.0/8]' },
        ],
      },
      { index: 4, type: 'os', negate: false, outcome: false, detail: 'os "Windows" is in [Windows]; version "10" is not gte 11' },
    ])
  })

  test('unknown values and long lists read plainly', () => {
    const many = Array.from({ length: 12 }, (_, i) => `A${String.fromCharCode(65 + i)}`)
    const [e] = explain(checkConditions([{ type: 'country', values: many }]), ctx({ country: null }))
    expect(e!.detail).toBe('country unknown is not in [AA, AB, AC, AD, AE, AF, AG, AH, AI, AJ, … +2 more]')
    const [m] = explain(checkConditions([{ type: 'param', name: 'gclid', op: 'missing' }]), ctx())
    expect(m!.detail).toBe('parameter gclid is missing; is missing: yes')
  })
})
