// The layering of src/ (scripts/layers.ts states the rules; docs/architecture.md, "Layers"). Every rule holds
// with no exception: an import that breaks one fails here, named with its rule.
import { describe, expect, test } from 'bun:test'
import { imports, violations } from '../../scripts/layers'

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
    expect(core.map((v) => `${v.rule}: ${v.from} → ${v.to}`)).toEqual([])
  })

  test('a feature imports another only through its index.ts', () => {
    // What another feature needs is exported from its index.ts (types with `export type`); what several
    // share and none owns is a generic helper in lib/ or db/.
    const cross = violations().filter((v) => v.rule === 'a feature imports another only through its index.ts')
    expect(cross.map((v) => `${v.from} → ${v.to}`)).toEqual([])
  })
})
