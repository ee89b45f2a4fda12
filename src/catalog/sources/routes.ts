// Traffic sources under /admin/api/sources: the HTTP shape of the catalog.sources verbs.
import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { adminGuard } from '../../http/admin-guard'
import { idParams, okResponse, pageSchema, pageQuery, parseId } from '../../http/collection'
import { adminActor, invoke } from '../../lib/verb'
import { renderSource, SourceCreate, SourcePatch, SourceRecord } from './model'
import type { sourceVerbs } from './verbs'

const tags = ['sources']

export const sourceRoutes = (ctx: AppContext, verbs: ReturnType<typeof sourceVerbs>) =>
  new Elysia({ name: 'catalog-sources' })
    .use(adminGuard(ctx))
    .get('/admin/api/sources', async ({ query, admin }) => {
      const page = await invoke(verbs.list, adminActor(admin), query)
      return { items: page.items.map(renderSource), next_cursor: page.next_cursor }
    }, { permission: 'campaigns:read', query: pageQuery, response: pageSchema(SourceRecord), detail: { tags, summary: 'List traffic sources' } })
    .post('/admin/api/sources', async ({ body, set, admin }) => {
      const created = await invoke(verbs.create, adminActor(admin), body)
      set.status = 201
      return renderSource(created)
    }, { permission: 'campaigns:write', body: SourceCreate, response: { 201: SourceRecord }, detail: { tags, summary: 'Create a traffic source' } })
    .get('/admin/api/sources/:id', async ({ params, admin }) =>
      renderSource(await invoke(verbs.get, adminActor(admin), { id: parseId(params.id, 'source') })),
      { permission: 'campaigns:read', params: idParams, response: SourceRecord, detail: { tags, summary: 'Get a traffic source' } })
    .patch('/admin/api/sources/:id', async ({ params, body, admin }) =>
      renderSource(await invoke(verbs.update, adminActor(admin), { ...body, id: parseId(params.id, 'source') })),
      { permission: 'campaigns:write', params: idParams, body: SourcePatch, response: SourceRecord, detail: { tags, summary: 'Change a traffic source' } })
    .delete('/admin/api/sources/:id', ({ params, admin }) => invoke(verbs.delete, adminActor(admin), { id: parseId(params.id, 'source') }),
      { permission: 'campaigns:write', params: idParams, response: okResponse, detail: { tags, summary: 'Delete a traffic source (409 while a campaign uses it)' } })
