// Group commit of postbacks: concurrent postbacks share a transaction, yet each is recorded (or fails)
// on its own, and nobody is told OK before their conversion is committed.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { addClick, conversionsOf, countRows, seedCatalog, type Catalog } from './seed'

let s: TestServer
let c: Catalog

beforeAll(async () => {
  s = await startServer({ SVC_TRUST_PROXY: '1' })
  c = seedCatalog(s, { postbackUrl: 'https://source.example/pb?c={click_id}' })
})
afterAll(() => s.destroy())

const postback = (query: string, i = 0) =>
  fetch(`${s.base}/postback?${query}`, { headers: { 'x-forwarded-for': `198.51.100.${(i % 250) + 1}` } })

describe('postback group commit', () => {
  test('60 concurrent postbacks for 60 clicks are all answered OK, each with its conversion and forward job', async () => {
    const clicks = await Promise.all(Array.from({ length: 60 }, () => addClick(s, c)))
    const jobsBefore = countRows(s, 'jobs')
    const answers = await Promise.all(clicks.map((id, i) => postback(`subid=${id}&payout=${i + 1}`, i)))
    for (const res of answers) {
      expect(res.status).toBe(200)
      expect(await res.text()).toBe('OK')
    }
    clicks.forEach((id, i) => expect(conversionsOf(s, id).map((x) => x.revenue)).toEqual([i + 1]))
    expect(countRows(s, 'jobs') - jobsBefore).toBe(60)
  })

  test('a postback that fails inside a batch gets a 500 alone; the others of its batch are recorded', async () => {
    const raw = s.ctx.database.raw
    raw.exec("CREATE TRIGGER refuse_boom BEFORE INSERT ON conversions WHEN NEW.transaction_id = 'boom' BEGIN SELECT RAISE(ABORT, 'boom'); END")
    try {
      const clicks = await Promise.all(Array.from({ length: 10 }, () => addClick(s, c)))
      const answers = await Promise.all(clicks.map((id, i) => postback(`subid=${id}&tid=${i === 4 ? 'boom' : `ok-${i}`}`, i)))
      answers.forEach((res, i) => expect(res.status).toBe(i === 4 ? 500 : 200))
      expect(await answers[4]!.json()).toEqual({ error: 'internal error' })
      clicks.forEach((id, i) => expect(conversionsOf(s, id)).toHaveLength(i === 4 ? 0 : 1))
      // Its forward job was rolled back with it.
      const jobsForBoom = raw.prepare("SELECT count(*) AS n FROM jobs WHERE payload LIKE '%' || $id || '%'").get({ id: clicks[4]! }) as { n: number }
      expect(jobsForBoom.n).toBe(0)
    } finally {
      raw.exec('DROP TRIGGER refuse_boom')
    }
  })

  test('with postback_dedup, two identical postbacks in the same batch record one conversion', async () => {
    await s.api('PUT', '/admin/api/settings', { postback_dedup: true })
    try {
      const id = await addClick(s, c)
      const answers = await Promise.all([postback(`subid=${id}&tid=same`, 1), postback(`subid=${id}&tid=same`, 2)])
      for (const res of answers) expect(res.status).toBe(200)
      expect(conversionsOf(s, id)).toHaveLength(1)
    } finally {
      await s.api('PUT', '/admin/api/settings', { postback_dedup: false })
    }
  })
})

describe('PostbackBatcher', () => {
  test('submits of one event-loop turn share one transaction; a throwing one is rolled back to its savepoint', async () => {
    const { PostbackBatcher } = await import('../../src/postback/batch')
    const raw = s.ctx.database.raw
    raw.exec('CREATE TABLE IF NOT EXISTS batch_probe (q TEXT)')
    const insert = raw.prepare('INSERT INTO batch_probe (q) VALUES ($q)')
    const inTransaction: boolean[] = []
    const receiver = {
      receive(q: string) {
        insert.run({ q })
        // Inside a savepoint of an open transaction, a nested BEGIN fails: proof we are in the batch's transaction.
        try { raw.exec('BEGIN'); raw.exec('ROLLBACK'); inTransaction.push(false) } catch { inTransaction.push(true) }
        if (q === 'bad') throw new Error('bad postback')
        return { kind: 'recorded', conversionId: 1 } as const
      },
    }
    const batcher = new PostbackBatcher({ transaction: (fn) => raw.transaction(fn)() }, s.ctx.events, receiver as never)
    const results = await Promise.allSettled([batcher.submit('a', 'ip'), batcher.submit('bad', 'ip'), batcher.submit('c', 'ip')])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect(inTransaction).toEqual([true, true, true])
    const rows = raw.prepare('SELECT q FROM batch_probe ORDER BY rowid').all() as Array<{ q: string }>
    expect(rows.map((r) => r.q)).toEqual(['a', 'c'])
    raw.exec('DROP TABLE batch_probe')
  })
})
