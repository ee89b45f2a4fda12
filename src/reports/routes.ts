// GET /admin/api/reports (JSON or CSV) and GET /admin/api/reports/conversions (CSV export): thin routes
// over the reports verbs.
import { Elysia } from 'elysia'
import type { AppContext } from '../context'
import { adminGuard } from '../http/admin-guard'
import { adminActor, invoke } from '../lib/verb'
import { flatQuery } from './params'
import { CsvFile, type ReportsVerbs } from './verbs'

export function reportRoutes(ctx: AppContext, verbs: ReportsVerbs) {
  return new Elysia({ name: 'reports' })
    .use(adminGuard(ctx))
    .get(
      '/admin/api/reports',
      async ({ admin, query }) => {
        const out = await invoke(verbs.run, adminActor(admin), flatQuery(query))
        return out instanceof CsvFile ? out.toResponse() : out
      },
      { permission: 'reports:read', detail: { tags: ['reports'], summary: verbs.run.summary } },
    )
    .get(
      '/admin/api/reports/conversions',
      async ({ admin, query }) => (await invoke(verbs.exportConversions, adminActor(admin), flatQuery(query))).toResponse(),
      { permission: 'reports:read', detail: { tags: ['reports'], summary: verbs.exportConversions.summary } },
    )
}
