import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { openDatabase } from '../../src/db/client'
import { migrate } from '../../src/db/migrate'
import { createJobStore } from '../../src/jobs/store'
import { expectOutcomesGrouped } from './grouped-outcomes'
import { engineEnv, startServer, type TestServer } from '../helpers/server'
import { startListener } from '../helpers/listener'
import { testDb, type TestDb } from '../helpers/db'
import { onPostgres } from '../helpers/pg'
import { JobError } from '../../src/jobs/types'
import { invoke, systemActor } from '../../src/lib/verb'
import { addClick, eventually, postback, seedCatalog, type JobDbRow } from '../postback/seed'

const PRIVATE_OK = { SVC_OUTBOUND_ALLOW_PRIVATE: '1' }

/**
 * The database of a stopped server, opened behind its back: its SQLite file, or on Postgres the database
 * that stands for its data dir. `close` ends the SQLite handle (the Postgres test client is shared).
 */
async function dbOnDisk(dataDir: string): Promise<{ db: TestDb; close(): void }> {
  if (onPostgres) {
    const { SVC_DATABASE_URL: url } = await engineEnv(dataDir)
    return { db: testDb({ ctx: { database: { engine: 'postgres', url } } } as never), close() {} }
  }
  const raw = new Database(join(dataDir, 'svc.db'))
  return { db: testDb({ ctx: { database: { engine: 'sqlite', raw } } } as never), close: () => raw.close() }
}

/** Reads the jobs table of a stopped server straight from its database. */
async function jobsOnDisk(dataDir: string): Promise<JobDbRow[]> {
  const { db, close } = await dbOnDisk(dataDir)
  try {
    return await db.all<JobDbRow>('SELECT * FROM jobs ORDER BY id')
  } finally {
    close()
  }
}

function jobRow(s: TestServer, id: number): Promise<JobDbRow> {
  return testDb(s).get<JobDbRow>('SELECT * FROM jobs WHERE id = $id', { id }) as Promise<JobDbRow>
}

const settled = (s: TestServer, id: number, status: string) =>
  eventually(async () => { const j = await jobRow(s, id); return j.status === status ? j : undefined }, 10_000, `job ${id} ${status}`)

describe('durability across restarts', () => {
  test('a job pending when the server stops is resumed by the next server on the same data dir', async () => {
    let up = false
    const l = startListener(() => new Response('', { status: up ? 200 : 503 }))
    const env = { ...PRIVATE_OK, SVC_JOBS_MAX_ATTEMPTS: '50', SVC_JOBS_BACKOFF_MS: '100', SVC_JOBS_BACKOFF_MAX_MS: '100' }
    const first = await startServer(env)
    const id = await addClick(first, await seedCatalog(first, { postbackUrl: `${l.base}/pb?c={click_id}` }))
    await postback(first, `subid=${id}`)
    await l.waitFor(1)
    await first.stop()
    const [stopped] = await jobsOnDisk(first.dataDir)
    expect(stopped).toMatchObject({ status: 'pending', kind: 'source_postback' })
    expect(stopped!.last_error).toStartWith('HTTP 503')

    up = true
    const second = await startServer(env, first.dataDir)
    try {
      const done = await settled(second, stopped!.id, 'done')
      expect(done.attempts).toBe(stopped!.attempts + 1)
      expect(l.received.at(-1)!.url.search).toBe(`?c=${id}`)
    } finally {
      await second.destroy()
      l.stop()
    }
  })

  test('jobs left running by a crash are reset at start: retried when attempts remain, failed when not', async () => {
    const l = startListener()
    const first = await startServer(PRIVATE_OK)
    await first.stop()
    const { db, close } = await dbOnDisk(first.dataDir)
    const insert = async (attempts: number, max: number) => (await db.get<{ id: number }>(
      "INSERT INTO jobs (kind, payload, status, attempts, max_attempts, next_run_at, created_at, updated_at) VALUES ('source_postback', $payload, 'running', $attempts, $max, 0, 0, 0) RETURNING id",
      { payload: JSON.stringify({ conversion_id: 1, url: `${l.base}/crashed` }), attempts, max },
    ))!.id
    const retryable = await insert(1, 8)
    const exhausted = await insert(3, 3)
    close()

    const second = await startServer(PRIVATE_OK, first.dataDir)
    try {
      const done = await settled(second, retryable, 'done')
      expect(done.attempts).toBe(2)
      expect(done.last_error).toBe('attempt 1 was interrupted (server stopped or crashed during it)')
      const failed = await jobRow(second, exhausted)
      expect(failed.status).toBe('failed')
      expect(failed.last_error).toBe('attempt 3 of 3 was interrupted (server stopped or crashed during it); no attempts left')
      expect(l.received).toHaveLength(1)
    } finally {
      await second.destroy()
      l.stop()
    }
  })

  test('a graceful stop waits for the attempt in flight and records its outcome', async () => {
    const l = startListener(async () => {
      await Bun.sleep(700)
      return new Response('slow but fine')
    })
    const s = await startServer({ ...PRIVATE_OK, SVC_JOBS_TIMEOUT_MS: '5000' })
    const id = await addClick(s, await seedCatalog(s, { postbackUrl: `${l.base}/pb?c={click_id}` }))
    await postback(s, `subid=${id}`)
    await l.waitFor(1)
    await s.stop()
    try {
      expect(await jobsOnDisk(s.dataDir)).toMatchObject([{ status: 'done', attempts: 1, result: expect.stringMatching(/^HTTP 200 in \d+ ms$/) }])
      expect(l.received).toHaveLength(1)
    } finally {
      rmSync(s.dataDir, { recursive: true, force: true })
      l.stop()
    }
  })
})

