// The layering of src/ (scripts/layers.ts states the rules). The core rules hold; features reaching into
// each other's internals may not grow past the count measured when the rule was written (it is being
// brought down to zero: docs/architecture.md, "Layers").
import { describe, expect, test } from 'bun:test'
import { imports, violations } from '../../scripts/layers'

/** Known exceptions to the core rules (none left: keep it that way). */
const CORE_EXCEPTIONS = new Set<string>([])
/** Feature-internal imports across features when the rule was written; lower it as they move to index.ts. */
const CROSS_FEATURE_BUDGET = 94

describe('layers', () => {
  test('the import scanner sees the tree (a scanner that saw nothing would pass everything)', () => {
    const all = imports()
    expect(all.length).toBeGreaterThan(500)
    expect(all).toContainEqual({ from: 'server.ts', to: 'context.ts' })
    // A forbidden edge is reported with its rule.
    expect(violations([{ from: 'lib/x.ts', to: 'postback/record.ts' }])).toEqual([
      { from: 'lib/x.ts', to: 'postback/record.ts', rule: 'lib imports only lib' },
    ])
    expect(violations([{ from: 'commerce/a.ts', to: 'postback/record.ts' }])[0]!.rule).toBe('a feature imports another only through its index.ts')
    expect(violations([{ from: 'commerce/a.ts', to: 'postback/index.ts' }, { from: 'commerce/a.ts', to: 'commerce/b.ts' }])).toEqual([])
  })

  test('lib/ knows no feature, db/ no feature, events.ts no feature', () => {
    const core = violations().filter((v) => v.rule !== 'a feature imports another only through its index.ts')
    expect(core.map((v) => `${v.from} → ${v.to}`).filter((e) => !CORE_EXCEPTIONS.has(e))).toEqual([])
  })

  test('features reach into each other\'s internals no more than before', () => {
    const cross = violations().filter((v) => v.rule === 'a feature imports another only through its index.ts')
    expect(cross.length).toBeLessThanOrEqual(CROSS_FEATURE_BUDGET)
  })
})
