// A small seeded PRNG (mulberry32): the same FUZZ_SEED replays the same requests in the same order.
export class Rng {
  private state: number
  constructor(readonly seed: number) {
    this.state = seed >>> 0
  }
  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0)
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  int(max: number): number {
    return Math.floor(this.next() * max)
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!
  }
  chance(p: number): boolean {
    return this.next() < p
  }
  /** `n` random bytes (any value 0..255). */
  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n)
    for (let i = 0; i < n; i++) out[i] = this.int(256)
    return out
  }
}
