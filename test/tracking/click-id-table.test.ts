// The click index's tail table: click_id → offset without a string per click. Lookups must answer exactly
// what a Map would, for UUIDs of any version and for ids that are not UUIDs.
import { describe, expect, test } from 'bun:test'
import { ClickIdTable, uuidWords } from '../../src/tracking/store/click-id-table'

describe('ClickIdTable', () => {
  test('answers like a Map over a full bucket of random v4 ids, including deletions', () => {
    const n = 4096
    const table = new ClickIdTable(n)
    const map = new Map<string, number>()
    const ids = Array.from({ length: n }, () => crypto.randomUUID())
    ids.forEach((id, i) => {
      table.set(id, i)
      map.set(id, i)
    })
    expect(table.size).toBe(n)
    for (let i = 0; i < n; i += 3) {
      expect(table.delete(ids[i]!)).toBe(true)
      map.delete(ids[i]!)
    }
    expect(table.delete(ids[0]!)).toBe(false)
    expect(table.size).toBe(map.size)
    for (const id of ids) expect(table.get(id)).toBe(map.get(id))
    for (let i = 0; i < 1000; i++) expect(table.get(crypto.randomUUID())).toBeUndefined()
  })

  test('time-ordered ids sharing their leading bits (v7) stay distinct', () => {
    const table = new ClickIdTable(1000)
    const ids = Array.from({ length: 1000 }, (_, i) => `0190a1b2-c3d4-7${(i % 4096).toString(16).padStart(3, '0')}-8000-${i.toString(16).padStart(12, '0')}`)
    ids.forEach((id, i) => table.set(id, i))
    ids.forEach((id, i) => expect(table.get(id)).toBe(i))
    expect(table.get('0190a1b2-c3d4-7000-8000-000000001000')).toBeUndefined()
  })

  test('setting an id again moves it; ids that are not lower-case UUIDs are kept aside, exactly', () => {
    const table = new ClickIdTable(8)
    const id = '0b1c2d3e-4f50-4617-8899-aabbccddeeff'
    table.set(id, 1)
    table.set(id, 5)
    expect(table.get(id)).toBe(5)
    expect(table.size).toBe(1)
    table.set('legacy-click-7', 2)
    table.set('0B1C2D3E-4F50-4617-8899-AABBCCDDEEFF', 3)
    expect(table.get('legacy-click-7')).toBe(2)
    expect(table.get('0B1C2D3E-4F50-4617-8899-AABBCCDDEEFF')).toBe(3)
    expect(table.get(id)).toBe(5)
    expect(table.size).toBe(3)
    expect(table.delete('legacy-click-7')).toBe(true)
    expect(table.get('legacy-click-7')).toBeUndefined()
  })

  test('a table filled to its stated size with deletions in between still finds every id and misses cleanly', () => {
    const table = new ClickIdTable(64)
    const ids = Array.from({ length: 64 }, () => crypto.randomUUID())
    ids.forEach((id, i) => table.set(id, i))
    for (let i = 0; i < 64; i += 2) table.delete(ids[i]!)
    ids.forEach((id, i) => expect(table.get(id)).toBe(i % 2 === 0 ? undefined : i))
    expect(table.get(crypto.randomUUID())).toBeUndefined()
  })
})

describe('uuidWords', () => {
  test('reads the 128 bits in order and refuses anything else', () => {
    const w = new Int32Array(4)
    expect(uuidWords('01234567-89ab-cdef-0123-456789abcdef', w)).toBe(true)
    expect([...w].map((x) => (x >>> 0).toString(16).padStart(8, '0'))).toEqual(['01234567', '89abcdef', '01234567', '89abcdef'])
    for (const bad of ['01234567-89ab-cdef-0123-456789abcde', '01234567x89ab-cdef-0123-456789abcdef', '0123456g-89ab-cdef-0123-456789abcdef', '01234567-89AB-cdef-0123-456789abcdef', '']) {
      expect(uuidWords(bad, w)).toBe(false)
    }
  })
})
