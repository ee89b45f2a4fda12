// The job store on both engines (issue 8): the same expectations against SQLite and PostgreSQL, then what
// only Postgres has: leases, attempt-guarded outcomes, disjoint concurrent claims, enqueue in a transaction.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/client'
import { migrate } from '../../src/db/migrate'
import type { AnyDatabase } from '../../src/db/engine'
import { openPg, type PgDatabase } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import { CLAIM_SQL, PgJobStore } from '../../src/jobs/pg-store'
import { createJobStore, INTERRUPTED, SqliteJobStore, type JobOutcome, type JobRecord, type JobStore, type NewJob } from '../../src/jobs/store'
import { freshPgUrl, pgAvailable } from '../helpers/pg'

const avail = pgAvailable()
if (!avail.ok) console.warn(`skipping PostgreSQL job store tests: ${avail.why}`)

const T0 = 1_700_000_000_000

/** A job as the loop creates it: due at `now` unless `runAt` says otherwise, section conversions, no ref. */
const newJob = (kind: string, payload: unknown, maxAttempts: number, now: number, extra: Partial<NewJob> = {}): NewJob =>
  ({ kind, payload, maxAttempts, now, runAt: now, section: 'conversions', ref: null, ...extra })
const LEASE = 60_000

/** One outcome through JobStore.record: whether it applied. */
const one = async (s: JobStore, o: JobOutcome) => (await s.record([o])).has(o.job.id)
const succeed = (s: JobStore, job: JobRecord, result: string | null, at: number) => one(s, { job, at, status: 'done', result })
const fail = (s: JobStore, job: JobRecord, error: string, at: number) => one(s, { job, at, status: 'failed', error })
const reschedule = (s: JobStore, job: JobRecord, error: string, nextRunAt: number, at: number) => one(s, { job, at, status: 'pending', error, nextRunAt })

