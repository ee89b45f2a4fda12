// conversion.recorded: who subscribes in which phase, what a failing in-transaction subscriber takes down
// with it, when after-commit subscribers run, and the conversions.record verb on the same path.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { startServer, type TestServer } from '../helpers/server'
import { invoke, systemActor } from '../../src/lib/verb'
import type { RecordedConversion } from '../../src/postback'
import { addClick, conversionsOf, countRows, jobsOf, postback, seedCatalog, type Catalog } from './seed'

let s: TestServer
let c: Catalog
/** A second connection: it sees only what is committed. */
let reader: Database
const seenAfterCommit: Array<{ id: number; readable: boolean }> = []

beforeAll(async () => {
  s = await startServer()
  c = seedCatalog(s, { postbackUrl: 'https://source.example/pb?c={click_id}&p={payout}', payout: 3 })
  reader = new Database(s.ctx.config.dbPath, { readonly: true })
  s.ctx.events.on('conversion.recorded', 'in-transaction', 'test.refuse-boom', (conv) => {
    if (conv.transactionId === 'boom') throw new Error('subscriber failed')
  })
  s.ctx.events.on('conversion.recorded', 'after-commit', 'test.reader', (conv: RecordedConversion) => {
    seenAfterCommit.push({ id: conv.id, readable: reader.query('SELECT id FROM conversions WHERE id = ?').get(conv.id) !== null })
  })
})
afterAll(async () => {
  reader.close()
  await s.destroy()
})

const rollupOf = (campaignId: number) =>
  s.ctx.database.raw.prepare('SELECT coalesce(sum(conversions), 0) AS n FROM conversion_stats_hourly WHERE campaign_id = $campaignId')
    .get({ campaignId }) as { n: number }

describe('conversion.recorded', () => {
  test('rollups and forwarding subscribe in the transaction; waking the job loop after the commit', () => {
    expect(s.ctx.events.subscribers('conversion.recorded', 'in-transaction')).toEqual(
      expect.arrayContaining(['postback.forward', 'reports.conversion-rollup']),
    )
    expect(s.ctx.events.subscribers('conversion.recorded', 'after-commit')).toContain('postback.wake-job-loop')
  })

  test('an in-transaction subscriber that throws rolls its conversion back (no row, no rollup, no job): that postback alone gets a 500', async () => {
    const clicks = await Promise.all(Array.from({ length: 5 }, () => addClick(s, c)))
    const jobsBefore = countRows(s, 'jobs')
    const rollupBefore = rollupOf(c.campaignId).n
    const answers = await Promise.all(clicks.map((id, i) => postback(s, `subid=${id}&tid=${i === 2 ? 'boom' : `ok-${i}`}`)))
    expect(answers.map((r) => r.status)).toEqual([200, 200, 500, 200, 200])
    expect(await answers[2]!.json()).toEqual({ error: 'internal error' })
    expect(conversionsOf(s, clicks[2]!)).toHaveLength(0)
    expect(jobsOf(s).filter((j) => j.payload.includes(clicks[2]!))).toHaveLength(0)
    expect(countRows(s, 'jobs') - jobsBefore).toBe(4)
    expect(rollupOf(c.campaignId).n - rollupBefore).toBe(4)
  })

  test('after-commit subscribers run once the conversion is committed (readable from another connection)', async () => {
    const click = await addClick(s, c)
    seenAfterCommit.length = 0
    expect((await postback(s, `subid=${click}`)).status).toBe(200)
    const [conv] = conversionsOf(s, click)
    expect(seenAfterCommit).toEqual([{ id: conv!.id, readable: true }])
  })

  test('a conversion rolled back by a subscriber is never announced after commit', async () => {
    const click = await addClick(s, c)
    seenAfterCommit.length = 0
    expect((await postback(s, `subid=${click}&tid=boom`)).status).toBe(500)
    expect(seenAfterCommit).toEqual([])
  })
})

describe('conversions.record', () => {
  const record = (input: Record<string, unknown>) => invoke(s.server.verbs.get('conversions.record')!, systemActor('test'), input as never)

  test('records through the same path as /postback: row, rollup, forward job, after-commit subscribers', async () => {
    const click = await addClick(s, c)
    const jobsBefore = countRows(s, 'jobs')
    const rollupBefore = rollupOf(c.campaignId).n
    seenAfterCommit.length = 0
    const out = (await record({ click_id: click.toUpperCase(), status: 'approved', transaction_id: 'web-1' })) as { id: number; revenue: number; type: string }
    expect(out).toMatchObject({ type: 'sale', revenue: 3, transaction_id: 'web-1', click_id: click })
    expect(conversionsOf(s, click).map((r) => r.id)).toEqual([out.id])
    expect(rollupOf(c.campaignId).n - rollupBefore).toBe(1)
    const jobs = jobsOf(s).slice(jobsBefore)
    expect(jobs).toHaveLength(1)
    expect(JSON.parse(jobs[0]!.payload)).toEqual({ conversion_id: out.id, url: `https://source.example/pb?c=${click}&p=3` })
    expect(seenAfterCommit).toEqual([{ id: out.id, readable: true }])
  })

  test('an unknown click is not_found; a failing subscriber rolls the conversion back', async () => {
    await expect(record({ click_id: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ code: 'not_found' })
    const click = await addClick(s, c)
    await expect(record({ click_id: click, transaction_id: 'boom' })).rejects.toThrow('subscriber failed')
    expect(conversionsOf(s, click)).toHaveLength(0)
  })
})
