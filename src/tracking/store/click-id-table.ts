// click_id → offset of its row in a bucket, for the click index's tail (click-index.ts), without a string
// per click in the heap.
//
// The tail holds up to 65,536 committed clicks per bucket until the bucket is written to click_index. As a
// Map of click_id strings it was ~6 MB of live heap and ~65k old objects at full load, and the collector
// sizes its cycles from the live heap: measured at full load, the process peaked ~40 MB higher with it
// (docs/performance.md, session 6). A UUID is 128 bits: here it is four 32-bit words in one typed array,
// found by open addressing, so the whole table is two allocations the collector never has to trace.
//
// Capacity is at least twice the entries a bucket can hold, so probing always ends at an empty slot (a
// bucket's rows only grow, so entries plus deleted slots never exceed its row count).

/** Marks a slot whose entry was deleted: probing goes on past it; an insert may reuse it. */
const DELETED = -1
const EMPTY = 0

export class ClickIdTable {
  /** Four words per slot: the click_id's 128 bits. */
  private readonly words: Int32Array
  /** Offset + 1 per slot; EMPTY or DELETED. */
  private readonly slots: Int32Array
  private readonly mask: number
  /** Click ids that are not UUIDs: svc never makes one, but a stored row might hold one. */
  private others: Map<string, number> | null = null
  /** Scratch for the id being looked up. */
  private readonly probe = new Int32Array(4)
  private count = 0

  /** For at most `maxEntries` distinct offsets. */
  constructor(maxEntries: number) {
    let capacity = 16
    while (capacity < maxEntries * 2) capacity *= 2
    this.words = new Int32Array(capacity * 4)
    this.slots = new Int32Array(capacity)
    this.mask = capacity - 1
  }

  get size(): number {
    return this.count + (this.others?.size ?? 0)
  }

  get(clickId: string): number | undefined {
    if (!uuidWords(clickId, this.probe)) return this.others?.get(clickId)
    const slot = this.find(this.probe)
    return slot < 0 ? undefined : this.slots[slot]! - 1
  }

  set(clickId: string, offset: number): void {
    const w = this.probe
    if (!uuidWords(clickId, w)) {
      ;(this.others ??= new Map()).set(clickId, offset)
      return
    }
    const found = this.find(w)
    if (found >= 0) {
      this.slots[found] = offset + 1
      return
    }
    let i = hash(w) & this.mask
    while (this.slots[i]! > EMPTY) i = (i + 1) & this.mask
    this.slots[i] = offset + 1
    this.words.set(w, i * 4)
    this.count++
  }

  delete(clickId: string): boolean {
    if (!uuidWords(clickId, this.probe)) return this.others?.delete(clickId) ?? false
    const slot = this.find(this.probe)
    if (slot < 0) return false
    this.slots[slot] = DELETED
    this.count--
    return true
  }

  /** The slot holding `w`, or -1. */
  private find(w: Int32Array): number {
    const { slots, words, mask } = this
    for (let i = hash(w) & mask; ; i = (i + 1) & mask) {
      const s = slots[i]!
      if (s === EMPTY) return -1
      const at = i * 4
      if (s !== DELETED && words[at] === w[0] && words[at + 1] === w[1] && words[at + 2] === w[2] && words[at + 3] === w[3]) return i
    }
  }
}

/** Mixes all four words: time-ordered UUIDs (v1, v7) share their leading bits. */
function hash(w: Int32Array): number {
  const h = Math.imul(w[0]!, 0x9e3779b1) ^ Math.imul(w[1]!, 0x85ebca6b) ^ Math.imul(w[2]!, 0xc2b2ae35) ^ w[3]!
  return h ^ (h >>> 15)
}

/** The 128 bits of a lower-case UUID (8-4-4-4-12 hex digits) into `out`; false when `id` is not one. */
export function uuidWords(id: string, out: Int32Array): boolean {
  if (id.length !== 36) return false
  let word = 0
  let digits = 0
  let k = 0
  for (let i = 0; i < 36; i++) {
    const c = id.charCodeAt(i)
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return false // '-'
      continue
    }
    const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1
    if (d < 0) return false
    word = (word << 4) | d
    if (++digits === 8) {
      out[k++] = word
      word = 0
      digits = 0
    }
  }
  return true
}
