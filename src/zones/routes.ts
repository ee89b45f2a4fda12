// /admin/api/blocked-zones and /admin/api/saved-views: thin routes over the zone verbs (parse, invoke, shape).
import { Elysia, t } from 'elysia'
import type { AppContext } from '../context'
import { adminGuard } from '../http/admin-guard'
import { docQuery, lenientBody } from '../http/api-docs'
import { csvHeaders } from '../lib/csv'
import { invalid } from '../lib/errors'
import { adminActor, invoke } from '../lib/verb'
import { AddInput, MAX_STATE, renderZone, ZoneCsv, type ZoneVerbs } from './verbs'

const idParams = t.Object({ id: t.String({ pattern: '^[0-9]{1,9}$', description: 'row id' }) })
const obj = (body: unknown) => (body !== null && typeof body === 'object' && !Array.isArray(body) ? body as Record<string, unknown> : {})

export function zoneRoutes(ctx: AppContext, verbs: ZoneVerbs) {
  const zones = ['blocked zones']
  return new Elysia({ name: 'zones' })
    .use(adminGuard(ctx))
    .get('/admin/api/blocked-zones', async ({ admin, query }) => {
      const q = query as Record<string, string | undefined>
      if (q.format === 'csv') {
        const file = await invoke(verbs.export, adminActor(admin), { source_id: q.source_id ?? '', campaign_id: q.campaign_id })
        return new Response((file as ZoneCsv).body, { headers: csvHeaders((file as ZoneCsv).name) })
      }
      if (q.format !== undefined && q.format !== '' && q.format !== 'json') throw invalid('format: must be json or csv')
      const page = await invoke(verbs.list, adminActor(admin), { source_id: q.source_id, campaign_id: q.campaign_id, limit: q.limit, cursor: q.cursor })
      return { items: page.items.map(renderZone), next_cursor: page.next_cursor }
    }, {
      permission: 'campaigns:read',
      query: docQuery({
        source_id: 'only this traffic source', campaign_id: 'only what blocks this campaign (its own rows and the source-wide ones)',
        limit: 'rows per page (default 50, at most 500)', cursor: 'next_cursor of the previous page',
        format: 'json (default) or csv: the whole list of source_id as blocked-zones-<source>.csv',
      }),
      detail: { tags: zones, summary: verbs.list.summary },
    })
    .get('/admin/api/blocked-zones/:id', async ({ admin, params }) => renderZone(await invoke(verbs.get, adminActor(admin), { id: Number(params.id) })), {
      permission: 'campaigns:read', params: idParams, detail: { tags: zones, summary: verbs.get.summary },
    })
    .post('/admin/api/blocked-zones', async ({ admin, body, set }) => {
      const out = await invoke(verbs.add, adminActor(admin), obj(body) as never)
      set.status = 201
      return out
    }, {
      permission: 'campaigns:write',
      body: lenientBody('values blocked at a source: 201 {items (each with new: whether this call added it), added, kept}', AddInput as unknown as Record<string, unknown>),
      detail: { tags: zones, summary: verbs.add.summary },
    })
    .delete('/admin/api/blocked-zones/:id', async ({ admin, params, set }) => {
      await invoke(verbs.delete, adminActor(admin), { id: Number(params.id) })
      set.status = 204
      return null
    }, { permission: 'campaigns:write', params: idParams, detail: { tags: zones, summary: verbs.delete.summary } })
    .get('/admin/api/saved-views', ({ admin, query }) => invoke(verbs.listViews, adminActor(admin), { screen: (query as Record<string, string | undefined>).screen }), {
      admin: true, query: docQuery({ screen: 'only this screen (reports…)' }), detail: { tags: ['saved views'], summary: verbs.listViews.summary },
    })
    .post('/admin/api/saved-views', async ({ admin, body, set }) => {
      const out = await invoke(verbs.createView, adminActor(admin), obj(body) as never)
      set.status = 201
      return out
    }, {
      admin: true,
      body: lenientBody(`{screen, name, state}: state is the screen's query string (at most ${MAX_STATE} characters)`, {
        type: 'object', properties: { screen: { type: 'string' }, name: { type: 'string', maxLength: 100 }, state: { type: 'string', maxLength: MAX_STATE } },
        required: ['screen', 'name', 'state'],
      }),
      detail: { tags: ['saved views'], summary: verbs.createView.summary },
    })
    .delete('/admin/api/saved-views/:id', async ({ admin, params, set }) => {
      await invoke(verbs.deleteView, adminActor(admin), { id: Number(params.id) })
      set.status = 204
      return null
    }, { admin: true, params: idParams, detail: { tags: ['saved views'], summary: verbs.deleteView.summary } })
}
