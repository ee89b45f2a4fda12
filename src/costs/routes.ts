// /admin/api/cost-updates: thin routes over the cost update verbs (JSON, the CSV upload, the history).
import { Elysia } from 'elysia'
import type { AppContext } from '../context'
import { adminGuard } from '../http/admin-guard'
import { docQuery, lenientBody } from '../http/api-docs'
import { adminActor, invoke } from '../lib/verb'
import { MAX_CSV_ROWS } from './csv'
import { CostUpdateInput, type CostVerbs } from './verbs'

const tags = ['campaigns']

export function costRoutes(ctx: AppContext, verbs: CostVerbs) {
  return new Elysia({ name: 'cost-updates' })
    .use(adminGuard(ctx))
    .post('/admin/api/cost-updates', ({ admin, body }) => invoke(verbs.update, adminActor(admin), body as never), {
      permission: 'campaigns:write',
      body: lenientBody('the spend of a campaign over local days, spread over its clicks (docs/costs.md)', CostUpdateInput as unknown as Record<string, unknown>),
      detail: {
        tags, summary: verbs.update.summary,
        description: 'Replaces the cost of every matching click (excluded own-IP clicks aside; bot clicks included) so that they add up to `amount` ' +
          'exactly, one local day per transaction; re-sending replaces, never adds. 409 when no click matches or retention deleted the raw clicks of a day.',
      },
    })
    .post('/admin/api/cost-updates/import', ({ admin, body, query }) =>
      invoke(verbs.importCsv, adminActor(admin), { csv: typeof body === 'string' ? body : '', sub: query.sub as string | undefined, time_zone: query.time_zone as string | undefined }), {
      csvUpload: 'campaigns:write',
      query: docQuery({
        sub: 'which sub the sub_value column holds: sub1..sub10 or a link parameter name (a sub column wins per row)',
        time_zone: 'IANA time zone of the dates (default UTC)',
      }),
      detail: {
        tags, summary: verbs.importCsv.summary,
        description: `Body: the CSV file itself (content-type: text/csv), at most ${MAX_CSV_ROWS} rows: date (YYYY-MM-DD), campaign (id or slug), ` +
          'sub_value (empty: every click of the day), amount; an optional header row names the columns (then also sub). ' +
          'Every row is checked first (400 naming its row and column; 409 when a row matches no click), then each is applied as a one-day update, in file order. ' +
          'Uploading the same file again leaves the same costs.',
      },
    })
    .get('/admin/api/cost-updates', ({ admin, query }) => invoke(verbs.list, adminActor(admin), query), {
      permission: 'campaigns:read',
      query: docQuery({ campaign_id: 'only this campaign', limit: 'rows per page', cursor: 'next_cursor of the previous page' }),
      detail: { tags, summary: verbs.list.summary },
    })
}