async function open(engine: 'sqlite' | 'postgres'): Promise<{ db: AnyDatabase; done: () => Promise<void> }> {
  if (engine === 'postgres') {
    const db = await openPg(await freshPgUrl())
    await migratePg(db)
    return { db, done: () => db.close() }
  }
  const dir = mkdtempSync(join(tmpdir(), 'svc-jobs-'))
  const db = await openDatabase(join(dir, 'svc.db'))
  migrate(db)
  return { db, done: async () => { db.close(); rmSync(dir, { recursive: true, force: true }) } }
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe.skipIf(engine === 'postgres' && !avail.ok)(`job store on ${engine}`, () => {
    let db: AnyDatabase
    let done: () => Promise<void>
    let store: JobStore
    let n = 0
    const kind = () => `k${++n}`
    const claimKind = async (k: string, now: number, limit = 10) => (await store.claim(now, limit, LEASE)).filter((j) => j.kind === k)

    beforeAll(async () => {
      ;({ db, done } = await open(engine))
      store = createJobStore(db)
    }, 60_000) // the first test file to ask starts the cluster (initdb is slow on a loaded machine)
    afterAll(() => done())
    // Every test starts from an empty table: claims would otherwise pick up earlier tests' due jobs.
    beforeEach(async () => {
      if (db.engine === 'postgres') await db.sql`DELETE FROM jobs`
      else db.raw.exec('DELETE FROM jobs')
    })

    test('the factory picks the engine', () => {
      expect(store).toBeInstanceOf(engine === 'postgres' ? PgJobStore : SqliteJobStore)
    })

    test('insert and get: numbers read back as numbers, the payload as JSON text', async () => {
      const k = kind()
      const id = await store.insert(newJob(k, { a: [1, 'two'] }, 5, T0))
      expect(typeof id).toBe('number')
      expect(await store.get(id)).toEqual({
        id, kind: k, payload: '{"a":[1,"two"]}', status: 'pending', attempts: 0, max_attempts: 5, section: 'conversions', ref: null,
        last_error: null, result: null, next_run_at: T0, created_at: T0, updated_at: T0,
      })
      expect(await store.get(id + 1)).toBeNull()
    })

    test('claim takes due jobs in due order up to the limit, counting the attempt', async () => {
      const now = T0
      const k = kind()
      const late = await store.insert(newJob(k, 1, 3, now - 10))
      const early = await store.insert(newJob(k, 2, 3, now - 20))
      const future = await store.insert(newJob(k, 3, 3, now + 1))
      const first = await store.claim(now, 1, LEASE)
      expect(first.map((j) => j.id)).toEqual([early])
      expect(first[0]).toMatchObject({ status: 'running', attempts: 1, next_run_at: now - 20, updated_at: now })
      expect((await store.claim(now, 10, LEASE)).map((j) => j.id)).toEqual([late])
      expect(await store.claim(now, 10, LEASE)).toEqual([])
      expect((await store.get(future))!.status).toBe('pending')
    })

    test('outcomes: succeed, reschedule, fail', async () => {
      const k = kind()
      const ids = [await store.insert(newJob(k, {}, 3, T0)), await store.insert(newJob(k, {}, 3, T0)), await store.insert(newJob(k, {}, 3, T0))]
      const [a, b, c] = (await claimKind(k, T0)) as [JobRecord, JobRecord, JobRecord]
      expect([a.id, b.id, c.id]).toEqual(ids)
      expect(await succeed(store, a, 'HTTP 200', T0 + 1)).toBe(true)
      expect(await reschedule(store, b, 'boom (will retry)', T0 + 500, T0 + 2)).toBe(true)
      expect(await fail(store, c, 'bad (not retryable)', T0 + 3)).toBe(true)
      expect(await store.get(a.id)).toMatchObject({ status: 'done', result: 'HTTP 200', attempts: 1, next_run_at: T0, updated_at: T0 + 1 })
      expect(await store.get(b.id)).toMatchObject({ status: 'pending', last_error: 'boom (will retry)', next_run_at: T0 + 500, updated_at: T0 + 2 })
      expect(await store.get(c.id)).toMatchObject({ status: 'failed', last_error: 'bad (not retryable)', next_run_at: T0, updated_at: T0 + 3 })
      // The rescheduled one is due again at T0 + 500, its second attempt counted.
      expect(await claimKind(k, T0 + 499)).toEqual([])
      expect(await claimKind(k, T0 + 500)).toMatchObject([{ id: b.id, attempts: 2 }])
    })

    test('record: several outcomes in one call, each with its own time, all applied', async () => {
      const k = kind()
      for (let i = 0; i < 3; i++) await store.insert(newJob(k, {}, 3, T0))
      const [a, b, c] = (await claimKind(k, T0)) as [JobRecord, JobRecord, JobRecord]
      const applied = await store.record([
        { job: c, at: T0 + 3, status: 'failed', error: 'bad' },
        { job: a, at: T0 + 1, status: 'done', result: 'HTTP 204' },
        { job: b, at: T0 + 2, status: 'pending', error: 'boom', nextRunAt: T0 + 900 },
      ])
      expect([...applied].sort((x, y) => x - y)).toEqual([a.id, b.id, c.id])
      expect(await store.get(a.id)).toMatchObject({ status: 'done', result: 'HTTP 204', last_error: null, next_run_at: T0, updated_at: T0 + 1 })
      expect(await store.get(b.id)).toMatchObject({ status: 'pending', result: null, last_error: 'boom', next_run_at: T0 + 900, updated_at: T0 + 2 })
      expect(await store.get(c.id)).toMatchObject({ status: 'failed', result: null, last_error: 'bad', next_run_at: T0, updated_at: T0 + 3 })
      expect(await store.record([])).toEqual(new Set())
    })

    test('claim: a backlog larger than the limit gives the earliest due first, batch after batch', async () => {
      const k = kind()
      // Inserted latest-due first, so that neither id order nor insertion order is due order.
      const due = Array.from({ length: 40 }, (_, i) => T0 - i * 10)
      const byDue = new Map<number, number>()
      for (const d of due) byDue.set(d, await store.insert(newJob(k, {}, 3, T0, { runAt: d })))
      const seen: number[] = []
      for (let round = 0; round < 4; round++) {
        const got = await claimKind(k, T0, 10)
        expect(got).toHaveLength(10)
        seen.push(...got.map((j) => j.next_run_at).sort((x, y) => x - y))
      }
      expect(seen).toEqual([...due].sort((x, y) => x - y))
      expect(await claimKind(k, T0, 10)).toEqual([])
    })

    test('retry: only a failed job, with a fresh budget on top of the attempts made', async () => {
      const k = kind()
      const id = await store.insert(newJob(k, {}, 1, T0))
      expect(await store.retry(id, 4, T0 + 1)).toBe(false)
      const [job] = await claimKind(k, T0)
      await fail(store, job!, 'no', T0 + 1)
      expect(await store.retry(id, 4, T0 + 2)).toBe(true)
      expect(await store.get(id)).toMatchObject({ status: 'pending', attempts: 1, max_attempts: 5, next_run_at: T0 + 2, updated_at: T0 + 2 })
      expect(await store.retry(id, 4, T0 + 3)).toBe(false)
      expect(await store.retry(999_999, 4, T0 + 3)).toBe(false)
    })

    test('list: newest first, filtered by status and kind, paged by id cursor', async () => {
      const k = kind()
      const ids: number[] = []
      for (let i = 0; i < 4; i++) ids.push(await store.insert(newJob(k, i, 3, T0 + 1000)))
      const [job] = await claimKind(k, T0 + 1000, 1)
      await fail(store, job!, 'x', T0 + 1001)
      const mine = (rows: JobRecord[]) => rows.map((r) => r.id)
      expect(mine(await store.list({ kind: k, limit: 10 }))).toEqual([...ids].reverse())
      expect(mine(await store.list({ kind: k, limit: 2 }))).toEqual([ids[3]!, ids[2]!])
      expect(mine(await store.list({ kind: k, before: ids[2], limit: 10 }))).toEqual([ids[1]!, ids[0]!])
      expect(mine(await store.list({ kind: k, status: 'failed', limit: 10 }))).toEqual([ids[0]!])
      expect(mine(await store.list({ kind: k, status: 'done', limit: 10 }))).toEqual([])
      const all = await store.list({ limit: 1000 })
      expect(all.length).toBeGreaterThanOrEqual(4)
      expect(typeof all[0]!.id).toBe('number')
      expect(mine(all)).toEqual(mine(all).toSorted((a, b) => b - a))
    })

    test('a delayed job (runAt later than now) is not claimed before it is due', async () => {
      const k = kind()
      const id = await store.insert(newJob(k, {}, 3, T0, { runAt: T0 + 60_000 }))
      expect((await store.get(id))!.next_run_at).toBe(T0 + 60_000)
      expect(await claimKind(k, T0 + 59_999)).toEqual([])
      expect((await claimKind(k, T0 + 60_000)).map((j) => j.id)).toEqual([id])
    })

    test('cancel: a pending job only; cancelRef: every pending job of the ref, none of another or of another status', async () => {
      const k = kind()
      const lone = await store.insert(newJob(k, {}, 3, T0, { runAt: T0 + 1000 }))
      expect(await store.cancel(lone, T0 + 1)).toBe(true)
      expect(await store.get(lone)).toMatchObject({ status: 'cancelled', updated_at: T0 + 1 })
      expect(await store.cancel(lone, T0 + 2)).toBe(false) // already cancelled
      expect(await store.cancel(lone + 1000, T0 + 2)).toBe(false) // unknown

      const sub = 'subscriber:42'
      const running = await store.insert(newJob(k, 'now', 3, T0, { ref: sub, section: 'email' }))
      const [claimed] = await claimKind(k, T0)
      expect(claimed!.id).toBe(running)
      const later = [
        await store.insert(newJob(k, 'day 1', 3, T0, { ref: sub, section: 'email', runAt: T0 + 86_400_000 })),
        await store.insert(newJob(k, 'day 3', 3, T0, { ref: sub, section: 'email', runAt: T0 + 3 * 86_400_000 })),
      ]
      const other = await store.insert(newJob(k, 'other', 3, T0, { ref: 'subscriber:43', section: 'email', runAt: T0 + 86_400_000 }))
      expect(await store.cancelRef(sub, T0 + 5)).toBe(2)
      for (const id of later) expect((await store.get(id))!.status).toBe('cancelled')
      expect((await store.get(running))!.status).toBe('running') // its attempt finishes
      expect((await store.get(other))!.status).toBe('pending')
      expect(await store.cancelRef(sub, T0 + 6)).toBe(0)
      // A cancelled job is never claimed, however due (the running one ends first: its lease would expire).
      await succeed(store, claimed!, null, T0 + 7)
      expect((await claimKind(k, T0 + 10 * 86_400_000)).map((j) => j.id)).toEqual([other])
    })

    test('list by sections: only the jobs of the sections given', async () => {
      const k = kind()
      const conv = await store.insert(newJob(k, 1, 3, T0))
      const mail = await store.insert(newJob(k, 2, 3, T0, { section: 'email' }))
      const ids = async (sections?: string[]) => (await store.list({ kind: k, sections, limit: 10 })).map((j) => j.id)
      expect(await ids()).toEqual([mail, conv])
      expect(await ids(['email'])).toEqual([mail])
      expect(await ids(['conversions', 'email'])).toEqual([mail, conv])
      expect(await ids([])).toEqual([])
      expect((await store.get(mail))!.section).toBe('email')
    })

    test('pruneDone deletes done and cancelled jobs updated before the cut-off, nothing else', async () => {
      const k = kind()
      const [oldDone, newDone, failed] = [await store.insert(newJob(k, 0, 3, T0)), await store.insert(newJob(k, 0, 3, T0)), await store.insert(newJob(k, 0, 3, T0))]
      const [a, b, c] = (await claimKind(k, T0)) as [JobRecord, JobRecord, JobRecord]
      await succeed(store, a, null, T0 + 10)
      await succeed(store, b, null, T0 + 30)
      await fail(store, c, 'x', T0 + 10)
      const [oldCancelled, newCancelled] = [await store.insert(newJob(k, 0, 3, T0, { runAt: T0 + 99 })), await store.insert(newJob(k, 0, 3, T0, { runAt: T0 + 99 }))]
      await store.cancel(oldCancelled, T0 + 10)
      await store.cancel(newCancelled, T0 + 30)
      await store.pruneDone(T0 + 20)
      expect(await store.get(oldCancelled)).toBeNull()
      expect(await store.get(newCancelled)).not.toBeNull()
      expect(await store.get(oldDone)).toBeNull()
      expect(await store.get(newDone)).not.toBeNull()
      expect(await store.get(failed)).not.toBeNull()
    })
  })
}

