// Admin view of the job queue: thin routes over the jobs verbs. The guard lets in whoever holds the action
// in some section; each verb then checks the section of the jobs themselves (conversions, email…).
import { Elysia } from 'elysia'
import type { AppContext } from '../context'
import { adminGuard } from '../http/admin-guard'
import { docQuery } from '../http/api-docs'
import { firstParam as first, pageQuery, parseId } from '../http/collection'
import { adminActor, invoke } from '../lib/verb'
import { SECTIONS } from '../lib/permissions'
import { JOB_STATUSES } from './types'
import type { JobsVerbs } from './verbs'

/** Documentation only: the verb parses each value (400 naming the field). */
const jobsQuery = docQuery({
  status: `one of ${JOB_STATUSES.join(', ')}`,
  kind: 'job kind, e.g. source_postback',
  section: `only the jobs of this permission section (${SECTIONS.join(', ')}); default: every section you may read`,
  conversion_id: 'only the postbacks forwarded to the traffic source for this conversion',
  limit: pageQuery.properties.limit.description!,
  cursor: pageQuery.properties.cursor.description!,
})

const jobId = (raw: string) => parseId(raw, 'job')

export function jobsRoutes(ctx: AppContext, verbs: JobsVerbs) {
  return new Elysia({ name: 'jobs-admin' })
    .use(adminGuard(ctx))
    .get(
      '/admin/api/jobs',
      ({ admin, query }) =>
        invoke(verbs.list, adminActor(admin), {
          status: first(query.status), kind: first(query.kind), section: first(query.section), conversion_id: first(query.conversion_id), limit: first(query.limit),
          cursor: first(query.cursor),
        }),
      { someSection: 'read', query: jobsQuery, detail: { tags: ['jobs'], summary: verbs.list.summary } },
    )
    .get('/admin/api/jobs/:id', ({ admin, params }) => invoke(verbs.get, adminActor(admin), { id: jobId(params.id) }), {
      someSection: 'read',
      detail: { tags: ['jobs'], summary: verbs.get.summary },
    })
    .post('/admin/api/jobs/:id/retry', ({ admin, params }) => invoke(verbs.retry, adminActor(admin), { id: jobId(params.id) }), {
      someSection: 'write',
      detail: { tags: ['jobs'], summary: verbs.retry.summary },
    })
    .post('/admin/api/jobs/:id/cancel', ({ admin, params }) => invoke(verbs.cancel, adminActor(admin), { id: jobId(params.id) }), {
      someSection: 'write',
      detail: { tags: ['jobs'], summary: verbs.cancel.summary },
    })
}
