// Landings under /admin/api/landings: the HTTP shape of the catalog.landings verbs.
import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { adminGuard } from '../../http/admin-guard'
import { idParams, okResponse, pageSchema, pageQuery, parseId } from '../../http/collection'
import { adminActor, invoke } from '../../lib/verb'
import { renderLanding, LandingCreate, LandingPatch, LandingRecord } from './model'
import type { landingVerbs } from './verbs'

const tags = ['landings']

export const landingRoutes = (ctx: AppContext, verbs: ReturnType<typeof landingVerbs>) =>
  new Elysia({ name: 'catalog-landings' })
    .use(adminGuard(ctx))
    .get('/admin/api/landings', async ({ query, admin }) => {
      const page = await invoke(verbs.list, adminActor(admin), query)
      return { items: page.items.map(renderLanding), next_cursor: page.next_cursor }
    }, { permission: 'landings:read', query: pageQuery, response: pageSchema(LandingRecord), detail: { tags, summary: 'List landings' } })
    .post('/admin/api/landings', async ({ body, set, admin }) => {
      const created = await invoke(verbs.create, adminActor(admin), body)
      set.status = 201
      return renderLanding(created)
    }, { permission: 'landings:write', body: LandingCreate, response: { 201: LandingRecord }, detail: { tags, summary: 'Create a landing' } })
    .get('/admin/api/landings/:id', async ({ params, admin }) =>
      renderLanding(await invoke(verbs.get, adminActor(admin), { id: parseId(params.id, 'landing') })),
      { permission: 'landings:read', params: idParams, response: LandingRecord, detail: { tags, summary: 'Get a landing' } })
    .patch('/admin/api/landings/:id', async ({ params, body, admin }) =>
      renderLanding(await invoke(verbs.update, adminActor(admin), { ...body, id: parseId(params.id, 'landing') })),
      { permission: 'landings:write', params: idParams, body: LandingPatch, response: LandingRecord, detail: { tags, summary: 'Change a landing' } })
    .delete('/admin/api/landings/:id', ({ params, admin }) => invoke(verbs.delete, adminActor(admin), { id: parseId(params.id, 'landing') }),
      { permission: 'landings:write', params: idParams, response: okResponse, detail: { tags, summary: 'Delete a landing (409 while a campaign uses it)' } })
