// Admin view of the job queue (section conversions: forwarded postbacks are conversion work).
import { Elysia } from 'elysia'
import type { AppContext } from '../context'
import { adminGuard } from '../http/admin-guard'
import { notFound } from '../lib/errors'
import { parseCursor, parseLimit } from '../lib/paging'

function found<T>(value: T | null): T {
  if (value === null) throw notFound('job not found')
  return value
}

function jobId(raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw notFound('job not found')
  return Number(raw)
}

/** A repeated query parameter counts once (first occurrence); never an array bound into SQL. */
function first(v: unknown): string | undefined {
  if (Array.isArray(v)) return v.length ? String(v[0]) : undefined
  return v === undefined ? undefined : String(v)
}


export function jobsAdminRoutes(ctx: AppContext) {
  return new Elysia({ name: 'jobs-admin' })
    .use(adminGuard(ctx))
    .get(
      '/admin/api/jobs',
      ({ query }) =>
        ctx.jobs.list({
          status: first(query.status),
          kind: first(query.kind),
          limit: parseLimit(first(query.limit)),
          before: parseCursor(first(query.cursor)),
        }),
      { permission: 'conversions:read', detail: { tags: ['jobs'], summary: 'List outbound jobs, newest first (filters status, kind)' } },
    )
    .get(
      '/admin/api/jobs/:id',
      ({ params }) => found(ctx.jobs.get(jobId(params.id))),
      { permission: 'conversions:read', detail: { tags: ['jobs'], summary: 'Get a job' } },
    )
    .post(
      '/admin/api/jobs/:id/retry',
      ({ params }) => found(ctx.jobs.retry(jobId(params.id))),
      { permission: 'conversions:write', detail: { tags: ['jobs'], summary: 'Retry a failed job now, with a fresh attempt budget' } },
    )
}
