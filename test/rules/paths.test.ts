// A campaign's paths in order (src/rules/paths.ts): the first that holds wins; none → the default rotation.
import { describe, expect, test } from 'bun:test'
import { checkConditions, compilePath, fieldsUsed, firstMatch, tracePaths, type PathAction, type PathSpec } from '../../src/rules'
import { ctx, query } from './ctx'

const spec = (id: number, conditions: unknown, action: PathAction): PathSpec => ({ id, conditions: checkConditions(conditions), action })

const PATHS: PathSpec[] = [
  spec(1, [{ type: 'bot' }], { type: 'bot_url' }),
  spec(2, [{ type: 'connection', values: ['hosting'] }], { type: 'not_found' }),
  spec(3, [{ type: 'country', values: ['US', 'CA'] }, { type: 'device', values: ['mobile'] }], { type: 'url', url: 'https://m.example.com/?c={click_id}' }),
  spec(4, [{ type: 'country', values: ['US', 'CA'] }], { type: 'rotation', offers: [{ offer_id: 7, weight: 100 }], landings: [] }),
]
const compiled = PATHS.map((p) => compilePath(p.id, p.conditions, p.action))

describe('firstMatch', () => {
  test('the first path whose conditions hold takes the visitor, in the order given', () => {
    expect(firstMatch(compiled, ctx({ country: 'US', device: 'mobile' }))?.id).toBe(3)
    expect(firstMatch(compiled, ctx({ country: 'US' }))?.id).toBe(4)
    // A bot from a US data centre on a phone matches 1, 2, 3 and 4: the first wins.
    const bot = ctx({ country: 'US', device: 'mobile', connection: 'hosting', bot: true })
    expect(firstMatch(compiled, bot)?.id).toBe(1)
    expect(firstMatch([...compiled].reverse(), bot)?.id).toBe(4)
    expect(firstMatch(compiled.slice(1), bot)?.id).toBe(2)
  })

  test('none holds → null (the default rotation); no paths → null', () => {
    expect(firstMatch(compiled, ctx())).toBeNull()
    expect(firstMatch([], ctx())).toBeNull()
  })

  test('the action comes back as the cache resolved it', () => {
    const resolved = PATHS.map((p) => compilePath(p.id, p.conditions, { kind: p.action.type, weightSum: 100 }))
    expect(firstMatch(resolved, ctx({ country: 'CA' }))?.action).toEqual({ kind: 'rotation', weightSum: 100 })
  })

  test('a path without conditions takes every visitor that reaches it', () => {
    const catchAll = [...compiled.slice(0, 1), compilePath(9, [], { type: 'not_found' }), ...compiled.slice(1)]
    expect(firstMatch(catchAll, ctx({ country: 'US' }))?.id).toBe(9)
    expect(firstMatch(catchAll, ctx({ bot: true }))?.id).toBe(1)
  })
})

describe('tracePaths', () => {
  test('each path tried up to the one that took the visitor, each condition with its outcome', () => {
    const trace = tracePaths(PATHS, ctx({ country: 'CA', query: query({ sub1: 'x' }) }))
    expect(trace.matched).toBe(4)
    expect(trace.paths.map((p) => [p.id, p.outcome, p.conditions.map((c) => c.outcome)])).toEqual([
      [1, false, [false]],
      [2, false, [false]],
      [3, false, [true, false]],
      [4, true, [true]],
    ])
    expect(trace.paths[2]!.conditions[1]!.detail).toBe('device "desktop" is not in [mobile]')
  })

  test('no path holds: matched null, every path shown', () => {
    const trace = tracePaths(PATHS, ctx())
    expect(trace.matched).toBeNull()
    expect(trace.paths.map((p) => p.id)).toEqual([1, 2, 3, 4])
  })

  test('agrees with firstMatch on many visitors', () => {
    const countries = ['US', 'CA', 'DE', null]
    const devices = ['mobile', 'desktop', 'tablet'] as const
    for (const country of countries) for (const device of devices) for (const bot of [true, false]) for (const connection of ['hosting', 'residential'] as const) {
      const c = ctx({ country, device, bot, connection })
      expect(tracePaths(PATHS, c).matched).toBe(firstMatch(compiled, c)?.id ?? null)
    }
  })
})

test('fieldsUsed names what the conditions read, groups included (what the tracker must compute)', () => {
  const used = new Set<string>()
  for (const p of PATHS) fieldsUsed(p.conditions, used as never)
  expect([...used].sort()).toEqual(['bot', 'connection', 'country', 'device'])
  expect([...fieldsUsed(checkConditions([
    { type: 'group', negate: true, all: [{ type: 'os', values: ['iOS'] }, { type: 'param', name: 'sub1', op: 'missing' }] },
    { type: 'time', tz: 'UTC', days: ['mon'] },
  ]))].sort()).toEqual(['now', 'os', 'os_version', 'query'])
})
