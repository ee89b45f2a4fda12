import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { get, startServer, type TestServer } from '../helpers/server'
import { clickRow, cookieClickId, seeder, SERVER_TIMEOUT_MS } from './seed'

let s: TestServer
let seed: ReturnType<typeof seeder>
beforeAll(async () => {
  s = await startServer()
  seed = seeder(s)
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

/** Fires n clicks, 20 at a time, and tallies where they went. */
async function tally(path: string, n: number, key: (res: Response) => string | Promise<string>): Promise<Map<string, number>> {
  const counts = new Map<string, number>()
  for (let done = 0; done < n; done += 20) {
    const batch = await Promise.all(Array.from({ length: Math.min(20, n - done) }, () => get(`${s.base}${path}`)))
    for (const res of batch) {
      expect(res.status).toBe(302)
      const k = await key(res)
      counts.set(k, (counts.get(k) ?? 0) + 1)
    }
  }
  return counts
}

describe('weighted rotation', () => {
  test('offers are picked roughly by weight; a weight-0 offer and an unlinked offer are never picked', async () => {
    const a = await seed.offer('https://offer.example/a')
    const b = await seed.offer('https://offer.example/b')
    const zero = await seed.offer('https://offer.example/zero')
    await seed.offer('https://offer.example/unlinked')
    await seed.campaign({ slug: 'rot', offers: [[a, 75], [b, 25], [zero, 0]] })
    const counts = await tally('/c/rot', 400, (res) => res.headers.get('location')!)
    expect([...counts.keys()].sort()).toEqual(['https://offer.example/a', 'https://offer.example/b'])
    // Expected 300/100; bounds are > 8 standard deviations wide, so this cannot flake.
    expect(counts.get('https://offer.example/a')!).toBeGreaterThan(230)
    expect(counts.get('https://offer.example/b')!).toBeGreaterThan(40)
  })

  test('landings rotate by weight, and the offer stored with each click is an independent weighted pick', async () => {
    const o1 = await seed.offer('https://offer.example/o1')
    const o2 = await seed.offer('https://offer.example/o2')
    const l1 = await seed.landing({ url: 'https://lp.example/1' })
    const l2 = await seed.landing({ url: 'https://lp.example/2' })
    const l0 = await seed.landing({ url: 'https://lp.example/never' })
    await seed.campaign({ slug: 'rot-lp', offers: [[o1, 50], [o2, 50]], landings: [[l1, 20], [l2, 80], [l0, 0]] })
    const offers = new Map<number, number>()
    const pairs = new Set<string>()
    const counts = await tally('/c/rot-lp', 400, async (res) => {
      const row = (await clickRow(s, cookieClickId(res)!))!
      offers.set(row.offer_id, (offers.get(row.offer_id) ?? 0) + 1)
      pairs.add(`${row.landing_id}/${row.offer_id}`)
      return res.headers.get('location')!
    })
    expect([...counts.keys()].sort()).toEqual(['https://lp.example/1', 'https://lp.example/2'])
    expect(counts.get('https://lp.example/2')!).toBeGreaterThan(260) // expected 320
    expect(counts.get('https://lp.example/1')!).toBeGreaterThan(30) // expected 80
    expect(offers.get(o1)!).toBeGreaterThan(120) // expected 200 each
    expect(offers.get(o2)!).toBeGreaterThan(120)
    expect(pairs.size).toBe(4) // every landing meets every offer: the picks are independent
  })
})
