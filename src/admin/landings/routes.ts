import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { adminGuard } from '../../http/admin-guard'
import { idParams, okResponse, pageSchema, pageQuery, parseId } from '../../http/collection'
import { parsePage, toPage } from '../../lib/paging'
import { renderLanding, LandingCreate, LandingPatch, LandingRecord } from './model'
import { listLandings } from './queries'
import { createLanding, getLandingOrThrow, patchLanding, removeLanding } from './service'

const tags = ['landings']

export const landingRoutes = (ctx: AppContext) =>
  new Elysia({ name: 'admin-landings' })
    .use(adminGuard(ctx))
    .get('/admin/api/landings', ({ query }) => {
      const page = parsePage(query)
      return toPage(listLandings(ctx.database.db, page), page, renderLanding)
    }, { permission: 'landings:read', query: pageQuery, response: pageSchema(LandingRecord), detail: { tags, summary: 'List landings' } })
    .post('/admin/api/landings', ({ body, set }) => {
      set.status = 201
      return renderLanding(createLanding(ctx, body))
    }, { permission: 'landings:write', body: LandingCreate, response: { 201: LandingRecord }, detail: { tags, summary: 'Create a landing' } })
    .get('/admin/api/landings/:id', ({ params }) => renderLanding(getLandingOrThrow(ctx, parseId(params.id, 'landing'))),
      { permission: 'landings:read', params: idParams, response: LandingRecord, detail: { tags, summary: 'Get a landing' } })
    .patch('/admin/api/landings/:id', ({ params, body }) => renderLanding(patchLanding(ctx, parseId(params.id, 'landing'), body)),
      { permission: 'landings:write', params: idParams, body: LandingPatch, response: LandingRecord, detail: { tags, summary: 'Change a landing' } })
    .delete('/admin/api/landings/:id', ({ params }) => {
      removeLanding(ctx, parseId(params.id, 'landing'))
      return { ok: true as const }
    }, { permission: 'landings:write', params: idParams, response: okResponse, detail: { tags, summary: 'Delete a landing (409 while a campaign uses it)' } })
