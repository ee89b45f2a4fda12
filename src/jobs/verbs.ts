// Verbs of the job queue's admin view. Each job belongs to the permission section of its kind (forwarded
// postbacks: conversions; mail: email), so a person sees and acts on the jobs of the sections they hold.
import { Type } from '@sinclair/typebox'
import { can, missingSomeSection, SECTIONS, type Section } from '../lib/permissions'
import { conflict, forbidden, invalid, notFound } from '../lib/errors'
import { Int } from '../lib/fields'
import { parseCursor, parseLimit, toPage } from '../lib/paging'
import { defineVerb, type Actor, type VerbSet } from '../lib/verb'
import { toJobRow, type JobRecord, type JobStore } from './store'
import { JOB_STATUSES, type JobQueue } from './types'

export interface JobsVerbDeps {
  store: JobStore
  queue: JobQueue
  /** Attempts a retried job gets afresh when its kind is unknown to this binary (SVC_JOBS_MAX_ATTEMPTS). */
  maxAttempts: number
}

const text = () => Type.Optional(Type.String())

/** The sections in which the actor may `action` jobs (every one for the system). */
function sectionsFor(actor: Actor, action: 'read' | 'write'): Section[] {
  if (actor.kind === 'system') return [...SECTIONS]
  // An agent token's jobs:<action> scope reaches the jobs of every kind (jobs are their own resource).
  if (actor.user.agent) return actor.user.agent.scopes.has(`jobs:${action}`) ? [...SECTIONS] : []
  return SECTIONS.filter((s) => can(actor.user, s, action))
}

/** 403 before anything is looked up when the actor may `action` in no section at all (so ids leak nothing). */
function requireSome(actor: Actor, action: 'read' | 'write'): Section[] {
  const sections = sectionsFor(actor, action)
  if (sections.length === 0) throw forbidden(missingSomeSection(action))
  return sections
}

/** 403 unless the actor may `action` the job's section (a section this binary does not know: owners only). */
function check(actor: Actor, job: JobRecord, action: 'read' | 'write'): void {
  if (actor.kind === 'system' || actor.user.agent) return
  const section = (SECTIONS as readonly string[]).includes(job.section) ? (job.section as Section) : null
  if (section ? !can(actor.user, section, action) : !actor.user.isOwner) throw forbidden(`missing permission ${job.section}:${action}`)
}

export function jobsVerbs({ store, queue, maxAttempts }: JobsVerbDeps) {
  const found = async (id: number) => {
    const row = await store.get(id)
    if (!row) throw notFound('job not found')
    return row
  }
  /** The job, once the actor may `action` it (403 before the lookup when they may act in no section at all). */
  const allowed = async (actor: Actor, id: number, action: 'read' | 'write') => {
    requireSome(actor, action)
    const job = await found(id)
    check(actor, job, action)
    return job
  }

  return {
    list: defineVerb({
      name: 'jobs.list',
      summary: 'List outbound jobs of the sections you may read, newest first (filters status, kind, section, conversion_id: the forwarded postbacks of one conversion)',
      // Checked in run(): any section's read permission lets a person see that section's jobs.
      permission: null,
      input: Type.Object({ status: text(), kind: text(), section: text(), conversion_id: text(), limit: text(), cursor: text() }),
      async run(actor, input) {
        if (input.conversion_id && !/^\d{1,15}$/.test(input.conversion_id)) throw invalid('conversion_id: must be a whole number')
        const conversionId = input.conversion_id ? Number(input.conversion_id) : undefined
        const status = input.status || undefined
        if (status && !(JOB_STATUSES as readonly string[]).includes(status)) {
          throw invalid(`status: must be one of ${JOB_STATUSES.join(', ')}`)
        }
        const wanted = input.section || undefined
        if (wanted && !(SECTIONS as readonly string[]).includes(wanted)) throw invalid(`section: must be one of ${SECTIONS.join(', ')}`)
        let sections: readonly string[] = requireSome(actor, 'read')
        if (wanted) {
          if (!sections.includes(wanted)) throw forbidden(`missing permission ${wanted}:read`)
          sections = [wanted]
        }
        const limit = parseLimit(input.limit)
        const before = parseCursor(input.cursor)
        // The system and owners see every row, including a section this binary does not know.
        const all = !wanted && (actor.kind === 'system' || actor.user.isOwner || actor.user.agent !== undefined)
        const rows = await store.list({ status, kind: input.kind || undefined, sections: all ? undefined : sections, before, conversionId, limit: limit + 1 })
        return toPage(rows, { limit }, toJobRow)
      },
    }),
    get: defineVerb({
      name: 'jobs.get',
      summary: 'Get a job',
      permission: null, // the job's section, checked in run()
      input: Type.Object({ id: Int() }),
      run: async (actor, { id }) => toJobRow(await allowed(actor, id, 'read')),
    }),
    retry: defineVerb({
      name: 'jobs.retry',
      summary: "Retry a failed job now, with a fresh attempt budget (its kind's)",
      permission: null, // the job's section, checked in run()
      input: Type.Object({ id: Int() }),
      async run(actor, { id }) {
        const job = await allowed(actor, id, 'write')
        const retried = await store.retry(id, queue.policyOf(job.kind)?.maxAttempts ?? maxAttempts, Date.now())
        const row = await found(id)
        if (!retried) throw conflict(`job ${id} is ${row.status}; only failed jobs can be retried`)
        queue.kick()
        return toJobRow(row)
      },
    }),
    cancel: defineVerb({
      name: 'jobs.cancel',
      summary: 'Cancel a pending job (it will not run); a running, done or failed one is left as it is',
      permission: null, // the job's section, checked in run()
      input: Type.Object({ id: Int() }),
      async run(actor, { id }) {
        await allowed(actor, id, 'write')
        const cancelled = await store.cancel(id, Date.now())
        const row = await found(id)
        if (!cancelled) throw conflict(`job ${id} is ${row.status}; only pending jobs can be cancelled`)
        return toJobRow(row)
      },
    }),
  } satisfies VerbSet
}

export type JobsVerbs = ReturnType<typeof jobsVerbs>
