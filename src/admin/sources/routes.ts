import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { adminGuard } from '../../http/admin-guard'
import { idParams, okResponse, pageSchema, pageQuery, parseId } from '../../http/collection'
import { parsePage, toPage } from '../../lib/paging'
import { renderSource, SourceCreate, SourcePatch, SourceRecord } from './model'
import { listSources } from './queries'
import { createSource, getSourceOrThrow, patchSource, removeSource } from './service'

const tags = ['sources']

export const sourceRoutes = (ctx: AppContext) =>
  new Elysia({ name: 'admin-sources' })
    .use(adminGuard(ctx))
    .get('/admin/api/sources', ({ query }) => {
      const page = parsePage(query)
      return toPage(listSources(ctx.database.db, page), page, renderSource)
    }, { permission: 'campaigns:read', query: pageQuery, response: pageSchema(SourceRecord), detail: { tags, summary: 'List traffic sources' } })
    .post('/admin/api/sources', ({ body, set }) => {
      set.status = 201
      return renderSource(createSource(ctx, body))
    }, { permission: 'campaigns:write', body: SourceCreate, response: { 201: SourceRecord }, detail: { tags, summary: 'Create a traffic source' } })
    .get('/admin/api/sources/:id', ({ params }) => renderSource(getSourceOrThrow(ctx, parseId(params.id, 'source'))),
      { permission: 'campaigns:read', params: idParams, response: SourceRecord, detail: { tags, summary: 'Get a traffic source' } })
    .patch('/admin/api/sources/:id', ({ params, body }) => renderSource(patchSource(ctx, parseId(params.id, 'source'), body)),
      { permission: 'campaigns:write', params: idParams, body: SourcePatch, response: SourceRecord, detail: { tags, summary: 'Change a traffic source' } })
    .delete('/admin/api/sources/:id', ({ params }) => {
      removeSource(ctx, parseId(params.id, 'source'))
      return { ok: true as const }
    }, { permission: 'campaigns:write', params: idParams, response: okResponse, detail: { tags, summary: 'Delete a traffic source (409 while a campaign uses it)' } })
