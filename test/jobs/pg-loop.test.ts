// The job loop on PostgreSQL (issue 8): several instances (one JobLoop per openPg connection) on one
// database deliver every job exactly once over real HTTP; a job whose instance hangs is taken over once
// its lease expires and the late outcome is ignored; retries, backoff and failures as on SQLite; the
// forwarding subscriber enqueues through the conversion's transaction.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { openPg, type PgDatabase } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import { EventBus, type Unit } from '../../src/lib/event-bus'
import { createJobLoop, type JobLoop, type JobLoopOptions } from '../../src/jobs/loop'
import { PgJobStore } from '../../src/jobs/pg-store'
import { INTERRUPTED, type JobRecord } from '../../src/jobs/store'
import { JobError } from '../../src/jobs/types'
import { FORWARD_JOB, subscribeForwarding } from '../../src/postback/forward'
import type { RecordedConversion } from '../../src/postback/record'
import { freshPgUrl, pgAvailable } from '../helpers/pg'
import { expectOutcomesGrouped } from './grouped-outcomes'

const avail = pgAvailable()
if (!avail.ok) console.warn(`skipping PostgreSQL job loop tests: ${avail.why}`)

const OPTS: JobLoopOptions = {
  pollMs: 50, timeoutMs: 2000, maxAttempts: 3, backoffBaseMs: 200, backoffMaxMs: 250, concurrency: 8,
}

async function until<T>(check: () => Promise<T | undefined | null | false>, timeoutMs: number, what: string): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const v = await check()
    if (v) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(25)
  }
}

/** A fresh database per test, and what to close after it. */
const opened: PgDatabase[] = []
const loops: JobLoop[] = []
async function instances(n: number): Promise<PgDatabase[]> {
  const url = await freshPgUrl()
  const dbs: PgDatabase[] = []
  for (let i = 0; i < n; i++) {
    const db = await openPg(url)
    if (i === 0) await migratePg(db)
    dbs.push(db)
    opened.push(db)
  }
  return dbs
}
function loop(db: PgDatabase, opts: Partial<JobLoopOptions> = {}): JobLoop {
  const l = createJobLoop(db, { ...OPTS, ...opts })
  loops.push(l)
  return l
}