describe.skipIf(!avail.ok)('job store on postgres: leases', () => {
  let a: PgDatabase
  let b: PgDatabase
  let sa: PgJobStore
  let sb: PgJobStore
  let n = 0
  const kind = () => `lease${++n}`
  // Each test claims at its own time far from the others, and starts from an empty table (an earlier
  // test's leftover, a job running under a lease, would be due by then).
  const at = () => T0 + n * 10_000_000

  beforeAll(async () => {
    const url = await freshPgUrl()
    a = await openPg(url)
    await migratePg(a)
    b = await openPg(url)
    sa = new PgJobStore(a)
    sb = new PgJobStore(b)
  }, 60_000)
  beforeEach(async () => {
    await a.sql`DELETE FROM jobs`
  })
  afterAll(async () => {
    await a.close()
    await b.close()
  })

  test('a running job is not claimed again before its lease expires; after it, once, with the attempt counted', async () => {
    const k = kind()
    const now = at()
    const id = await sa.insert(newJob(k, {}, 3, now))
    const [first] = await sa.claim(now, 10, 1000)
    expect(first).toMatchObject({ id, attempts: 1, next_run_at: now })
    // While running, next_run_at holds the lease expiry.
    expect((await sa.get(id))!.next_run_at).toBe(now + 1000)
    expect(await sb.claim(now + 999, 10, 1000)).toEqual([])
    const [second] = await sb.claim(now + 1000, 10, 1000)
    expect(second).toMatchObject({ id, attempts: 2, status: 'running', last_error: `attempt 1 ${INTERRUPTED}` })
    expect(await sa.claim(now + 1000, 10, 1000)).toEqual([])

    // The first claim's late outcome is ignored; the second's applies.
    expect(await succeed(sa, first!, 'late', now + 1500)).toBe(false)
    expect(await fail(sa, first!, 'late', now + 1500)).toBe(false)
    expect(await reschedule(sa, first!, 'late', now + 1500, now + 1500)).toBe(false)
    expect((await sa.get(id))!).toMatchObject({ status: 'running', attempts: 2, result: null })
    expect(await succeed(sb, second!, 'HTTP 200', now + 1600)).toBe(true)
    // next_run_at goes back to when this attempt became due: when the first lease expired.
    expect(await sa.get(id)).toMatchObject({ status: 'done', attempts: 2, result: 'HTTP 200', updated_at: now + 1600, next_run_at: now + 1000 })
    expect(await succeed(sa, second!, 'again', now + 1700)).toBe(false)
  })

  test('record: in one batch a late outcome is ignored and the others apply', async () => {
    const k = kind()
    const now = at()
    const stale = await sa.insert(newJob(k, {}, 3, now))
    const fresh = await sa.insert(newJob(k, {}, 3, now, { runAt: now + 1200 }))
    const [first] = await sa.claim(now, 1, 1000)
    expect(first!.id).toBe(stale)
    const [retaken] = await sb.claim(now + 1000, 1, 1000) // first's lease expired: B runs attempt 2
    expect(retaken).toMatchObject({ id: stale, attempts: 2 })
    const [other] = await sa.claim(now + 1200, 1, 1000)
    expect(other!.id).toBe(fresh)
    const applied = await sa.record([
      { job: first!, at: now + 1500, status: 'done', result: 'late' },
      { job: other!, at: now + 1500, status: 'done', result: 'HTTP 200' },
    ])
    expect([...applied]).toEqual([fresh])
    expect(await sa.get(stale)).toMatchObject({ status: 'running', attempts: 2, result: null })
    expect(await sa.get(fresh)).toMatchObject({ status: 'done', attempts: 1, result: 'HTTP 200', next_run_at: now + 1200 })
  })

  test('claim: expired leases and pending jobs together, in due order, up to the limit', async () => {
    const k = kind()
    const now = at()
    const pending = [await sa.insert(newJob(k, {}, 3, now, { runAt: now - 5 })), await sa.insert(newJob(k, {}, 3, now, { runAt: now + 20 }))]
    const leased = await sa.insert(newJob(k, {}, 3, now, { runAt: now - 50 }))
    const spent = await sa.insert(newJob(k, {}, 1, now, { runAt: now - 60 }))
    // Claim the two earliest (leased, spent) under a lease that expires at now + 10.
    expect((await sa.claim(now - 40, 2, 50)).map((j) => j.id).sort()).toEqual([leased, spent].sort())
    // At now + 30: the spent one fails, the expired lease (due now + 10) and both pending jobs are due;
    // a limit of 2 takes the expired lease and the earliest pending job.
    const got = await sb.claim(now + 30, 2, 1000)
    expect(got.map((j) => [j.id, j.next_run_at])).toEqual([[pending[0], now - 5], [leased, now + 10]])
    expect(await sa.get(spent)).toMatchObject({ status: 'failed', last_error: `attempt 1 of 1 ${INTERRUPTED}; no attempts left` })
    expect((await sb.claim(now + 30, 2, 1000)).map((j) => j.id)).toEqual([pending[1]])
  })

  test('the claim reads a backlog by index in due order and stops at the limit: no sort of every due job', async () => {
    const now = at()
    await a.sql.unsafe(`INSERT INTO jobs (kind, payload, status, attempts, max_attempts, section, ref, next_run_at, created_at, updated_at)
      SELECT 'backlog', '{}', CASE WHEN g % 4 = 0 THEN 'done' ELSE 'pending' END, 0, 3, 'conversions', NULL, $1::int8 - g, $1::int8, $1::int8
      FROM generate_series(1, 4000) g`, [now])
    await a.sql`ANALYZE jobs`
    const [row] = await a.sql.unsafe(`EXPLAIN (FORMAT JSON) ${CLAIM_SQL}`, [now, 16, now + 1000, ' x', ' y'])
    const plan = JSON.stringify((row as Record<string, unknown>)['QUERY PLAN'])
    // Both CTEs probe jobs_due_idx; a BitmapOr over both statuses (the claim before session 23) read and
    // sorted all 3,000 due jobs to take 16.
    expect(plan.match(/"Index Name":"jobs_due_idx"/g)?.length).toBeGreaterThanOrEqual(2)
    expect(plan).not.toContain('BitmapOr')
    expect(plan).not.toContain('Seq Scan')
    const claimed = await sa.claim(now, 16, 1000)
    const earliest: number[] = [] // job g is due at now - g, and pending unless g % 4 === 0
    for (let g = 4000; earliest.length < 16; g--) if (g % 4 !== 0) earliest.push(now - g)
    expect(claimed.map((j) => j.next_run_at)).toEqual(earliest)
  })

  test('an expired lease on a job with no attempts left fails it, as SQLite recovery at start does', async () => {
    const k = kind()
    const now = at()
    const id = await sa.insert(newJob(k, {}, 1, now))
    await sa.claim(now, 10, 1000)
    expect(await sb.claim(now + 1000, 10, 1000)).toEqual([])
    expect(await sa.get(id)).toMatchObject({
      status: 'failed', attempts: 1, updated_at: now + 1000, last_error: `attempt 1 of 1 ${INTERRUPTED}; no attempts left`,
    })
  })

  test('recoverInterrupted leaves other instances\' running jobs alone', async () => {
    const k = kind()
    const now = at()
    const id = await sa.insert(newJob(k, {}, 3, now))
    await sa.claim(now, 10, 60_000)
    await sb.recoverInterrupted(now + 1)
    expect(await sa.get(id)).toMatchObject({ status: 'running', attempts: 1, next_run_at: now + 60_000 })
  })

  test('concurrent claims from two connections take disjoint jobs', async () => {
    const k = kind()
    const now = at()
    await a.sql`INSERT INTO jobs ${a.sql(
      Array.from({ length: 300 }, (_, i) => ({
        kind: k, payload: String(i), status: 'pending', attempts: 0, max_attempts: 3, next_run_at: now, created_at: now, updated_at: now,
      })),
    )}`
    const claims = await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 2 ? sa : sb).claim(now, 40, 60_000)),
    )
    // (an earlier test's job, its lease expired long before `now`, may be among them)
    const ids = claims.flat().filter((j) => j.kind === k).map((j) => j.id)
    expect(ids).toHaveLength(300)
    expect(new Set(ids).size).toBe(300)
  })

  test('enqueue through a transaction commits with it or not at all', async () => {
    const k = kind()
    const now = at()
    let inside = 0
    await expect(
      a.sql.begin(async (tx) => {
        inside = await sa.insert(newJob(k, { x: 1 }, 3, now), tx)
        throw new Error('roll back')
      }),
    ).rejects.toThrow('roll back')
    expect(inside).toBeGreaterThan(0)
    expect(await sa.get(inside)).toBeNull()
    const committed = await a.sql.begin((tx) => sa.insert(newJob(k, { x: 2 }, 3, now), tx))
    expect(await sb.get(committed)).toMatchObject({ kind: k, payload: '{"x":2}', status: 'pending' })
  })
})
