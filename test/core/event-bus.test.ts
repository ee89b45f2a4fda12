// The event bus's contract: phases, order, a unit's after-commit delivery, the before-commit phase of a
// transaction's units, and failure isolation.
import { describe, expect, spyOn, test } from 'bun:test'
import { EventBus } from '../../src/lib/event-bus'

const change = { entity: 'offer' as const, id: 7, action: 'updated' as const }

describe('EventBus', () => {
  test('a unit runs in-transaction subscribers at emit and after-commit ones only at commit, in subscription order', () => {
    const bus = new EventBus()
    const seen: string[] = []
    bus.on('catalog.changed', 'after-commit', 'late', (p) => { seen.push(`after:${p.id}`) })
    bus.on('catalog.changed', 'in-transaction', 'first', (p) => { seen.push(`tx1:${p.id}`) })
    bus.on('catalog.changed', 'in-transaction', 'second', () => { seen.push('tx2') })
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

  test('async in-transaction subscribers (Postgres) run one after the other with the unit\'s tx; emit returns their promise', async () => {
    const bus = new EventBus()
    const seen: string[] = []
    const tx = { marker: 'tx' } as never
    bus.on('catalog.changed', 'in-transaction', 'sync-first', (_p, t) => { seen.push(`sync:${t === tx}`) })
    bus.on('catalog.changed', 'in-transaction', 'async', async (_p, t) => {
      await Bun.sleep(5)
      seen.push(`async:${t === tx}`)
    })
    bus.on('catalog.changed', 'in-transaction', 'after-async', () => { seen.push('last') })
    const unit = bus.unit(tx)
    const done = unit.emit('catalog.changed', change)
    expect(done).toBeInstanceOf(Promise)
    expect(seen).toEqual(['sync:true']) // the rest waits for the async one
    await done
    expect(seen).toEqual(['sync:true', 'async:true', 'last'])
    // With only synchronous subscribers (SQLite), emit returns nothing to await.
    const plain = new EventBus()
    plain.on('catalog.changed', 'in-transaction', 'sync', () => {})
    expect(plain.unit().emit('catalog.changed', change)).toBeUndefined()
  })

  test('an async in-transaction subscriber that rejects rejects the emit (the emitter rolls back)', async () => {
    const bus = new EventBus()
    bus.on('catalog.changed', 'in-transaction', 'boom', async () => { throw new Error('deadlock') })
    await expect(bus.unit({} as never).emit('catalog.changed', change) as Promise<void>).rejects.toThrow('deadlock')
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

  test('before-commit: each subscriber once per transaction, with the payloads of the units it keeps, in order', () => {
    const bus = new EventBus()
    const calls: Array<{ name: string; ids: number[]; tx: unknown }> = []
    bus.on('catalog.changed', 'before-commit', 'sum', (ps, tx) => { calls.push({ name: 'sum', ids: ps.map((p) => p.id), tx }) })
    bus.on('catalog.changed', 'before-commit', 'second', (ps) => { calls.push({ name: 'second', ids: ps.map((p) => p.id), tx: null }) })
    bus.on('settings.changed', 'before-commit', 'other-event', () => { calls.push({ name: 'other-event', ids: [], tx: null }) })
    const units = [1, 2, 3].map((id) => {
      const u = bus.unit()
      u.emit('catalog.changed', { ...change, id })
      return u
    })
    // Unit 2 was rolled back to its savepoint: the emitter leaves it out. No settings.changed was emitted.
    expect(bus.beforeCommit([units[0]!, units[2]!], null)).toBeUndefined()
    expect(calls).toEqual([{ name: 'sum', ids: [1, 3], tx: null }, { name: 'second', ids: [1, 3], tx: null }])
    // Nothing emitted: no call at all.
    calls.length = 0
    bus.beforeCommit([bus.unit()], null)
    expect(calls).toEqual([])
    expect(bus.subscribers('catalog.changed', 'before-commit')).toEqual(['sum', 'second'])
  })

  test('async before-commit subscribers (Postgres) run one after another with the tx; a rejection reaches the emitter', async () => {
    const bus = new EventBus()
    const seen: string[] = []
    const tx = { marker: 'tx' } as never
    bus.on('catalog.changed', 'before-commit', 'slow', async (ps, t) => {
      await Bun.sleep(5)
      seen.push(`slow:${ps.length}:${t === tx}`)
    })
    bus.on('catalog.changed', 'before-commit', 'then', (ps) => { seen.push(`then:${ps.length}`) })
    const u = bus.unit(tx)
    u.emit('catalog.changed', change)
    const done = bus.beforeCommit([u], tx)
    expect(done).toBeInstanceOf(Promise)
    expect(seen).toEqual([])
    await done
    expect(seen).toEqual(['slow:1:true', 'then:1'])

    const failing = new EventBus()
    failing.on('catalog.changed', 'before-commit', 'boom', async () => { throw new Error('deadlock detected') })
    const f = failing.unit(tx)
    f.emit('catalog.changed', change)
    await expect(failing.beforeCommit([f], tx) as Promise<void>).rejects.toThrow('deadlock detected')
  })

  test('a unit committed without the before-commit phase its events need is logged as an error (and still delivered)', () => {
    const bus = new EventBus()
    const errors = spyOn(console, 'error').mockImplementation(() => {})
    let after = 0
    bus.on('catalog.changed', 'before-commit', 'rollup', () => {})
    bus.on('catalog.changed', 'after-commit', 'count', () => { after++ })
    const skipped = bus.unit()
    skipped.emit('catalog.changed', change)
    skipped.commit()
    expect(after).toBe(1)
    expect(String(errors.mock.calls[0]?.[0])).toContain('catalog.changed was committed without its before-commit phase')
    errors.mockClear()
    const prepared = bus.unit()
    prepared.emit('catalog.changed', change)
    bus.beforeCommit([prepared], null)
    prepared.commit()
    expect(after).toBe(2)
    expect(errors.mock.calls).toHaveLength(0)
    errors.mockRestore()
  })
})