describe('the loop', () => {
  let s: TestServer
  let flakyCalls = 0
  const backoffCalls: number[] = []
  let active = 0
  let maxActive = 0

  beforeAll(async () => {
    s = await startServer({
      SVC_JOBS_TIMEOUT_MS: '300', SVC_JOBS_MAX_ATTEMPTS: '3', SVC_JOBS_BACKOFF_MS: '200', SVC_JOBS_BACKOFF_MAX_MS: '250',
      SVC_JOBS_CONCURRENCY: '2',
    })
    s.ctx.jobs.register('test_hard', async () => { throw new JobError('bad input', false) })
    s.ctx.jobs.register('test_flaky', async () => {
      if (++flakyCalls === 1) throw new Error('transient')
      return 'fine'
    })
    s.ctx.jobs.register('test_ignores_signal', () => new Promise(() => {}))
    s.ctx.jobs.register('test_backoff', async () => {
      backoffCalls.push(Date.now())
      throw new Error('again')
    })
    s.ctx.jobs.register('test_nul_result', async () => 'fine\0then')
    s.ctx.jobs.register('test_nul_error', async () => { throw new JobError('bad\0byte', false) })
    s.ctx.jobs.register('test_slow', async () => {
      maxActive = Math.max(maxActive, ++active)
      await Bun.sleep(100)
      active--
    })
  })
  afterAll(() => s.destroy())

  const run = async (kind: string, payload: unknown = {}) => {
    const id = await s.ctx.jobs.enqueue(kind, payload)
    s.ctx.jobs.kick()
    return id
  }

  test('an unknown kind (a row of another version) fails at once with a clear error; enqueueing one is refused', async () => {
    expect(() => s.ctx.jobs.enqueue('no_such_kind', {})).toThrow('job kind "no_such_kind" is not registered')
    const now = Date.now()
    const { id } = (await testDb(s).get<{ id: number }>(
      "INSERT INTO jobs (kind, payload, status, attempts, max_attempts, next_run_at, created_at, updated_at) VALUES ('no_such_kind', '{}', 'pending', 0, 3, $now, $now, $now) RETURNING id",
      { now },
    ))!
    s.ctx.jobs.kick()
    const job = await settled(s, id, 'failed')
    expect(job.attempts).toBe(1)
    expect(job.last_error).toBe('unknown job kind "no_such_kind" (no handler registered) (attempt 1 of 3; not retryable)')
  })

  test('a non-retryable JobError fails at once', async () => {
    const job = await settled(s, await run('test_hard'), 'failed')
    expect(job).toMatchObject({ attempts: 1, last_error: 'bad input (attempt 1 of 3; not retryable)' })
  })

  test('any other error is retried, and the result text of the success is kept', async () => {
    const job = await settled(s, await run('test_flaky'), 'done')
    expect(job).toMatchObject({ attempts: 2, result: 'fine', last_error: 'transient (attempt 1 of 3; will retry)' })
  })

  test('a handler that ignores its signal is cut off at the timeout and retried until max_attempts', async () => {
    const job = await settled(s, await run('test_ignores_signal'), 'failed')
    expect(job).toMatchObject({ attempts: 3, last_error: 'timed out after 300 ms (attempt 3 of 3; no attempts left)' })
  })

  test('retries wait an exponential backoff capped at the maximum', async () => {
    const job = await settled(s, await run('test_backoff'), 'failed')
    expect(job.attempts).toBe(3)
    expect(backoffCalls).toHaveLength(3)
    expect(backoffCalls[1]! - backoffCalls[0]!).toBeGreaterThanOrEqual(200) // base · 2⁰
    expect(backoffCalls[2]! - backoffCalls[1]!).toBeGreaterThanOrEqual(250) // base · 2¹ = 400, capped at 250
  })

  test('runs at most the configured number of attempts at once', async () => {
    const ids = await Promise.all([1, 2, 3, 4, 5].map(() => s.ctx.jobs.enqueue('test_slow', {})))
    s.ctx.jobs.kick()
    for (const id of ids) await settled(s, id, 'done')
    expect(maxActive).toBe(2)
  })

  test('a result or error with U+0000 is stored with U+FFFD in its place (Postgres text cannot hold it)', async () => {
    const [ok, bad] = [await run('test_nul_result'), await run('test_nul_error')]
    expect(await settled(s, ok, 'done')).toMatchObject({ result: 'fine\uFFFDthen' })
    expect(await settled(s, bad, 'failed')).toMatchObject({ last_error: 'bad\uFFFDbyte (attempt 1 of 3; not retryable)' })
  })

  test('the payload is stored as JSON and shown as an object', async () => {
    const id = await run('test_hard', { a: [1, 'two'], b: null })
    await settled(s, id, 'failed')
    expect(((await invoke(s.server.verbs.get('jobs.get')!, systemActor('test'), { id })) as { payload: unknown }).payload).toEqual({ a: [1, 'two'], b: null })
  })
})

describe('outcomes on SQLite', () => {
  test('outcomes of attempts that end in one turn of the event loop go in one write, each applied', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-loop-'))
    const db = await openDatabase(join(dir, 'svc.db'))
    try {
      migrate(db)
      await expectOutcomesGrouped(createJobStore(db), { pollMs: 50, timeoutMs: 2000, maxAttempts: 3, backoffBaseMs: 200, backoffMaxMs: 250, concurrency: 16 })
    } finally {
      db.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
