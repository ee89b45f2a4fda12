// conversion.recorded: who subscribes in which phase, what a failing in-transaction or before-commit
// subscriber takes down with it, when after-commit subscribers run, and the conversions.record verb on the same path.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { startServer, type TestServer } from '../helpers/server'
import { testDb } from '../helpers/db'
import { onPostgres } from '../helpers/pg'
import { invoke, systemActor } from '../../src/lib/verb'
import type { RecordedConversion } from '../../src/postback'
import { addClick, conversionsOf, countRows, jobsOf, postback, seedCatalog, type Catalog } from './seed'

let s: TestServer
let c: Catalog
/**
 * A second connection: it sees only what is committed. On SQLite a read-only handle on the file, read
 * synchronously inside the subscriber; on Postgres the test's own client (not the server's pool), whose
 * query the subscriber sends at once and the test awaits later.
 */
let reader: Database | null = null
let readable: (id: number) => boolean | Promise<boolean>
const seen: Array<{ id: number; readable: boolean | Promise<boolean> }> = []
/** What the after-commit subscriber saw, once every read it started has answered. */
const seenAfterCommit = () => Promise.all(seen.map(async (e) => ({ id: e.id, readable: await e.readable })))

beforeAll(async () => {
  s = await startServer()
  c = await seedCatalog(s, { postbackUrl: 'https://source.example/pb?c={click_id}&p={payout}', payout: 3 })
  if (onPostgres) {
    const db = testDb(s)
    readable = async (id) => (await db.get('SELECT id FROM conversions WHERE id = $id', { id })) !== undefined
  } else {
    const r = (reader = new Database(s.ctx.config.dbPath, { readonly: true }))
    readable = (id) => r.query('SELECT id FROM conversions WHERE id = ?').get(id) !== null
  }
  s.ctx.events.on('conversion.recorded', 'in-transaction', 'test.refuse-boom', (conv) => {
    if (conv.transactionId === 'boom') throw new Error('subscriber failed')
  })
  s.ctx.events.on('conversion.recorded', 'before-commit', 'test.refuse-batch-boom', (convs) => {
    if (convs.some((conv) => conv.transactionId === 'batch-boom')) throw new Error('before-commit subscriber failed')
  })
  s.ctx.events.on('conversion.recorded', 'after-commit', 'test.reader', (conv: RecordedConversion) => {
    seen.push({ id: conv.id, readable: readable(conv.id) })
  })
})
afterAll(async () => {
  reader?.close()
  await s.destroy()
})

// CAST: sum() of integers is numeric on Postgres; an integer on both engines.
const rollupOf = async (campaignId: number) =>
  (await testDb(s).get<{ n: number }>('SELECT CAST(coalesce(sum(conversions), 0) AS INTEGER) AS n FROM conversion_stats_hourly WHERE campaign_id = $campaignId', { campaignId }))!

