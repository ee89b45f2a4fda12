// The job loop's group commit of outcomes, the same check on either engine (loop.test.ts: SQLite,
// pg-loop.test.ts: Postgres): 16 attempts end at once, and their outcomes reach the real store in fewer
// than 16 writes (before session 23, each was a statement and a commit of its own), each one right.
import { expect } from 'bun:test'
import { JobLoop, type JobLoopOptions } from '../../src/jobs/loop'
import type { JobStore } from '../../src/jobs/store'
import { JobError } from '../../src/jobs/types'
import { eventually } from '../postback/seed'

export async function expectOutcomesGrouped(store: JobStore, opts: JobLoopOptions): Promise<void> {
  // The real store, its record() calls counted: what the loop writes, and in how many writes.
  const writes: number[][] = []
  const counted: JobStore = Object.create(store)
  counted.record = (outcomes) => {
    writes.push(outcomes.map((o) => o.job.id))
    return store.record(outcomes)
  }
  const l = new JobLoop(counted, { ...opts, concurrency: 16 })
  try {
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    let started = 0
    l.register('gated', async (p) => {
      started++
      await gate
      if ((p as { n: number }).n % 4 === 0) throw new JobError('refused', false)
      return `ok ${(p as { n: number }).n}`
    })
    const ids = await l.enqueueMany('gated', Array.from({ length: 16 }, (_, n) => ({ n })))
    l.start()
    await eventually(() => started === 16 || undefined, 10_000, 'all 16 attempts to start')
    release() // every attempt ends at once
    await eventually(() => writes.flat().length === 16 || undefined, 10_000, 'every outcome written')
    expect(writes.length).toBeLessThan(16)
    expect(writes.flat().sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b))
    for (const [n, id] of ids.entries()) {
      expect(await store.get(id)).toMatchObject(n % 4 === 0
        ? { status: 'failed', attempts: 1, last_error: 'refused (attempt 1 of 3; not retryable)' }
        : { status: 'done', attempts: 1, result: `ok ${n}` })
    }
  } finally {
    await l.stop()
  }
}
