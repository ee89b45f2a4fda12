// A NUL (%00) in a value a stranger sends is stored as U+FFFD on both engines: PostgreSQL text cannot hold
// U+0000, and one such click must not fail the batch of other visitors' clicks it was committed with.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, get, type TestServer } from '../helpers/server'
import { testDb } from '../helpers/db'

let s: TestServer

beforeAll(async () => {
  s = await startServer()
  const offer = await s.api('POST', '/admin/api/offers', { name: 'O', slug: 'o-nul', url: 'https://offer.example/?c={click_id}&s={sub1}' })
  const campaign = await s.api('POST', '/admin/api/campaigns', { name: 'C', slug: 'nul', offer_id: offer.body.id })
  expect(campaign.status).toBe(201)
})
afterAll(async () => { await s?.destroy() })

describe('NUL characters from visitors and advertisers', () => {
  test('a click with sub1=%00 among others in the same batch: every visitor gets a 302, the NUL is stored as U+FFFD', async () => {
    const answers = await Promise.all([
      get(`${s.base}/c/nul?sub1=a%00b`),
      ...Array.from({ length: 9 }, (_, i) => get(`${s.base}/c/nul?sub1=plain${i}`)),
    ])
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(302))
    const clickId = new URL(answers[0]!.headers.get('location')!).searchParams.get('c')!
    const row = await testDb(s).get('SELECT sub1 FROM clicks WHERE click_id = $id', { id: clickId })
    expect(row.sub1).toBe('a\uFFFDb')
    const stored = await testDb(s).get("SELECT count(*) AS n FROM clicks WHERE sub1 LIKE 'plain%'")
    expect(stored.n).toBe(9)
  })

  test('a postback with %00 in subid or email answers 200 and records what it can', async () => {
    const click = await get(`${s.base}/c/nul`)
    const clickId = new URL(click.headers.get('location')!).searchParams.get('c')!
    const bad = await fetch(`${s.base}/postback?subid=%00`)
    expect(bad.status).toBe(200)
    await bad.text()
    const ok = await fetch(`${s.base}/postback?subid=${clickId}&email=a%00b%40example.com&tid=T%00`)
    expect([ok.status, await ok.text()]).toEqual([200, 'OK'])
    const row = await testDb(s).get('SELECT email, transaction_id FROM conversions WHERE click_id = $id', { id: clickId })
    expect(row).toEqual({ email: 'a\uFFFDb@example.com', transaction_id: 'T\uFFFD' })
  })
})