describe('conversion.recorded', () => {
  test('forwarding and the rollup run just before the commit (the forwards first: the rollup locks its hot row for the commit only), waking the job loop after it', () => {
    expect(s.ctx.events.subscribers('conversion.recorded', 'in-transaction')).not.toContain('postback.forward')
    expect(s.ctx.events.subscribers('conversion.recorded', 'before-commit').slice(0, 3)).toEqual(['postback.forward', 'email.trigger-enrol', 'reports.conversion-rollup'])
    expect(s.ctx.events.subscribers('conversion.updated', 'before-commit').slice(0, 3)).toEqual(['postback.forward-update', 'email.trigger-enrol-update', 'reports.conversion-rollup-move'])
    expect(s.ctx.events.subscribers('conversion.recorded', 'after-commit')).toContain('postback.wake-job-loop')
  })

  test('a before-commit subscriber that throws rolls its whole batch back: every postback of it gets a 500 and leaves nothing', async () => {
    const clicks = await Promise.all(Array.from({ length: 6 }, () => addClick(s, c)))
    const rollupBefore = (await rollupOf(c.campaignId)).n
    const answers = await Promise.all(clicks.map((id, i) => postback(s, `subid=${id}&tid=${i === 3 ? 'batch-boom' : `b-${i}`}`)))
    expect(answers[3]!.status).toBe(500)
    expect(await answers[3]!.json()).toEqual({ error: 'internal error' })
    // The others shared its batch (500, nothing stored) or had one of their own (200, stored and counted).
    let ok = 0
    for (const [i, r] of answers.entries()) {
      expect([200, 500]).toContain(r.status)
      expect(await conversionsOf(s, clicks[i]!)).toHaveLength(r.status === 200 ? 1 : 0)
      if (r.status === 200) ok++
    }
    expect((await rollupOf(c.campaignId)).n - rollupBefore).toBe(ok)
  })

  test('an in-transaction subscriber that throws rolls its conversion back (no row, no rollup, no job): that postback alone gets a 500', async () => {
    const clicks = await Promise.all(Array.from({ length: 5 }, () => addClick(s, c)))
    const jobsBefore = await countRows(s, 'jobs')
    const rollupBefore = (await rollupOf(c.campaignId)).n
    const answers = await Promise.all(clicks.map((id, i) => postback(s, `subid=${id}&tid=${i === 2 ? 'boom' : `ok-${i}`}`)))
    expect(answers.map((r) => r.status)).toEqual([200, 200, 500, 200, 200])
    expect(await answers[2]!.json()).toEqual({ error: 'internal error' })
    expect(await conversionsOf(s, clicks[2]!)).toHaveLength(0)
    expect((await jobsOf(s)).filter((j) => j.payload.includes(clicks[2]!))).toHaveLength(0)
    expect(await countRows(s, 'jobs') - jobsBefore).toBe(4)
    expect((await rollupOf(c.campaignId)).n - rollupBefore).toBe(4)
  })

  test('after-commit subscribers run once the conversion is committed (readable from another connection)', async () => {
    const click = await addClick(s, c)
    seen.length = 0
    expect((await postback(s, `subid=${click}`)).status).toBe(200)
    const [conv] = await conversionsOf(s, click)
    expect(await seenAfterCommit()).toEqual([{ id: conv!.id, readable: true }])
  })

  test('a conversion rolled back by a subscriber is never announced after commit', async () => {
    const click = await addClick(s, c)
    seen.length = 0
    expect((await postback(s, `subid=${click}&tid=boom`)).status).toBe(500)
    expect(await seenAfterCommit()).toEqual([])
  })
})

describe('conversions.record', () => {
  const record = (input: Record<string, unknown>) => invoke(s.server.verbs.get('conversions.record')!, systemActor('test'), input as never)

  test('records through the same path as /postback: row, rollup, forward job, after-commit subscribers', async () => {
    const click = await addClick(s, c)
    const jobsBefore = await countRows(s, 'jobs')
    const rollupBefore = (await rollupOf(c.campaignId)).n
    seen.length = 0
    const out = (await record({ click_id: click.toUpperCase(), status: 'approved', transaction_id: 'web-1' })) as { id: number; revenue: number; type: string }
    expect(out).toMatchObject({ type: 'sale', revenue: 3, transaction_id: 'web-1', click_id: click })
    expect((await conversionsOf(s, click)).map((r) => r.id)).toEqual([out.id])
    expect((await rollupOf(c.campaignId)).n - rollupBefore).toBe(1)
    const jobs = (await jobsOf(s)).slice(jobsBefore)
    expect(jobs).toHaveLength(1)
    expect(JSON.parse(jobs[0]!.payload)).toEqual({ conversion_id: out.id, url: `https://source.example/pb?c=${click}&p=3` })
    expect(await seenAfterCommit()).toEqual([{ id: out.id, readable: true }])
  })

  test('an unknown click is not_found; a failing subscriber rolls the conversion back', async () => {
    await expect(record({ click_id: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ code: 'not_found' })
    const click = await addClick(s, c)
    await expect(record({ click_id: click, transaction_id: 'boom' })).rejects.toThrow('subscriber failed')
    expect(await conversionsOf(s, click)).toHaveLength(0)
  })
})
