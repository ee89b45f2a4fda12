// Verbs of the job queue's admin view (section conversions: forwarded postbacks are conversion work).
import { Type } from '@sinclair/typebox'
import { conflict, invalid, notFound } from '../lib/errors'
import { Int } from '../lib/fields'
import { parseCursor, parseLimit, toPage } from '../lib/paging'
import { defineVerb, type VerbSet } from '../lib/verb'
import { toJobRow, type JobStore } from './store'
import { JOB_STATUSES, type JobQueue } from './types'

export interface JobsVerbDeps {
  store: JobStore
  queue: JobQueue
  /** Attempts a retried job gets afresh (SVC_JOBS_MAX_ATTEMPTS). */
  maxAttempts: number
}

const text = () => Type.Optional(Type.String())

export function jobsVerbs({ store, queue, maxAttempts }: JobsVerbDeps) {
  const found = async (id: number) => {
    const row = await store.get(id)
    if (!row) throw notFound('job not found')
    return row
  }

  return {
    list: defineVerb({
      name: 'jobs.list',
      summary: 'List outbound jobs, newest first (filters status, kind)',
      permission: 'conversions:read',
      input: Type.Object({ status: text(), kind: text(), limit: text(), cursor: text() }),
      async run(_actor, input) {
        const status = input.status || undefined
        if (status && !(JOB_STATUSES as readonly string[]).includes(status)) {
          throw invalid(`status: must be one of ${JOB_STATUSES.join(', ')}`)
        }
        const limit = parseLimit(input.limit)
        const before = parseCursor(input.cursor)
        const rows = await store.list({ status, kind: input.kind || undefined, before, limit: limit + 1 })
        return toPage(rows, { limit }, toJobRow)
      },
    }),
    get: defineVerb({
      name: 'jobs.get',
      summary: 'Get a job',
      permission: 'conversions:read',
      input: Type.Object({ id: Int() }),
      run: async (_actor, { id }) => toJobRow(await found(id)),
    }),
    retry: defineVerb({
      name: 'jobs.retry',
      summary: 'Retry a failed job now, with a fresh attempt budget',
      permission: 'conversions:write',
      input: Type.Object({ id: Int() }),
      async run(_actor, { id }) {
        const retried = await store.retry(id, maxAttempts, Date.now())
        const row = await found(id)
        if (!retried) throw conflict(`job ${id} is ${row.status}; only failed jobs can be retried`)
        queue.kick()
        return toJobRow(row)
      },
    }),
  } satisfies VerbSet
}

export type JobsVerbs = ReturnType<typeof jobsVerbs>
