// The event bus's contract: phases, order, a unit's after-commit delivery, and failure isolation.
import { describe, expect, spyOn, test } from 'bun:test'
import { EventBus } from '../../src/lib/event-bus'

const change = { entity: 'offer' as const, id: 7, action: 'updated' as const }

describe('EventBus', () => {
  test('a unit runs in-transaction subscribers at emit and after-commit ones only at commit, in subscription order', () => {
    const bus = new EventBus()
    const seen: string[] = []
    bus.on('catalog.changed', 'after-commit', 'late', (p) => seen.push(`after:${p.id}`))
    bus.on('catalog.changed', 'in-transaction', 'first', (p) => seen.push(`tx1:${p.id}`))
    bus.on('catalog.changed', 'in-transaction', 'second', () => seen.push('tx2'))
    const unit = bus.unit()
    unit.emit('catalog.changed', change)
    expect(seen).toEqual(['tx1:7', 'tx2'])
    unit.commit()
    expect(seen).toEqual(['tx1:7', 'tx2', 'after:7'])
    unit.commit() // delivered once
    expect(seen).toHaveLength(3)
    expect(bus.subscribers('catalog.changed', 'in-transaction')).toEqual(['first', 'second'])
    expect(bus.subscribers('settings.changed', 'after-commit')).toEqual([])
  })

  test('a throwing in-transaction subscriber reaches the emitter; an uncommitted unit delivers nothing after commit', () => {
    const bus = new EventBus()
    let after = 0
    bus.on('catalog.changed', 'in-transaction', 'boom', () => { throw new Error('disk full') })
    bus.on('catalog.changed', 'after-commit', 'count', () => { after++ })
    const unit = bus.unit()
    expect(() => unit.emit('catalog.changed', change)).toThrow('disk full')
    // The emitter's transaction rolled back, so it drops the unit instead of committing it.
    expect(after).toBe(0)
  })

  test('a failing after-commit subscriber is logged and the others still run', () => {
    const bus = new EventBus()
    const errors = spyOn(console, 'error').mockImplementation(() => {})
    let ran = 0
    bus.on('settings.changed', 'after-commit', 'broken', () => { throw new Error('nope') })
    bus.on('settings.changed', 'after-commit', 'fine', () => { ran++ })
    bus.committed('settings.changed', { keys: ['x'] })
    expect(ran).toBe(1)
    expect(String(errors.mock.calls[0]?.[0])).toContain('broken failed on settings.changed')
    errors.mockRestore()
  })
})
