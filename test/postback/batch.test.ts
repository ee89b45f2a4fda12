// Group commit of postbacks: concurrent postbacks share a transaction, yet each is recorded (or fails)
// on its own, and nobody is told OK before their conversion is committed.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { testDb } from '../helpers/db'
import { onPostgres } from '../helpers/pg'
import { addClick, conversionsOf, countRows, seedCatalog, type Catalog } from './seed'

let s: TestServer
let c: Catalog

beforeAll(async () => {
  s = await startServer({ SVC_TRUST_PROXY: '1' })
  c = await seedCatalog(s, { postbackUrl: 'https://source.example/pb?c={click_id}' })
})
afterAll(() => s.destroy())

const postback = (query: string, i = 0) =>
  fetch(`${s.base}/postback?${query}`, { headers: { 'x-forwarded-for': `198.51.100.${(i % 250) + 1}` } })

describe('postback group commit', () => {
  test('60 concurrent postbacks for 60 clicks are all answered OK, each with its conversion and forward job', async () => {
    const clicks = await Promise.all(Array.from({ length: 60 }, () => addClick(s, c)))
    const jobsBefore = await countRows(s, 'jobs')
    const answers = await Promise.all(clicks.map((id, i) => postback(`subid=${id}&payout=${i + 1}`, i)))
    for (const res of answers) {
      expect(res.status).toBe(200)
      expect(await res.text()).toBe('OK')
    }
    for (const [i, id] of clicks.entries()) expect((await conversionsOf(s, id)).map((x) => x.revenue)).toEqual([i + 1])
    expect(await countRows(s, 'jobs') - jobsBefore).toBe(60)
  })

  test('a postback that fails inside a batch gets a 500 alone; the others of its batch are recorded', async () => {
    const db = testDb(s)
    // A trigger that refuses one row: the database itself fails that postback's insert.
    if (onPostgres) {
      await db.run("CREATE FUNCTION refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'boom'; END $$")
      await db.run("CREATE TRIGGER refuse_boom BEFORE INSERT ON conversions FOR EACH ROW WHEN (NEW.transaction_id = 'boom') EXECUTE FUNCTION refuse_boom()")
    } else {
      await db.run("CREATE TRIGGER refuse_boom BEFORE INSERT ON conversions WHEN NEW.transaction_id = 'boom' BEGIN SELECT RAISE(ABORT, 'boom'); END")
    }
    try {
      const clicks = await Promise.all(Array.from({ length: 10 }, () => addClick(s, c)))
      const answers = await Promise.all(clicks.map((id, i) => postback(`subid=${id}&tid=${i === 4 ? 'boom' : `ok-${i}`}`, i)))
      answers.forEach((res, i) => expect(res.status).toBe(i === 4 ? 500 : 200))
      expect(await answers[4]!.json()).toEqual({ error: 'internal error' })
      for (const [i, id] of clicks.entries()) expect(await conversionsOf(s, id)).toHaveLength(i === 4 ? 0 : 1)
      // Its forward job was rolled back with it.
      const jobsForBoom = await db.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE payload LIKE '%' || $id || '%'", { id: clicks[4]! })
      expect(jobsForBoom!.n).toBe(0)
    } finally {
      if (onPostgres) {
        await db.run('DROP TRIGGER refuse_boom ON conversions')
        await db.run('DROP FUNCTION refuse_boom()')
      } else {
        await db.run('DROP TRIGGER refuse_boom')
      }
    }
  })

  test('with postback_dedup, two identical postbacks in the same batch record one conversion', async () => {
    await s.api('PUT', '/admin/api/settings', { postback_dedup: true })
    try {
      const id = await addClick(s, c)
      const answers = await Promise.all([postback(`subid=${id}&tid=same`, 1), postback(`subid=${id}&tid=same`, 2)])
      for (const res of answers) expect(res.status).toBe(200)
      expect(await conversionsOf(s, id)).toHaveLength(1)
    } finally {
      await s.api('PUT', '/admin/api/settings', { postback_dedup: false })
    }
  })
})

// The SQLite batcher (one synchronous transaction on the shared connection), driven directly on the raw
// bun:sqlite handle. Postgres has its own batcher (PgPostbackBatcher): its batch-in-one-transaction and
// rollback-to-savepoint contract is tested in pg-postback.test.ts and by the server tests above.
describe.skipIf(onPostgres)('PostbackBatcher', () => {
  test('submits of one event-loop turn share one transaction; a throwing one is rolled back to its savepoint', async () => {
    const { PostbackBatcher } = await import('../../src/postback/batch')
    const database = s.ctx.database
    if (database.engine !== 'sqlite') throw new Error('SQLite only')
    const raw = database.raw
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