describe.skipIf(!avail.ok)('job loop on postgres', () => {
  beforeAll(async () => {
    await instances(0) // starts the cluster once, outside any test's time budget
  }, 60_000)
  afterEach(async () => {
    await Promise.all(loops.splice(0).map((l) => l.stop()))
    await Promise.all(opened.splice(0).map((db) => db.close()))
  })

  test('two instances on one database deliver 1,000 jobs exactly once over HTTP, all done', async () => {
    const perJob = new Map<string, number>()
    const perInstance = new Map<string, number>()
    const listener = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(req) {
        const n = new URL(req.url).pathname.split('/').pop()!
        perJob.set(n, (perJob.get(n) ?? 0) + 1)
        const who = req.headers.get('x-instance')!
        perInstance.set(who, (perInstance.get(who) ?? 0) + 1)
        await Bun.sleep(Math.random() * 3)
        return new Response(`got ${n}`)
      },
    })
    try {
      const [a, b] = await instances(2)
      const store = new PgJobStore(a!)
      const [la, lb] = [loop(a!), loop(b!)]
      for (const [name, l] of [['A', la], ['B', lb]] as const) {
        l.register('deliver', async (payload, signal) => {
          const res = await fetch(`http://127.0.0.1:${listener.port}/d/${(payload as { n: number }).n}`, {
            method: 'POST', headers: { 'x-instance': name }, body: JSON.stringify(payload), signal,
          })
          if (!res.ok) throw new Error(`HTTP ${res.status}`)
          return res.text()
        })
      }
      la.start()
      lb.start()
      // Half enqueued through each instance, while both loops run (they find the jobs by polling).
      await Promise.all(Array.from({ length: 1000 }, (_, n) => (n % 2 ? la : lb).enqueue('deliver', { n })))
      await until(async () => {
        const [{ done }] = await a!.sql`SELECT count(*)::int AS done FROM jobs WHERE status = 'done'`
        return done === 1000
      }, 60_000, '1000 jobs done')

      expect(perJob.size).toBe(1000)
      expect([...perJob.values()].filter((c) => c !== 1)).toEqual([])
      // Both instances took part.
      expect(perInstance.get('A')).toBeGreaterThan(0)
      expect(perInstance.get('B')).toBeGreaterThan(0)
      expect(perInstance.get('A')! + perInstance.get('B')!).toBe(1000)
      const rows = await store.list({ limit: 2000 })
      expect(rows).toHaveLength(1000)
      expect(rows.filter((r) => r.status !== 'done' || r.attempts !== 1 || r.result !== `got ${JSON.parse(r.payload).n}`)).toEqual([])
    } finally {
      listener.stop(true)
    }
  }, 90_000)

  test('a job whose instance hangs is claimed by the other once the lease expired; the late outcome is ignored', async () => {
    const received: string[] = []
    const listener = Bun.serve({
      port: 0, hostname: '127.0.0.1',
      fetch(req) {
        received.push(req.headers.get('x-instance')!)
        return new Response('ok')
      },
    })
    try {
      const [a, b] = await instances(2)
      const store = new PgJobStore(a!)
      // A: one attempt at a time, a lease far shorter than its hanging handler (an instance that stalled).
      const la = loop(a!, { concurrency: 1, timeoutMs: 10_000, leaseMs: 300 })
      const lb = loop(b!)
      let claimedByA = false
      let releaseA!: () => void
      const aMayFinish = new Promise<void>((r) => (releaseA = r))
      la.register('hang', async () => {
        claimedByA = true
        await aMayFinish
        return 'A finished late'
      })
      lb.register('hang', async (_p, signal) => {
        await fetch(`http://127.0.0.1:${listener.port}/`, { headers: { 'x-instance': 'B' }, signal })
        return 'B delivered'
      })
      la.start()
      const id = await la.enqueue('hang', {})
      await until(async () => claimedByA, 10_000, 'A to claim the job')
      lb.start()
      const done = await until(async () => {
        const j = await store.get(id)
        return j?.status === 'done' ? j : null
      }, 10_000, 'B to complete the job')
      expect(done).toMatchObject({ attempts: 2, result: 'B delivered', last_error: `attempt 1 ${INTERRUPTED}` })

      releaseA()
      await la.stop() // waits for A's attempt, which tries to record its (late) success
      const after = (await store.get(id)) as JobRecord
      expect(after).toEqual(done)
      expect(received).toEqual(['B'])
    } finally {
      listener.stop(true)
    }
  }, 30_000)

  test('retries with backoff, non-retryable failures, timeouts and max attempts, as on SQLite', async () => {
    const [db] = await instances(1)
    const store = new PgJobStore(db!)
    const l = loop(db!, { timeoutMs: 300, concurrency: 2 })
    let flaky = 0
    const backoffCalls: number[] = []
    let active = 0
    let maxActive = 0
    l.register('hard', async () => { throw new JobError('bad input', false) })
    l.register('flaky', async () => {
      if (++flaky === 1) throw new Error('transient')
      return 'fine'
    })
    l.register('ignores_signal', () => new Promise(() => {}))
    l.register('backoff', async () => {
      backoffCalls.push(Date.now())
      throw new Error('again')
    })
    l.register('slow', async () => {
      maxActive = Math.max(maxActive, ++active)
      await Bun.sleep(100)
      active--
    })
    l.start()
    const settled = (id: number, status: string) =>
      until(async () => {
        const j = await store.get(id)
        return j?.status === status ? j : null
      }, 15_000, `job ${id} ${status}`)

    // A kind this binary does not know (a row written by another version) cannot be enqueued here: written directly.
    expect(() => l.enqueue('no_such_kind', {})).toThrow('job kind "no_such_kind" is not registered')
    const now = Date.now()
    const unknown = await store.insert({ kind: 'no_such_kind', payload: {}, maxAttempts: 3, section: 'conversions', ref: null, runAt: now, now })
    const [hard, flakyId, hung, backoff] = await Promise.all(['hard', 'flaky', 'ignores_signal', 'backoff'].map((k) => l.enqueue(k, {})))
    l.kick()
    expect(await settled(unknown!, 'failed')).toMatchObject({
      attempts: 1, last_error: 'unknown job kind "no_such_kind" (no handler registered) (attempt 1 of 3; not retryable)',
    })
    expect(await settled(hard!, 'failed')).toMatchObject({ attempts: 1, last_error: 'bad input (attempt 1 of 3; not retryable)' })
    expect(await settled(flakyId!, 'done')).toMatchObject({ attempts: 2, result: 'fine', last_error: 'transient (attempt 1 of 3; will retry)' })
    expect(await settled(hung!, 'failed')).toMatchObject({ attempts: 3, last_error: 'timed out after 300 ms (attempt 3 of 3; no attempts left)' })
    expect(await settled(backoff!, 'failed')).toMatchObject({ attempts: 3, last_error: 'again (attempt 3 of 3; no attempts left)' })
    expect(backoffCalls).toHaveLength(3)
    expect(backoffCalls[1]! - backoffCalls[0]!).toBeGreaterThanOrEqual(200) // base · 2⁰
    expect(backoffCalls[2]! - backoffCalls[1]!).toBeGreaterThanOrEqual(250) // base · 2¹ = 400, capped at 250
    // Concurrency, once nothing else occupies a slot.
    const slow = await Promise.all([1, 2, 3, 4, 5].map(() => l.enqueue('slow', {})))
    l.kick()
    for (const id of slow) await settled(id, 'done')
    expect(maxActive).toBe(2)
  }, 60_000)

  test('outcomes that end while one is being written go together in the next write, each applied', async () => {
    const [db] = await instances(1)
    await expectOutcomesGrouped(new PgJobStore(db!), OPTS)
  })

  test('forwarding enqueues in the conversion\'s transaction: rolled back, no job; committed, delivered', async () => {
    const [db] = await instances(1)
    const store = new PgJobStore(db!)
    const hits: string[] = []
    const listener = Bun.serve({
      port: 0, hostname: '127.0.0.1',
      fetch(req) {
        hits.push(new URL(req.url).search)
        return new Response('ok')
      },
    })
    try {
      // A slow poll: only the after-commit kick can deliver within the test's wait.
      const l = loop(db!, { pollMs: 60_000 })
      const events = new EventBus()
      subscribeForwarding({ events, jobs: l, allowPrivate: true })
      l.start()
      const conversion = (id: number) => ({
        id, clickId: `click${id}`, revenue: 2.5, campaignExternalId: null, type: { slug: 'sale', send_postback: 1 },
        sourcePostbackUrl: `http://127.0.0.1:${listener.port}/pb?c={click_id}&p={payout}&s={status}`,
      }) as unknown as RecordedConversion

      await expect(db!.sql.begin(async (tx) => {
        const unit = events.unit(tx)
        await unit.emit('conversion.recorded', conversion(1))
        // The forward is enqueued just before the commit (with the batch's other conversions, in one INSERT).
        const r = events.beforeCommit([unit], tx)
        expect(r).toBeInstanceOf(Promise)
        await r
        expect((await tx`SELECT count(*)::int AS n FROM jobs`)[0].n).toBe(1)
        throw new Error('roll back')
      })).rejects.toThrow('roll back')
      expect(await store.list({ limit: 10 })).toEqual([])

      let unit!: Unit
      await db!.sql.begin(async (tx) => {
        unit = events.unit(tx)
        await unit.emit('conversion.recorded', conversion(2))
        await events.beforeCommit([unit], tx)
      })
      unit.commit() // the after-commit subscriber wakes the loop
      const [job] = await until(async () => {
        const rows = await store.list({ limit: 10 })
        return rows[0]?.status === 'done' ? rows : null
      }, 10_000, 'the forward job done')
      expect(job).toMatchObject({ kind: FORWARD_JOB, attempts: 1, result: expect.stringMatching(/^HTTP 200 in \d+ ms$/) })
      expect(JSON.parse(job!.payload)).toEqual({ conversion_id: 2, url: `http://127.0.0.1:${listener.port}/pb?c=click2&p=2.5&s=sale` })
      expect(hits).toEqual(['?c=click2&p=2.5&s=sale'])

      // A postback batch's conversions: their forwards go in ONE statement (insertMany) before the commit,
      // every one with its own payload and id, in order; a conversion whose type does not forward adds none.
      const statements: string[] = []
      let units: Unit[] = []
      await db!.sql.begin(async (tx) => {
        const spy = new Proxy(tx, {
          get: (t, k) => (k === 'unsafe' ? (text: string, args: unknown[]) => { statements.push(text); return t.unsafe(text, args as never) } : Reflect.get(t, k)),
        })
        units = [3, 4, 5, 6].map(() => events.unit(spy))
        for (const [i, u] of units.entries()) {
          const c = conversion(3 + i)
          await u.emit('conversion.recorded', i === 2 ? ({ ...c, type: { slug: 'lead', send_postback: 0 } } as unknown as RecordedConversion) : c)
        }
        await events.beforeCommit(units, spy)
      })
      for (const u of units) u.commit()
      expect(statements.filter((t) => t.startsWith('INSERT INTO jobs'))).toHaveLength(1)
      const rows = await until(async () => {
        const r = (await store.list({ limit: 10 })).filter((j) => j.id !== job!.id)
        return r.length === 3 && r.every((j) => j.status === 'done') ? r : null
      }, 10_000, 'the three forwards of the batch done')
      expect(rows.map((j) => JSON.parse(j.payload).conversion_id).sort()).toEqual([3, 4, 6])
      expect(hits.slice(1).sort()).toEqual(['?c=click3&p=2.5&s=sale', '?c=click4&p=2.5&s=sale', '?c=click6&p=2.5&s=sale'])
    } finally {
      listener.stop(true)
    }
  }, 30_000)

  test('insertMany: one statement, ids in order, payloads and policy per job; rolled back with its transaction', async () => {
    const [db] = await instances(1)
    const store = new PgJobStore(db!)
    const job = (n: number) => ({ kind: 'k', payload: { n, text: `quote " and \\ and \u0000` }, maxAttempts: 4, section: 'conversions', ref: n === 2 ? 'r2' : null, runAt: 1000 + n, now: 500 })
    const ids = await store.insertMany([job(1), job(2), job(3)])
    expect(ids).toHaveLength(3)
    expect([...ids].sort((a, b) => a - b)).toEqual(ids)
    const listed = (await store.list({ limit: 10 })).reverse()
    expect(listed.map((j) => [j.id, JSON.parse(j.payload), j.ref, j.next_run_at, j.max_attempts, j.status])).toEqual(
      [1, 2, 3].map((n, i) => [ids[i], job(n).payload, n === 2 ? 'r2' : null, 1000 + n, 4, 'pending']))
    await expect(db!.sql.begin(async (tx) => {
      await store.insertMany([job(7), job(8)], tx)
      throw new Error('roll back')
    })).rejects.toThrow('roll back')
    expect(await store.list({ limit: 10 })).toHaveLength(3)
    expect(await store.insertMany([])).toEqual([])
  }, 30_000)
})

afterAll(async () => {
  await Promise.all(loops.splice(0).map((l) => l.stop()))
  await Promise.all(opened.splice(0).map((db) => db.close()))
})
